"""Seed 003's sizing (``iosizer size cores``), declared on the question 'loadshare load' and answered by
the generic search (iosizer.calibration.declared_sizing): against brute force over the same model."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import iosizer
from iosizer.calibration import loadshare as loadshare_family
from iosizer.errors import UnstableQueueError
from iosizer.model.loadshare import evaluate
from iosizer.model.sizing import UnreachableTargetError

FEW = settings(max_examples=15, deadline=None, derandomize=True)
POLICIES = ("shared", "exclusive", "one-stage", "multi-stage")


def _response(policy, load, shares, params) -> float:
    try:
        return float(evaluate(policy, [load], shares, params).response[0])
    except UnstableQueueError:
        return float("inf")


@FEW
@given(load=st.floats(0.2, 6.0), target=st.floats(1.2, 8.0), scenario=st.sampled_from(["one-port", "system", "skew"]))
def test_cores_per_policy_are_the_brute_force_counts(load, target, scenario) -> None:
    chosen = loadshare_family.scenario(scenario)
    params = loadshare_family.policy_params(chosen.cores)
    target += params.non_core  # every response includes the non-core part of a write hit (issue 15)
    answers = iosizer.family("loadshare").size(target_response=target, load_cores=load, scenario=scenario,
                                               max_cores=24).to_data()
    assert [a["policy"] for a in answers] == list(POLICIES)
    for answer in answers:
        responses = [_response(answer["policy"], load, chosen.port_shares, replace(params, cores=n))
                     for n in range(1, 25)]
        brute = next((n + 1 for n, r in enumerate(responses) if r <= target), None)
        assert answer["cores"] == brute, answer["policy"]
        assert (answer["reason"] == "") == (brute is not None)
        if answer["max_load_cores_at_given"] is not None:
            assert _response(answer["policy"], answer["max_load_cores_at_given"], chosen.port_shares,
                             params) <= target * (1 + 1e-9)


def test_cores_port_groups_follow_the_policy() -> None:
    size = iosizer.family("loadshare").size
    answers = {a["policy"]: a for a in size(target_response=3.4, load_cores=3.0, scenario="skew",
                                            policy="shared,multi-stage").to_data()}
    assert [g["cores_per_port"] for g in answers["shared"]["port_groups"]] == [4, 4]
    hot, cold = answers["multi-stage"]["port_groups"]
    assert hot["ports"] == 1 and hot["cores_per_port"] > cold["cores_per_port"] == 1
    with pytest.raises(UnreachableTargetError, match="an I/O alone takes one service time"):
        size(target_response=1.0, load_cores=1.0, policy="shared")
    exclusive, = size(target_response=3.4, load_cores=3.0, scenario="skew", policy="exclusive").to_data()
    assert exclusive["cores"] is None and exclusive["reason"].startswith("no core count up to 256 carries the load")

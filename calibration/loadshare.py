"""Seed 003 scenarios and figure normalisation for :mod:`iosizer.model.loadshare`.

The scenarios are tables 2-4 of seed 003 (``seed003_tables2_4_scenarios``):
per-port I/O shares on a 4-core controller. The normalisation is the one
each figure states (``seed003_figure_findings``): throughput relative to
one policy's maximum and response relative to the same policy's minimum
(figure 9: shared, figure 10: exclusive, figure 11: multi-stage).

Parameter values are the ``loadshare`` family's declaration
(:mod:`iosizer.model.loadshare`); :func:`policy_params` fills whatever the
caller leaves out from it, and :func:`solve_values` adds the scenario's port
shares, which the model (no I/O) cannot read itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from iosizer.calibration.shipped import read_measurement
from iosizer.errors import DatasetError, InputError

if TYPE_CHECKING:
    from iosizer.calibration.profile import Profile

FAMILY = "loadshare"

#: The seed's policy letters and our names.
POLICY_NAMES = {"A": "shared", "B": "exclusive", "alpha": "one-stage", "beta": "multi-stage"}


@dataclass(frozen=True)
class Scenario:
    name: str
    table: str
    cores: int
    port_shares: tuple[float, ...]
    reference_policy: str
    figure: str


def _policy(letter: str) -> str:
    try:
        return POLICY_NAMES[letter.strip()]
    except KeyError:
        raise DatasetError(f"seed003_figure_findings: unknown policy '{letter}'") from None


def scenarios() -> dict[str, Scenario]:
    """The three scenarios by CLI name (``one-port``, ``system``, ``skew``)."""
    references = {row["scenario"]: row for row in read_measurement("seed003_figure_findings")
                  if row["basis"] == "measured"}
    groups: dict[str, list[dict[str, str]]] = {}
    for row in read_measurement("seed003_tables2_4_scenarios"):
        groups.setdefault(row["scenario"], []).append(row)
    found = {}
    for key, rows in groups.items():
        shares: list[float] = []
        for row in rows:
            shares += [float(row["io_share_per_port_pct"])] * int(row["ports"])
        ref = references.get(key)
        if ref is None:
            raise DatasetError(f"seed003_figure_findings has no measured figure for '{key}'")
        name = key.replace("_", "-")
        found[name] = Scenario(name, rows[0]["table"], int(rows[0]["cores"]), tuple(shares),
                               _policy(ref["throughput_ref_policy"]), ref["figure"])
    return found


def scenario(name: str) -> Scenario:
    known = scenarios()
    if name not in known:
        raise InputError(f"unknown scenario '{name}'; choose one of {', '.join(known)}")
    return known[name]


def custom_scenario(port_shares: Any, cores: int) -> Scenario:
    """A port mix the seed never measured (``iosizer loadshare curve --shares``): normalised, as figure 9
    normalises, by shared's maximum and minimum (no table, no figure)."""
    shares = tuple(float(v) for v in port_shares)
    return Scenario(f"{len(shares)}-port mix", "", int(cores), shares, "shared", "")


def policy_params(cores: int | None = None, comm_overhead_pct: float | None = None,
                  threshold: float | None = None, non_core_pct: float | None = None,
                  switch_rule: str | None = None) -> Any:
    """:class:`~iosizer.model.loadshare.PolicyParams`; a value left as None is the declared one."""
    from iosizer.model.loadshare import PolicyParams

    given = {"cores": cores, "comm_overhead_pct": comm_overhead_pct, "threshold": threshold,
             "non_core_pct": non_core_pct, "switch_rule": switch_rule}
    return PolicyParams(**{name: value for name, value in given.items() if value is not None})


def solve_values(settings: Mapping[str, Any] | None = None,
                 overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The family's values for its ``solve``, with the scenario's port shares filled in.

    Settings and overrides are checked against the declaration. Cores not
    given are the scenario's (tables 2-4), as ``iosizer loadshare`` takes them.
    """
    from iosizer.model.registry import declaration

    values = declaration(FAMILY).values(settings, overrides)
    chosen = scenario(values["scenario"])
    values["port_shares"] = chosen.port_shares
    if (settings or {}).get("cores") is None:
        values["cores"] = chosen.cores
    return values


def shipped_profile(family: str = "loadshare", variant: str | None = None) -> "Profile":
    """The declared ``loadshare`` profile; ``variant`` names the scenario (one-port, system, skew).

    Nothing in it is fitted: the seed publishes no number to fit the
    overhead or the threshold to, so both are their declared (assumed)
    values. The cores are the scenario's, as in :func:`solve_values`.
    """
    from iosizer.calibration.profile import declared_profile
    from iosizer.model.registry import declaration

    name = declaration(FAMILY).check_settings({"scenario": variant})["scenario"]
    return declared_profile(FAMILY, {"scenario": name, "cores": scenario(name).cores})


@dataclass(frozen=True, eq=False)
class NormalisedCurve:
    policy: str
    throughput_norm: Any
    response_norm: Any
    curve: Any


def normalised_curves(chosen: Scenario, policies: list[str], params: Any,
                      points: int = 60) -> tuple[list[NormalisedCurve], dict[str, float]]:
    """Each policy's curve scaled as the scenario's figure scales it.

    Returns the curves and the reference values (the reference policy's
    maximum throughput and minimum response, in cores and service times).
    """
    from iosizer.model.loadshare import policy_curve

    reference = policy_curve(chosen.reference_policy, chosen.port_shares, params, points=points)
    ref_x = reference.max_throughput
    ref_r = reference.low_load_response
    out = []
    for policy in policies:
        curve = reference if policy == chosen.reference_policy else policy_curve(
            policy, chosen.port_shares, params, points=points)
        out.append(NormalisedCurve(policy, curve.throughput / ref_x, curve.response / ref_r, curve))
    return out, {"max_throughput_cores": ref_x, "min_response_service_times": ref_r}


def complete_values(family: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What ``solve`` needs beyond a profile: the port mix (the planner's ``shares``, else the scenario's of
    tables 2-4) as ``port_shares``, and how its figure normalises (``mix``: the scenario's name or "N-port
    mix"; ``reference_policy``; ``table``, ``figure``: the seed's, empty for a planner's mix).

    The public API calls this before it solves, since a profile's options
    hold scalars and the shares are a list read from the shipped tables.
    """
    completed = dict(values)
    if completed.get("shares"):
        chosen = custom_scenario([float(v) for v in completed["shares"].split(",")], completed.get("cores", 4))
    else:
        chosen = scenario(completed["scenario"])
    if completed.get("port_shares") is None:
        completed["port_shares"] = chosen.port_shares
    completed.update(mix=chosen.name, reference_policy=chosen.reference_policy, table=chosen.table,
                     figure=chosen.figure, seed_mixes=tuple(scenarios()))
    return completed

"""The simulated systems are the models' systems: same placement, same demands, same defaults."""

from __future__ import annotations

import numpy as np
import pytest

from iosizer.simulate import experiment


@pytest.mark.parametrize("scenario", ["one-port", "system", "skew"])
@pytest.mark.parametrize("policy", ["shared", "exclusive", "one-stage", "multi-stage"])
def test_the_controller_places_ports_on_cores_as_the_model_does(scenario, policy) -> None:
    from iosizer.calibration.loadshare import policy_params, scenario as find
    from iosizer.model.loadshare import evaluate

    built = experiment("loadshare", scenario=scenario, policy=policy, load_fraction=0.7)
    cores = built.model.model
    chosen = find(scenario)
    total = sum(cores.rates)
    model = evaluate(policy, total, chosen.port_shares, policy_params(chosen.cores))
    assert np.allclose(sorted(cores.core_utilizations()), sorted(model.core_utilization[0]), rtol=1e-12)


def test_any_port_mix_and_core_count_is_simulated_as_the_model_places_it() -> None:
    """Issue 28 asks the cross-check to reach mixes the seed never measured: shares [1, 2, 3, 4] (normalised)
    and [0.2, 1, 1, 1, 1] on 5 cores, placed on the cores the model's rule gives each port."""
    from iosizer.calibration.loadshare import policy_params
    from iosizer.model.loadshare import evaluate

    for shares, cores, policy in (([1.0, 2.0, 3.0, 4.0], None, "one-stage"), ([0.2, 1, 1, 1, 1], 5, "multi-stage")):
        built = experiment("loadshare", port_shares=shares, cores=cores, policy=policy, load_fraction=0.5)
        system = built.model.model
        params = policy_params(cores or 4)
        assert system.cores == params.cores and len(system.rates) == len(shares)
        assert np.allclose(np.array(system.rates) / sum(system.rates), np.array(shares) / sum(shares))
        model = evaluate(policy, sum(system.rates), shares, params)
        assert np.allclose(sorted(system.core_utilizations()), sorted(model.core_utilization[0]), rtol=1e-12)
        assert built.metrics[0].analytic == pytest.approx(float(model.response[0]))
        assert "port shares" in built.notes[0] and f"{len(shares)} ports on {params.cores} cores" in built.title


def test_left_out_options_are_the_declared_and_shipped_values() -> None:
    import iosizer
    from iosizer.calibration.profile import profile_values

    hba = experiment("hba", "response", threads=4)
    declared = iosizer.family("hba").declaration
    assert "shared mode" in hba.title and declared.default("mode") == "shared"
    assert f"storage delay {declared.default('storage_us'):g} us" in hba.notes[0]
    mmc = experiment("mmc", arrival_rate=1000.0)
    shipped = profile_values(iosizer.family("mmc").shipped())
    assert mmc.model.model.service_rate == shipped["service_rate_per_s"]
    assert mmc.model.model.servers == shipped["servers"]
    closed = experiment("closed-network", population=5)
    stations = profile_values(iosizer.family("closed-network").shipped())["stations"]
    assert len(closed.model.model.stations) == stations == 3


def test_constant_service_measures_the_exponential_assumption() -> None:
    """Issue 15: with fixed service times the HBA response model overstates at 16 threads."""
    from iosizer.simulate import simulate

    exponential = simulate("hba", "response", threads=16, replications=5, seed=2, workers=1, run_length=2000)
    constant = simulate("hba", "response", threads=16, service_scv=0.0, replications=5, seed=2, workers=1,
                        run_length=2000)
    assert exponential.rows()[0]["within_ci"]
    row = constant.rows()[0]
    assert not row["within_ci"] and row["gap_pct"] > 5.0
    assert any("scv 0" in note for note in constant.notes())

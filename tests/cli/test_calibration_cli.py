"""``iosizer calibrate``, ``extrapolate``, ``datasets`` and ``--profile`` what-ifs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from iosizer.calibration.profile import load_profile
from iosizer.model.mva import mva
from iosizer.model.queueing import mmc


@pytest.fixture
def mmc_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(11)
    lam = np.linspace(0.4, 3.6, 10)
    response = mmc(lam, 1.0, 4).mean_response * (1 + rng.normal(0, 0.01, lam.size))
    path = tmp_path / "mmc.csv"
    path.write_text("arrival_rate_per_s,mean_response_s\n" + "".join(f"{a},{w}\n" for a, w in zip(lam, response)))
    return path


@pytest.fixture
def network_csv(tmp_path: Path) -> Path:
    curve = mva([0.005, 0.003, 0.002], 0.1, 60).curve
    rng = np.random.default_rng(12)
    rows = [
        f"{n},{curve.throughput[n - 1] * (1 + rng.normal(0, 0.01))},{curve.response_time[n - 1]}\n"
        for n in range(1, 61, 3)
    ]
    path = tmp_path / "load_test.csv"
    path.write_text("population,throughput_per_s,response_time_s\n" + "".join(rows))
    return path


def test_calibrate_json_and_profile(cli, mmc_csv: Path, tmp_path: Path) -> None:
    output = tmp_path / "mmc.json"
    data = cli.json("calibrate", "mmc", str(mmc_csv), "--servers", "4", "--output", str(output),
                    "--cpu-name", "old", "--cpu-speed", "1")
    assert set(data) >= {"parameters", "rmse", "r2", "n_points"}
    rate = data["parameters"]["service_rate_per_s"]
    assert set(rate) >= {"value", "ci_low", "ci_high", "unit"}
    assert rate["ci_low"] <= 1.0 <= rate["ci_high"] and rate["unit"] == "1/s"
    assert data["n_points"] == 10 and data["r2"] > 0.99
    profile = load_profile(output, "mmc")
    assert profile.value("service_rate_per_s") == rate["value"]
    assert profile.dataset.sha256 and profile.cpu_speed == 1.0


def test_calibrate_table_and_residual_csv(cli, network_csv: Path) -> None:
    table = cli("calibrate", "closed-network", str(network_csv), "--stations", "3")
    assert table.exit_code == 0
    assert "demand_1_s" in table.stdout and "95 % confidence intervals" in table.stdout
    residuals = cli("calibrate", "closed-network", str(network_csv), "--stations", "3", "-f", "csv")
    header = residuals.stdout.splitlines()[0]
    assert header == "line,population,metric,observed,model,residual"


def test_what_if_from_a_profile(cli, mmc_csv: Path, network_csv: Path, tmp_path: Path) -> None:
    mmc_profile = tmp_path / "m.json"
    network_profile = tmp_path / "n.json"
    cli.json("calibrate", "mmc", str(mmc_csv), "--servers", "4", "-o", str(mmc_profile))
    cli.json("calibrate", "closed-network", str(network_csv), "--stations", "3", "-o", str(network_profile))

    answer = cli.json("queue", "mmc", "--arrival-rate", "3", "--profile", str(mmc_profile))
    rate = load_profile(mmc_profile).value("service_rate_per_s")
    assert answer["mean_response"] == pytest.approx(mmc(3.0, rate, 4).mean_response)
    assert answer["mean_response_ci_low"] < answer["mean_response"] < answer["mean_response_ci_high"]

    network = cli.json("queue", "mva", "--population", "40", "--profile", str(network_profile))
    assert network["throughput_ci_low"] < network["throughput"] < network["throughput_ci_high"]
    assert network["throughput"] == pytest.approx(mva([0.005, 0.003, 0.002], 0.1, 40).throughput, rel=0.02)

    assert "needs 'closed-network'" in cli.fails("queue", "mva", "--population", "4", "--profile", str(mmc_profile))
    # A given service rate is fixed over the profile's (the declared question's rule): no band comes from it.
    fixed = cli.json("queue", "mmc", "--arrival-rate", "1", "--service-rate", "2", "--profile", str(mmc_profile))
    assert fixed["mean_response"] == pytest.approx(mmc(1.0, 2.0, 4).mean_response, rel=1e-12)
    assert "mean_response_ci_low" not in fixed


def test_extrapolate_command(cli, mmc_csv: Path, tmp_path: Path) -> None:
    first = tmp_path / "a.json"
    cli.json("calibrate", "mmc", str(mmc_csv), "--servers", "4", "-o", str(first), "--cpu-speed", "1")
    second = tmp_path / "b.json"
    document = json.loads(first.read_text())
    document["cpu_speed"] = 2.0
    for key in ("value", "ci_low", "ci_high", "stderr"):
        document["parameters"]["service_rate_per_s"][key] *= 2**0.5
    second.write_text(json.dumps(document))
    target = tmp_path / "c.json"
    data = cli.json("extrapolate", str(first), str(second), "--cpu-speed", "4", "-o", str(target))
    rate = data["parameters"]["service_rate_per_s"]
    assert rate["exponent"] == pytest.approx(0.5, abs=1e-9)
    assert load_profile(target).cpu_speed == 4.0
    one = cli.json("extrapolate", str(first), "--cpu-speed", "2")
    assert one["parameters"]["service_rate_per_s"]["spread_high"] > one["parameters"]["service_rate_per_s"]["spread_low"]


def test_datasets_lists_every_shipped_file(cli) -> None:
    rows = cli.json("datasets")
    names = {r["dataset"] for r in rows}
    assert {"seed000_table4_1_dma", "seed001_table2_patterns", "seed000_table3_3_switches"} <= names
    assert all(r["rows"] > 0 and r["seed"].endswith(".txt") and r["where"] for r in rows)


def test_calibration_errors_exit_2(cli, mmc_csv: Path, tmp_path: Path) -> None:
    assert "unknown model 'nope'" in cli.fails("calibrate", "nope", str(mmc_csv))
    assert "needs --servers" in cli.fails("calibrate", "mmc", str(mmc_csv))
    assert "cannot read file" in cli.fails("calibrate", "mmc", str(tmp_path / "none.csv"), "--servers", "2")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert "not a JSON profile" in cli.fails("queue", "mmc", "--arrival-rate", "1", "--profile", str(bad))


def test_a_bad_plot_target_writes_no_profile(cli, mmc_csv: Path, tmp_path: Path) -> None:
    profile = tmp_path / "p.json"
    assert "unknown picture type" in cli.fails("calibrate", "mmc", str(mmc_csv), "--servers", "4",
                                               "-o", str(profile), "--plot", str(tmp_path / "x.bmp"))
    assert not profile.exists()


def test_erlang_from_a_profile(cli, mmc_csv: Path, tmp_path: Path) -> None:
    from iosizer.model.queueing import erlang_c

    profile = tmp_path / "p.json"
    cli.json("calibrate", "mmc", str(mmc_csv), "--servers", "4", "-o", str(profile))
    rate = load_profile(profile).value("service_rate_per_s")
    data = cli.json("queue", "erlang", "--profile", str(profile), "--arrival-rate", "3")
    assert data["offered_load"] == pytest.approx(3 / rate)
    assert data["erlang_c"] == pytest.approx(erlang_c(4, 3 / rate))
    assert "or give --arrival-rate" in cli.fails("queue", "erlang", "--profile", str(profile))


# --- issue 25: small things (N1, N9) -------------------------------------------------------------


@pytest.mark.parametrize("ending", [b"\r\n", b"\r\r\n", b"\r"], ids=["crlf", "cr-crlf", "cr"])
@pytest.mark.parametrize("name", ["hba", "oltp"])
def test_windows_line_endings_read_silently_and_the_same(cli, tmp_path: Path, name: str, ending: bytes) -> None:
    # Excel on Windows writes CRLF; Python's csv module on Windows in text mode writes CR CR LF (a 3-line
    # numpy UserWarning leaked to stderr, with a site-packages path); old Mac Excel writes CR alone (refused).
    import warnings

    import iosizer

    example = Path(str(iosizer.family(name).example()))
    lf = tmp_path / f"{name}_lf.csv"
    lf.write_bytes(example.read_bytes().replace(b"\r\n", b"\n"))
    other = tmp_path / f"{name}_other.csv"
    other.write_bytes(lf.read_bytes().replace(b"\n", ending))
    with warnings.catch_warnings(record=True) as caught:  # pytest would swallow a warning: record it here
        warnings.simplefilter("always")
        result = cli("calibrate", name, str(other), "--format", "json")
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    assert not caught, [str(w.message)[:80] for w in caught]
    assert json.loads(result.stdout)["parameters"] == cli.json("calibrate", name, str(lf))["parameters"]


def test_a_percentile_next_to_a_bound_is_reported_as_given(cli) -> None:
    message = cli.fails("queue", "mmc", "--arrival-rate", "1", "--service-rate", "2", "--servers", "1",
                        "--percentile", "99.99999999999")
    assert "got 99.99999999999" in message and "got 100" not in message


def test_size_outstanding_names_a_bad_latency_target(cli) -> None:
    message = cli.fails("size", "outstanding", "--target-latency-us", "-5")
    assert "--target-latency-us" in message and "-5" in message


def _exact_network_profile(cli, tmp_path: Path) -> Path:
    """A profile whose intervals are undefined: the fit passes through every (exact) point."""
    curve = mva([0.005, 0.003], 0.0, 30).curve
    data = tmp_path / "exact.csv"
    data.write_text("population,throughput_per_s,response_time_s\n" + "".join(
        f"{n},{curve.throughput[n - 1]},{curve.response_time[n - 1]}\n" for n in range(1, 30, 3)))
    profile = tmp_path / "exact.json"
    cli.json("calibrate", "closed-network", str(data), "--stations", "2", "--think-time-s", "0", "-o", str(profile))
    return profile


def test_a_singular_fit_s_what_if_claims_no_band(cli, tmp_path: Path) -> None:
    profile = _exact_network_profile(cli, tmp_path)
    answer = cli("queue", "mva", "--profile", str(profile), "--population", "8")
    assert answer.exit_code == 0, answer.stderr
    assert "are 95 % bands" not in answer.stdout and "no 95 % band" in answer.stdout
    document = cli.json("queue", "mva", "--profile", str(profile), "--population", "8")
    assert document["throughput_ci_low"] is None and document["throughput_ci_high"] is None
    # A profile whose intervals are defined still says what its bands are.
    fitted = tmp_path / "fitted.json"
    curve = mva([0.005, 0.003], 0.0, 30).curve
    rng = np.random.default_rng(4)
    noisy = tmp_path / "noisy.csv"
    noisy.write_text("population,throughput_per_s\n" + "".join(
        f"{n},{curve.throughput[n - 1] * (1 + rng.normal(0, 0.01))}\n" for n in range(1, 30, 3)))
    cli.json("calibrate", "closed-network", str(noisy), "--stations", "2", "--think-time-s", "0", "-o", str(fitted))
    assert "95 % bands of the parameters" in cli("queue", "mva", "--profile", str(fitted), "--population", "8").stdout


#: The 17 completion-latency percentiles fio writes by default.
FIO_PERCENTILES = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)


def _fio_with_all_percentiles(tmp_path: Path) -> Path:
    from tests.calibration.test_sources import fio_document

    document = fio_document()
    for job in document["jobs"]:
        mean_ns = job["read"]["lat_ns"]["mean"]
        job["read"]["clat_ns"]["percentile"] = {f"{p:.6f}": mean_ns * (0.3 + 4 * p / 100) for p in FIO_PERCENTILES}
    path = tmp_path / "fio17.json"
    path.write_text(json.dumps(document))
    return path


def test_the_tail_check_is_one_line_unless_verbose(cli, tmp_path: Path) -> None:
    path = _fio_with_all_percentiles(tmp_path)
    table = cli("calibrate", "closed-network", str(path), "--stations", "2")
    assert table.exit_code == 0, table.stderr
    tail_lines = [line for line in table.stdout.splitlines() if line.startswith("tail")]
    assert len(tail_lines) == 1, tail_lines
    assert "17 percentiles" in tail_lines[0] and "worst p" in tail_lines[0] and "RMS" in tail_lines[0]
    verbose = cli("calibrate", "closed-network", str(path), "--stations", "2", "--verbose")
    assert sum(line.startswith("tail response_p") for line in verbose.stdout.splitlines()) == 17
    document = cli.json("calibrate", "closed-network", str(path), "--stations", "2")
    assert len(document["tails"]) == 17 and document["tail_summary"]["n_percentiles"] == 17


def test_band_option_prints_and_names_the_prediction_band(cli, network_csv: Path, tmp_path: Path) -> None:
    profile = tmp_path / "n.json"
    cli.json("calibrate", "closed-network", str(network_csv), "--stations", "3", "-o", str(profile))
    narrow = cli.json("queue", "mva", "--population", "40", "--profile", str(profile))
    wide = cli.json("queue", "mva", "--population", "40", "--profile", str(profile), "--band", "prediction")
    assert wide["throughput"] == narrow["throughput"]
    assert wide["throughput_ci_low"] < narrow["throughput_ci_low"] < narrow["throughput_ci_high"] < \
        wide["throughput_ci_high"]
    table = cli("queue", "mva", "--population", "40", "--profile", str(profile), "--band", "prediction").stdout
    assert "prediction bands" in table
    assert "parameters' uncertainty only" in cli("queue", "mva", "--population", "40", "--profile",
                                                 str(profile)).stdout


def test_fit_percentiles_fits_the_chosen_ones(cli, tmp_path: Path) -> None:
    # fio writes 17 percentiles; fitting them all ran 104 s on real output and was refused on p99.95.
    path = _fio_with_all_percentiles(tmp_path)
    default = cli.json("calibrate", "closed-network", str(path), "--stations", "2", "--fit-percentiles", "--force")
    fitted = {k for k in default["columns"] if k.startswith("response_p")}
    assert fitted == {"response_p50_s", "response_p99_s"}
    chosen = cli.json("calibrate", "closed-network", str(path), "--stations", "2", "--fit-percentiles", "--force",
                      "--fit-percentile", "99.9", "--fit-percentile", "90")
    assert {k for k in chosen["columns"] if k.startswith("response_p")} == {"response_p99_9_s", "response_p90_s"}
    message = cli.fails("calibrate", "closed-network", str(path), "--stations", "2", "--fit-percentiles",
                        "--fit-percentile", "97")
    assert "97" in message and "99.95" in message  # names the percentiles the data have
    # --fit-percentile alone implies --fit-percentiles.
    alone = cli.json("calibrate", "closed-network", str(path), "--stations", "2", "--force", "--fit-percentile", "90")
    assert {k for k in alone["columns"] if k.startswith("response_p")} == {"response_p90_s"}


def test_a_percentile_fit_is_bounded_in_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from iosizer.calibration import calibrate as module
    from iosizer.errors import CalibrationError

    monkeypatch.setattr(module, "FIT_PERCENTILES_SECONDS", 0.0)
    with pytest.raises(CalibrationError, match="stopped after"):
        module.calibrate("closed-network", _fio_with_all_percentiles(tmp_path), {"stations": 2},
                         fit_percentiles=True)


def test_a_failed_fio_job_is_one_line_and_force_keeps_the_rest(cli, tmp_path: Path) -> None:
    from tests.calibration.test_sources import fio_document

    document = fio_document()
    document["jobs"][1]["error"] = 5
    path = tmp_path / "failed.json"
    path.write_text(json.dumps(document))
    message = cli.fails("calibrate", "closed-network", str(path), "--stations", "2")
    assert "job 'qd2' failed (fio error 5" in message and "--force" in message
    kept = cli("calibrate", "closed-network", str(path), "--stations", "2", "--force")
    assert kept.exit_code == 0, kept.stderr
    assert "warning: failed.json:qd2: the job failed (fio error 5" in kept.stdout
    assert "note: think_time_s held at 0 s" in kept.stdout

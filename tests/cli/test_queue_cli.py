"""``iosizer queue ...`` through typer's CliRunner: output, JSON keys, exit codes."""

from __future__ import annotations

import csv
import io

import pytest

from iosizer.model.queueing import mmc

QUEUE_KEYS = {
    "utilization", "p_wait", "mean_wait", "mean_response", "mean_queue_length", "mean_in_system",
}


def test_mmc_json_is_the_model_result(cli) -> None:
    data = cli.json("queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4")
    assert set(data) == QUEUE_KEYS | {"arrival_rate"}  # the declared question's record names its input too
    assert data.pop("arrival_rate") == 3.2
    assert data == pytest.approx(mmc(3.2, 1.0, 4).to_dict(), rel=1e-15)


def test_mmc_table_shows_every_metric(cli) -> None:
    result = cli("queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4")
    assert result.exit_code == 0
    for key in QUEUE_KEYS:
        assert key in result.stdout
    assert "0.596432" in result.stdout  # Erlang C(4, 3.2), six figures


def test_sweep_gives_one_row_per_arrival_rate(cli) -> None:
    result = cli("queue", "mm1", "--arrival-rate", "0.1:0.9:0.2", "--service-rate", "1",
                 "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [float(r["arrival_rate"]) for r in rows] == pytest.approx([0.1, 0.3, 0.5, 0.7, 0.9])
    assert float(rows[-1]["mean_response"]) == pytest.approx(1 / (1 - 0.9))
    data = cli.json("queue", "mm1", "--arrival-rate", "0.2,0.4", "--service-rate", "1")
    assert [d["utilization"] for d in data] == pytest.approx([0.2, 0.4])


@pytest.mark.parametrize(
    ("command", "extra", "key", "expected"),
    [
        ("mg1", ["--service-scv", "0"], "mean_wait", 0.5 / (2 * 0.5)),  # M/D/1 at rho 0.5
        ("md1", [], "mean_wait", 0.5 / (2 * 0.5)),
        ("ggc", ["--servers", "1", "--arrival-scv", "1", "--service-scv", "1"], "mean_wait", 1.0),
    ],
)
def test_other_open_queues(cli, command, extra, key, expected) -> None:
    data = cli.json("queue", command, "--arrival-rate", "0.5", "--service-rate", "1", *extra)
    assert data[key] == pytest.approx(expected)


def test_erlang_command(cli) -> None:
    data = cli.json("queue", "erlang", "--servers", "4", "--offered-load", "3.2")
    # Definitions with exact fractions: B = (a^c/c!) / sum_k a^k/k!, C = B / (1 - rho (1 - B)).
    from fractions import Fraction
    from math import factorial

    a = Fraction(16, 5)
    b = (a**4 / factorial(4)) / sum(a**k / factorial(k) for k in range(5))
    c = b / (1 - a / 4 * (1 - b))
    assert data["erlang_b"] == pytest.approx(float(b), rel=1e-13)
    assert data["erlang_c"] == pytest.approx(float(c), rel=1e-13)


@pytest.mark.parametrize(("rate", "words"), [("3.2", "not both"), ("-1", "--arrival-rate must lie in [0, inf]"),
                                             ("nan", "--arrival-rate must be finite")])
def test_erlang_arrival_rate_without_a_profile_is_refused(cli, rate, words) -> None:
    # It was silently ignored: the answer was the --offered-load one, whatever the rate said.
    line = cli.fails("queue", "erlang", "--servers", "4", "--offered-load", "3.2", "--arrival-rate", rate)
    assert words in line and "arrival" in line
    assert "--arrival-rate goes with --profile" in cli.fails("queue", "erlang", "--servers", "4", "--arrival-rate", "3")


def test_erlang_sweeps_and_says_where_erlang_c_is_undefined(cli, tmp_path) -> None:
    from iosizer.calibration.profile import ParameterEstimate, Profile, save_profile
    from iosizer.model.queueing import erlang_b, erlang_c

    data = cli.json("queue", "erlang", "--servers", "2,4", "--offered-load", "3")
    # Mixed server counts take the incomplete-gamma form, one count the recursion: equal to rounding.
    assert [r["servers"] for r in data] == [2, 4] and data[0]["erlang_c"] is None
    assert data[1]["erlang_c"] == pytest.approx(erlang_c(4, 3.0), rel=1e-13)
    assert data[0]["erlang_b"] == pytest.approx(erlang_b(2, 3.0), rel=1e-13)
    assert "Erlang C undefined" in cli("queue", "erlang", "--servers", "2", "--offered-load", "3").stdout
    # With a profile: its servers, the offered load from --arrival-rate over its service rate.
    path = save_profile(Profile(model="mmc", options={"servers": 4}, parameters={
        "service_rate_per_s": ParameterEstimate(value=1000.0, stderr=10.0)}), tmp_path / "p.json")
    data = cli.json("queue", "erlang", "--profile", str(path), "--arrival-rate", "3000")
    assert data == {"servers": 4, "offered_load": 3.0, "erlang_b": erlang_b(4, 3.0), "erlang_c": erlang_c(4, 3.0)}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--arrival-rate", "5", "--service-rate", "1", "--servers", "4"], "utilization 1.25 >= 1"),
        (["--arrival-rate", "3", "--service-rate", "1"], "Missing option '--servers'"),
        (["--arrival-rate", "nan", "--service-rate", "1", "--servers", "4"], "must be finite"),
        (["--arrival-rate", "-3", "--service-rate", "1", "--servers", "4"], "--arrival-rate must lie in [0, inf]"),
            (["--arrival-rate", "0", "--service-rate", "1", "--servers", "4"], "arrival_rate must be > 0"),
        (["--arrival-rate", "3", "--service-rate", "0", "--servers", "4"], "service_rate must be > 0"),
        (["--arrival-rate", "3", "--service-rate", "x", "--servers", "4"], "--service-rate"),
        (["--arrival-rate", "3", "--service-rate", "1", "--servers", "0"], "--servers must lie in [1, 10000000]"),
        (["--arrival-rate", "3:1:1", "--service-rate", "1", "--servers", "4"], "stop >= start"),
        (["--arrival-rate", "1:2", "--service-rate", "1", "--servers", "4"], "expected a number"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args, fragment) -> None:
    assert fragment in cli.fails("queue", "mmc", *args)


def test_unknown_command_and_help(cli) -> None:
    assert "No such command" in cli.fails("queue", "nope")
    result = cli("--help")
    assert result.exit_code == 0 and "queue" in result.stdout
    assert cli("--version").stdout.startswith("iosizer ")


MVA_ARGS = ["queue", "mva", "--demand", "0.005", "--demand", "0.003", "--demand", "0.002",
            "--think-time", "0.1", "--population", "100"]


def test_mva_json_keys_and_values(cli) -> None:
    from iosizer.model.mva import mva

    data = cli.json(*MVA_ARGS)
    assert {"throughput", "response_time", "stations"} <= set(data)
    assert set(data["stations"][0]) == {"utilization", "queue_length", "residence_time"}
    reference = mva([0.005, 0.003, 0.002], 0.1, 100)
    assert data["throughput"] == pytest.approx(reference.throughput, rel=1e-15)
    assert data["response_time"] == pytest.approx(reference.response_time, rel=1e-15)
    assert data["knee_population"] == pytest.approx(22.0)
    assert data["throughput"] <= data["throughput_upper_bound"] * (1 + 1e-12)
    # Little's law at the terminals: N = X (R + Z).
    assert data["throughput"] * (data["response_time"] + 0.1) == pytest.approx(100)


def test_mva_csv_of_a_population_sweep_is_the_curve(cli) -> None:
    from iosizer.model.mva import mva

    result = cli(*MVA_ARGS[:-1], "1:100:1", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [int(r["population"]) for r in rows] == list(range(1, 101))
    assert float(rows[0]["response_time"]) == pytest.approx(0.01)  # one job: R = D
    assert {"utilization_3", "queue_length_3", "residence_time_3"} <= set(rows[0])
    curve = mva([0.005, 0.003, 0.002], 0.1, 100).curve  # the one recursion, read at each population
    assert [float(r["throughput"]) for r in rows] == curve.throughput.tolist()
    assert [float(r["queue_length_2"]) for r in rows] == curve.queue_length[:, 1].tolist()
    # The JSON of a sweep: one published object per population, each as the single population answers it.
    sweep = cli.json(*MVA_ARGS[:-1], "20,100")
    assert [point["population"] for point in sweep] == [20, 100]
    single = cli.json(*MVA_ARGS[:-1], "20")
    assert sweep[0]["stations"] == single["stations"] and sweep[0]["throughput"] == single["throughput"]


def test_mva_multi_server_and_delay_stations(cli) -> None:
    data = cli.json("queue", "mva", "--demand", "0.01", "--demand", "0.02", "--demand", "0.05",
                    "--servers", "1", "--servers", "4", "--servers", "delay", "--population", "30")
    assert data["stations"][2]["residence_time"] == pytest.approx(0.05)
    assert data["method"] != "exact"  # the 4-server station is load-dependent
    table = cli("queue", "mva", "--demand", "0.01", "--population", "3")
    assert table.exit_code == 0 and "knee N*" in table.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--demand", "0.01", "--population", "0"], "population"),
        (["--demand", "-0.01", "--population", "5"], "demand"),
        (["--demand", "0.01", "--population", "5", "--servers", "1.5"], "servers"),
        (["--demand", "0.01", "--population", "5", "--servers", "fast"], "--servers"),
        (["--demand", "nan", "--population", "5"], "demand"),
        (["--population", "5"], "Missing option '--demand'"),
    ],
)
def test_mva_bad_input(cli, args, fragment) -> None:
    assert fragment in cli.fails("queue", "mva", *args)


def test_single_server_queues_refuse_a_multi_server_profile(cli, tmp_path) -> None:
    from iosizer.calibration.profile import ParameterEstimate, Profile, save_profile

    profile = Profile(model="mmc", options={"servers": 4},
                      parameters={"service_rate_per_s": ParameterEstimate(value=1.0, stderr=0.01)})
    path = save_profile(profile, tmp_path / "p.json")
    assert "calibrated with servers = 4" in cli.fails("queue", "mm1", "--arrival-rate", "0.5", "--profile", str(path))
    data = cli.json("queue", "ggc", "--arrival-rate", "3", "--profile", str(path))
    assert data["mean_wait_ci_low"] < data["mean_wait"] < data["mean_wait_ci_high"]


def test_open_queues_are_the_mmc_familys_questions(cli) -> None:
    # mm1/mg1/md1/ggc are declared questions of family mmc: the answer is the model's, every surface alike.
    import iosizer
    from iosizer.model.queueing import ggc, mg1

    data = cli.json("queue", "ggc", "--arrival-rate", "2,3", "--service-rate", "1", "--servers", "4",
                    "--arrival-scv", "2", "--service-scv", "0.5")
    expected = ggc([2.0, 3.0], 1.0, 4, 2.0, 0.5).to_dict()
    assert [row["mean_wait"] for row in data] == expected["mean_wait"]  # the same float64 arithmetic
    asked = iosizer.family("mmc").ask("queue mg1", arrival_rate=0.5, service_rate=1, service_scv=2)
    assert asked.to_data()["mean_wait"] == mg1(0.5, 1.0, 2.0).mean_wait
    # The question's own settings are not the family's: params and calibration do not list them.
    assert "service_scv" not in {spec.name for spec in iosizer.family("mmc").declaration.parameters}


def test_a_question_refuses_what_it_fixes_or_does_not_take(cli) -> None:
    import iosizer
    from iosizer.errors import InputError

    with pytest.raises(InputError, match="takes no servers .it fixes servers = 1."):
        iosizer.family("mmc").ask("queue mm1", arrival_rate=0.5, service_rate=1, servers=2)
    assert "No such option: --servers" in cli.fails("queue", "md1", "--arrival-rate", "0.5", "--service-rate", "1",
                                                    "--servers", "2")
    assert "Missing option '--service-scv'" in cli.fails("queue", "mg1", "--arrival-rate", "0.5",
                                                         "--service-rate", "1")
    with pytest.raises(InputError, match="takes no service_scv .it fixes service_scv = 0.0."):
        iosizer.family("mmc").ask("queue md1", arrival_rate=0.5, service_rate=1, service_scv=1)


def test_mva_lists_and_defaults_are_the_declared_parameters() -> None:
    """Question.repeated and Question.defaults: --demand's items are the stations' demand_k_s and its length
    the stations; --servers' items one setting; no think time given and no profile is the declared 0."""
    import iosizer
    from iosizer.errors import InputError

    family = iosizer.family("closed-network")
    listed = family.ask("queue mva", demand=[0.005, 0.003], servers=["4", "delay"], population=10)
    named = family.ask("queue mva", demand_1_s=0.005, demand_2_s=0.003, stations=2, servers="4,delay",
                       think_time_s=0.0, population=10)
    assert listed.to_data() == named.to_data()
    assert listed.values["stations"] == 2 and listed.values["think_time_s"] == 0.0
    with pytest.raises(InputError, match="demand_s lists 2 values for stations 3"):
        family.ask("queue mva", demand=[0.005, 0.003], stations=3, population=10)

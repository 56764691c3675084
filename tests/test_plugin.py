"""A family declared outside iosizer (examples/iosizer-mm1k) on every surface, with no line of iosizer for it.

The plugin must be installed (the README's quick-start test line installs it:
``pip install ./examples/iosizer-mm1k``); without it these tests skip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import iosizer

plugin = pytest.importorskip("iosizer_mm1k", reason="the example plugin is not installed: "
                                                    "pip install ./examples/iosizer-mm1k")

ARGS = ("mm1k", "queue", "--arrival-rate", "0.9", "--service-rate", "1", "--capacity", "10")


def _exact(lam: float, mu: float, k: int) -> dict[str, float]:
    """M/M/1/K from its stationary distribution summed term by term (independent of the plugin's forms)."""
    p = (lam / mu) ** np.arange(k + 1)
    p /= p.sum()
    number = float(np.arange(k + 1) @ p)
    throughput = lam * (1 - p[-1])
    return {"blocking_probability": p[-1], "throughput": throughput, "utilization": 1 - p[0],
            "mean_number": number, "mean_response": number / throughput}


def test_the_registry_finds_it_by_its_entry_point(cli) -> None:
    from iosizer.model.registry import module_of, plugin_names

    assert "mm1k" in plugin_names() and module_of("mm1k") == "iosizer_mm1k"
    row = next(r for r in cli.json("families") if r["family"] == "mm1k")
    assert row["inputs"] == ["arrival_rate", "capacity"] and row["calibratable"] is True


def test_params_shows_the_fitted_service_rate(cli) -> None:
    rows = {r["name"]: r for r in cli.json("params", "mm1k")}
    rate = rows["service_rate"]
    assert (rate["unit"], rate["status"]) == ("1/t", "fitted")
    # The shipped value is the fit of the example (made at mu = 2 with 1 % noise): within 1 %.
    assert rate["value"] == pytest.approx(2.0, rel=0.01)


def test_the_generated_command_answers_exactly(cli) -> None:
    answer = cli.json(*ARGS)
    exact = _exact(0.9, 1.0, 10)
    assert (answer["arrival_rate"], answer["capacity"]) == (0.9, 10)
    for key, value in exact.items():  # closed forms against summation: equal to rounding (1e-12 relative)
        assert answer[key] == pytest.approx(value, rel=1e-12), key
    assert answer["mean_number"] == pytest.approx(answer["throughput"] * answer["mean_response"], rel=1e-12)


def test_a_sweep_covers_every_combination_and_a_shipped_profile_gives_bands(cli) -> None:
    rows = cli.json("mm1k", "queue", "--arrival-rate", "0.5,1.5", "--capacity", "2:4:1")
    assert [(r["arrival_rate"], r["capacity"]) for r in rows] == [(a, k) for a in (0.5, 1.5) for k in (2, 3, 4)]
    for row in rows:  # no --service-rate: the shipped fit, whose interval bands every output
        assert row["mean_response_ci_low"] <= row["mean_response"] <= row["mean_response_ci_high"]
    wide = cli.json("mm1k", "queue", "--arrival-rate", "1", "--band", "prediction")
    narrow = cli.json("mm1k", "queue", "--arrival-rate", "1")
    # The prediction band adds the fit's residual scatter of mean_response (a measured column) to it.
    assert wide["mean_response_ci_low"] < narrow["mean_response_ci_low"] < narrow["mean_response"]
    assert wide["mean_response_ci_high"] > narrow["mean_response_ci_high"] > narrow["mean_response"]


def test_percentiles_where_the_question_declares_them(cli) -> None:
    answer = cli.json("mm1k", "queue", "--arrival-rate", "0.5", "--capacity", "400", "--percentile", "99")
    # Large K at a < 1 is M/M/1: an exponential response at rate mu - lambda (the shipped mu, within its band).
    mu = iosizer.family("mm1k").shipped().parameters["service_rate"].value
    assert answer["response_p99"] == pytest.approx(np.log(100) / (mu - 0.5), rel=1e-9)
    assert answer["response_p99_ci_low"] < answer["response_p99"] < answer["response_p99_ci_high"]
    assert "--percentile must lie in [0.001, 99.9999]" in cli.fails("mm1k", "queue", "--percentile", "100")
    assert "at most 1000" in cli.fails("mm1k", "queue", "--capacity", "5000", "--percentile", "99")


def test_plot_draws_the_declared_curve(cli, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    picture = tmp_path / "mm1k.png"
    result = cli("mm1k", "queue", "--arrival-rate", "0:2:0.5", "--capacity", "2,5", "--plot", str(picture))
    assert result.exit_code == 0, result.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input_is_one_line_and_exit_2(cli) -> None:
    assert "--capacity must be a whole number" in cli.fails("mm1k", "queue", "--capacity", "2.5")
    assert "--arrival-rate must lie in [0" in cli.fails("mm1k", "queue", "--arrival-rate", "-1")
    assert "--service-rate must lie in" in cli.fails(*ARGS[:-4], "--service-rate", "0", "--capacity", "1")


def test_calibrate_fits_its_example(cli, tmp_path: Path) -> None:
    example = iosizer.family("mm1k").example()
    out = tmp_path / "mm1k.json"
    report = cli.json("calibrate", "mm1k", str(example), "--output", str(out))
    rate = report["parameters"]["service_rate"]
    assert rate["ci_low"] <= 2.0 <= rate["ci_high"]  # the example was made at mu = 2
    # The profile it wrote drives the what-if, with its band.
    answer = cli.json("mm1k", "queue", "--arrival-rate", "1", "--capacity", "5", "--profile", str(out))
    assert answer["mean_response_ci_low"] < answer["mean_response"] < answer["mean_response_ci_high"]


def test_ask_is_the_cli_json(cli) -> None:
    asked = iosizer.ask("mm1k queue", arrival_rate=0.9, service_rate=1, capacity=10)
    assert asked == cli.json(*ARGS)
    answer = iosizer.family("mm1k").ask("queue", {"service_rate": 1.0}, arrival_rate=[0.9], capacity=10)
    assert answer.to_data() == asked


def test_http_answers_byte_for_byte_what_the_cli_prints(cli) -> None:
    testclient = pytest.importorskip("fastapi.testclient")
    from iosizer.serve.app import create_app

    printed = cli(*ARGS, "--format", "json").stdout
    # A loopback Host: the server answers no other name by default (issue 26; TestClient's is 'testserver').
    with testclient.TestClient(create_app(workers=1, heavy_workers=1), base_url="http://localhost") as client:
        response = client.post("/api/mm1k/queue", json={"arrival_rate": 0.9, "service_rate": 1, "capacity": 10})
        assert response.status_code == 200 and response.text == printed
        bad = client.post("/api/mm1k/queue", json={"arrival_rate": -1})
        assert bad.status_code == 422 and "arrival_rate must lie in" in bad.json()["error"]
        assert client.post("/api/mm1k/queue", json={"capacity": True}).status_code == 422
        tails = client.post("/api/mm1k/queue", json={"arrival_rate": [0.5, 0.9], "percentile": [50, 99.9]})
        assert tails.text == cli("mm1k", "queue", "--arrival-rate", "0.5,0.9", "--percentile", "50",
                                 "--percentile", "99.9", "--format", "json").stdout
        schema = client.get("/openapi.json").json()["components"]["schemas"]["Mm1KQueueRequest"]
        assert schema["properties"]["arrival_rate"]["x-unit"] == "1/t"


def test_a_scenario_table(cli, tmp_path: Path) -> None:
    path = tmp_path / "buffer.toml"
    path.write_text('name = "buffer"\n[mm1k]\narrival_rate = 0.9\nservice_rate = 1.0\ncapacity = 10\n',
                    encoding="utf-8")
    answers = {a["question"]: a for a in cli.json("run", str(path))["answers"]}
    blocking = answers["queue: blocking_probability at arrival_rate = 0.9, capacity = 10"]
    assert blocking["value"] == pytest.approx(_exact(0.9, 1.0, 10)["blocking_probability"], rel=1e-12)
    assert blocking["unit"] == "1"
    path.write_text('[mm1k]\narrival_rate = "fast"\n', encoding="utf-8")
    assert "mm1k.arrival_rate: expected a number or a list of numbers (1/t), got 'fast'" in cli.fails("run", str(path))


def test_help_and_a_what_if_import_no_family_module() -> None:
    """Start-up stays light: listing commands imports no family, and one what-if imports one family module."""
    code = ("import sys; from iosizer.cli.app import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('iosizer.model.', 'iosizer_'))), file=sys.stderr)")
    families = {"iosizer.model." + m for m in ("queueing", "mva", "latency", "pcie", "hba", "loadshare",
                                               "replication")} | {"iosizer_mm1k"}

    def imported(*args: str) -> set[str]:
        run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
        return set(json.loads(run.stderr.strip().splitlines()[-1].replace("'", '"'))) & families

    assert imported("--help") == set()
    assert imported(*ARGS) == {"iosizer_mm1k"}


def test_the_builtin_index_matches_the_modules() -> None:
    from iosizer.model.registry import BUILTIN_FAMILIES, FAMILY_MODULES, _module, _path

    declared = {name: module for module in FAMILY_MODULES for name in _module(_path(module))}
    assert declared == BUILTIN_FAMILIES


def test_the_builtin_groups_match_the_questions_paths() -> None:
    from iosizer.model.registry import BUILTIN_FAMILIES, BUILTIN_GROUPS, declaration

    groups: dict[str, set[str]] = {}
    for name in BUILTIN_FAMILIES:
        for question in declaration(name).questions:
            if question.path(name)[0] != name:
                groups.setdefault(question.path(name)[0], set()).add(name)
    assert {k: set(v) for k, v in BUILTIN_GROUPS.items()} == groups


def test_the_fast_entry_point_scan_agrees_with_importlib_metadata() -> None:
    from importlib.metadata import entry_points

    from iosizer.model.registry import ENTRY_POINT_GROUP, _plugins

    expected = {p.name: p.value.split(":")[0].strip() for p in entry_points(group=ENTRY_POINT_GROUP)}
    assert _plugins() == dict(sorted(expected.items()))


def test_a_family_costs_one_small_package() -> None:
    """The issue's measure of a new family: the whole plugin, formulas, declaration and tests, in 200 lines."""
    folder = Path(__file__).resolve().parents[1] / "examples" / "iosizer-mm1k"
    if not folder.is_dir():
        pytest.skip("tests run outside the checkout")
    # pip's build/ copies and the egg-info are not the package's source
    sources = [p for p in folder.rglob("*.py")
               if not {"build", "dist"} & set(p.relative_to(folder).parts)
               and not any(part.endswith(".egg-info") for part in p.parts)]
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in sources)
    assert lines <= 200

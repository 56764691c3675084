"""The HTTP API against the CLI: the same answers, byte for byte, and the error contract.

The server is the real one (``iosizer serve`` on a loopback port, see
conftest.py); the CLI runs in-process through typer's runner.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import iosizer
from iosizer.catalogue import NOT_SERVED, command_specs
from iosizer.cli.catalogue import root_command
from iosizer.serve.examples import STARTING_INPUTS
from tests.calibration.test_sources import fio_document

EXAMPLES = Path(iosizer.family("mmc").example()).parent

#: (command, its command line, the same as a JSON body): the README tour and more.
TOUR: list[tuple[str, list[str], dict[str, Any]]] = [
    ("queue mmc", ["--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4"],
     {"arrival_rate": 3.2, "service_rate": 1, "servers": 4}),
    ("queue mmc", ["--arrival-rate", "0.5:3.5:0.5", "--service-rate", "1", "--servers", "4"],
     {"arrival_rate": "0.5:3.5:0.5", "service_rate": 1, "servers": 4}),
    ("queue ggc", ["--arrival-rate", "1,2,3", "--service-rate", "1", "--servers", "4", "--arrival-scv", "2"],
     {"arrival_rate": "1,2,3", "service_rate": 1.0, "servers": 4, "arrival_scv": 2}),
    ("queue erlang", ["--servers", "4", "--offered-load", "3.2"], {"servers": 4, "offered_load": 3.2}),
    ("queue erlang", ["--servers", "2,4", "--offered-load", "3"], {"servers": "2,4", "offered_load": 3}),
    ("queue mg1", ["--arrival-rate", "0.3,0.6", "--service-rate", "1", "--service-scv", "2.5", "--percentile", "99"],
     {"arrival_rate": "0.3,0.6", "service_rate": 1, "service_scv": 2.5, "percentile": [99]}),
    ("queue md1", ["--arrival-rate", "0.5", "--service-rate", "1"], {"arrival_rate": 0.5, "service_rate": 1}),
    ("queue mva", ["--demand", "0.005", "--demand", "0.003", "--demand", "0.002", "--think-time", "0.1",
                   "--population", "100"],
     {"demand": [0.005, 0.003, 0.002], "think_time": 0.1, "population": 100}),
    ("queue mva", ["--demand", "0.005", "--demand", "0.003", "--servers", "4", "--servers", "delay",
                   "--population", "30"],
     {"demand": [0.005, 0.003], "servers": ["4", "delay"], "population": 30}),
    ("latency dma", ["--device", "bcm5700", "--added-latency-ns", "2100"],
     {"device": "bcm5700", "added_latency_ns": 2100}),
    ("latency oltp", ["--added-latency-ns", "0:2100:300"], {"added_latency_ns": "0:2100:300"}),
    ("latency oltp", ["--added-latency-ns", "1200,2100", "--cpu-speed", "2"],
     {"added_latency_ns": "1200,2100", "cpu_speed": 2}),
    ("latency budget", ["--budget-pct", "5", "--device", "bcm5700", "--show-formula"],
     {"budget_pct": 5, "device": "bcm5700", "show_formula": True}),
    ("latency tiers", ["--budget-pct", "5"], {"budget_pct": 5}),
    ("pcie link", [], {}),
    ("pcie link", ["--gen", "4", "--lanes", "16", "--transfer-bytes", "4096", "--ecrc"],
     {"gen": 4, "lanes": 16, "transfer_bytes": 4096, "ecrc": True}),
    ("pcie pattern", ["520", "--mps", "256"], {"transfer_bytes": "520", "mps": 256}),
    ("pcie rmw", ["--pattern", "520", "--lanes", "8,16,24,32", "--mitigation", "gather-dif"],
     {"pattern": "520", "lanes": "8,16,24,32", "mitigation": "gather-dif"}),
    ("hba isolation", ["--block-kib", "4", "--mode", "occupancy", "--lpar2-iops", "0:300000:100000"],
     {"block_kib": 4, "mode": "occupancy", "lpar2_iops": "0:300000:100000"}),
    ("hba response", ["--threads", "1,8,16", "--port", "32GFC"], {"threads": "1,8,16", "port": "32GFC"}),
    ("loadshare compare", ["--scenario", "skew"], {"scenario": "skew"}),
    ("loadshare curve", ["--scenario", "one-port", "--policy", "shared", "--points", "20"],
     {"scenario": "one-port", "policy": "shared", "points": 20}),
    ("replication", ["--link", "1g,10g,ipoib56", "--block-kib", "4,16"], {"link": "1g,10g,ipoib56", "block_kib": "4,16"}),
    ("params", ["hba"], {"family": "hba"}),
    ("families", [], {}),
    ("datasets", [], {}),
    ("run", ["shared_fc_storage"], {"scenario": "shared_fc_storage"}),
    ("run", ["--list"], {"list": True}),
]


def _url(command: str) -> str:
    return "/api/" + command.replace(" ", "/")


def _cli_json(cli: Any, *args: str) -> str:
    result = cli(*args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize(("command", "args", "body"), TOUR, ids=[f"{c} {' '.join(a)}" for c, a, _ in TOUR])
def test_the_answer_is_what_the_cli_prints(server: Any, cli: Any, command: str, args: list[str],
                                           body: dict[str, Any]) -> None:
    response = server.post(_url(command), json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.text == _cli_json(cli, *command.split(), *args)


def test_get_families_and_parameters_are_what_the_cli_prints(server: Any, cli: Any) -> None:
    assert server.get("/api/families").text == _cli_json(cli, "families")
    for name in ("mmc", "hba", "replication"):
        answer = server.get(f"/api/families/{name}/parameters")
        assert answer.status_code == 200
        assert answer.text == _cli_json(cli, "params", name)
    unknown = server.get("/api/families/nope/parameters")
    assert unknown.status_code == 422 and unknown.json()["kind"] == "InputError"


def test_every_command_is_served_and_described_with_units(server: Any) -> None:
    schema = server.get("/openapi.json").json()
    specs, skipped = command_specs()
    leaves = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, path + (name,))
        else:
            leaves.append(path)

    walk(root_command(), ())
    assert set(skipped) == {" ".join(p) for p in NOT_SERVED}
    for path in leaves:
        if path in NOT_SERVED:
            continue
        url = "/api/calibrate/{family}" if path == ("calibrate",) else "/api/" + "/".join(path)
        assert "post" in schema["paths"][url], url
    by_name = {spec.name: spec for spec in specs}
    models = schema["components"]["schemas"]
    mmc = models["QueueMmcRequest"]  # generated from the declared question, not reflected from the CLI
    assert mmc["required"] == ["arrival_rate"]
    assert "0.5:3.5:0.5" in mmc["properties"]["arrival_rate"]["description"]
    assert mmc["properties"]["service_rate_per_s"]["x-unit"] == "1/s" and "service_rate" in mmc["properties"]
    dma = models["LatencyDmaRequest"]["properties"]  # declared questions' models, as queue mmc's
    assert dma["added_latency_ns"]["x-unit"] == "ns"
    assert dma["added_latency_ns"]["x-cli"] == "--added-latency-ns"
    hba = models["HbaResponseRequest"]["properties"]
    assert hba["storage_us"]["x-unit"] == "us" and "assumed" in hba["storage_us"]["description"]
    form = schema["paths"]["/api/calibrate/{family}"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert form["schema"]["properties"]["file"]["items"]["format"] == "binary"
    assert "servers" in form["schema"]["properties"]
    # Swagger UI would load its scripts from a CDN (blank offline): the page links /openapi.json instead.
    assert server.get("/docs").status_code == 404
    assert 'href="/openapi.json"' in server.get("/").text


def question_groups() -> set[str]:
    from iosizer.serve.questions import question_paths

    return {path[0] for path in question_paths()}


def _declared_argv(command: str, body: dict[str, Any]) -> list[str]:
    """A declared question's options from a JSON body: a list repeats a list-valued option (a demand per
    station), else it is written 1,2,3; true is the bare flag; an input declared an argument goes first."""
    from iosizer.model.registry import declaration
    from iosizer.serve.questions import question_paths

    family, name = question_paths()[tuple(command.split())]
    positional = {i.name for i in declaration(family).question(name).input_specs if getattr(i, "argument", False)}
    argv: list[str] = [str(body[k]) for k in body if k in positional]
    for key, value in body.items():
        flag = "--" + key.replace("_", "-")
        if key in positional:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, list):
            argv += [w for item in value for w in (flag, str(item))]
        else:
            argv += [flag, str(value)]
    return argv


@pytest.mark.parametrize("command", sorted(STARTING_INPUTS))
def test_the_pages_starting_inputs_answer_as_the_cli(server: Any, cli: Any, command: str) -> None:
    spec = next((s for s in command_specs()[0] if s.name == command), None)
    body = STARTING_INPUTS[command]
    if spec is not None:
        argv = spec.argv(body)
        assert argv[:len(spec.path)] == list(spec.path)
    elif command.split()[0] in question_groups():  # a declared question: its options are its JSON keys
        argv = [*command.split(), *_declared_argv(command, body), "--format", "json"]
    else:
        pytest.skip(f"'iosizer {command}' is not in this CLI")
    response = server.post(_url(command), json=body)
    assert response.status_code == 200, response.text
    result = cli(*argv)
    assert result.exit_code == 0, result.stderr
    assert response.text == result.stdout
    page = server.post(_url(command) + "?view=page", json=body).json()
    assert page["data"] == json.loads(result.stdout)
    assert page["rows"] and page["title"]


# --- calibration, profiles passed inline ---------------------------------------------


def _without_run_details(profile: dict[str, Any]) -> dict[str, Any]:
    """A profile less what differs between two runs of the same fit: when, and the file's path."""
    kept = {k: v for k, v in profile.items() if k != "created_at"}
    if kept.get("dataset"):
        kept["dataset"] = {k: v for k, v in kept["dataset"].items() if k != "path"}
    return kept


def _calibrate(server: Any, family: str, path: Path, **options: Any) -> Any:
    with path.open("rb") as handle:
        return server.post(f"/api/calibrate/{family}", files={"file": (path.name, handle)},
                           data={k: str(v) for k, v in options.items()}, headers={"X-Iosizer": "1"})


@pytest.fixture(scope="module")
def mmc_fit(server: Any) -> dict[str, Any]:
    response = _calibrate(server, "mmc", EXAMPLES / "hba_core_response.csv", servers=4, cpu_speed=1)
    assert response.status_code == 200, response.text
    return response.json()


def test_calibrate_upload_answers_the_fit_report_and_the_profile(server: Any, cli: Any, tmp_path: Path,
                                                                 mmc_fit: dict[str, Any]) -> None:
    saved = tmp_path / "p.json"
    expected = json.loads(_cli_json(cli, "calibrate", "mmc", str(EXAMPLES / "hba_core_response.csv"),
                                    "--servers", "4", "--cpu-speed", "1", "--output", str(saved)))
    assert expected.pop("profile") == str(saved)
    answer = dict(mmc_fit)
    profile = answer.pop("profile")
    assert answer == expected
    assert _without_run_details(profile) == _without_run_details(json.loads(saved.read_text()))
    assert profile["dataset"]["path"] == "hba_core_response.csv"  # the upload's name, not a server path


def test_closed_network_calibration_from_the_tour(server: Any, cli: Any, tmp_path: Path) -> None:
    saved = tmp_path / "load_test.json"
    expected = json.loads(_cli_json(cli, "calibrate", "closed-network", str(EXAMPLES / "load_test.csv"),
                                    "--stations", "3", "--output", str(saved)))
    response = _calibrate(server, "closed-network", EXAMPLES / "load_test.csv", stations=3)
    answer = response.json()
    profile = answer.pop("profile")
    expected.pop("profile")
    assert answer == expected
    # The tour's next step: the profile back into a what-if, inline.
    what_if = server.post("/api/queue/mva", json={"profile": profile, "population": 40})
    assert what_if.status_code == 200, what_if.text
    saved.write_text(json.dumps(profile))
    assert what_if.text == _cli_json(cli, "queue", "mva", "--profile", str(saved), "--population", "40")
    assert "throughput_ci_low" in what_if.json()


def test_fio_json_upload_calibrates(server: Any, tmp_path: Path) -> None:
    fio = tmp_path / "fio.json"
    fio.write_text(json.dumps(fio_document()))
    response = _calibrate(server, "closed-network", fio, stations=2, think_time_s=0.0)
    assert response.status_code == 200, response.text
    demands = sorted(p["value"] for name, p in response.json()["parameters"].items() if name.startswith("demand"))
    assert demands == pytest.approx([12e-6, 20e-6], rel=0.02)


def test_fio_json_uploads_calibrate_as_the_cli(server: Any, cli: Any) -> None:
    """Several fio JSON files uploaded at once (device's example sweep) fit as the CLI fits them."""
    runs = sorted((EXAMPLES / "device").glob("qd0*_run1.json"))
    files = [("file", (path.name, path.read_bytes(), "application/json")) for path in runs]
    response = server.post("/api/calibrate/device", files=files, data={"fit_percentile": ["99"]},
                           headers={"X-Iosizer": "1"})
    assert response.status_code == 200, response.text
    assert response.headers["X-Iosizer-Exit"] == "0"
    answer = response.json()
    profile = answer.pop("profile")
    expected = json.loads(_cli_json(cli, "calibrate", "device", *map(str, runs), "--fit-percentile", "99"))
    assert expected.pop("profile") is None and profile["model"] == "device"
    assert answer == expected


def test_the_report_is_served_as_ask_answers_it(server: Any, tmp_path: Path) -> None:
    response = server.post("/api/report", json={"check": True})
    assert response.status_code == 200, response.text
    assert response.headers["X-Iosizer-Exit"] == "0"
    answer = response.json()
    assert answer.pop("output_dir") == "iosizer-report"  # the server's own temporary folder, never a path of it
    asked = iosizer.ask("report", check=True, output_dir=str(tmp_path / "r"))
    asked.pop("output_dir")
    assert answer == asked and answer["failed"] == 0


def test_a_profile_inline_answers_as_the_profile_file(server: Any, cli: Any, tmp_path: Path,
                                                      mmc_fit: dict[str, Any]) -> None:
    path = tmp_path / "mmc.json"
    path.write_text(json.dumps(mmc_fit["profile"]))
    response = server.post("/api/queue/mmc", json={"arrival_rate": 3000, "profile": mmc_fit["profile"]})
    assert response.status_code == 200, response.text
    assert response.text == _cli_json(cli, "queue", "mmc", "--arrival-rate", "3000", "--profile", str(path))
    # The tour: carried to a CPU 1.5x faster, the answer widens into a band.
    out = tmp_path / "new.json"
    expected = json.loads(_cli_json(cli, "extrapolate", str(path), "--cpu-speed", "1.5", "--output", str(out)))
    carried = server.post("/api/extrapolate", json={"profiles": [mmc_fit["profile"]], "cpu_speed": 1.5}).json()
    new_profile = carried.pop("profile")
    expected.pop("profile")
    assert carried == expected
    assert _without_run_details(new_profile) == _without_run_details(json.loads(out.read_text()))
    wide = server.post("/api/queue/mmc", json={"arrival_rate": 3600, "profile": new_profile}).json()
    assert wide["mean_response_ci_low"] < wide["mean_response"] < wide["mean_response_ci_high"]


@pytest.mark.parametrize(("command", "family", "body"), [
    ("hba response", "hba", {"threads": "1,16"}),
    ("hba isolation", "hba", {}),
    ("loadshare curve", "loadshare", {"points": 5}),
    ("loadshare compare", "loadshare", {}),
    ("replication", "replication", {}),
])
def test_every_family_what_if_takes_its_profile_inline(server: Any, cli: Any, profiles: Any, command: str,
                                                       family: str, body: dict[str, Any]) -> None:
    # These five once declared --profile as text, so the API took a file name instead of the document.
    path = profiles[family]
    response = server.post("/api/" + command.replace(" ", "/"), json={**body, "profile": json.loads(path.read_text())})
    assert response.status_code == 200, response.text
    flags = [w for k, v in body.items() for w in ("--" + k.replace("_", "-"), str(v))]
    assert response.text == _cli_json(cli, *command.split(), *flags, "--profile", str(path))


# --- errors ----------------------------------------------------------------------------


def _error(response: Any, status: int, kind: str | None = None) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "kind", "field"}, body
    assert "Traceback" not in response.text and "\n" not in body["error"]
    if kind is not None:
        assert body["kind"] == kind, body
    return body["error"]


def test_a_model_error_is_422_with_the_clis_line(server: Any, cli: Any) -> None:
    args = ["--arrival-rate", "5", "--service-rate", "1", "--servers", "4"]
    line = cli.fails("queue", "mmc", *args)
    message = _error(server.post("/api/queue/mmc", json={"arrival_rate": 5, "service_rate": 1, "servers": 4}),
                     422, "UnstableQueueError")
    assert line == "iosizer: error: " + message


def test_a_work_cap_is_refused_as_the_cli_refuses_it(server: Any, cli: Any) -> None:
    line = cli.fails("queue", "mmc", "--arrival-rate", "0:2000000:1", "--service-rate", "1e9", "--servers", "4")
    message = _error(server.post("/api/queue/mmc", json={"arrival_rate": "0:2000000:1", "service_rate": 1e9,
                                                         "servers": 4}), 422, "InputError")
    assert line == "iosizer: error: " + message


def test_a_simulation_budget_too_small_is_422_with_what_to_change(server: Any) -> None:
    # One replication of a million customers against 1 s: the budget holds within the replication.
    body = {"arrival_rate": 3.2, "service_rate": 1, "servers": 4, "replications": 2, "run_length": 1000000,
            "max_seconds": 1, "workers": 1}
    message = _error(server.post("/api/simulate/mmc?wait=true", json=body), 422, "TimeBudgetError")
    assert "one replication takes about" in message and "--max-seconds" in message


@pytest.mark.parametrize(("body", "words"), [
    ({"service_rate": 1, "servers": 4}, "arrival_rate: Field required"),
    ({"arrival_rate": 3.2, "service_rate": "fast", "servers": 4}, "service_rate"),
    ({"arrival_rate": 3.2, "service_rate": 1, "servers": 4.5}, "servers"),
    ({"arrival_rate": 3.2, "service_rate": 1, "servers": 4, "sever": 1}, "sever: Extra inputs"),
    ({"arrival_rate": 3.2, "service_rate": 1, "servers": 4, "profile": "/etc/passwd"}, "profile"),
    ({"arrival_rate": [1, "x"]}, "arrival_rate"),
], ids=["missing", "not a number", "not whole", "unknown option", "profile as a path", "text in a list"])
def test_a_request_that_does_not_validate_is_422(server: Any, body: dict[str, Any], words: str) -> None:
    assert words in _error(server.post("/api/queue/mmc", json=body), 422, "ValidationError")


def test_malformed_bodies_and_server_paths_are_422(server: Any) -> None:
    headers = {"content-type": "application/json"}
    assert "not valid JSON" in _error(server.post("/api/queue/mmc", content=b"{oops", headers=headers), 422)
    _error(server.post("/api/queue/mmc", content=b'{"arrival_rate": 1, "service_rate": NaN, "servers": 1}',
                       headers=headers), 422)
    _error(server.post("/api/queue/mmc", json=[1, 2]), 422)
    assert "path on the server" in _error(server.post("/api/run", json={"scenario": "/etc/passwd"}), 422)
    assert "path on the server" in _error(server.post("/api/run", json={"scenario": "../x.toml"}), 422)


@pytest.mark.parametrize(("content", "field"), [
    (b'{"arrival_rate": 1, "service_rate": NaN, "servers": 1}', "service_rate"),
    (b'{"arrival_rate": 1, "service_rate": 1e400, "servers": 1}', "service_rate"),
    (b'{"arrival_rate": "nan", "service_rate": 1, "servers": 1}', "arrival_rate"),
    (b'{"arrival_rate": "1e400", "service_rate": 1, "servers": 1}', "arrival_rate"),
    (b'{"arrival_rate": 1, "service_rate": 1, "servers": 0}', "servers"),
    (b"", "arrival_rate"),
], ids=["NaN", "1e400", "nan as text", "1e400 as text", "zero servers", "empty body"])
def test_whatever_the_request_says_wrongly_is_422_naming_the_field(server: Any, content: bytes, field: str) -> None:
    answer = server.post("/api/queue/mmc", content=content, headers={"content-type": "application/json"})
    message = _error(answer, 422)
    assert answer.json()["field"] == field, answer.json()
    assert message.startswith(field) or f"--{field.replace('_', '-')}" in message, message


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/queue/mmc", {"arrival_rate": 5, "service_rate": 1, "servers": 4}, "arrival_rate"),  # unstable
    ("/api/queue/ggc", {"arrival_rate": 5, "service_rate": 1, "servers": 4}, "arrival_rate"),
    ("/api/queue/mmc", {"arrival_rate": 1, "servers": 4}, "service_rate"),
    ("/api/queue/mmc", [1, 2], "body"),
    ("/api/queue/mva", {"population": 10}, "demand"),
    ("/api/latency/dma", {"device": "nosuch", "added_latency_ns": 100}, "device"),
    ("/api/replication", {"link": "nosuch"}, "link"),
    ("/api/loadshare/curve", {"scenario": "nosuch"}, "scenario"),
    ("/api/run", {"scenario": "nosuch"}, "scenario"),
    ("/api/extrapolate", {"cpu_speed": 2}, "profiles"),
    ("/api/device/curve", {"outstanding": [1, "x"]}, "outstanding"),
    ("/api/simulate/mmc?wait=true", {"arrival_rate": 5, "service_rate": 1, "servers": 4, "replications": 2,
                                     "run_length": 100}, "arrival_rate"),
], ids=["unstable mmc", "unstable ggc", "missing rate", "not an object", "missing demand", "unknown device",
        "unknown link", "unknown scenario", "no such scenario file", "missing argument", "question list",
        "unstable simulation"])
def test_every_422_names_the_field(server: Any, path: str, body: Any, field: str) -> None:
    answer = server.post(path, json=body)
    _error(answer, 422)
    assert answer.json()["field"] == field, answer.json()


def test_a_json_object_as_text_plain_is_refused_in_clear_words(server: Any) -> None:
    answer = server.post("/api/queue/mmc", content=b'{"arrival_rate": 3.2, "service_rate": 1, "servers": 4}',
                         headers={"content-type": "text/plain"})
    message = _error(answer, 422, "ContentTypeError")
    assert "Content-Type: application/json" in message and "text/plain" in message
    assert answer.json()["field"] == "content-type"


def test_bad_uploads(server: Any, tmp_path: Path) -> None:
    broken = tmp_path / "broken.csv"
    broken.write_text("arrival_rate_per_s,mean_response_s\n400,abc\n")
    assert "broken.csv" in _error(_calibrate(server, "mmc", broken, servers=4), 422, "DatasetError")
    _error(_calibrate(server, "mmc", EXAMPLES / "hba_core_response.csv", servers="four"), 422, "ValidationError")
    _error(_calibrate(server, "mmc", EXAMPLES / "hba_core_response.csv", nonsense=1), 422, "ValidationError")
    assert "unknown model" in _error(_calibrate(server, "no-such-family", EXAMPLES / "hba_core_response.csv"), 422)
    no_file = server.post("/api/calibrate/mmc", files={"servers": (None, "4")}, headers={"X-Iosizer": "1"})
    assert _error(no_file, 422, "ValidationError").startswith("file: ")


def test_an_upload_over_the_limit_is_413(server: Any) -> None:
    big = b"arrival_rate_per_s,mean_response_s\n" + b"1,1\n" * (13 * 2**20)  # 52 MiB
    assert "50 MiB" in _error(server.post("/api/calibrate/mmc", files={"file": ("big.csv", big)},
                                          headers={"X-Iosizer": "1"}), 413, "PayloadTooLarge")

    def chunks() -> Any:  # no Content-Length: counted as it streams in
        for _ in range(51):
            yield b" " * 2**20

    _error(server.post("/api/queue/mmc", content=chunks(), headers={"content-type": "application/json"}), 413)


def test_unknown_routes_answer_json(server: Any) -> None:
    _error(server.get("/api/nope"), 404, "NotFound")
    _error(server.get("/api/queue/mmc"), 405, "MethodNotAllowed")


# --- concurrency -------------------------------------------------------------------------


def test_a_long_calibration_does_not_stall_a_quick_what_if(server: Any, tmp_path: Path) -> None:
    rows = (EXAMPLES / "load_test.csv").read_text().splitlines()
    big = tmp_path / "big_load_test.csv"
    big.write_text("\n".join([rows[0]] + rows[1:] * 24000) + "\n")  # 720,000 rows: a fit of seconds
    with ThreadPoolExecutor(1) as pool:
        started = time.perf_counter()
        fit = pool.submit(_calibrate, server, "closed-network", big, stations=3)
        time.sleep(0.3)
        quick = []
        while not fit.done() and len(quick) < 20:
            t = time.perf_counter()
            response = server.post("/api/queue/mmc", json={"arrival_rate": 3.2, "service_rate": 1, "servers": 4})
            quick.append(time.perf_counter() - t)
            assert response.status_code == 200
        response = fit.result()
        fit_seconds = time.perf_counter() - started
    assert response.status_code == 200, response.text
    assert quick, f"the calibration took only {fit_seconds:.2f} s: make the file bigger"
    print(f"calibration {fit_seconds:.2f} s; {len(quick)} what-ifs meanwhile, slowest {max(quick) * 1e3:.0f} ms")
    # Stalled behind the fit, the first what-if would wait for most of it; answered in its own lane, each
    # takes a small share of it (a ratio to the fit timed in the same run, not a wall-clock bound: a loaded
    # machine slows both).
    assert max(quick) < 0.5 * fit_seconds, (quick, fit_seconds)


def _wrong_bodies(spec: Any) -> list[dict[str, Any]]:
    fields = [f.key for f in spec.body_fields]
    bodies = [{key: "x" for key in fields}, {key: -1 for key in fields}, {key: [] for key in fields}]
    return bodies if spec.path == ("report",) else [{}] + bodies  # {} would run the whole report


def test_no_request_body_makes_a_500(server: Any) -> None:
    """Every served command, given nothing or nonsense, answers 200 or 422 (a simulation may become a job,
    202): never 500, never a traceback."""
    for spec in command_specs()[0]:
        if spec.path == ("calibrate",):
            continue
        for body in _wrong_bodies(spec):
            simulation = spec.path[0] == "simulate"
            response = server.post(spec.url + ("?wait=false" if simulation else ""), json=body)
            assert response.status_code in ((202, 422) if simulation else (200, 422)), (spec.name, body, response.text)
            if response.status_code == 202:  # a valid simulation: not what this test is about
                assert server.client.delete(response.json()["url"]).json()["status"] in ("cancelled", "done", "failed")
            elif response.status_code != 200:
                _error(response, response.status_code)


def test_no_server_path_leaves_the_server(server: Any) -> None:
    message = _error(server.post("/api/queue/mmc", json={"arrival_rate": 1, "profile": {"model": "mmc"}}), 422,
                     "ProfileError")
    assert message.startswith("profile") and "/tmp" not in message and "iosizer-serve" not in message

"""Property-based fuzz of every command's numeric options and of the CSV reader (issue 13).

The rule, for any input: exit 0 with finite numbers in the JSON, or exit 2
with one line on stderr (and, with ``--format json``, an error object on
stdout) and no traceback; never exit 1; nothing written when a command
fails; every run under 10 s. Examples are derandomized (the same every run)
and bounded, so the whole file runs in seconds.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import tempfile
import time
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples"
#: Every run must finish its work within this many CPU seconds (the issue's bound on work, not on wall time).
RUN_LIMIT_S = 10.0

#: Examples per command; IOSIZER_FUZZ_EXAMPLES=500 searches deeper (still derandomized).
EXAMPLES_PER_COMMAND = int(os.environ.get("IOSIZER_FUZZ_EXAMPLES", "14"))
FUZZ = settings(max_examples=EXAMPLES_PER_COMMAND, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

#: command -> (arguments that make it valid, its numeric options, whether it takes --plot, writes -o).
#: Files named {csv}, {oltp}, {load_test} and {profile} are copied into each run's folder.
COMMANDS: dict[str, tuple[list[str], list[str], bool, bool]] = {
    "queue mm1": (["--arrival-rate", "1", "--service-rate", "2"], ["--arrival-rate", "--service-rate", "--percentile"],
                  True, False),
    "queue mmc": (["--arrival-rate", "1", "--service-rate", "2", "--servers", "2"],
                  ["--arrival-rate", "--service-rate", "--servers", "--percentile"], True, False),
    "queue mg1": (["--arrival-rate", "1", "--service-rate", "2", "--service-scv", "1"],
                  ["--arrival-rate", "--service-rate", "--service-scv", "--percentile"], True, False),
    "queue md1": (["--arrival-rate", "1", "--service-rate", "2"], ["--arrival-rate", "--service-rate", "--percentile"],
                  True, False),
    "queue ggc": (["--arrival-rate", "1", "--service-rate", "2", "--servers", "2"],
                  ["--arrival-rate", "--service-rate", "--servers", "--arrival-scv", "--service-scv", "--percentile"],
                  True, False),
    "queue erlang": (["--servers", "2", "--offered-load", "1"], ["--servers", "--offered-load", "--arrival-rate"],
                     False, False),
    "queue erlang --profile {profile}": (["--arrival-rate", "1"], ["--arrival-rate", "--servers"], False, False),
    "queue mmc --profile {profile}": (["--arrival-rate", "1"], ["--arrival-rate", "--servers", "--percentile",
                                                               "--cpu-speed"], True, False),
    "queue mva": (["--population", "10", "--demand", "0.1", "--demand", "0.05"],
                  ["--population", "--demand", "--think-time", "--servers", "--percentile", "--cpu-speed"], True,
                  False),
    "latency dma": (["--device", "e1000", "--added-latency-ns", "100"], ["--added-latency-ns", "--burst-bytes"],
                    True, False),
    "latency dma --profile {dma_profile}": (["--added-latency-ns", "100", "--burst-bytes", "512"],
                                            ["--added-latency-ns", "--burst-bytes", "--cpu-speed"], True, False),
    "latency oltp": (["--added-latency-ns", "100", "--cpu-speed", "2"],
                     ["--added-latency-ns", "--cpu-speed", "--stall-exponent", "--issue-rate-exponent",
                      "--service-scv"], True, False),
    "latency budget": (["--budget-pct", "5"], ["--budget-pct"], False, False),
    "latency tiers": ([], ["--budget-pct", "--hop-ns"], True, False),
    "pcie link": ([], ["--gen", "--lanes", "--mps", "--transfer-bytes", "--header-dw", "--dllps-per-tlp",
                       "--mrrs", "--rcb"], False, False),
    "pcie pattern": (["520"], ["--mps"], False, False),
    "pcie rmw": ([], ["--pattern", "--lanes", "--mps", "--cpu-speed", "--service-scv"], True, False),
    "hba isolation": ([], ["--block-kib", "--lpar2-iops", "--lpar1-iops", "--lpar2-block-kib", "--cores",
                           "--core-iops", "--link-mbps", "--cpu-speed"], True, False),
    "hba response": ([], ["--block-bytes", "--threads", "--storage-us", "--cores", "--core-iops", "--link-mbps",
                          "--percentile", "--cpu-speed", "--service-scv"], True, False),
    "hba tenants": (["--tenant-iops", "100000,50000"], ["--ports", "--storage-us", "--cores", "--core-iops",
                                                         "--link-mbps", "--cpu-speed", "--service-scv"], False, False),
    "loadshare load": (["--load-cores", "2"], ["--load-cores", "--comm-overhead-pct", "--threshold", "--non-core-pct",
                                                "--io-service-us", "--max-cores", "--cpu-speed"], False, False),
    "loadshare curve": ([], ["--cores", "--comm-overhead-pct", "--threshold", "--non-core-pct", "--points",
                             "--percentile", "--cpu-speed"], True, False),
    "loadshare compare": ([], ["--cores", "--comm-overhead-pct", "--threshold", "--non-core-pct", "--points",
                               "--cpu-speed"], True, False),
    "replication": ([], ["--block-kib", "--outstanding", "--percentile", "--cpu-speed"], True, False),
    "size servers": (["--arrival-rate", "3", "--service-rate", "1", "--target-response-s", "2"],
                     ["--arrival-rate", "--service-rate", "--target-response-s", "--percentile",
                      "--target-wait-probability"], False, False),
    "size load": (["--target-response-s", "2", "--service-rate", "1", "--servers", "4"],
                  ["--target-response-s", "--service-rate", "--servers", "--demand", "--think-time", "--percentile",
                   "--target-wait-probability"], False, False),
    "size latency": (["--budget-pct", "5"], ["--budget-pct", "--hop-ns"], False, False),
    "size lanes": (["--budget-pct", "10"], ["--budget-pct", "--mps", "--max-lanes"], False, False),
    "size hba": (["--tenant-iops", "100000,50000", "--target-response-us", "100"],
                 ["--tenant-iops", "--target-response-us", "--block-kib", "--ports", "--cores", "--storage-us",
                  "--service-scv", "--core-iops", "--link-mbps", "--cpu-speed"],
                 False, False),
    "size cores": (["--load-cores", "2", "--target-response", "3"],
                   ["--load-cores", "--target-response", "--comm-overhead-pct", "--threshold", "--max-cores",
                    "--non-core-pct", "--cpu-speed", "--io-service-us"],
                   False, False),
    "size outstanding": (["--target-iops", "10000"],
                         ["--target-iops", "--block-kib", "--outstanding", "--target-latency-us"], False, False),
    "size device": (["--target-iops", "10000"], ["--target-iops", "--target-latency-us", "--percentile"],
                    False, False),
    "calibrate mmc {csv}": (["--servers", "4"], ["--servers", "--cpu-speed"], True, True),
    "calibrate closed-network {load_test}": (["--stations", "3"], ["--stations", "--think-time-s", "--cpu-speed",
                                                                    "--fit-percentile"],
                                             True, True),
    "calibrate oltp {oltp}": ([], ["--terminals", "--cpu-speed"], True, True),
    "extrapolate {profile}": (["--cpu-speed", "2"], ["--cpu-speed"], False, True),
}
# iosizer simulate: every family, with a short fixed run (2 replications of 200 customers in
# this process, a 3 s budget) so each example stays well inside the 10 s rule. Not fuzzed, by
# design: --max-seconds (the budget that bounds the others, within a replication too; its
# range is checked in tests/simulate) and --run-length (bounded by that budget; checked there too).
_SIM_RUN = ["--replications", "2", "--run-length", "200", "--workers", "1", "--max-seconds", "3"]
_SIM_FUZZED = ["--replications", "--target-ci-pct", "--seed"]
SIMULATE: dict[str, tuple[list[str], list[str]]] = {
    "simulate mmc": (["--arrival-rate", "3", "--service-rate", "1", "--servers", "4"],
                     ["--arrival-rate", "--service-rate", "--servers"]),
    "simulate mm1": (["--arrival-rate", "0.5", "--service-rate", "1"], ["--arrival-rate", "--service-rate"]),
    "simulate md1": (["--arrival-rate", "0.5", "--service-rate", "1"], ["--arrival-rate", "--service-rate"]),
    "simulate mg1": (["--arrival-rate", "0.5", "--service-rate", "1", "--service-scv", "2"],
                     ["--arrival-rate", "--service-rate", "--service-scv"]),
    "simulate ggc": (["--arrival-rate", "1", "--service-rate", "1", "--servers", "2"],
                     ["--arrival-rate", "--service-rate", "--servers", "--arrival-scv", "--service-scv"]),
    "simulate closed-network": (["--population", "4", "--demand", "0.1", "--demand", "0.05"],
                                ["--population", "--demand", "--think-time", "--service-scv"]),
    "simulate oltp": ([], ["--added-latency-ns", "--service-scv"]),
    "simulate dma": ([], ["--added-latency-ns", "--service-scv"]),
    "simulate rmw": ([], ["--transfer-bytes", "--lanes", "--mps", "--service-scv"]),
    "simulate loadshare": ([], ["--load-fraction", "--load-cores", "--cores", "--comm-overhead-pct", "--threshold",
                                "--service-scv", "--non-core-pct", "--port-share"]),
    "simulate replication": ([], ["--block-kib", "--outstanding", "--service-scv"]),
    "simulate device": (["--latency-floor-us", "20", "--parallel-units", "4", "--unit-service-us", "100",
                         "--service-scv", "1", "--outstanding", "1,8"],
                        ["--latency-floor-us", "--parallel-units", "--unit-service-us", "--service-scv"]),
    "simulate hba response": ([], ["--threads", "--block-bytes", "--storage-us", "--cores", "--core-iops",
                                   "--link-mbps", "--service-scv"]),
}
COMMANDS.update({name: (args + _SIM_RUN, options + _SIM_FUZZED, False, False)
                 for name, (args, options) in SIMULATE.items()})
#: Options left out of the fuzz on purpose, with the reason above.
NOT_FUZZED = {name: {"--max-seconds", "--run-length", "--workers"} for name in SIMULATE}
# iosizer serve runs until it is stopped: its numeric options' bounds are checked while parsing
# (test_serve_options_are_bounded below), not by starting servers here.
NOT_FUZZED["serve"] = {"--port", "--workers", "--max-upload-mb", "--request-timeout-s", "--jobs", "--job-queue",
                       "--simulation-workers", "--max-replications", "--max-job-seconds", "--max-memory-mb",
                       "--wait-seconds"}

#: Commands with no numeric option to fuzz (their inputs are names, files or nothing).
NOT_NUMERIC = {"families", "params", "datasets", "run", "report", "simulate hba isolation"}

#: The values a new user types by mistake: zero, negative, NaN, inf, huge, lists, ranges...
SPECIAL = ["0", "-0", "1", "-1", "2", "nan", "-nan", "inf", "-inf", "1e300", "-1e300", "1e-300",
           "99999999999999999999", "1" + "0" * 400, "", " ", "0.5", "1,2", "2,2", "1,nan", "0:10:1", "0:10:0",
           "10:0:1", "1:1e9:1", "0:99999:1", "1:4", "4:1", "0:2100:300", "1e5", "65536", "1024", "abc", "1_000"]
VALUES = st.one_of(
    st.sampled_from(SPECIAL),
    st.integers(-(2**40), 2**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@pytest.fixture(scope="module", autouse=True)
def command_built_once() -> Any:
    """typer rebuilds the whole command tree (every command's signature) on each in-process run:
    ~60 % of a fuzz example's time. The fuzz runs the same app hundreds of times, so it is built
    once here; the commands, and what they are given, are unchanged."""
    import typer.main
    import typer.testing

    from iosizer.cli.app import app

    built = typer.main.get_command(app)
    build = typer.testing._get_command

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typer.testing, "_get_command", lambda typer_app: built if typer_app is app else build(typer_app))
        yield


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The data files the commands read: the shipped examples and a profile calibrated from one."""
    from typer.testing import CliRunner

    from iosizer.cli.app import app

    folder = tmp_path_factory.mktemp("inputs")
    files = {"csv": EXAMPLES / "hba_core_response.csv", "oltp": EXAMPLES / "oltp.csv",
             "load_test": EXAMPLES / "load_test.csv"}
    profiles = {"profile": folder / "p.json", "dma_profile": folder / "dma.json"}
    for args in (["mmc", str(files["csv"]), "--servers", "4", "--cpu-speed", "1", "-o", str(profiles["profile"])],
                 ["dma", str(EXAMPLES / "dma.csv"), "-o", str(profiles["dma_profile"])]):
        result = CliRunner().invoke(app, ["calibrate", *args])
        assert result.exit_code == 0, result.stderr
    return {**files, **profiles}


def _finite(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"non-finite number {constant} in the JSON answer")

    return json.loads(text, parse_constant=refuse)


def check_rule(cli: Any, args: list[str], written: list[Path], output_format: str) -> Any:
    """Run ``iosizer ARGS`` and hold it to the issue's rule; returns the result."""
    start = time.process_time()  # CPU seconds: a busy machine stretches wall time, not the work done
    result = cli(*args)
    elapsed = time.process_time() - start
    shown = " ".join(repr(a) for a in args)
    assert elapsed < RUN_LIMIT_S, f"{elapsed:.1f} CPU s: iosizer {shown}"
    assert result.exit_code in (0, 2), f"exit {result.exit_code}: iosizer {shown}: {result.stderr}"
    assert "Traceback" not in result.stderr
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("iosizer: error: "), f"iosizer {shown}: {result.stderr!r}"
        assert "internal error" not in lines[0]
        if output_format == "json":
            error = json.loads(result.stdout)
            assert error["exit"] == 2 and error["error"] and error["kind"]
        assert not [p for p in written if p.exists()], f"iosizer {shown} failed but wrote {written}"
    elif output_format == "json":
        _finite(result.stdout)
    return result


@st.composite
def _runs(draw: Any, command: str) -> tuple[list[str], str, bool]:
    base, options, _, _ = COMMANDS[command]
    chosen = draw(st.lists(st.sampled_from(options), min_size=1, max_size=2, unique=True))
    args = list(base)
    for option in chosen:
        if option in args:  # replace the valid value
            at = args.index(option)
            del args[at:at + 2]
        args += [option, draw(VALUES)]
    output_format = draw(st.sampled_from(["json", "json", "csv", "table"]))
    return args, output_format, draw(st.integers(0, 3)) == 0


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_numeric_options_obey_the_rule(cli, inputs: dict[str, Path], command: str) -> None:
    _, _, plots, saves = COMMANDS[command]

    @FUZZ
    @given(run=_runs(command))
    def fuzz(run: tuple[list[str], str, bool]) -> None:
        args, output_format, with_files = run
        with tempfile.TemporaryDirectory() as folder:
            words = [w.format(**{k: str(v) for k, v in inputs.items()}) for w in command.split()]
            written = []
            extra = ["--format", output_format]
            if with_files and plots:
                written.append(Path(folder) / "answer.svg")
                extra += ["--plot", str(written[-1])]
            if with_files and saves:
                written.append(Path(folder) / "out.json")
                extra += ["-o", str(written[-1])]
            result = check_rule(cli, [*words, *args, *extra], written, output_format)
            if result.exit_code == 0:
                assert all(p.exists() for p in written)
                assert sorted(p.name for p in Path(folder).iterdir()) == sorted(p.name for p in written)

    fuzz()


def test_every_command_with_a_numeric_option_is_fuzzed() -> None:
    """A new command (or option) must join :data:`COMMANDS`, or say it has nothing numeric."""
    from typer.main import get_command

    from iosizer.cli.app import app

    fuzzed: dict[str, set[str]] = {}
    for name, spec in COMMANDS.items():
        words = list(itertools.takewhile(lambda w: not w.startswith(("-", "{")), name.split()))
        # 'calibrate MODEL DATA': the model and the file are arguments of one command.
        path = words[0] if words[0] in ("calibrate", "extrapolate") else " ".join(words)
        fuzzed.setdefault(path, set()).update(spec[1])

    def leaves(group: Any, prefix: str) -> Any:
        for name, command in group.commands.items():
            path = f"{prefix} {name}".strip()
            if hasattr(command, "commands"):
                yield from leaves(command, path)
            else:
                yield path, command

    def is_numeric(parameter: Any) -> bool:
        descriptor = getattr(parameter, "type_descriptor", None)  # typer's own parameters
        if descriptor is None:
            return getattr(getattr(parameter, "type", None), "name", "") in ("integer", "float")

        def numeric(annotation: Any) -> bool:
            return annotation in (int, float) or any(numeric(a) for a in typing.get_args(annotation))

        return numeric(descriptor.annotation)

    for path, command in leaves(get_command(app), ""):
        numeric = {opt for p in command.params if is_numeric(p) for opt in p.opts if opt.startswith("--")}
        if path in NOT_NUMERIC:
            assert not numeric, f"{path} has numeric options {numeric}: add it to COMMANDS"
            continue
        assert path in fuzzed or path in NOT_FUZZED, f"'{path}' is neither fuzzed nor listed in NOT_NUMERIC"
        missing = numeric - fuzzed.get(path, set()) - NOT_FUZZED.get(path, set())
        assert not missing, f"'{path}': numeric options {missing} are not fuzzed"


# --- the CSV reader ------------------------------------------------------------------------------

_GOOD = (EXAMPLES / "hba_core_response.csv").read_bytes()
_ENCODINGS = ["utf-16", "utf-32", "latin-1", "cp1252", "utf-8-sig", "shift_jis"]
_CELLS = ["nan", "inf", "-inf", "1e308", "1e400", "-0", "", '"', "'", "1,5", "0x10", "１０", "1e-320",
          "9" * 5000, "\x00", "NULL"]


@st.composite
def _csv_bytes(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["random", "truncated", "encoded", "flipped", "cell", "huge", "rows"]))
    if kind == "random":
        return draw(st.binary(max_size=600))
    if kind == "truncated":
        return _GOOD[:draw(st.integers(0, len(_GOOD)))]
    if kind == "encoded":
        return _GOOD.decode().replace("0.", "０.", draw(st.integers(0, 2))).encode(draw(st.sampled_from(_ENCODINGS)),
                                                                                  errors="replace")
    if kind == "flipped":
        data = bytearray(_GOOD)
        for _ in range(draw(st.integers(1, 6))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    lines = _GOOD.decode().splitlines()
    row = draw(st.integers(1, len(lines) - 1))
    if kind == "cell":
        cells = lines[row].split(",")
        cells[draw(st.integers(0, len(cells) - 1))] = draw(st.sampled_from(_CELLS))
        lines[row] = ",".join(cells)
    elif kind == "huge":
        lines[row] += "," + "7" * draw(st.sampled_from([10, 100_000, 300_000]))
    else:
        lines = lines[:1] + [draw(st.sampled_from(["1,2", "1", "1,2,3,4", ",", "a,b"]))] * draw(st.integers(0, 4))
    return ("\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n", "\n\n\n"]))).encode()


@settings(max_examples=8 * EXAMPLES_PER_COMMAND, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=_csv_bytes(), output_format=st.sampled_from(["json", "table"]))
def test_the_csv_reader_obeys_the_rule(cli, data: bytes, output_format: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "measured.csv"
        path.write_bytes(data)
        out = Path(folder) / "out.json"
        result = check_rule(cli, ["calibrate", "mmc", str(path), "--servers", "4", "-o", str(out),
                                  "--format", output_format], [out], output_format)
        if result.exit_code == 0:
            assert out.exists()
            if output_format == "json":
                assert all(math.isfinite(v["value"]) for v in _finite(result.stdout)["parameters"].values())


def test_the_csv_fuzz_has_a_valid_file_among_its_cases(cli, tmp_path: Path) -> None:
    # The fuzz's mutations start from a file the reader accepts.
    path = tmp_path / "measured.csv"
    shutil.copy(EXAMPLES / "hba_core_response.csv", path)
    assert check_rule(cli, ["calibrate", "mmc", str(path), "--servers", "4", "--format", "json"], [], "json"
                      ).exit_code == 0


@pytest.mark.parametrize("args", [["--port", "99999999"], ["--port", "-1"], ["--workers", "0"],
                                  ["--workers", "1e9"], ["--max-upload-mb", "-1"], ["--max-upload-mb", "nan"],
                                  ["--request-timeout-s", "0"], ["--request-timeout-s", "nan"],
                                  ["--request-timeout-s", "inf"], ["--request-timeout-s", "1e9"],
                                  ["--simulation-workers", "0"], ["--max-replications", "1"],
                                  ["--max-memory-mb", "nan"], ["--max-job-seconds", "0"], ["--jobs", "0"]])
def test_serve_options_are_bounded(cli, args: list[str]) -> None:
    """Refused while parsing, before any server starts (one line, exit 2)."""
    assert cli.fails("serve", *args)


# --- the fio JSON reader ---------------------------------------------------------------------------

_FIO = json.loads((EXAMPLES / "fio_randread.json").read_text())
_FIO_VALUES = [None, True, False, "x", "", [], {}, [1], {"a": 1}, -1, 0, 1e308, "nan", "1e9", 2**70]


def _fio_paths(node: Any, path: tuple = ()) -> list[tuple]:
    """Every place in the document a value sits (keys of objects, indices of lists)."""
    found = [path] if path else []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        found += _fio_paths(child, (*path, key))
    return found


_FIO_PATHS = _fio_paths(_FIO)


@st.composite
def _fio_bytes(draw: Any) -> bytes:
    text = json.dumps(_FIO)
    if draw(st.integers(0, 4)) == 0:
        return text[:draw(st.integers(0, len(text)))].encode()  # truncated
    document = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(_FIO_PATHS))
        node = document
        try:
            for key in where[:-1]:
                node = node[key]
            node[where[-1]] = draw(st.sampled_from(_FIO_VALUES))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the path
    return json.dumps(document).encode()


@settings(max_examples=8 * EXAMPLES_PER_COMMAND, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=_fio_bytes(), output_format=st.sampled_from(["json", "table"]))
def test_the_fio_reader_obeys_the_rule(cli, data: bytes, output_format: str) -> None:
    # Wrong types anywhere in fio's JSON (a word for a number, a list for an object) or a truncated
    # file: a one-line error naming the file, never an internal error.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.json"
        path.write_bytes(data)
        out = Path(folder) / "out.json"
        check_rule(cli, ["calibrate", "closed-network", str(path), "--set", "stations=2", "--set", "think_time_s=0",
                         "--force", "-o", str(out), "--format", output_format], [out], output_format)

"""Dataset validation: every malformed-CSV case names file, line and column."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from iosizer.calibration.dataset import Column, Role, Schema, load_dataset
from iosizer.model.registry import declaration

CLOSED_NETWORK_SCHEMA = declaration("closed-network").columns
MMC_SCHEMA = declaration("mmc").columns
OLTP_SCHEMA = declaration("oltp").columns
from iosizer.errors import DatasetError

LINK_SCHEMA = Schema(
    "link-test",
    (
        Column("added_latency_ns", Role.input, "ns"),
        Column("throughput_mbps", Role.observed, "MB/s", maximum=1600.0),
    ),
)


def write(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_file_with_weights_sources_and_blank_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "population,throughput_per_s,response_time_s,weight,source\n"
        "1,10.0,0.005,1,run A\n\n"
        "4,30.5,,2,run B\n",
    )
    data = load_dataset(path, CLOSED_NETWORK_SCHEMA)
    assert len(data) == 2
    assert data.lines.tolist() == [2, 4]
    assert data.values["population"].tolist() == [1.0, 4.0]
    assert np.isnan(data.values["response_time_s"][1])  # optional metric left empty
    assert data.weights.tolist() == [1.0, 2.0]
    assert data.sources == ("run A", "run B")
    assert len(data.sha256) == 64


@pytest.mark.parametrize(
    ("text", "schema", "message"),
    [
        ("", MMC_SCHEMA, "{path}: file is empty (expected a header row and data rows)"),
        ("arrival_rate_per_s,mean_response_s\n", MMC_SCHEMA, "{path}: has a header but no data rows"),
        (
            "arrival_rate_per_s,arrival_rate_per_s,mean_response_s\n1,1,2\n", MMC_SCHEMA,
            "{path}:1: header names column 'arrival_rate_per_s' twice",
        ),
        (
            "arrival_rate_per_s,response_ms\n1,2\n", MMC_SCHEMA,
            "{path}:1: missing column 'mean_response_s' (s) required by schema 'mmc'; "
            "the header has: arrival_rate_per_s, response_ms",
        ),
        (
            "arrival_rate_per_s,mean_response_s\n1,2\n2,fast\n", MMC_SCHEMA,
            "{path}:3: column 'mean_response_s': expected a number, got 'fast'",
        ),
        (
            "arrival_rate_per_s,mean_response_s\n1,nan\n", MMC_SCHEMA,
            "{path}:2: column 'mean_response_s': expected a finite number, got 'nan'",
        ),
        (
            "arrival_rate_per_s,mean_response_s\n1,2,3\n", MMC_SCHEMA,
            "{path}:2: expected 2 fields as in the header, got 3",
        ),
        (
            "added_latency_ns,throughput_mbps\n-300,100\n", LINK_SCHEMA,
            "{path}:2: column 'added_latency_ns': expected a value >= 0 (ns), got -300",
        ),
        (
            "added_latency_ns,throughput_mbps\n300,2000\n", LINK_SCHEMA,
            "{path}:2: column 'throughput_mbps': 2000 is above the ceiling 1600 MB/s "
            "that schema 'link-test' declares",
        ),
        (
            "population,throughput_per_s\n2.5,10\n", CLOSED_NETWORK_SCHEMA,
            "{path}:2: column 'population': expected a whole number, got 2.5",
        ),
        (
            "arrival_rate_per_s,mean_response_s\n0,2\n", MMC_SCHEMA,
            "{path}:2: column 'arrival_rate_per_s': expected a value > 0 (1/s), got 0",
        ),
        (
            "arrival_rate_per_s,mean_response_s,weight,stderr\n1,2,1,1\n", MMC_SCHEMA,
            "{path}:1: give either 'weight' or 'stderr', not both",
        ),
    ],
)
def test_malformed_files(tmp_path: Path, text: str, schema: Schema, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DatasetError) as caught:
        load_dataset(path, schema)
    assert str(caught.value) == message.format(path=path)


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="cannot read file"):
        load_dataset(tmp_path / "absent.csv", MMC_SCHEMA)
    binary = tmp_path / "blob.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(DatasetError, match="not a UTF-8 text file"):
        load_dataset(binary, MMC_SCHEMA)


CLI_CASES = [
    ("mmc", "", "{path}: file is empty (expected a header row and data rows)"),
    ("mmc", "arrival_rate_per_s,mean_response_s\n", "{path}: has a header but no data rows"),
    ("mmc", "arrival_rate_per_s,arrival_rate_per_s,mean_response_s\n1,1,2\n",
     "{path}:1: header names column 'arrival_rate_per_s' twice"),
    ("mmc", "arrival_rate_per_s,response_ms\n1,2\n",
     "{path}:1: missing column 'mean_response_s' (s) required by schema 'mmc'; "
     "the header has: arrival_rate_per_s, response_ms"),
    ("mmc", "arrival_rate_per_s,mean_response_s\n1,2\n2,fast\n",
     "{path}:3: column 'mean_response_s': expected a number, got 'fast'"),
    ("mmc", "arrival_rate_per_s,mean_response_s\n1,nan\n",
     "{path}:2: column 'mean_response_s': expected a finite number, got 'nan'"),
    ("mmc", "arrival_rate_per_s,mean_response_s\n-1,2\n",
     "{path}:2: column 'arrival_rate_per_s': expected a value > 0 (1/s), got -1"),
    ("closed-network", "population,throughput_per_s,response_time_s\n1,10,-0.005\n",
     "{path}:2: column 'response_time_s': expected a value > 0 (s), got -0.005"),
    ("closed-network", "population,throughput_per_s\n2000000,10\n",
     "{path}:2: column 'population': 2000000 is above the ceiling 100000 jobs that schema "
     "'closed-network' declares"),
    ("closed-network", "population,throughput_per_s\n2.5,10\n",
     "{path}:2: column 'population': expected a whole number, got 2.5"),
    ("mmc", "arrival_rate_per_s,mean_response_s\n1,2,3\n",
     "{path}:2: expected 2 fields as in the header, got 3"),
]


@pytest.mark.parametrize(("model", "text", "message"), CLI_CASES)
def test_every_malformed_case_through_the_cli(cli, tmp_path: Path, model: str, text: str, message: str) -> None:
    path = write(tmp_path, text)
    option = ["--servers", "2"] if model == "mmc" else ["--stations", "2"]
    assert cli.fails("calibrate", model, str(path), *option) == "iosizer: error: " + message.format(path=path)


def test_relation_column(tmp_path: Path) -> None:

    path = write(tmp_path, "added_latency_ns,degradation_pct,relation,approx_pct\n"
                           "0,0,eq,\n900,5,le,\n1600,10,approx_under,10\n2100,15,approx,20\n2200,3,ge,\n")
    data = load_dataset(path, OLTP_SCHEMA)
    assert data.bounds.tolist() == [0, 1, 0, 0, -1]
    assert data.values["degradation_pct"].tolist() == [0, 5, 9.5, 15, 3]
    assert data.extra["approx_pct"][2] == "10"
    bad = write(tmp_path, "added_latency_ns,degradation_pct,relation\n0,0,about\n", "bad.csv")
    with pytest.raises(DatasetError) as caught:
        load_dataset(bad, OLTP_SCHEMA)
    assert str(caught.value).startswith(f"{bad}:2: column 'relation': expected one of eq, approx, le")


def test_fast_and_row_readers_agree(tmp_path: Path) -> None:
    """A regular file takes numpy's parser; the same rows with a blank line take the row reader."""
    from iosizer.calibration import dataset as module

    rows = "\n".join(f"{lam},{0.001 + lam * 1e-7},4,\"load test, run {lam % 3}\"" for lam in range(100, 2000, 100))
    regular = tmp_path / "fast.csv"
    regular.write_text("arrival_rate_per_s,mean_response_s,servers,source\n" + rows + "\n")
    spaced = tmp_path / "rows.csv"
    spaced.write_text("arrival_rate_per_s,mean_response_s,servers,source\n" + rows.replace("\n", "\n\n", 1) + "\n")
    shape = module._scan(regular)
    assert module._fast_columns(regular, shape, ["arrival_rate_per_s", "mean_response_s", "servers", "source"],
                                MMC_SCHEMA) is not None
    assert module._fast_columns(spaced, module._scan(spaced),
                                ["arrival_rate_per_s", "mean_response_s", "servers", "source"], MMC_SCHEMA) is None
    fast, slow = load_dataset(regular, MMC_SCHEMA), load_dataset(spaced, MMC_SCHEMA)
    for name in fast.values:
        np.testing.assert_array_equal(fast.values[name], slow.values[name])
    assert fast.extra == slow.extra and fast.sources == slow.sources
    assert fast.sources[0] == "load test, run 1"
    assert fast.lines.tolist() == list(range(2, 21)) and slow.lines[1] == 4  # the blank line counted


def test_a_row_with_an_extra_field_is_caught_on_the_fast_path_too(tmp_path: Path) -> None:
    path = tmp_path / "extra.csv"
    path.write_text("arrival_rate_per_s,mean_response_s\n1,2\n2,3,9\n3,4\n")
    with pytest.raises(DatasetError, match="extra.csv:3: expected 2 fields as in the header, got 3"):
        load_dataset(path, MMC_SCHEMA)


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs POSIX special files")
@pytest.mark.parametrize("kind", ["device", "pipe", "folder"])
def test_measured_data_that_is_no_regular_file_is_refused_before_reading(tmp_path: Path, kind: str) -> None:
    # /dev/zero (or a pipe nobody writes) as data never ended: the command hung or filled memory.
    from iosizer.calibration.calibrate import load_measurements

    if kind == "device":
        path = Path("/dev/zero")
    elif kind == "pipe":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    else:
        path = tmp_path
    for reader in (lambda p: load_dataset(p, MMC_SCHEMA), lambda p: load_measurements(p, MMC_SCHEMA),
                   lambda p: load_measurements([p, p], MMC_SCHEMA)):
        with pytest.raises(DatasetError, match="is not a regular file|is a folder, not a file"):
            reader(path)


@pytest.mark.parametrize(("separator", "name"), [(";", "semicolon"), ("\t", "tab")])
def test_a_file_with_another_separator_is_named_as_such(tmp_path: Path, separator: str, name: str) -> None:
    # The error listed one long header field and left the reader to guess why.
    path = tmp_path / "measured.csv"
    path.write_text(separator.join(["arrival_rate_per_s", "mean_response_s"]) + "\n"
                    + separator.join(["400", "0.001"]) + "\n")
    with pytest.raises(DatasetError, match=f"looks {name}-separated; iosizer reads comma-separated CSV"):
        load_dataset(path, MMC_SCHEMA)


def test_a_byte_order_mark_and_crlf_lines_are_read(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffarrival_rate_per_s,mean_response_s\r\n400,0.001\r\n800,0.0011\r\n".encode())
    assert load_dataset(path, MMC_SCHEMA).values["arrival_rate_per_s"].tolist() == [400.0, 800.0]


def test_data_far_outside_the_model_name_the_file_in_one_clean_line(tmp_path: Path) -> None:
    # "model 'mmc' overflowed during the fit ((34, 'Numerical result out of range'))": no file, a raw tuple.
    from iosizer.calibration.calibrate import calibrate
    from iosizer.errors import CalibrationError

    path = tmp_path / "huge.csv"
    path.write_text("arrival_rate_per_s,mean_response_s\n1e308,0.001\n800,0.0011\n1200,0.0012\n")
    with pytest.raises(CalibrationError) as caught:
        calibrate("mmc", path, {"servers": 4})
    message = str(caught.value)
    # The fit itself no longer overflows (the numpy Jacobian has no a^c term): the data are judged instead.
    assert message.startswith(f"{path}: ") and "'mmc'" in message and "(34," not in message
    assert "\n" not in message

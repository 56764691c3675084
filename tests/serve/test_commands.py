"""The served commands (iosizer.catalogue): keys, types, roles and the command line back."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from iosizer.errors import InputError
from iosizer.catalogue import command_specs
from iosizer.commands import Role, body_values
from iosizer.units import unit_of


@pytest.fixture(scope="module")
def specs() -> dict[str, Any]:
    return {spec.name: spec for spec in command_specs()[0]}


def _argv(spec: Any, body: dict[str, Any], files: dict[str, Any] | None = None) -> list[str]:
    return spec.argv(body_values(spec.model.model_validate(body)), files)


def test_keys_are_the_long_flags(specs: dict[str, Any]) -> None:
    from iosizer.model.registry import declaration
    from iosizer.serve.questions import request_model

    # A declared question's fields are its declared names, its older flags beside them (pcie rmw's --pattern).
    rmw = request_model(declaration("rmw"), declaration("rmw").question("pcie rmw")).model_fields
    assert {"transfer_bytes", "pattern", "lanes", "mps_bytes", "mps"} <= set(rmw) and "throughput_gbps" not in rmw
    hba = declaration("hba")
    assert set(request_model(hba, hba.question("hba response")).model_fields) >= {"port", "storage_us", "threads"}
    assert {f.key for f in specs["simulate hba response"].body_fields} >= {"port", "storage_us", "threads"}
    assert "set" in {f.key for f in specs["calibrate"].body_fields}


def test_roles_keep_server_paths_out_of_the_body(specs: dict[str, Any]) -> None:
    roles = {f.key: f.role for f in specs["calibrate"].fields}
    assert roles["model"] is Role.route and roles["data"] is Role.upload
    assert roles["output"] is Role.output and roles["plot"] is Role.plot and roles["format"] is Role.format
    assert {f.key: f.role for f in specs["report"].fields}["output_dir"] is Role.server
    # latency oltp is a declared question now: its route takes one profile or a list (several CPUs).
    from iosizer.model.registry import declaration
    from iosizer.serve.questions import request_model

    oltp = declaration("oltp")
    assert "list" in str(request_model(oltp, oltp.question("latency oltp")).model_fields["profile"].annotation)
    assert {f.key: f.kind() for f in specs["size servers"].body_fields}["profile"] == "profile"
    for spec in specs.values():
        for field in spec.body_fields:
            assert field.role in (Role.plain, Role.profile)


def test_the_command_line_back(specs: dict[str, Any]) -> None:
    assert _argv(specs["simulate ggc"], {"arrival_rate": 3.2, "service_rate": 1, "servers": 4}) == [
        "simulate", "ggc", "--arrival-rate", "3.2", "--service-rate", "1.0", "--servers", "4", "--format", "json"]
    load = _argv(specs["size load"], {"demand": [0.005, 0.003], "servers": ["4", "delay"], "target_response_s": 1})
    assert load.count("--demand") == 2 and load[load.index("--servers") + 1] == "4" and "delay" in load
    assert _argv(specs["size servers"], {"arrival_rate": "1", "profile": {"model": "mmc"}},
                 {"profile": "profile.json"})[-4:] == ["--profile", "profile.json", "--format", "json"]


def test_arguments_keep_their_order(specs: dict[str, Any]) -> None:
    calibrate = specs["calibrate"]
    assert calibrate.argv({}, {"model": "mmc", "data": ["a.csv", "b.csv"]})[-4:] == ["--", "mmc", "a.csv", "b.csv"]
    with pytest.raises(InputError, match="needs 'model'"):
        calibrate.argv({}, {"data": ["a.csv"]})


@pytest.mark.parametrize("body", [
    {"arrival_rate": 1, "service_rate": float("inf")},
    {"arrival_rate": 1, "servers": "many"},
    {"arrival_rate": "/etc/passwd"},
    {"arrival_rate": 1, "servers": 2.5},
    {"arrival_rate": 1, "extra": 1},
    # JSON true/false is not a count or a rate (pydantic's lax numbers took true as 1).
    {"arrival_rate": 1, "service_rate": True},
    {"arrival_rate": 1, "service_rate": 1, "servers": True},
])
def test_bodies_that_do_not_validate(specs: dict[str, Any], body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        specs["simulate ggc"].model.model_validate(body)
    with pytest.raises(ValidationError):  # a profile is a document, never a server path
        specs["size servers"].model.model_validate({"arrival_rate": "1", "profile": "p.json"})


def test_no_number_field_takes_a_bool(specs: dict[str, Any]) -> None:
    from iosizer.serve.app import _validation_message

    checked = 0
    for spec in specs.values():
        for field in spec.body_fields:
            if field.annotation not in (int, float):
                continue
            for value in (True, False):
                with pytest.raises(ValidationError) as caught:
                    spec.model.model_validate({field.key: [value] if field.many else value})
                assert f"a number is expected, not {str(value).lower()}" in _validation_message(caught.value.errors())
                assert "Value error" not in _validation_message(caught.value.errors())
            checked += 1
    assert checked > 50  # every command's numeric options


def test_a_refused_value_is_quoted(specs: dict[str, Any]) -> None:
    # "servers: Input should be a valid integer, unable to parse string as an integer" hid what was sent.
    from iosizer.serve.app import _validation_message

    with pytest.raises(ValidationError) as caught:
        specs["simulate ggc"].model.model_validate({"arrival_rate": 1, "servers": "many"})
    assert _validation_message(caught.value.errors()).endswith(", got 'many'")
    with pytest.raises(ValidationError) as caught:
        specs["simulate ggc"].model.model_validate({"servers": 2})
    assert "got" not in _validation_message(caught.value.errors())  # a missing field quotes nothing


def test_units_from_names_and_declarations(specs: dict[str, Any]) -> None:
    assert unit_of("added_latency_ns") == "ns" and unit_of("service_rate_per_s") == "1/s"
    assert unit_of("comm_overhead_pct") == "%" and unit_of("servers") is None
    units = {f.key: f.unit for f in specs["size hba"].body_fields}  # the declared parameters' units
    assert units["core_iops"] == "IOPS" and units["link_mbps"] == "MB/s" and units["block_kib"] == "KiB"
    assert units["target_response_us"] == "us"  # a target: its name's
    bounds = {f.key: f.bounds for f in specs["size hba"].body_fields}
    assert bounds["cores"] is not None and bounds["cores"][0] >= 1


def test_the_cli_does_not_import_the_server() -> None:
    """``iosizer --help`` stays fast: FastAPI and uvicorn load only when ``iosizer serve`` runs."""
    import subprocess
    import sys

    code = "import sys, iosizer.cli.app; print(sorted(m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_every_profile_option_is_a_profile_document() -> None:
    # A --profile declared as text would be served as a file name on the server, not a document.
    specs, _ = command_specs()
    misread = [(spec.name, f.key) for spec in specs for f in spec.fields
               if "profile" in f.key and f.role is not Role.profile]
    assert misread == []

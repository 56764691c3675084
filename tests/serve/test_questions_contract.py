"""The generated question routes (``POST /api/<family>/<question>``) keep the server's error contract
(issue 26): 422 with ``{"error", "kind", "field"}`` for anything the request says wrongly, answered in the
quick lane; an inline profile is read in memory, never written to disk."""

from __future__ import annotations

import builtins
import json
import tempfile
from typing import Any, Iterator

import pytest

testclient = pytest.importorskip("fastapi.testclient")
pytest.importorskip("iosizer_mm1k", reason="the example plugin: pip install --no-deps -e ./examples/iosizer-mm1k")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    from iosizer.serve.app import create_app

    # A loopback Host: the server answers no other name by default (TestClient's own is 'testserver').
    with testclient.TestClient(create_app(workers=1, heavy_workers=1), base_url="http://localhost") as client:
        yield client


def _raw(client: Any, path: str, text: str) -> Any:
    """A body sent as written (NaN and 1e400 are not what a JSON encoder writes)."""
    return client.post(path, content=text, headers={"Content-Type": "application/json"})


def _refused(response: Any, field: str) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    body = response.json()
    assert set(body) == {"error", "kind", "field"}
    assert body["field"] == field, body
    assert body["error"] and "\n" not in body["error"]
    return body


@pytest.mark.parametrize("path, field", [("/api/device/curve", "outstanding"), ("/api/mm1k/queue", "arrival_rate")])
def test_bad_value_nan_and_overflow_are_422_naming_the_field(client: Any, path: str, field: str) -> None:
    body = _refused(client.post(path, json={field: -1}), field)
    assert f"{field} must lie in" in body["error"] and body["kind"] == "InputError"
    for text in ("NaN", "1e400", "[1, NaN]", '"many"', "true"):
        _refused(_raw(client, path, f'{{"{field}": {text}}}'), field)


@pytest.mark.parametrize("path, body, field", [
    ("/api/device/curve", {"parallel_units": 2.5}, "parallel_units"),  # a count of units, not a fraction
    ("/api/device/curve", {"parallel_units": 0}, "parallel_units"),
    ("/api/device/curve", {"direction": "sideways"}, "direction"),
    ("/api/mm1k/queue", {"capacity": 0}, "capacity"),
    ("/api/mm1k/queue", {"service_rate": 0}, "service_rate"),  # no service: no queue to answer
    ("/api/mm1k/queue", {"percentile": [150]}, "percentile"),
    ("/api/mm1k/queue", {"cpu_speed": -1}, "cpu_speed"),
    ("/api/mm1k/queue", {"servers": 2}, "servers"),  # not a field of this question
    ("/api/mm1k/queue", {"profile": {"model": "mm1k"}}, "profile"),
])
def test_model_errors_are_422_naming_the_field(client: Any, path: str, body: dict[str, Any], field: str) -> None:
    _refused(client.post(path, json=body), field)


def test_a_profile_for_another_model_names_the_profile(client: Any) -> None:
    other = {**_profile(2.0), "model": "device"}
    body = _refused(client.post("/api/mm1k/queue", json={"profile": other}), "profile")
    assert body["kind"] == "ProfileError" and "this command needs 'mm1k'" in body["error"]


def _profile(service_rate: float) -> dict[str, Any]:
    from iosizer.calibration.profile import declared_profile

    return declared_profile("mm1k", overrides={"service_rate": service_rate}).model_dump(mode="json")


def test_an_inline_profile_is_answered_with_its_values(client: Any) -> None:
    from iosizer.serve.questions import answer_json

    asked = {"arrival_rate": 1.5, "capacity": 5}
    response = client.post("/api/mm1k/queue", json={**asked, "profile": _profile(2.0)})
    assert response.status_code == 200, response.text
    # The profile's service rate, not the shipped one: the same answer as the rate given directly.
    direct = client.post("/api/mm1k/queue", json={**asked, "service_rate": 2.0})
    assert json.loads(response.text) == json.loads(direct.text)
    assert response.text == answer_json("mm1k", "queue", {**asked, "profile": _profile(2.0)})


def _no_disk(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("an inline profile touched the disk")


def _read_only(real_open: Any) -> Any:
    def read_only_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(c in mode for c in "wax+"):
            _no_disk()
        return real_open(file, mode, *args, **kwargs)

    return read_only_open


def test_an_inline_profile_touches_no_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's function itself, in this process, with every way to write a file refused."""
    from iosizer.serve.worker import answer_question

    profile = _profile(2.0)
    expected = answer_question("mm1k", "queue", {"arrival_rate": 1.5, "profile": profile}, ["arrival_rate"])
    for name in ("mkdtemp", "mkstemp", "TemporaryDirectory", "NamedTemporaryFile", "TemporaryFile"):
        monkeypatch.setattr(tempfile, name, _no_disk)
    monkeypatch.setattr(builtins, "open", _read_only(builtins.open))
    answer = answer_question("mm1k", "queue", {"arrival_rate": 1.5, "profile": profile}, ["arrival_rate"])
    assert answer["status"] == 200 and answer == expected
    refused = answer_question("mm1k", "queue", {"profile": {**profile, "model": "device"}}, ["profile"])
    assert refused["status"] == 422 and refused["field"] == "profile"


def test_read_profile_checks_as_load_profile(tmp_path: Any) -> None:
    from iosizer.calibration.profile import load_profile, read_profile
    from iosizer.errors import ProfileError

    document = _profile(2.0)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert read_profile(document, "mm1k") == read_profile(json.dumps(document), "mm1k") == load_profile(path, "mm1k")
    bad = {**document, "parameters": {"service_rate": {"value": 2.0, "ci_low": 3.0}}}
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ProfileError) as from_file:
        load_profile(path)
    with pytest.raises(ProfileError) as in_memory:
        read_profile(bad, name=str(path))
    assert str(in_memory.value) == str(from_file.value)
    with pytest.raises(ProfileError, match="not a JSON profile"):
        read_profile("{", name="inline")


def test_the_quick_lane_reads_inline_profiles_in_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """A command's inline profile (``POST /api/size/hba``) is read from memory by the name the answer
    quotes: the same answer as the profile written to a file, with the disk refused."""
    from iosizer.calibration.profile import declared_profile
    from iosizer.serve.worker import answer_quick, write_profiles, _spec

    document = declared_profile("hba", overrides={"core_iops": 90000.0}).model_dump(mode="json")
    path = ("size", "hba")
    monkeypatch.chdir(tmp_path)
    write_profiles(_spec(path), {"profile": document}, ".")  # as the worker once did
    asked = {"target_response_us": 300.0, "tenant_iops": "250000,120000"}
    from_file = answer_quick(path, {**asked, "profile": "profile.json"}, {})
    assert from_file["status"] == 200
    (tmp_path / "profile.json").unlink()
    monkeypatch.setattr(builtins, "open", _read_only(builtins.open))
    for name in ("mkdtemp", "mkstemp", "TemporaryDirectory", "NamedTemporaryFile", "TemporaryFile"):
        monkeypatch.setattr(tempfile, name, _no_disk)
    in_memory = answer_quick(path, dict(asked), {"profile": document})
    assert in_memory["status"] == 200, in_memory
    assert list(tmp_path.iterdir()) == [] and in_memory == from_file
    # The profile's value is used: the answer differs from the shipped profile's.
    shipped = answer_quick(path, dict(asked), {})
    assert in_memory["json"] != shipped["json"]


@pytest.mark.parametrize("family, command", [("device", "device curve"), ("mm1k", "mm1k queue")])
def test_the_catalogue_lists_every_declared_question_with_its_fields(client: Any, family: str, command: str) -> None:
    catalogue = client.get("/api/catalogue").json()
    listed = next(f for f in catalogue["families"] if f["name"] == family)
    assert command in [q["command"] for q in listed["questions"]], listed
    entry = next(c for c in catalogue["commands"] if c["command"] == command)
    assert entry["url"] == "/api/" + command.replace(" ", "/")
    # The page's form offers exactly the fields the route takes (its OpenAPI request body).
    schema = client.get("/openapi.json").json()["paths"][entry["url"]]["post"]["requestBody"]["content"]
    reference = schema["application/json"]["schema"]
    reference = reference.get("anyOf", [reference])[0]["$ref"].rsplit("/", 1)[-1]
    model = client.get("/openapi.json").json()["components"]["schemas"][reference]
    offered = {f["key"] for f in entry["fields"]}
    assert offered <= set(model["properties"]) and set(model.get("required", ())) <= offered, (offered, model)
    assert {f["key"] for f in entry["fields"] if f["required"]} == set(model.get("required", ()))


def test_view_page_on_a_question_route_is_the_answer_with_what_the_page_draws(client: Any) -> None:
    body = {"arrival_rate": [0.5, 0.9]}
    plain = client.post("/api/mm1k/queue", json=body)
    shown = client.post("/api/mm1k/queue?view=page", json=body)
    assert plain.status_code == shown.status_code == 200, shown.text
    page = shown.json()
    assert page["data"] == plain.json() == page["rows"]
    assert page["columns"][0] == "arrival_rate" and page["title"].startswith("mm1k queue")
    curve = page["plot"][0]["series"][-1]
    assert curve["x"] == [0.5, 0.9] and curve["y"] == [row["mean_response"] for row in page["rows"]]
    refused = client.post("/api/mm1k/queue?view=table", json=body)
    assert refused.status_code == 422 and refused.json()["field"] == "view", refused.text

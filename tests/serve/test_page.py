"""The planner's page in headless Chromium (Debian's ``chromium`` package), driven by Playwright.

Playwright cannot download its own browser here, so it is pointed at the
system's (``IOSIZER_CHROMIUM`` or ``chromium`` on the PATH). Where no browser
is installed the tests skip, and say so loudly: a pytest warning and a line
in the closing summary. Screenshots are test artefacts: kept under
``IOSIZER_PAGE_SCREENSHOTS`` when it names a folder, else in pytest's
temporary folder (never in the repository).

Every wait is for a condition the page sets (``body[data-answered]`` counts
answers), never a sleep, so a busy machine only makes them slower.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import warnings
from pathlib import Path
from typing import Any, Iterator

import pytest

import iosizer
from tests.serve.conftest import LOAD_SUMMARY

#: Longest wait for one condition: a fit or an answer on a loaded 2-core machine (a hang guard only).
WAIT_MS = 180_000
DEVICE_SWEEP = sorted((Path(iosizer.family("device").example()).parent).glob("qd*_run*.json"))


class BrowserUnavailableWarning(UserWarning):
    """The browser tests could not run: no Chromium, or no Playwright."""


def _skip_loudly(reason: str) -> None:
    message = f"BROWSER TESTS SKIPPED: {reason}"
    warnings.warn(BrowserUnavailableWarning(message), stacklevel=2)
    if message not in LOAD_SUMMARY:
        LOAD_SUMMARY.append(message)
    pytest.skip(message)


def _chromium() -> str | None:
    for candidate in (os.environ.get("IOSIZER_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_loudly("Playwright is not installed (pip install '.[test]')")
    executable = _chromium()
    if executable is None:
        _skip_loudly("no Chromium found (apt-get install chromium, or set IOSIZER_CHROMIUM)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True,
                                              args=["--no-sandbox", "--disable-gpu"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go: $IOSIZER_PAGE_SCREENSHOTS, else a pytest temporary folder."""
    given = os.environ.get("IOSIZER_PAGE_SCREENSHOTS")
    folder = Path(given) if given else tmp_path_factory.mktemp("page-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _a_problem(message: Any) -> bool:
    # A 4xx answer is logged by the browser; the page shows it, as the error tests check.
    return message.type == "error" and "responded with a status of 4" not in message.text


def _open(browser: Any, url: str) -> Any:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    context.set_default_timeout(WAIT_MS)
    opened = context.new_page()
    opened.problems = []
    opened.posts = []
    opened.requested = []
    opened.on("pageerror", lambda error: opened.problems.append(str(error)))
    opened.on("console", lambda message: opened.problems.append(message.text) if _a_problem(message) else None)
    opened.on("request", lambda request: opened.requested.append(request.url))
    opened.on("request", lambda request: opened.posts.append((request.method, request.url, request.post_data))
              if request.method in ("POST", "DELETE") else None)
    opened.goto(url)
    opened.wait_for_selector("body[data-ready]")
    opened.wait_for_selector("body[data-answered]")
    return opened


@pytest.fixture
def page(browser: Any, server: Any) -> Iterator[Any]:
    opened = _open(browser, server.url + "/")
    try:
        yield opened
    finally:
        opened.context.close()
    assert not opened.problems, opened.problems


def _count(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.answered || 0"))


def _answered(page: Any, after: int) -> int:
    """Wait for the answer after number ``after``; return its number."""
    page.wait_for_function(f"Number(document.body.dataset.answered) > {after}")
    return _count(page)


def _family(page: Any, name: str) -> None:
    if page.input_value("#family") == name:
        return
    count = _count(page)
    page.select_option("#family", name)
    _answered(page, count)


def _edit(page: Any, key: str, value: str) -> None:
    count = _count(page)
    page.fill(f"#field-{key}", value)
    _answered(page, count)


def _datasets(page: Any) -> list[dict[str, Any]]:
    return page.evaluate("state.chart.data.datasets.map(d => ({label: d.label, band: !!d.band, "
                         "measured: !!d.measured, n: d.data.length}))")


def _table(page: Any, selector: str) -> tuple[list[str], list[list[str]]]:
    head = page.eval_on_selector_all(f"{selector} thead th", "cells => cells.map(c => c.textContent)")
    rows = page.eval_on_selector_all(f"{selector} tbody tr",
                                     "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    return head, rows


def _number(text: str) -> float:
    return float(text.split("[")[0].replace(",", "").strip())


def _fit_example(page: Any, family: str) -> None:
    _family(page, family)
    count = _count(page)
    page.click("#fit-example")
    page.wait_for_selector(f"body[data-calibrated={family}]")
    _answered(page, count)


def _download(page: Any, button: str) -> bytes:
    with page.expect_download() as caught:
        page.click(button)
    return Path(caught.value.path()).read_bytes()


def test_the_planners_loop_on_the_device_sweep(page: Any, server: Any, shots: Path) -> None:
    """Upload the shipped fio sweep, read the fit, ask a what-if, pin and compare, size, export."""
    assert len(DEVICE_SWEEP) == 14
    _family(page, "device")
    assert page.input_value("#question") == "device curve"
    assert "shipped 'device' profile" in page.inner_text("#profile-status")

    # My system: the fio JSON files as uploaded; the fit report is the server's fit of the same files.
    count = _count(page)
    page.set_input_files("#data-file", [str(p) for p in DEVICE_SWEEP])
    page.click("#fit-run")
    page.wait_for_selector("body[data-calibrated=device]")
    count = _answered(page, count)
    direct = server.post("/api/calibrate/device", headers={"X-Iosizer": "1"}, data={"cpu_speed": "1"},
                         files=[("file", (p.name, p.read_bytes())) for p in DEVICE_SWEEP]).json()
    head, rows = _table(page, "#fit-table")
    assert head == ["parameter", "value", "95 % interval", "unit"]
    shown = {row[0]: row for row in rows}
    for name in ("latency_floor_us", "unit_service_us"):
        fitted = direct["parameters"][name]
        assert _number(shown[name][1]) == pytest.approx(fitted["value"], rel=1e-5)  # 6 significant figures
        low, high = (float(v.replace(",", "")) for v in shown[name][2].strip("[]").split(", "))
        assert (low, high) == pytest.approx((fitted["ci_low"], fitted["ci_high"]), rel=1e-5, abs=1e-9)
        assert shown[name][3] == "us"
    assert f"R² {direct['r2']:.6g}" in page.inner_text("#fit-r2")
    warnings_shown = page.inner_text("#fit-warnings")
    assert all(w[:40] in warnings_shown for w in direct["warnings"]) and direct["warnings"]
    fit_sets = page.evaluate("state.fitCharts.map(c => c.data.datasets.map(d => d.label))")
    assert len(fit_sets) == 2 and all("measured" in labels and "model" in labels for labels in fit_sets)
    assert "fitted to 14 files" in page.inner_text("#profile-status")
    profile = json.loads(_download(page, "#profile-download"))
    assert profile["model"] == "device" and profile["cpu_speed"] == 1
    _screenshot(page, shots, "loop-1-fit.png")

    # What if: the profile drives the question; bands shaded and named; measured points overlaid.
    assert "--profile device-profile.json" in page.inner_text("#cli-line")
    head, rows = _table(page, "#answer-table")
    assert head == ["outstanding [I/Os]", "iops [IOPS]", "mean_latency_us [us]"]
    assert re.fullmatch(r"[\d,.]+ \[[\d,.]+, [\d,.]+\]", rows[0][1]), rows[0]
    sets = _datasets(page)
    assert any(s["band"] and "95 % band of the parameters" in s["label"] for s in sets)
    assert any(s["measured"] and s["n"] == 14 for s in sets)
    assert page.evaluate("state.chart.options.scales.y.title.text") == "iops (IOPS)"
    assert page.evaluate("state.chart.options.scales.x.title.text") == "outstanding (I/Os)"

    # Compare: pin, then four parallel units instead of the fitted count.
    page.click("#pin")
    _edit(page, "parallel_units", "4")
    assert page.is_visible("#compare")
    head, rows = _table(page, "#compare-table")
    assert head[:5] == ["outstanding [I/Os]", "iops pinned [IOPS]", "iops now [IOPS]", "iops change [IOPS]",
                        "iops change [%]"]
    deep = {row[0]: row for row in rows}["64"]
    expected = server.post("/api/device/curve", json={"outstanding": 64, "profile": direct["profile"],
                                                      "parallel_units": 4}).json()
    before = server.post("/api/device/curve", json={"outstanding": 64, "profile": direct["profile"]}).json()
    assert _number(deep[1]) == pytest.approx(before["iops"], rel=1e-5)
    assert _number(deep[2]) == pytest.approx(expected["iops"], rel=1e-5)
    assert _number(deep[3]) == pytest.approx(expected["iops"] - before["iops"], rel=1e-5)
    assert any(s["label"].startswith("pinned") and s["band"] for s in _datasets(page))
    _screenshot(page, shots, "loop-2-compare.png")

    # Size: one field, the fitted profile and the what-if's values, its fields untouched.
    page.select_option("#size-target", "target_iops")
    page.fill("#size-value", "30000")
    page.click("#size-run")
    page.wait_for_selector("#size-table td")
    # The what-if's four units carry into the sizing (its fields are the planner's system, not reset).
    sized = server.post("/api/size/device", json={"target_iops": 30000, "parallel_units": 4,
                                                  "profile": direct["profile"]}).json()
    cells = dict(page.eval_on_selector_all("#size-table tbody tr", "rows => rows.map(r => [r.cells[0].textContent, "
                                                                    "r.cells[1].textContent])"))
    assert cells["outstanding [I/Os]"] == f"{sized['outstanding']} [{sized['outstanding_ci_low']}, " \
                                           f"{sized['outstanding_ci_high']}]"
    assert page.input_value("#field-parallel_units") == "4"
    assert page.is_hidden("#size-error")
    _screenshot(page, shots, "loop-3-size.png")

    # Export: CSV, JSON and PNG of the answer shown; the URL holds the what-if.
    csv = _download(page, "#export-csv").decode()
    assert csv.splitlines()[0].startswith("outstanding,iops,mean_latency_us,iops_ci_low") and len(csv.splitlines()) == 8
    assert len(json.loads(_download(page, "#export-json"))) == 7
    assert _download(page, "#export-png")[:8] == b"\x89PNG\r\n\x1a\n"
    assert '"parallel_units":"4"' in page.evaluate("decodeURIComponent(location.hash)")


def _screenshot(page: Any, folder: Path, name: str) -> None:
    path = folder / name
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000


def test_a_link_opens_the_same_what_if(browser: Any, server: Any) -> None:
    inputs = json.dumps({"outstanding": "1,4,16", "percentile": "99"})
    opened = _open(browser, f"{server.url}/#family=device&question=device+curve&inputs={inputs}&plot=latency_p99_us")
    try:
        assert opened.input_value("#family") == "device"
        assert opened.input_value("#field-outstanding") == "1,4,16"
        assert opened.input_value("#plot-y") == "latency_p99_us"
        head, rows = _table(opened, "#answer-table")
        assert "latency_p99_us [us]" in head and [r[0] for r in rows] == ["1", "4", "16"]
        assert opened.evaluate("state.chart.options.scales.y.title.text") == "latency_p99_us (us)"
    finally:
        opened.context.close()
    assert not opened.problems, opened.problems


def test_a_bad_value_is_marked_at_its_field(page: Any) -> None:
    _family(page, "device")
    posts = len(page.posts)
    count = _count(page)
    page.fill("#field-percentile", "abc")
    _answered(page, count)
    assert page.inner_text("#error-percentile") == "percentile: 'abc' is not a number"
    assert page.get_attribute("#field-percentile", "aria-invalid") == "true"
    assert "NaN" not in page.inner_text("#cli-line") and len(page.posts) == posts  # nothing sent
    # The server's 422 names the field: the message shows next to it, not at the top.
    _edit(page, "percentile", "99")
    _edit(page, "outstanding", "0,4")
    assert "outstanding" in page.inner_text("#error-outstanding")
    assert page.is_hidden("#answer-error") and page.is_hidden("#error-percentile")
    _edit(page, "outstanding", "1,4")
    assert page.is_hidden("#error-outstanding") and page.get_attribute("#field-outstanding", "aria-invalid") is None
    assert "latency_p99_us [us]" in _table(page, "#answer-table")[0]


@pytest.mark.parametrize("family, question, inputs", [
    ("hba", "hba response", {}),
    ("replication", "replication", {"link": "1g,10g"}),
    ("loadshare", "loadshare curve", {}),
])
def test_every_band_is_drawn(page: Any, family: str, question: str, inputs: dict[str, str]) -> None:
    _fit_example(page, family)
    count = _count(page)
    page.select_option("#question", question)
    count = _answered(page, count)
    for key, value in inputs.items():
        _edit(page, key, value)
    assert page.is_hidden("#answer-error"), page.inner_text("#answer-error")
    curves = [s for s in _datasets(page) if not (s["band"] or s["measured"] or s["label"].endswith("(band low)"))]
    bands = [s for s in _datasets(page) if s["band"]]
    assert bands and len(bands) == len(curves), (bands, curves)  # every curve has its band
    assert all("95 % band of the parameters" in s["label"] for s in bands)


def test_cpu_speed_after_the_shipped_example(page: Any) -> None:
    """The page records the measured CPU's speed: a what-if at 1.5 x answers, its band named a span."""
    _fit_example(page, "oltp")
    assert page.input_value("#question") == "latency oltp"
    _edit(page, "cpu_speed", "1.5")
    assert page.is_hidden("#answer-error"), page.inner_text("#answer-error")
    assert page.is_hidden("#error-cpu_speed")
    assert "CPU-scaling exponents" in page.inner_text("#band-note")
    assert any(s["band"] and "not a confidence interval" in s["label"] for s in _datasets(page))


def test_edits_are_debounced_and_a_simulation_is_a_cancellable_job(page: Any, server: Any) -> None:
    _family(page, "device")
    posts = len(page.posts)
    count = _count(page)
    # Four edits inside the debounce: one request.
    page.evaluate("""for (const v of ["1,2", "1,2,3", "1,2,3,4", "1,2,3,4,5"]) {
        const input = document.querySelector('#field-outstanding');
        input.value = v; input.dispatchEvent(new Event('input')); }""")
    _answered(page, count)
    sent = [p for p in page.posts[posts:] if p[0] == "POST"]
    assert len(sent) == 1 and json.loads(sent[0][2])["outstanding"] == [1, 2, 3, 4, 5]

    # A simulation runs as a job with its progress shown; an edit cancels it (DELETE) and starts another.
    _edit(page, "parallel_units", "2")
    count = _count(page)
    page.select_option("#question", "simulate device")
    page.wait_for_selector("#progress:not([hidden])")
    page.wait_for_function("document.body.dataset.progress")
    first = page.evaluate("state.job")
    page.fill("#field-outstanding", "2")
    page.wait_for_function(f"state.job && state.job !== {json.dumps(first)}")
    _cancelled(server, first)
    assert ("DELETE", server.url + first, None) in page.posts
    assert page.input_value("#field-parallel_units") == "2"  # carried from the curve to its simulation
    second = page.evaluate("state.job")
    page.click("#cancel")
    _answered(page, count)
    _cancelled(server, second)
    assert page.is_hidden("#progress")


def _cancelled(server: Any, job: str) -> None:
    """Wait until the server reports ``job`` cancelled (the page does not wait for its DELETE)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    status = None
    while time.monotonic() < deadline:
        status = server.get(job).json()["status"]
        if status != "running" and status != "queued":
            break
        time.sleep(0.1)  # a poll of the server's state, not a wait for a guessed time
    assert status == "cancelled", status


def test_keyboard_and_labels(page: Any) -> None:
    unnamed = page.evaluate("""[...document.querySelectorAll('input, select, button')]
        .filter(e => e.offsetParent !== null)
        .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
        .map(e => e.id || e.outerHTML.slice(0, 80))""")
    assert unnamed == []
    count = _count(page)
    page.focus("#family")
    page.keyboard.press("ArrowDown")  # the next family, without a mouse
    count = _answered(page, count)
    assert page.input_value("#family") == "closed-network"
    page.focus("#pin")
    page.keyboard.press("Enter")
    assert page.is_visible("#compare")


def test_every_family_answers_its_first_question(page: Any) -> None:
    for family in iosizer.families():
        _family(page, family)
        assert page.is_hidden("#answer-error"), (family, page.inner_text("#answer-error"))
        assert page.locator("#answer-table td").count() > 0, family
        if family != "pcie-link":
            assert page.evaluate("state.chart.data.datasets.length") >= 1, family


def test_the_schema_states_the_json_shape_and_the_page_view_always_has_rows(server: Any) -> None:
    from iosizer.frames import JSON_SHAPE_RULE

    assert JSON_SHAPE_RULE in server.get("/openapi.json").json()["info"]["description"]
    one = server.post("/api/device/curve?view=page", json={"outstanding": 4}).json()
    assert isinstance(one["data"], dict) and one["rows"] == [one["data"]]
    two = server.post("/api/device/curve?view=page", json={"outstanding": [4, 8]}).json()
    assert isinstance(two["data"], list) and two["rows"] == two["data"]


def test_a_queue_fitted_in_seconds_is_labelled_in_seconds(page: Any) -> None:
    """Without a profile an M/M/c's times are in the unit of 1/rate ('t'); with one fitted per second, seconds."""
    assert "mean_response [t]" in _table(page, "#answer-table")[0]
    _fit_example(page, "mmc")
    head = _table(page, "#answer-table")[0]
    assert "mean_response [s]" in head and "arrival_rate [1/s]" in head
    assert page.evaluate("state.chart.options.scales.x.title.text") == "arrival_rate (1/s)"


def test_a_saved_profile_without_a_cpu_speed_takes_the_one_given(page: Any, server: Any, tmp_path: Path) -> None:
    """The old page's 'records no CPU speed' error: the page asks for the speed and carries it."""
    example = Path(iosizer.family("oltp").example())
    fitted = server.post("/api/calibrate/oltp", headers={"X-Iosizer": "1"},
                         files=[("file", (example.name, example.read_bytes()))]).json()["profile"]
    assert fitted["cpu_speed"] is None
    refused = server.post("/api/latency/oltp", json={"added_latency_ns": "0:2100:300", "profile": [fitted],
                                                     "cpu_speed": 1.5})
    assert refused.status_code == 422 and "cpu_speed" in refused.json()["error"]
    saved = tmp_path / "oltp-mine.json"
    saved.write_text(json.dumps(fitted))
    count = _count(page)
    page.set_input_files("#profile-file", str(saved))
    page.wait_for_selector("body[data-loaded='oltp-mine.json']")
    _answered(page, count)
    assert page.input_value("#family") == "oltp" and page.input_value("#question") == "latency oltp"
    assert "CPU speed 1, given here" in page.inner_text("#profile-status")
    _edit(page, "cpu_speed", "1.5")
    assert page.is_hidden("#answer-error") and page.is_hidden("#error-cpu_speed")
    assert "--cpu-speed 1.5" in page.inner_text("#cli-line")


def test_a_simulation_answer_draws_its_interval_and_the_analytic_curve(page: Any) -> None:
    """A simulation's rows (one per depth and metric) are drawn metric by metric, in the metric's unit."""
    _family(page, "device")
    rows = [{"outstanding": n, "metric": m, "analytic": a, "simulated": a * 1.01, "ci_low": a, "ci_high": a * 1.02,
             "within_ci": True} for n in (1, 4) for m, a in (("iops", 1e4 * n), ("mean_latency_us", 90.0 + n))]
    page.evaluate("rows => { state.answer = normalise(state.commands.get('simulate device'), {}, "
                  "{data: rows, rows, columns: Object.keys(rows[0])}); showAnswer(); }", rows)
    assert page.evaluate("state.answer.choices.map(c => c.value)")[:2] == ["simulated@iops", "analytic@iops"]
    labels = [s["label"] for s in _datasets(page)]
    assert "simulated: 95 % interval of the simulated mean (over the replications)" in labels and "analytic" in labels
    assert page.evaluate("state.chart.options.scales.y.title.text") == "simulated iops (IOPS)"
    page.select_option("#plot-y", "simulated@mean_latency_us")
    assert page.evaluate("state.chart.options.scales.y.title.text") == "simulated mean_latency_us (us)"
    assert page.evaluate("state.chart.data.datasets.find(d => d.label === 'analytic').data.map(p => p.y)") == [91, 94]
    assert _table(page, "#answer-table")[1][0][3] == "10,100 [10,000, 10,200]"

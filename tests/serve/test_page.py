"""The what-if page in headless Chromium (Debian's ``chromium`` package), driven by Playwright.

Playwright cannot download its own browser here, so it is pointed at the
system's (``IOSIZER_CHROMIUM`` or ``chromium`` on the PATH). Where no browser
is installed the tests skip, and say so loudly: a pytest warning and a line
in the closing summary. Screenshots are kept in ``test-artefacts/``.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path
from typing import Any, Iterator

import pytest

import iosizer
from tests.serve.conftest import ARTEFACTS, LOAD_SUMMARY


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


def _a_problem(message: Any) -> bool:
    # A 4xx answer is logged by the browser; the page shows it, as test_an_error_shows... checks.
    return message.type == "error" and "responded with a status of 4" not in message.text


@pytest.fixture
def page(browser: Any, server: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    problems: list[str] = []
    requested: list[str] = []
    opened.on("pageerror", lambda error: problems.append(str(error)))
    opened.on("console", lambda message: problems.append(message.text) if _a_problem(message) else None)
    opened.on("request", lambda request: requested.append(request.url))
    opened.goto(server.url + "/")
    opened.wait_for_selector("body[data-answered]")
    opened.wait_for_selector("#answer-table td")
    opened.problems = problems
    opened.requested = requested
    try:
        yield opened
    finally:
        context.close()
    assert not problems, problems


def _answered(page: Any, after: int) -> int:
    """Wait for the answer after number ``after``; return its number."""
    page.wait_for_function(f"Number(document.body.dataset.answered) > {after}")
    return int(page.evaluate("document.body.dataset.answered"))


def _chart_labels(page: Any, key: str = "answer") -> list[list[str]]:
    return page.evaluate(f"state.charts.{key}.map(c => c.data.datasets.map(d => d.label))")


def _chart_picture(page: Any) -> str:
    return page.evaluate("document.querySelector('#charts canvas').toDataURL()")


def _screenshot(page: Any, name: str) -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def test_changing_an_input_redraws_the_table_and_the_chart(page: Any) -> None:
    assert page.input_value("#question") == "queue mmc"
    assert page.text_content("#answer-title") == "M/M/4"
    table, picture = page.inner_text("#answer-table"), _chart_picture(page)
    assert page.inner_text("#cli-line").startswith("iosizer queue mmc --arrival-rate 0.4:3.8:0.2")
    count = int(page.evaluate("document.body.dataset.answered"))
    _screenshot(page, "page-what-if.png")

    page.fill("#field-servers", "5")  # typed: the slider follows
    count = _answered(page, count)
    assert page.text_content("#answer-title") == "M/M/5"
    assert page.inner_text("#answer-table") != table
    assert _chart_picture(page) != picture
    assert page.eval_on_selector("input[data-slider=servers]", "s => s.value") == "5"
    assert "--servers 5" in page.inner_text("#cli-line")

    picture = _chart_picture(page)
    page.eval_on_selector("input[data-slider=service_rate]",  # dragged: the field follows
                          "s => { s.value = 2; s.dispatchEvent(new Event('input')); }")
    _answered(page, count)
    assert page.input_value("#field-service_rate") == "2"
    assert _chart_picture(page) != picture


def test_every_family_opens_on_a_question_with_a_curve(page: Any) -> None:
    count = int(page.evaluate("document.body.dataset.answered"))
    expected = {"hba": ("hba isolation", "lpar1_iops"), "oltp": ("latency oltp", "degradation_pct"),
                "loadshare": ("loadshare curve", "response_norm"), "replication": ("replication", "iops")}
    for family, (question, column) in expected.items():
        page.select_option("#family", family)
        count = _answered(page, count)
        assert page.input_value("#question") == question
        assert page.is_hidden("#answer-error"), page.inner_text("#answer-error")
        assert column in page.inner_text("#answer-table thead")
        assert page.locator("#charts canvas").count() >= 1
    # The OLTP curve carries the shipped profile's 95 % band.
    page.select_option("#family", "oltp")
    _answered(page, count)
    assert "95 % band" in _chart_labels(page)[0]


def test_an_error_shows_on_the_page_and_clears(page: Any) -> None:
    count = int(page.evaluate("document.body.dataset.answered"))
    page.fill("#field-arrival_rate", "5")
    count = _answered(page, count)
    assert page.is_visible("#answer-error")
    assert "unstable" in page.inner_text("#answer-error") and "UnstableQueueError" in page.inner_text("#answer-error")
    page.fill("#field-arrival_rate", "3")
    _answered(page, count)
    assert page.is_hidden("#answer-error")


def test_uploading_the_example_calibrates_and_the_profile_feeds_the_what_if(page: Any, server: Any) -> None:
    example = iosizer.family("mmc").example()
    page.select_option("#calibrate-family", "mmc")
    assert page.input_value("#calibrate-options #field-servers") == "4"  # the example's setting
    page.set_input_files("#calibrate-file", str(example))
    count = int(page.evaluate("document.body.dataset.answered"))
    page.click("#calibrate-run")
    page.wait_for_selector("body[data-calibrated=mmc]")
    fit = page.inner_text("#calibrate-table")
    assert "service_rate_per_s" in fit and "999.6" in fit
    assert "hba_core_response.csv" in page.inner_text("#calibrate-title")
    assert "model" in _chart_labels(page, "calibrate")[0]
    # The what-if now runs on the fitted profile: its answer carries the 95 % band.
    _answered(page, count)
    assert page.input_value("#question") == "queue mmc"
    assert page.input_value("#field-profile") == "mmc"
    assert "mean_response_ci_low" in page.inner_text("#answer-table thead")
    assert "95 % band" in _chart_labels(page)[0]
    assert "--profile profile.json" in page.inner_text("#cli-line")
    shot = _screenshot(page, "page-calibrated.png")
    assert shot.stat().st_size > 10_000
    # Everything the page loaded came from the server: it works offline.
    assert all(url.startswith((server.url, "data:", "blob:")) for url in page.requested), page.requested

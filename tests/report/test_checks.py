"""The report's checks: every published row accounted for, bands read from the CSVs."""

from __future__ import annotations

import math

import pytest

from iosizer.report import checks as report
from iosizer.report.checks import Band, Collector, Provided, accepted_band
from iosizer.calibration.shipped import measurement_names, read_measurement


@pytest.fixture(scope="module")
def shipped() -> report.FullReport:
    return report.run_report()


def test_every_measurement_file_and_row_appears(shipped) -> None:
    seen = {c.file for s in shipped.seeds for c in s.checks}
    assert set(measurement_names()) <= seen
    for seed in shipped.seeds:
        assert not [c for c in seed.checks if c.status == report.NOT_COVERED], seed.seed
        if seed.has_provider:
            for name in report.seed_files(seed.seed):
                lines = {c.line for c in seed.checks if c.file == name}
                assert lines >= set(range(2, 2 + len(read_measurement(name)))), name
        else:
            assert {c.status for c in seed.checks} == {report.NO_PROVIDER}


def test_every_seed_has_a_provider_with_checks_and_charts(shipped) -> None:
    by_seed = {s.seed: s for s in shipped.seeds}
    assert set(by_seed) == {"seed000", "seed001", "seed002", "seed003", "seed004"}
    for seed in by_seed.values():
        assert seed.has_provider and seed.passed > 0 and seed.charts
        assert report.NO_PROVIDER not in {c.status for c in seed.checks}


def test_a_seed_without_provider_is_listed_not_hidden() -> None:
    providers = {k: v for k, v in report.PROVIDERS.items() if k != "seed003"}
    listed = report.run_seed("seed003", providers)
    assert not listed.has_provider
    assert sorted(c.file for c in listed.checks) == report.seed_files("seed003")
    assert {c.status for c in listed.checks} == {report.NO_PROVIDER}


def test_seed_002_to_004_statements_hold(shipped) -> None:
    # Issue 6/7 acceptance as the report reads them: every statement check of seeds
    # 002 and 004 passes; seed 003's only misses are multi-stage's jumps (stated).
    by_seed = {s.seed: s for s in shipped.seeds}
    for seed in ("seed002", "seed004"):
        # Seed 004's 4 KiB throughput/IOPS pair is a statement shown inconsistent in the seed.
        statements = [c for c in by_seed[seed].checks if c.relation == "statement"
                      and not (c.status == report.EXPECTED_MISS and "inconsistent in the seed" in c.expected_miss_reason)]
        assert statements and all(c.status == report.PASS for c in statements)
    # Seed 003: multi-stage switching at equal response removes the singularity (no misses left).
    assert not [c for c in by_seed["seed003"].checks if c.status == report.EXPECTED_MISS]


def test_shipped_data_has_no_unexpected_failure_and_every_miss_has_a_reason(shipped) -> None:
    assert shipped.failed == 0
    misses = [c for s in shipped.seeds for c in s.checks if c.status == report.EXPECTED_MISS]
    for miss in misses:
        assert miss.expected_miss_reason and len(miss.expected_miss_reason) > 40
        assert miss.within is False
    # The known miss of the shipped models (see the lead's report): seed 004's 4 KiB throughput/IOPS gains
    # (one inconsistent pair in the seed, with the arithmetic). Seed 001's 8-lane loss, a miss while it was
    # read as exactly 7 % against case B's own aligned throughput (issue 15), passes as the upper bound it is
    # against case A (issue 28). Nothing else may be an expected miss.
    assert {(c.seed, c.figure) for c in misses} == {
        ("seed004", "4 KiB throughput: ipoib_56g over 10gbe"),  # one inconsistent pair (with the IOPS row)
    }


def test_checked_records_are_consistent(shipped) -> None:
    for seed in shipped.seeds:
        for c in seed.checks:
            if c.status in report.CHECKED and c.relation == "statement":
                # A qualitative statement: the claim, the number it rests on, the reading.
                assert c.published is None and c.published_text and c.tolerance_reason and c.source
                assert c.model is not None and c.difference is None
            elif c.status in report.CHECKED:
                assert c.tolerance_reason and c.source
                inside = (c.accepted_low is None or c.model >= c.accepted_low) and (
                    c.accepted_high is None or c.model <= c.accepted_high)
                assert inside == (c.status == report.PASS)
                assert c.difference == pytest.approx(c.model - c.published)
            elif c.status == report.NOT_MODELLED:
                assert c.note and c.model is None and c.within is None


def test_model_values_come_from_the_library(shipped) -> None:
    # The report's numbers are the calibrated models', not retyped ones.
    from iosizer.calibration import latency, pcie
    from iosizer.model.latency import dma, oltp_degradation_pct
    from iosizer.model.pcie import access_pattern

    checks = {(c.figure, c.quantity): c for s in shipped.seeds for c in s.checks}
    assert checks["table 4-1, bcm5700", "throughput, +2100 ns"].model == pytest.approx(
        dma(latency.device("bcm5700"), 2100.0).throughput_mbps)
    network = latency.oltp_network(latency.oltp_profile())
    assert checks["TPC-C curve, +2100 ns", "degradation"].model == pytest.approx(
        float(oltp_degradation_pct(network, 2100.0)))
    assert checks["table 2, case B (520 B)", "64 B-unaligned accesses per KiB"].model == pytest.approx(
        access_pattern(520, pcie.platform().link.mps_bytes).unaligned_per_kib)


@pytest.mark.parametrize(("text", "relation", "pct", "low", "high"), [
    ("75.7", "eq", "", 75.65, 75.75),          # table value: rounding of its last digit
    ("12000", "eq", "", 11999.5, 12000.5),
    ("5", "le", "", None, 5.5),                # "5 % or less"
    ("10", "approx_under", "10", 9.0, 10.0),   # "a little under 10 %"
    ("10", "approx_over", "10", 10.0, 11.0),
    ("15", "approx", "20", 12.0, 18.0),
    ("38", "max", "", 37.5, 38.5),
])
def test_bands_follow_the_csv_relations(text, relation, pct, low, high) -> None:
    band = accepted_band(text, relation, pct)
    for got, want in ((band.low, low), (band.high, high)):
        assert (got is None and want is None) or got == pytest.approx(want)
    assert band.reason


def test_approximate_zero_needs_an_absolute_band() -> None:
    with pytest.raises(ValueError):
        accepted_band("0", "approx", "")
    assert accepted_band("0", "approx", "", zero_band=1.0).high == 1.0
    with pytest.raises(ValueError):
        accepted_band("3", "sideways", "")


def _one_row_provider(model: float, expected_miss: str | None = None):
    name = "seed001_table2_patterns"

    def provider() -> Provided:
        out = Collector("seed001")
        for line, row in out.rows(name):
            out.check(name, line, row, figure="f", quantity="q", unit="", model=model, column="unaligned_per_kib",
                      expected_miss=expected_miss, kind=report.PREDICTION)
        return out.provided()

    return provider


def test_a_wrong_model_value_fails_and_uncovered_rows_fail() -> None:
    seed = report.run_seed("seed001", {"seed001": _one_row_provider(math.pi)})
    statuses = {c.status for c in seed.checks}
    assert report.FAIL in statuses and report.NOT_COVERED in statuses
    other_files = set(report.seed_files("seed001")) - {"seed001_table2_patterns"}
    assert {c.file for c in seed.checks if c.status == report.NOT_COVERED} == other_files
    assert len(seed.failures) > 0


def test_expected_miss_is_counted_apart_and_a_stale_mark_passes() -> None:
    seed = report.run_seed("seed001", {"seed001": _one_row_provider(math.pi, "a reason")})
    assert {c.status for c in seed.checks if c.file == "seed001_table2_patterns"} == {report.EXPECTED_MISS}
    # Case A has 0 per KiB: a model value of 0 passes, and the note says the mark is stale.
    seed = report.run_seed("seed001", {"seed001": _one_row_provider(0.0, "a reason")})
    case_a = next(c for c in seed.checks if c.file == "seed001_table2_patterns" and c.published == 0)
    assert case_a.status == report.PASS and "drop the mark" in case_a.note


def test_a_provider_that_raises_is_one_failed_record() -> None:
    def broken() -> Provided:
        raise RuntimeError("boom")

    seed = report.run_seed("seed000", {"seed000": broken})
    assert [c.status for c in seed.checks] == [report.FAIL]
    assert "boom" in seed.checks[0].note


def test_explicit_band_is_used() -> None:
    out = Collector("seed000")
    (line, row), *_ = out.rows("seed000_table4_1_dma")
    record = out.check("seed000_table4_1_dma", line, row, figure="f", quantity="q", unit="ns", model=12100.0,
                       column="issue_interval_local_ns", band=Band(11900.0, 12100.0, 100.0, "because"),
                       kind=report.PREDICTION)
    assert record.status == report.PASS and record.tolerance_reason == "because"


def test_a_check_states_its_kind_whatever_its_note_says() -> None:
    # The kind is the provider's statement, never read from the note's wording: a prediction whose note
    # mentions a model input stays a prediction, and no kind at all is a programming error.
    out = Collector("seed000")
    (line, row), *_ = out.rows("seed000_table4_1_dma")
    record = out.check("seed000_table4_1_dma", line, row, figure="f", quantity="q", unit="ns", model=1.0,
                       column="issue_interval_local_ns", note="fit input of another figure; configuration",
                       kind=report.PREDICTION)
    assert record.kind == report.PREDICTION
    with pytest.raises(TypeError):
        out.check("seed000_table4_1_dma", line, row, figure="f", quantity="q", unit="ns", model=1.0,  # type: ignore[call-arg]
                  column="issue_interval_local_ns")
    with pytest.raises(ValueError, match="check kind"):
        out.check("seed000_table4_1_dma", line, row, figure="f", quantity="q", unit="ns", model=1.0,
                  column="issue_interval_local_ns", kind="guess")


def test_seed001_prediction_and_trends(shipped) -> None:
    """Issues 15 and 28: the 8-lane figure is predicted from the 32-lane one with published numbers only, held
    as the upper bound the seed states (高々) against case A, and the stated trends are checks."""
    from iosizer.calibration.pcie import rmw_bound_prediction

    checks = {c.figure: c for s in shipped.seeds if s.seed == "seed001" for c in s.checks}
    forecast = rmw_bound_prediction()
    # 32 header and 160 data credits; case B's TLPs (256, 256, 8 B) take 33 data credits per 3 TLPs.
    assert forecast["posted_credits"] == pytest.approx(160 / 11) and forecast["fit_lanes"] == 32
    # The 8 B tail TLP: 3 TLPs of 24 B overhead (16 B header, 8 B framing) carry 520 B where 2 carry 512 B.
    assert forecast["tail_tlp_framing_pct"] == pytest.approx(100 * (1 - (520 / (520 + 3 * 24)) / (512 / (512 + 2 * 24))),
                                                             rel=1e-9)
    predicted = checks["sec 4, unaligned at 8 lanes (predicted)"]
    assert predicted.model == pytest.approx(forecast["predicted_loss_pct"])
    assert predicted.relation == "le" and predicted.status == report.PASS and predicted.kind == report.PREDICTION
    assert "prediction" in predicted.note and "fit input" in predicted.note and "UpdateFC" in predicted.note
    for figure in ("sec 4, loss against unaligned frequency", "sec 4, loss against lanes"):
        assert checks[figure].status == report.PASS


def test_every_check_has_a_kind_and_the_counts_add_up(shipped) -> None:
    # Issue 15: prediction / fit_input / configuration on every checked record; per-seed counts in report.json.
    for seed in shipped.seeds:
        checked = [c for c in seed.checks if c.status in report.CHECKED]
        assert all(c.kind in report.KINDS for c in checked)
        kinds = seed.to_dict()["kinds"]
        assert sum(k["total"] for k in kinds.values()) == seed.total
        assert sum(k["passed"] for k in kinds.values()) == seed.passed
    overall = shipped.to_dict()["kinds"]
    assert overall["prediction"]["total"] > overall["fit_input"]["total"] > 0
    # Fit inputs are marked as such (the TPC-C curve the oltp profile is fitted on).
    tpcc = [c for s in shipped.seeds for c in s.checks if c.figure.startswith("TPC-C curve, +")]
    assert tpcc and all(c.kind == report.FIT_INPUT for c in tpcc)


def test_seed_003_reports_jump_sizes_per_rule_with_and_without_the_non_core_part() -> None:
    # Issue 15: the seed-003 checks pass under the declared system-response rule, and their notes give
    # multi-stage's jumps under every rule, with and without the non-core part of a write hit.
    from iosizer.model.loadshare import SWITCH_RULES

    checks = report.PROVIDERS["seed003"]().checks
    assert checks and all(c.status == report.PASS for c in checks if c.model is not None)
    jumps = [c for c in checks if c.quantity.startswith("multi-stage largest jump")]
    assert len(jumps) == 3  # figures 8, 9 and 11
    for check in jumps:
        assert "system-response switching" in check.quantity and check.model < 1e-9
        assert all(rule in check.note for rule in SWITCH_RULES) and "without it" in check.note
    figure_10 = next(c for c in checks if c.figure.startswith("figure 10"))
    from iosizer.calibration.loadshare import scenario
    from iosizer.model.loadshare import PolicyParams, policy_curve

    # The note quotes equal-response's 16-port jump as the model computes it.
    system_jump = policy_curve("multi-stage", scenario("system").port_shares,
                               PolicyParams(switch_rule="equal-response")).singularity
    assert figure_10.model == pytest.approx(1.0) and f"equal-response {100 * system_jump:.4g} %" in figure_10.note

"""``iosizer loadshare ...``: port load-sharing policies on a multi-core controller (seed 003).

``iosizer loadshare curve`` and ``compare`` are generated from the family's declared questions
(:mod:`iosizer.model.loadshare`; :mod:`iosizer.cli.questions` attaches them to this group). The options
below are the ones ``iosizer size cores`` and ``iosizer simulate loadshare`` still declare by hand.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from iosizer.errors import InputError

app = typer.Typer(
    help="Which policy spreads storage-port queues over cores best (seed 003).",
    no_args_is_help=True,
)

#: Where a default comes from: the family's declaration, never a number here.
DECLARED = "[declared value; see `iosizer params loadshare`]"
NonCore = Annotated[
    float | None, typer.Option("--non-core-pct", help="Fixed time of a write hit that no core spends (link "
                               "transfer, adapter DMA), added to every port's response, % of one I/O's "
                               f"service time (not published; assumed). {DECLARED}")
]
SwitchRule = Annotated[
    str | None, typer.Option("--switch-rule", help="When multi-stage gives a port another core: system-response, "
                             f"equal-response or threshold (see `iosizer params loadshare`). {DECLARED}")
]
SharesOption = Annotated[
    str | None, typer.Option("--shares", metavar="A,B,...", help="Any port mix instead of a scenario: one load "
                             "share per port, comma-separated, normalised (1,2,3,4); --cores then defaults to "
                             "the declared count and the curves are normalised by shared's.")
]
CpuSpeed = Annotated[
    float | None,
    typer.Option("--cpu-speed", help="Carry the profile (or the declared values) to a controller CPU of this "
                                     "relative per-core speed; answers in IOPS and us."),
]


def parse_shares(text: str | None, flag: str = "--shares") -> tuple[float, ...] | None:
    """``--shares 1,2,3,4`` as port shares (None when not given); a one-line error on a bad list
    (checked by the declaration, :func:`iosizer.model.loadshare.parse_shares`)."""
    from iosizer.model.loadshare import parse_shares as declared

    normal = None if text is None else declared(text, flag)
    if normal is None:
        return None
    if not normal:  # an empty list is no mix
        raise InputError(f"{flag} must be numbers separated by commas (1,2,3,4), got {text!r}")
    return tuple(float(v) for v in normal.split(","))


def _declared(name: str) -> Any:
    from iosizer.model.registry import declaration

    return declaration("loadshare").default(name)


def _setup(scenario: str | None, cores: int | None, comm_overhead_pct: float | None,
           threshold: float | None, non_core_pct: float | None = None,
           switch_rule: str | None = None, shares: tuple[float, ...] | None = None) -> tuple[Any, Any]:
    """The scenario (declared one if not given; ``shares``: a custom mix) and the policy parameters
    (declared where not given)."""
    from iosizer.calibration.loadshare import custom_scenario, policy_params
    from iosizer.calibration.loadshare import scenario as find
    from iosizer.model.loadshare import COMM_OVERHEAD, CORES, NON_CORE, SWITCH_RULE, THRESHOLD

    for spec, flag, value in ((CORES, "--cores", cores), (COMM_OVERHEAD, "--comm-overhead-pct", comm_overhead_pct),
                              (THRESHOLD, "--threshold", threshold), (NON_CORE, "--non-core-pct", non_core_pct)):
        if value is not None:
            spec.check(value, flag)
    if switch_rule is not None:
        switch_rule = SWITCH_RULE.check(switch_rule, "--switch-rule")
    if shares is not None:
        if scenario is not None:
            raise InputError("give --scenario or --shares, not both")
        chosen = custom_scenario(shares, int(_declared("cores")))
    else:
        chosen = find(_declared("scenario") if scenario is None else scenario)
    return chosen, policy_params(chosen.cores if cores is None else cores, comm_overhead_pct, threshold,
                                 non_core_pct, switch_rule)


def _calibrated(profile: str | None, cpu_speed: float | None, comm_overhead_pct: float | None,
                threshold: float | None, non_core_pct: float | None, switch_rule: str | None = None) -> Any:
    """With --profile or --cpu-speed: the values to run on (options still override them)."""
    if profile is None and cpu_speed is None:
        return None
    from iosizer.calibration.whatif import what_if

    return what_if("loadshare", profile, cpu_speed=cpu_speed,
                   changes={"comm_overhead_pct": comm_overhead_pct, "threshold": threshold,
                            "non_core_pct": non_core_pct, "switch_rule": switch_rule})


def _configured(scenario: str | None, cores: int | None, comm_overhead_pct: float | None,
                threshold: float | None, non_core_pct: float | None, switch_rule: str | None,
                profile: str | None, cpu_speed: float | None,
                shares: tuple[float, ...] | None = None) -> tuple[Any, Any, Any]:
    """The scenario, the policy parameters and the what-if (None without --profile/--cpu-speed):
    a profile (or --cpu-speed) first, the options over it, the declared values for the rest."""
    calibrated = _calibrated(profile, cpu_speed, comm_overhead_pct, threshold, non_core_pct, switch_rule)
    if calibrated is not None:
        values = calibrated.values
        comm_overhead_pct, threshold = values["comm_overhead_pct"], values["threshold"]
        non_core_pct, switch_rule = values["non_core_pct"], values["switch_rule"]
    return (*_setup(scenario, cores, comm_overhead_pct, threshold, non_core_pct, switch_rule, shares), calibrated)

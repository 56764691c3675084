"""``--percentile P`` for every what-if that reports a response or wait time.

The option is declared once here (a declared question's percentiles are its
``Question.percentiles`` hook: the open queues' are in
:mod:`iosizer.model.queueing`). JSON keys are ``wait_pP`` and
``response_pP`` with the point written with an underscore (``response_p99``,
``response_p99_9``); see :mod:`iosizer.model.percentiles` for the formulas
and the approximations' measured errors.
"""

from __future__ import annotations

from typing import Annotated

import typer

from iosizer.data.error_grids import ERROR_RULE_PCT, load as load_error_grid  # noqa: F401  (exported names)
# --simulate's pieces live in the simulation layer (the declared questions' road uses them too).
from iosizer.simulate.answered import (MAX_SIMULATED_POINTS, check_simulate, closed_simulated,  # noqa: F401
                                       closed_simulated_note, open_simulated_note, open_simulation, simulated)

PercentileOption = Annotated[
    list[float] | None,
    typer.Option(
        "--percentile",
        metavar="P",
        help="Also report the P-th percentile of wait and response time (repeatable: 50, 90, 99, 99.9); "
             "JSON keys wait_pP, response_pP (response_p99_9).",
    ),
]

SimulateOption = Annotated[
    bool,
    typer.Option(
        "--simulate",
        help="Answer the --percentile values from a simulation (iosizer.simulate.tails: 5 replications, seed 0): "
             "response_pP (wait_pP) becomes the simulated mean, with its 95 % interval in _sim_low/_sim_high and "
             "the analytic value in _model. At most 10 points.",
    ),
]



"""What-if questions answered from a calibrated profile, with 95 % bands.

The CLI's ``--profile FILE`` lands here: the profile supplies the parameters
a command would otherwise take as options, and
:func:`~iosizer.calibration.uncertainty.propagate` turns the parameters'
intervals into an interval on each answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from iosizer.calibration.profile import Profile
from iosizer.calibration.uncertainty import propagate
from iosizer.errors import InputError
from iosizer.model.registry import declaration


def band_note(answers: Any, text: str) -> str:
    """``text`` (what the ``*_ci_low``/``*_ci_high`` bands are) when every answer has its band; otherwise
    say where there is none, so a what-if never claims bands it does not print."""
    rows = [answers] if isinstance(answers, dict) else list(answers)
    ends = [v for row in rows for k, v in row.items() if k.endswith(("_ci_low", "_ci_high"))]
    missing = [v for v in ends if v is None or not np.isfinite(v)]
    if not missing:
        return text
    where = "no 95 % band" if len(missing) == len(ends) else "no 95 % band where *_ci_low/_ci_high are empty"
    return (f"{where}: the profile's intervals are undefined (an exact or singular fit: add repeat measurements) "
            "or the answer stops existing inside them")


def on_cpu(profile: Profile, cpu_speed: float | None, label: str = "the profile") -> Profile:
    """``profile`` carried to a CPU of relative per-core speed ``cpu_speed`` (None: as it is).

    One measured CPU spans each parameter's declared exponent range, so the
    carried profile's intervals (and every band built on them) widen.
    """
    if cpu_speed is None:
        return profile
    from iosizer.calibration.extrapolate import extrapolate
    from iosizer.model.family import CPU_SPEED

    CPU_SPEED.check(cpu_speed, "--cpu-speed")
    if profile.cpu_speed is None:
        raise InputError(f"{label} records no CPU speed: calibrate with --cpu-speed to carry it to another CPU")
    return extrapolate([profile], cpu_speed).profile


# --- every family: a profile (shipped or the planner's), on a CPU, with settings changed ---


@dataclass(frozen=True)
class WhatIf:
    """What a what-if runs on, and where every number came from.

    ``values``: everything the family's solve needs (declared values,
    settings, the profile's parameters, the planner's overrides);
    ``profile``: the profile whose intervals give the answer's 95 % bands
    (overridden parameters fixed in it); ``source``: one line for the notes.
    """

    family: str
    values: dict[str, Any]
    profile: Profile
    source: str
    extrapolation: Any = None
    #: ``parameter`` or ``prediction`` (:mod:`iosizer.calibration.uncertainty`).
    band: str = "parameter"

    def bands(self, evaluate: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, tuple[Any, Any]]:
        """95 % bands of ``evaluate(values)``'s numeric outputs, from the profile's intervals."""
        if not any(e.vary for e in self.profile.parameters.values()):
            return {}
        return propagate(self.profile, lambda fitted: evaluate({**self.values, **fitted}), self.band)


def what_if(
    family: str,
    profile_path: str | Path | None = None,
    *,
    cpu_speed: float | None = None,
    changes: dict[str, Any] | None = None,
    band: str = "parameter",
) -> WhatIf:
    """The values a family's what-if runs on.

    ``profile_path``: the planner's calibrated profile for ``family``; None
    takes the shipped one. ``cpu_speed``: carry the profile to a CPU of that
    relative per-core speed (:func:`iosizer.calibration.extrapolate.extrapolate`:
    one CPU spans the declared exponent bounds). ``changes``: settings and
    parameters the planner sets ("what if I add a core": ``{"cores": 3}``);
    a changed parameter is fixed at its new value, so no band comes from it.
    Every value is checked against its declaration; None means "keep".
    """
    from iosizer.calibration.frozen import shipped
    from iosizer.calibration.profile import load_profile, profile_values, with_changes

    declaration(family)  # an unknown family is a one-line error before any profile is read
    if profile_path is not None:
        base = load_profile(profile_path, family)
        source = f"profile {profile_path}"
    else:
        base = shipped(family)
        source = f"shipped '{family}' profile"
    extrapolation = None
    if cpu_speed is not None:
        from iosizer.calibration.extrapolate import extrapolate
        from iosizer.model.family import CPU_SPEED

        CPU_SPEED.check(cpu_speed, "--cpu-speed")
        if base.cpu_speed is None:
            raise InputError(f"{source} records no CPU speed: calibrate with --cpu-speed to carry it "
                             "to another CPU")
        extrapolation = extrapolate([base], cpu_speed)
        base = extrapolation.profile
        source += f", carried to CPU speed {cpu_speed:g}"
    values, base, note = with_changes(base, profile_values(base), changes or {},
                                      lambda name: "--" + name.replace("_", "-"))
    source += note
    return WhatIf(family, values, base, source, extrapolation, band)

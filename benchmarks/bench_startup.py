"""Start-up of commands that answer, against ``python -c 'import typer, numpy'`` timed in the same run.

Run: ``python benchmarks/bench_startup.py [REPEATS]`` (default 15). Not part of the test run.

Every command runs REPEATS times, round-robin with the baseline so a change in the machine's load
reaches all of them alike; each figure is the best (least disturbed) run's wall time, and the best
CPU time (user + system of the child, from ``wait4``), which a loaded machine disturbs less. Each
ratio is to the baseline's figure of the same kind. Issue 29's target: a command that answers within
1.5x of the baseline.

The children read compiled modules, as an installed package does: they get a fresh bytecode folder
(``PYTHONPYCACHEPREFIX``, warmed by one untimed run of each command) whatever
``PYTHONDONTWRITEBYTECODE`` says. ``iosizer device curve`` runs with its shipped profile cached, as
from its second call on (one untimed run writes the cache); its first call, with an empty cache
folder, is timed apart.

Measured 2026-11-25 16:43 UTC on the shared 2-core machine (load average falling from 10 to 5),
best of 10, the same bench on main before issue 29's start-up work (c753e73) and after:

    command                         before (wall, ratio)   after (wall, ratio; CPU ratio)
    import typer, numpy (baseline)  133 ms                 195 ms
    iosizer --help                  171 ms  1.29x          114 ms  0.58x; 0.58x
    iosizer queue mmc (c = 4)       352 ms  2.65x          214 ms  1.10x; 1.16x
    iosizer device curve            1102 ms 8.28x          805 ms  4.14x; 3.63x (first call 6.55x)

(The before baseline, taken a minute later, was 133 ms wall; under a load of 16-18 an earlier pair of
runs gave CPU ratios 2.58x -> 1.27x for queue mmc and 7.27x -> 3.57x for device curve.)

queue mmc now builds one command (cli/lazy.py), converts its options without pydantic, draws its
piped table without rich and imports no tail model; what device curve still imports beyond the
baseline is pydantic (the profile), scipy.special (its gammaln, whose import pulls numpy.f2py through
scipy's array-API layer) and the device model.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

BASELINE = "python -c 'import typer, numpy'"


def _commands(iosizer: list[str]) -> dict[str, list[str]]:
    return {
        BASELINE: [sys.executable, "-c", "import typer, numpy"],
        "iosizer --help": [*iosizer, "--help"],
        "iosizer queue mmc (c = 4)": [*iosizer, "queue", "mmc", "--arrival-rate", "3.2", "--service-rate", "1",
                                      "--servers", "4"],
        "iosizer device curve (profile cached)": [*iosizer, "device", "curve"],
    }


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``command`` in its own process (its output discarded)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    error = process.stderr.read().decode() if process.stderr else ""
    if process.stderr:
        process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"{' '.join(command)} failed: {error[-400:]}")
    return seconds, usage.ru_utime + usage.ru_stime


def measure(repeats: int = 15) -> dict[str, tuple[float, float]]:
    """Best wall and best CPU seconds of every command, the baseline included; also the device curve's
    first call (an empty cache folder each time, best of 3)."""
    found = shutil.which("iosizer")
    iosizer = [found] if found else [sys.executable, "-m", "iosizer.cli"]
    commands = _commands(iosizer)
    with tempfile.TemporaryDirectory() as folder:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "COLUMNS")}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "bytecode")
        env["IOSIZER_CACHE_DIR"] = os.path.join(folder, "cache")
        for command in commands.values():  # untimed: compiles every module, writes the profile's cache
            run(command, env)
        best = {label: (float("inf"), float("inf")) for label in commands}
        for _ in range(repeats):
            for label, command in commands.items():
                wall, cpu = run(command, env)
                best[label] = (min(best[label][0], wall), min(best[label][1], cpu))
        cold = (float("inf"), float("inf"))
        for attempt in range(3):
            wall, cpu = run(commands["iosizer device curve (profile cached)"],
                            {**env, "IOSIZER_CACHE_DIR": os.path.join(folder, f"empty-{attempt}")})
            cold = (min(cold[0], wall), min(cold[1], cpu))
        best["iosizer device curve (first call: fits its example)"] = cold
    return best


def report(best: dict[str, tuple[float, float]]) -> None:
    base_wall, base_cpu = best[BASELINE]
    print(f"Start-up against {BASELINE} (best of the run; target < 1.5x for a command that answers):")
    for label, (wall, cpu) in best.items():
        ratios = "" if label == BASELINE else f"  = {wall / base_wall:.2f}x wall, {cpu / base_cpu:.2f}x CPU"
        print(f"  {label:<55} {wall * 1e3:7.1f} ms wall {cpu * 1e3:7.1f} ms CPU{ratios}")


def main() -> None:
    report(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 15))


if __name__ == "__main__":
    main()

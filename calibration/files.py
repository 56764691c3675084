"""Atomic file output: a failed run never leaves half a file behind."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success, rename it over ``target``.

    The caller writes the whole file to the yielded path. The rename is
    atomic on POSIX file systems, so readers see the old file or the new one,
    never a mixture; on any exception the temporary file is removed. The new
    file gets the permissions an ordinary ``open()`` would give it.
    """
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)
    try:
        yield Path(temporary)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


@contextmanager
def atomic_paths(targets: Sequence[Path]) -> Iterator[list[Path]]:
    """:func:`atomic_path` for several files that succeed or fail together.

    Yields one temporary path beside each target; the caller writes them
    all. Only when the block completes are they renamed over their targets,
    so an exception while writing any of them leaves every target untouched.
    """
    temporaries: list[Path] = []
    try:
        for target in targets:
            handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            os.close(handle)
            temporaries.append(Path(temporary))
        yield list(temporaries)
        mode = 0o666 & ~_umask()
        for temporary, target in zip(temporaries, targets):
            os.chmod(temporary, mode)
            os.replace(temporary, target)
    finally:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)

"""Files in and out: an input is a regular file read whole; a failed run never leaves half a file behind."""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence


def input_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read whole as an input (a profile, measured data), or None.

    A folder, a device (/dev/zero never ends), a pipe or a socket is refused before a byte is read,
    so no input can make a command wait or fill memory. A missing or unreadable path raises the
    OSError its caller already reports ("cannot read file (No such file or directory)").
    """
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a device, a pipe or a socket); give a file"
    return None


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

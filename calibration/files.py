"""Atomic file output: a failed run never leaves half a file behind."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


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

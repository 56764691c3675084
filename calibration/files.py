"""Files in and out: an input is a regular file read whole; a failed run never leaves half a file behind."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

from iosizer.errors import InputError


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
def atomic_paths(targets: Sequence[Path], folders: Sequence[bool] = ()) -> Iterator[list[Path]]:
    """:func:`atomic_path` for several files that succeed or fail together.

    Yields one temporary path beside each target (an empty folder where
    ``folders`` says so); the caller writes them all. Only when the block
    completes are they renamed over their targets, so an exception while
    writing any of them leaves every target untouched.
    """
    temporaries: list[Path] = []
    kinds = [bool(f) for f in folders] + [False] * (len(targets) - len(folders))
    try:
        for target, folder in zip(targets, kinds):
            if folder:
                temporaries.append(Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp",
                                                         dir=target.absolute().parent)))
                continue
            handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            os.close(handle)
            temporaries.append(Path(temporary))
        yield list(temporaries)
        mask = _umask()
        for temporary, target, folder in zip(temporaries, targets, kinds):
            os.chmod(temporary, (0o777 if folder else 0o666) & ~mask)
            if folder:
                _replace_folder(temporary, target)
            else:
                os.replace(temporary, target)
    finally:
        for temporary in temporaries:
            if temporary.is_dir():
                shutil.rmtree(temporary, ignore_errors=True)
            else:
                temporary.unlink(missing_ok=True)


def _replace_folder(temporary: Path, target: Path) -> None:
    """``temporary`` renamed to ``target``, an old ``target`` folder replaced as a whole.

    A rename cannot replace a non-empty folder, so the old one is first
    renamed aside, then the new one into place, then the old one deleted; if
    the second rename fails the old one is put back.
    """
    if not target.exists():
        os.replace(temporary, target)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.absolute().parent))
    try:
        os.replace(target, aside / "old")
        try:
            os.replace(temporary, target)
        except OSError:
            os.replace(aside / "old", target)
            raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


# --- outputs a command writes (a profile, a plot) --------------------------------------------------------

OUTPUT_RULE = "iosizer writes only into a folder that exists"


def missing_folder(flag: str, folder: Path, text: str) -> str:
    """The error for an output whose folder is not a folder: missing, or a file in the way."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing == folder:  # '/etc/passwd/x.json': the folder is a file
        return f"{flag}: '{folder}' of '{text}' is a file, not a folder ({OUTPUT_RULE})"
    if existing is not None and not existing.is_dir():
        return (f"{flag}: folder '{folder}' of '{text}' does not exist: '{existing}' is a file, not a folder "
                f"({OUTPUT_RULE})")
    return f"{flag}: folder '{folder}' of '{text}' does not exist ({OUTPUT_RULE}; create it first)"


def check_output_path(path: Path | None, flag: str) -> Path | None:
    """Refuse an output location before anything is computed (one rule for every output).

    The target must not be a folder or a special file, and its folder must
    exist (iosizer never creates folders) and accept a new file, which is
    tried by creating and removing a temporary file there. Errors name the
    flag, the path and the reason, in one line.
    """
    if path is None:
        return None
    text = str(path)
    try:
        if path.is_dir():
            empty = " (an empty name is the current folder)" if text == "." else ""
            raise InputError(f"{flag}: '{text}' is a folder{empty}; give a file name")
        if path.exists() and not path.is_file():
            raise InputError(f"{flag}: '{text}' exists and is not a regular file")
        folder = path.parent
        if not folder.is_dir():
            raise InputError(missing_folder(flag, folder, text))
    except OSError as error:
        raise InputError(f"{flag}: cannot use '{text}': {error.strerror or error}") from None
    try:
        handle, probe = tempfile.mkstemp(prefix=".iosizer-probe.", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        raise InputError(f"{flag}: cannot write '{text}': folder '{folder}' does not accept new files "
                         f"({error.strerror or error})") from None
    return path


#: Writes one output's whole content to the temporary path it is given.
Writer = Callable[[Path], None]


class FolderWriter:
    """Writes a whole folder (``iosizer report``'s) into the empty temporary folder it is given:
    :func:`write_outputs` then replaces the target folder as a whole."""

    def __init__(self, write: Callable[[Path], None]) -> None:
        self.write = write

    def __call__(self, temporary: Path) -> None:
        self.write(temporary)


def write_outputs(outputs: Sequence[tuple[Path, Writer]]) -> None:
    """Write every output to a temporary file (a :class:`FolderWriter`'s: folder) beside its target, then
    rename each into place.

    Nothing is renamed until every output is complete, so a failure (a plot
    that cannot be drawn, a full disk) leaves no output written, new or
    half-new; each rename is atomic, so a reader sees the old file or the new.
    """
    targets = [target for target, _ in outputs]
    with atomic_paths(targets, [isinstance(write, FolderWriter) for _, write in outputs]) as temporaries:
        for temporary, (_, write) in zip(temporaries, outputs):
            write(temporary)

"""The click command of ``iosizer``, for tests and tools that invoke the CLI in-process.

The served commands are :mod:`iosizer.catalogue`'s (declared and generated, never read from the CLI).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def root_command() -> Any:
    """The click command of ``iosizer`` (every command registered), built once."""
    import typer.main

    from iosizer.cli.app import app

    return typer.main.get_command(app)

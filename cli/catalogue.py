"""The click command of ``iosizer``, for tests and tools that invoke the CLI in-process.

The served commands are :mod:`iosizer.catalogue`'s (declared and generated, never read from the CLI);
their names are re-exported here for older callers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from iosizer.catalogue import NOT_SERVED, command_spec, command_specs  # noqa: F401  (public here for older callers)
from iosizer.commands import Role, body_values  # noqa: F401  (public here for older callers)
from iosizer.units import unit_of  # noqa: F401  (public here for older callers)


@lru_cache(maxsize=1)
def root_command() -> Any:
    """The click command of ``iosizer`` (every command registered), built once."""
    import typer.main

    from iosizer.cli.app import app

    return typer.main.get_command(app)

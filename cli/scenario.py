"""``iosizer run SCENARIO``: evaluate a TOML system description through every family that applies.

Generated from its declaration in :mod:`iosizer.commands` (fields and work, :func:`iosizer.tools.run`), as
the server and :func:`iosizer.ask` answer it.
"""

from __future__ import annotations

from iosizer.cli.generated import typer_function
from iosizer.commands import declared_command

run = typer_function(declared_command(("run",)))

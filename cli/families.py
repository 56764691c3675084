"""``iosizer params FAMILY`` and ``iosizer families``: what the family registry declares.

Generated from their declarations in :mod:`iosizer.commands` (fields and work, :mod:`iosizer.tools`), as the
server and :func:`iosizer.ask` answer them.
"""

from __future__ import annotations

from iosizer.cli.generated import typer_function
from iosizer.commands import declared_command

params = typer_function(declared_command(("params",)))
families = typer_function(declared_command(("families",)))

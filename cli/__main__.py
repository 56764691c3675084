"""``python -m iosizer.cli``: the same as the ``iosizer`` command."""

from iosizer.cli.app import main

main()

"""The server's declared limits, importable without the server (``iosizer serve --help`` stays light)."""

from __future__ import annotations

from iosizer.model.family import ParameterSpec

__all__ = ["REQUEST_TIMEOUT", "REQUEST_TIMEOUT_S"]

#: How long a request may take in the workers (``iosizer serve --request-timeout-s``).
REQUEST_TIMEOUT = ParameterSpec(
    "request_timeout_s", "s", 900.0, (1.0, 86400.0), "assumed",
    "assumed: above iosizer simulate's default 600 s budget, so only a run that ignores its own bounds (a "
    "bug, a pathological input) reaches it; from 1 s (below it a fresh worker's first answer may not "
    "arrive) to a day",
    "longest a request may wait for and run in a worker before it is answered 503", kind="setting")
REQUEST_TIMEOUT_S = float(REQUEST_TIMEOUT.value)

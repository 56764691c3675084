"""``iosizer serve``: the CLI over HTTP, and a what-if page.

Every command ``iosizer A B --some-option v`` is ``POST /api/A/B`` with the
JSON body ``{"some_option": v}`` and answers exactly what ``--format json``
prints. The endpoints and their request models are generated at start-up:
a declared question's from the registry (:mod:`iosizer.serve.questions`),
every other command's from its spec (:mod:`iosizer.catalogue`: declared in
:mod:`iosizer.commands` or generated in :mod:`iosizer.generated`), never
from the CLI. Commands run in
worker processes, in three lanes (what-ifs, fits, simulation jobs) with
their own processes and the server's limits (:mod:`iosizer.serve.worker`,
:mod:`iosizer.serve.limits`); :mod:`iosizer.serve.app` builds the FastAPI
application, its guards (Host, non-simple requests, body size), its error
contract, the jobs and the page in ``static/``.

This subpackage needs the ``serve`` extra (FastAPI, uvicorn,
python-multipart); nothing outside it imports it except the ``iosizer
serve`` command, lazily.
"""

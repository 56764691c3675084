"""Views of the family registry for people: the published-figure checks and scenario files.

- :mod:`iosizer.report.checks`: every family against every number the seeds
  publish (``iosizer report``); each seed's checks are the rows of
  ``report/figures/SEED.toml`` (:mod:`iosizer.report.table`), answered by
  :mod:`iosizer.report.answers`.
- :mod:`iosizer.report.scenario`: TOML scenario files answered by every
  family that applies (``iosizer run``).
- :mod:`iosizer.report.document`: the checks as ``iosizer report``'s
  folder (Markdown, HTML, JSON, charts drawn by :mod:`iosizer.report.plots`).

Neither holds a model value of its own: they call the families' library
functions with the shipped profiles and the declared parameter values.
"""

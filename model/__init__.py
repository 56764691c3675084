"""Pure, vectorised performance models. No I/O, no imports from other layers.

- :mod:`iosizer.model.open_queues`: open queues (M/M/1, M/M/c, M/G/1, M/D/1, G/G/c);
  :mod:`iosizer.model.queueing` declares them as the ``mmc`` family (and re-exports them).
- :mod:`iosizer.model.mva`: closed networks by Mean Value Analysis, and bounds.
- :mod:`iosizer.model.little`: Little's law and bandwidth-delay helpers.
"""

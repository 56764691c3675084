"""Little's law and bandwidth-delay helpers.

Little's law, L = X W, holds for any stable system in steady state: the mean
number of requests inside (L) equals throughput (X) times mean time inside
(W). Applied to an I/O path, the requests in flight bound the throughput a
latency allows: a device that keeps ``window_bytes`` outstanding over a round
trip of ``round_trip_s`` cannot move more than window / round trip, and never
more than its link carries (the bandwidth-delay product is the window that
exactly fills the link). Units: bytes, seconds, bytes per second; any
consistent set works for the three ``little_*`` forms.
"""

from __future__ import annotations

import numpy as np

from iosizer.errors import InputError
from iosizer.model._validate import as_nonnegative, as_positive, scalar_or_array

__all__ = [
    "bandwidth_delay_product_bytes",
    "little_in_system",
    "little_response_time",
    "little_throughput",
    "window_limited_throughput_bytes_per_s",
]


def little_in_system(throughput: object, response_time: object) -> float | np.ndarray:
    """Mean number in the system: L = X W."""
    x = as_nonnegative("throughput", throughput)
    w = as_nonnegative("response_time", response_time)
    return scalar_or_array(x * w)


def little_throughput(in_system: object, response_time: object) -> float | np.ndarray:
    """Throughput a population sustains over a response time: X = L / W."""
    n = as_nonnegative("in_system", in_system)
    w = as_positive("response_time", response_time)
    return scalar_or_array(n / w)


def little_response_time(in_system: object, throughput: object) -> float | np.ndarray:
    """Mean time inside: W = L / X."""
    n = as_nonnegative("in_system", in_system)
    x = as_positive("throughput", throughput)
    return scalar_or_array(n / x)


def bandwidth_delay_product_bytes(
    bandwidth_bytes_per_s: object, round_trip_s: object
) -> float | np.ndarray:
    """Bytes that must be in flight to keep a link busy: B x RTT."""
    b = as_nonnegative("bandwidth_bytes_per_s", bandwidth_bytes_per_s)
    rtt = as_nonnegative("round_trip_s", round_trip_s)
    return scalar_or_array(b * rtt)


def window_limited_throughput_bytes_per_s(
    window_bytes: object,
    round_trip_s: object,
    link_bytes_per_s: object = np.inf,
) -> float | np.ndarray:
    """Throughput of a window-limited (non-posted) transfer stream.

    X = min(window / RTT, link): Little's law with the window as the mean
    number of bytes in flight, capped by the link's bandwidth.
    """
    window = as_nonnegative("window_bytes", window_bytes)
    rtt = as_positive("round_trip_s", round_trip_s)
    # An infinite link is the documented "no cap" default; NaN is not.
    link = np.asarray(link_bytes_per_s, dtype=np.float64)
    if np.isnan(link).any() or (link <= 0).any():
        raise InputError(f"link_bytes_per_s must be > 0, got {link_bytes_per_s!r}")
    return scalar_or_array(np.minimum(window / rtt, link))

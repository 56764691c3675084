"""Little's law and bandwidth-delay helpers."""

from __future__ import annotations

import numpy as np
import pytest

from iosizer.errors import InputError
from iosizer.model.little import (
    bandwidth_delay_product_bytes,
    little_in_system,
    little_response_time,
    little_throughput,
    window_limited_throughput_bytes_per_s,
)


def test_three_forms_are_one_law() -> None:
    x, w = 2_000.0, 0.004
    n = little_in_system(x, w)
    assert n == pytest.approx(8.0)
    assert little_throughput(n, w) == pytest.approx(x)
    assert little_response_time(n, x) == pytest.approx(w)


def test_window_limit_reproduces_a_dma_read_stream() -> None:
    # Three 512-byte reads in flight every 12,000 ns move 128 MB/s
    # (seed 000 table 4-1, e1000 local case), unless the link is slower.
    assert window_limited_throughput_bytes_per_s(3 * 512, 12_000e-9) == pytest.approx(128e6)
    assert window_limited_throughput_bytes_per_s(3 * 512, 12_000e-9, 100e6) == 100e6
    assert bandwidth_delay_product_bytes(128e6, 12_000e-9) == pytest.approx(1536.0)


def test_vectorised() -> None:
    out = window_limited_throughput_bytes_per_s(np.array([512, 1024]), np.array([[1e-6], [2e-6]]))
    assert out.shape == (2, 2)


@pytest.mark.parametrize(
    "call",
    [
        lambda: little_throughput(1.0, 0.0),
        lambda: little_in_system(-1.0, 1.0),
        lambda: window_limited_throughput_bytes_per_s(1.0, 1.0, float("nan")),
        lambda: window_limited_throughput_bytes_per_s(1.0, 1.0, 0.0),
    ],
)
def test_rejects_bad_values(call) -> None:
    with pytest.raises(InputError):
        call()

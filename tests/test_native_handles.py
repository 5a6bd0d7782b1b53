"""What a vendor library needs from hipkit to work on hipkit's device and stream:
the device made current in the platform's own runtime, its context, the stream's
own handle (docs/ARCHITECTURE.md, the seam)."""

from __future__ import annotations

import numpy as np
import pytest

import hipkit
from hipkit import HipError, hip, hipError_t
from hipkit.platforms.base.platform import DEVICE_TO_DEVICE


def test_set_current_is_hipkits_current_device(device):
    device.set_current()
    assert hipkit.get_device() == device and hip.hipGetDevice() == device.index


def test_a_native_context_is_the_drivers_current_one(device):
    """Where the platform has contexts (CUDA's), the device's context is the one the
    driver makes current for it; elsewhere there is none (0)."""
    context = device.native_context
    assert isinstance(context, int)
    if context == 0:
        return
    driver = pytest.importorskip("cuda.bindings.driver", reason="a context needs CUDA's driver bindings")
    device.set_current()
    err, current = driver.cuCtxGetCurrent()
    assert int(err) == 0 and int(current) == context
    assert device.native_context == context  # the primary context: one per device


def test_the_native_stream_handle_orders_work(device, rng):
    """The handle is the stream's own: work the platform queues through it is ordered
    with hipkit's launches on the stream."""
    host = rng.standard_normal(1 << 16).astype(np.float32)
    a = hipkit.to_device(host)
    b = hipkit.empty_like(a)
    s = hipkit.Stream()
    handle = s.native_handle
    assert isinstance(handle, int) and handle != 0
    device.platform.memcpy(device._native, b.ptr, a.ptr, a.nbytes, DEVICE_TO_DEVICE, handle, True)
    s.synchronize()
    assert np.array_equal(b.get(), host)
    s.destroy()
    with pytest.raises(HipError) as info:
        _ = s.native_handle
    assert info.value.code == hipError_t.hipErrorInvalidHandle

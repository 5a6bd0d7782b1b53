"""Device arrays: host round trips, views, geometry changes, copies, kernels on
views, and DLPack interchange, each checked against NumPy on fresh random data."""

from __future__ import annotations

import numpy as np
import pytest

import hipkit

SOURCE = r"""
extern "C" __global__ void iota(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}
extern "C" __global__ void first(const float* p, float* out) { *out = *p; }
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""

DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
SHAPES = [(), (0,), (1,), (7,), (1023,), (4099,), (3, 0, 2), (3, 5, 7), (2, 1, 9)]


def random_array(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Random values of ``dtype`` that cover its range (sign, fraction, high bits)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


def launch_1d(kernel, n: int, *args) -> None:
    kernel[max((n + 127) // 128, 1), 128](*args)


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_to_device_get_round_trip(device, rng, dtype, shape):
    host = random_array(rng, shape, dtype)
    dev = hipkit.to_device(host)
    assert dev.shape == host.shape and dev.dtype == host.dtype and dev.size == host.size
    assert dev.nbytes == host.nbytes and dev.ndim == host.ndim
    back = dev.get()
    assert back.dtype == host.dtype and back.shape == host.shape
    np.testing.assert_array_equal(back, host)


def test_round_trip_of_non_contiguous_host_arrays(device, rng):
    host = random_array(rng, (9, 12), np.float64)
    for view in (host[::2, 1::3], host.T, host[::-1, ::-2]):
        np.testing.assert_array_equal(hipkit.to_device(view).get(), view)


def test_get_into_out_and_set_broadcasts(device, rng):
    host = random_array(rng, (4, 6), np.int32)
    dev = hipkit.to_device(host)
    out = np.empty_like(host)
    assert dev.get(out=out) is out
    np.testing.assert_array_equal(out, host)
    with pytest.raises(ValueError):
        dev.get(out=np.empty((6, 4), np.int32))
    row = random_array(rng, (6,), np.int32)
    dev.set(row)
    np.testing.assert_array_equal(dev.get(), np.broadcast_to(row, (4, 6)))


# ------------------------------------------------------------------ views

VIEWS = {
    "a[1:7:2]": np.s_[1:7:2],
    "a[:, 3]": np.s_[:, 3],
    "a[::-1]": np.s_[::-1],
    "a[::-2, 1:-1]": np.s_[::-2, 1:-1],
    "a[-1, ::-3]": np.s_[-1, ::-3],
    "a[..., None]": np.s_[..., None],
    "a[None, 2:5, ...]": np.s_[None, 2:5, ...],
    "a[2]": np.s_[2],
    "a[2, 3]": np.s_[2, 3],
    "a[5:5]": np.s_[5:5],
}


@pytest.mark.parametrize("key", VIEWS.values(), ids=VIEWS.keys())
def test_view_get(device, rng, key):
    host = random_array(rng, (8, 10), np.float32)
    view = hipkit.to_device(host)[key]
    expected = host[key]
    assert view.shape == expected.shape
    np.testing.assert_array_equal(view.get(), expected)


@pytest.mark.parametrize("key", VIEWS.values(), ids=VIEWS.keys())
def test_view_set_writes_through_to_the_base(device, rng, key):
    host = random_array(rng, (8, 10), np.float32)
    base = hipkit.to_device(host)
    new = random_array(rng, host[key].shape, np.float32)
    base[key].set(new)
    host[key] = new
    np.testing.assert_array_equal(base.get(), host)


def test_view_of_a_view(device, rng):
    host = random_array(rng, (6, 7, 8), np.int64)
    base = hipkit.to_device(host)
    view = base[1:, ::-2][:, 1:3, ::3]
    np.testing.assert_array_equal(view.get(), host[1:, ::-2][:, 1:3, ::3])
    new = random_array(rng, view.shape, np.int64)
    view.set(new)
    host[1:, ::-2][:, 1:3, ::3] = new
    np.testing.assert_array_equal(base.get(), host)


def test_advanced_indexing_is_rejected(device, rng):
    dev = hipkit.to_device(random_array(rng, (5,), np.float32))
    with pytest.raises(IndexError):
        dev[[0, 2]]
    with pytest.raises(IndexError):
        dev[9]


# ------------------------------------------------------------------ geometry and copies


def test_reshape(device, rng):
    host = random_array(rng, (4, 6), np.float32)
    dev = hipkit.to_device(host)
    for shape in [(6, 4), (24,), (2, -1, 3), ((3, 8),)]:
        np.testing.assert_array_equal(dev.reshape(*shape).get(), host.reshape(*shape))
    new = random_array(rng, (2, 12), np.float32)
    dev.reshape(2, 12).set(new)  # a view: writes reach the base
    np.testing.assert_array_equal(dev.get(), new.reshape(4, 6))
    with pytest.raises(ValueError):
        dev.reshape(5, 5)
    with pytest.raises(ValueError):
        dev.reshape(-1, -1)


def test_reshape_of_a_strided_view_is_refused(device, rng):
    dev = hipkit.to_device(random_array(rng, (4, 6), np.float32))
    with pytest.raises(ValueError):
        dev[:, ::2].reshape(12)


def test_view_as_another_dtype(device, rng):
    host = random_array(rng, (3, 5), np.float32)
    dev = hipkit.to_device(host)
    np.testing.assert_array_equal(dev.view(np.int32).get(), host.view(np.int32))
    dev.view(np.uint32).set(np.full((3, 5), 0x3F800000, np.uint32))
    np.testing.assert_array_equal(dev.get(), np.ones((3, 5), np.float32))
    with pytest.raises(ValueError):
        dev.view(np.float64)


def test_view_as_another_dtype_of_a_slice(device, rng):
    host = random_array(rng, (3, 5), np.float32)
    dev = hipkit.to_device(host)
    np.testing.assert_array_equal(dev[:, 1].view(np.uint32).get(), host[:, 1].view(np.uint32))


def test_copy_is_independent(device, rng):
    host = random_array(rng, (6, 9), np.float64)
    dev = hipkit.to_device(host)
    dup = dev.copy()
    assert dup.is_contiguous and dup.shape == host.shape and dup.ptr != dev.ptr
    np.testing.assert_array_equal(dup.get(), host)
    dup.fill(-1.0)
    np.testing.assert_array_equal(dev.get(), host)  # the original is untouched
    np.testing.assert_array_equal(dup.get(), np.full_like(host, -1.0))


def test_copy_of_a_view_is_contiguous(device, rng):
    host = random_array(rng, (6, 9), np.float64)
    dev = hipkit.to_device(host)
    for key in (np.s_[::2, ::-3], np.s_[:, 4], np.s_[1:4]):
        dup = dev[key].copy()
        assert dup.is_contiguous and dup.shape == host[key].shape
        np.testing.assert_array_equal(dup.get(), host[key])
        dup.fill(-1.0)
        np.testing.assert_array_equal(dev.get(), host)


@pytest.mark.parametrize("value", [0, 3.5, -7])
def test_fill(device, rng, value):
    host = random_array(rng, (5, 8), np.float32)
    dev = hipkit.to_device(host)
    dev.fill(value)
    np.testing.assert_array_equal(dev.get(), np.full_like(host, value))


@pytest.mark.parametrize("value", [0, 3.5, -7])
def test_fill_of_a_strided_view(device, rng, value):
    host = random_array(rng, (5, 8), np.float32)
    dev = hipkit.to_device(host)
    dev[1::2, ::3].fill(value)  # only the view's elements change
    host[1::2, ::3] = value
    np.testing.assert_array_equal(dev.get(), host)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "float32", "float64", "complex128"])
def test_zeros(device, dtype):
    # Dirty memory first, so that freshly allocated zeros cannot pass by luck.
    dirty = hipkit.to_device(np.full(4096, -1, np.int8))
    del dirty
    dev = hipkit.zeros((64, 8), dtype)
    assert dev.shape == (64, 8) and dev.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(dev.get(), np.zeros((64, 8), dtype))
    np.testing.assert_array_equal(hipkit.zeros(0, dtype).get(), np.zeros(0, dtype))
    np.testing.assert_array_equal(hipkit.zeros_like(dev).get(), np.zeros((64, 8), dtype))


def test_empty_and_empty_like(device, rng):
    dev = hipkit.empty((3, 4), np.int16)
    assert dev.shape == (3, 4) and dev.dtype == np.int16 and dev.is_contiguous
    like = hipkit.empty_like(dev)
    assert like.shape == dev.shape and like.dtype == dev.dtype and like.ptr != dev.ptr
    assert hipkit.empty_like(dev, dtype=np.float64).dtype == np.float64
    from_host = hipkit.empty_like(random_array(rng, (2, 5), np.uint8))
    assert from_host.shape == (2, 5) and from_host.dtype == np.uint8
    assert hipkit.empty(7).shape == (7,)
    with pytest.raises(ValueError):
        hipkit.empty((2, -1))


def test_numpy_conversion_is_refused(device, rng):
    dev = hipkit.to_device(random_array(rng, (4,), np.float32))
    with pytest.raises(TypeError):
        np.asarray(dev)
    with pytest.raises(TypeError):
        np.array(dev)


# ------------------------------------------------------------------ views as kernel arguments


def test_slice_passed_to_a_kernel_starts_at_its_first_element(device, rng):
    mod = hipkit.compile(SOURCE)
    first = mod.get_function("first")
    host = random_array(rng, (6, 8), np.float32)
    dev = hipkit.to_device(host)
    out = hipkit.zeros(1, np.float32)
    for key in (np.s_[0, 5:], np.s_[2:, 3], np.s_[4], np.s_[-1, -1], np.s_[3:, ::-1]):
        first[1, 1](dev[key], out)
        expected = host[key].reshape(-1)[0] if host[key].ndim else host[key]
        assert out.get()[0] == expected, key


def test_kernel_writes_through_a_slice_reach_the_base(device, rng):
    mod = hipkit.compile(SOURCE)
    iota = mod.get_function("iota")
    host = random_array(rng, (500,), np.int32)
    dev = hipkit.to_device(host)
    start, stop = 37, 37 + 301
    launch_1d(iota, stop - start, dev[start:stop], stop - start)
    host[start:stop] = np.arange(stop - start)
    np.testing.assert_array_equal(dev.get(), host)


def test_kernel_on_a_reshaped_row(device, rng):
    mod = hipkit.compile(SOURCE)
    host = random_array(rng, (8, 33), np.float32)
    dev = hipkit.to_device(host)
    row = dev.reshape(8, 33)[5]
    launch_1d(mod.get_function("scale"), 33, row, 0.5, 33)
    host[5] *= np.float32(0.5)
    np.testing.assert_array_equal(dev.get(), host)


# ------------------------------------------------------------------ DLPack


def test_dlpack_between_hipkit_arrays_is_zero_copy(device, rng):
    host = random_array(rng, (5, 6), np.float32)
    dev = hipkit.to_device(host)
    alias = hipkit.from_dlpack(dev)
    assert alias.ptr == dev.ptr and alias.shape == dev.shape and alias.strides == dev.strides
    np.testing.assert_array_equal(alias.get(), host)
    alias.fill(9.0)
    np.testing.assert_array_equal(dev.get(), np.full_like(host, 9.0))


def test_dlpack_of_a_strided_view_between_hipkit_arrays(device, rng):
    host = random_array(rng, (5, 6), np.float32)
    dev = hipkit.to_device(host)
    alias = hipkit.from_dlpack(dev[:, 1::2])
    assert alias.ptr == dev[:, 1::2].ptr and alias.strides == dev[:, 1::2].strides
    np.testing.assert_array_equal(alias.get(), host[:, 1::2])
    alias.fill(9.0)
    host[:, 1::2] = 9.0
    np.testing.assert_array_equal(dev.get(), host)


def test_numpy_from_dlpack_is_zero_copy_on_cpu(rng):
    """CPU only: device memory is host memory, so NumPy can view it."""
    cpu = hipkit.Device(0, platform="cpu")
    host = random_array(rng, (7, 9), np.float64)
    dev = hipkit.to_device(host, device=cpu)
    view = np.from_dlpack(dev)
    np.testing.assert_array_equal(view, host)
    view[2:5] = -view[2:5]  # written through NumPy, read back through hipkit
    host[2:5] = -host[2:5]
    np.testing.assert_array_equal(dev.get(), host)


def test_numpy_from_dlpack_of_a_column_on_cpu(rng):
    """CPU only: a strided device view seen by NumPy, written through NumPy."""
    cpu = hipkit.Device(0, platform="cpu")
    host = random_array(rng, (7, 9), np.float64)
    dev = hipkit.to_device(host, device=cpu)
    column = np.from_dlpack(dev[:, 4])
    np.testing.assert_array_equal(column, host[:, 4])
    column[:] = 1.5
    host[:, 4] = 1.5
    np.testing.assert_array_equal(dev.get(), host)


def test_hipkit_from_numpy_dlpack_is_zero_copy_on_cpu(rng):
    """CPU only: a NumPy array viewed as a device array; kernel writes appear in it."""
    cpu = hipkit.Device(0, platform="cpu")
    mod = hipkit.compile(SOURCE, device=cpu)
    host = random_array(rng, (1000,), np.float32)
    expected = host * np.float32(3.0)
    dev = hipkit.from_dlpack(host, device=cpu)
    assert dev.shape == host.shape and dev.dtype == host.dtype
    launch_1d(mod.get_function("scale"), host.size, dev, 3.0, host.size)
    cpu.synchronize()
    np.testing.assert_array_equal(host, expected)  # the NumPy array itself changed
    ints = np.zeros(77, np.int32)
    launch_1d(mod.get_function("iota"), 77, hipkit.from_dlpack(ints, device=cpu), 77)
    cpu.synchronize()
    np.testing.assert_array_equal(ints, np.arange(77))

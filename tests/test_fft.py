"""hipkit.fft against numpy.fft on fresh random data, on every platform present: every
transform, 1-D to 4-D, batched, odd, prime and larger sizes, cropping and padding
(``n``/``s``), every ``norm``, axes anywhere, strided and transposed views, the
helpers, streams and other libraries' tensors.  Its errors and the plan cache are in
test_fft_cache.py."""

from __future__ import annotations

import numpy as np
import pytest

import hipkit
from hipkit import fft

NORMS = [None, "backward", "ortho", "forward"]


@pytest.fixture(autouse=True)
def _provider(request):
    if "device" in request.fixturenames:
        request.getfixturevalue("device")
        try:
            hipkit.hipfft.provider()
        except hipkit.hipfft.HipfftError as exc:
            pytest.skip(str(exc))


def random(rng, shape, dtype) -> np.ndarray:
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def close(got, want) -> None:
    got = got.get() if isinstance(got, hipkit.DeviceArray) else got
    single = got.dtype in (np.float32, np.complex64)
    tol = 3e-5 if single else 1e-11
    scale = max(1.0, float(np.abs(want).max()))
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= tol * scale, np.abs(got - want).max() / scale


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
@pytest.mark.parametrize("n", [None, 1, 7, 16, 31, 100])
@pytest.mark.parametrize("axis", [-1, 0])
def test_fft_ifft(device, rng, dtype, n, axis):
    """fft and ifft of a batch, cropped or padded to n, along the last or first axis;
    real inputs become complex of their precision."""
    x = random(rng, (6, 24), dtype)
    d = hipkit.to_device(x)
    close(fft.fft(d, n=n, axis=axis), np.fft.fft(x, n=n, axis=axis))
    close(fft.ifft(d, n=n, axis=axis), np.fft.ifft(x, n=n, axis=axis))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("size", [2, 15, 17, 64, 97, 1000, 4099])
def test_every_norm_and_size(device, rng, norm, size):
    x = random(rng, (3, size), np.complex128)
    r = random(rng, (3, size), np.float64)
    d, dr = hipkit.to_device(x), hipkit.to_device(r)
    close(fft.fft(d, norm=norm), np.fft.fft(x, norm=norm))
    close(fft.ifft(d, norm=norm), np.fft.ifft(x, norm=norm))
    close(fft.rfft(dr, norm=norm), np.fft.rfft(r, norm=norm))
    close(fft.irfft(d, norm=norm), np.fft.irfft(x, norm=norm))
    close(fft.irfft(d, n=2 * size + 1, norm=norm), np.fft.irfft(x, n=2 * size + 1, norm=norm))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [None, 9, 30])
def test_rfft_irfft(device, rng, dtype, n):
    x = random(rng, (4, 5, 20), dtype)
    d = hipkit.to_device(x)
    for axis in (-1, 1, 0):
        spectrum = np.fft.rfft(x, n=n, axis=axis)
        close(fft.rfft(d, n=n, axis=axis), spectrum.astype(np.result_type(dtype, np.complex64)))
        back = hipkit.to_device(spectrum.astype(np.complex64 if dtype == np.float32 else np.complex128))
        close(fft.irfft(back, n=n, axis=axis), np.fft.irfft(spectrum, n=n, axis=axis))


@pytest.mark.parametrize(
    ("shape", "axes", "s"),
    [
        ((8, 12), None, None),
        ((5, 7, 9), None, None),
        ((5, 7, 9), (0, 2), None),
        ((4, 6, 10), (2, 0), (8, 3)),
        ((3, 4, 5, 6), None, None),  # four axes: two plans
        ((2, 3, 4, 5, 6), (0, 1, 3, 4), (2, 5, 4, 7)),
        ((16, 16, 16), (1,), None),
    ],
)
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_nd(device, rng, shape, axes, s, norm):
    x = random(rng, shape, np.complex128)
    r = random(rng, shape, np.float64)
    d, dr = hipkit.to_device(x), hipkit.to_device(r)
    close(fft.fftn(d, s=s, axes=axes, norm=norm), np.fft.fftn(x, s=s, axes=axes, norm=norm))
    close(fft.ifftn(d, s=s, axes=axes, norm=norm), np.fft.ifftn(x, s=s, axes=axes, norm=norm))
    spectrum = np.fft.rfftn(r, s=s, axes=axes, norm=norm)
    close(fft.rfftn(dr, s=s, axes=axes, norm=norm), spectrum)
    close(
        fft.irfftn(hipkit.to_device(spectrum), s=s, axes=axes, norm=norm),
        np.fft.irfftn(spectrum, s=s, axes=axes, norm=norm),
    )


def test_2d_names(device, rng):
    x = random(rng, (3, 10, 14), np.complex64)
    r = random(rng, (3, 10, 14), np.float32)
    d, dr = hipkit.to_device(x), hipkit.to_device(r)
    close(fft.fft2(d), np.fft.fft2(x))
    close(fft.ifft2(d, s=(12, 6)), np.fft.ifft2(x, s=(12, 6)))
    close(fft.fft2(d, axes=(0, 2)), np.fft.fft2(x, axes=(0, 2)))
    spectrum = np.fft.rfft2(r)
    close(fft.rfft2(dr), spectrum)
    close(
        fft.irfft2(hipkit.to_device(spectrum.astype(np.complex64)), s=(10, 14)),
        np.fft.irfft2(spectrum, s=(10, 14)),
    )


def test_views_are_read_in_place_or_gathered(device, rng):
    """Slices, transposed views and reversed strides give NumPy's answers; the input is
    never written (a C2R input included)."""
    x = random(rng, (12, 40), np.complex128)
    d = hipkit.to_device(x)
    for view, host in [
        (d[:, ::2], x[:, ::2]),
        (d[2:9, 3:30], x[2:9, 3:30]),
        (hipkit.DeviceArray((40, 12), d.dtype, ptr=d.ptr, owner=d, device=d.device, strides=(16, 640)), x.T),
        (d[::-1], x[::-1]),
    ]:
        close(fft.fft(view), np.fft.fft(host))
        close(fft.fftn(view), np.fft.fftn(host))
        close(fft.irfft(view), np.fft.irfft(host))
        close(fft.irfftn(view), np.fft.irfftn(host))
    assert np.array_equal(d.get(), x)


def test_large_batched(device, rng):
    x = random(rng, (64, 4096), np.complex64)
    close(fft.fft(hipkit.to_device(x)), np.fft.fft(x).astype(np.complex64))
    y = random(rng, (1 << 16,), np.complex128)
    close(fft.ifft(hipkit.to_device(y)), np.fft.ifft(y))


def test_helpers(device, rng):
    for n in (1, 8, 9):
        assert np.array_equal(fft.fftfreq(n, 0.1).get(), np.fft.fftfreq(n, 0.1))
        assert np.array_equal(fft.rfftfreq(n, 2.0).get(), np.fft.rfftfreq(n, 2.0))
    x = random(rng, (5, 8, 7), np.complex64)
    d = hipkit.to_device(x)
    for axes in (None, 0, (1, 2), [-1]):
        assert np.array_equal(fft.fftshift(d, axes=axes).get(), np.fft.fftshift(x, axes=axes))
        assert np.array_equal(fft.ifftshift(d, axes=axes).get(), np.fft.ifftshift(x, axes=axes))
    r = random(rng, (9,), np.float64)
    assert np.array_equal(fft.ifftshift(fft.fftshift(hipkit.to_device(r))).get(), r)


def test_stream_and_foreign_tensors(device, rng):
    """Work queued on a stream, in order with copies; a DLPack tensor read in place
    (NumPy on the CPU, torch where installed)."""
    x = random(rng, (8, 256), np.complex64)
    stream = hipkit.Stream()
    d = hipkit.empty(x.shape, np.complex64)
    d.set(x, stream=stream)
    y = fft.fft(d, stream=stream)
    out = y.get(stream=stream)
    stream.synchronize()
    close(out, np.fft.fft(x))
    if device.platform.name == "cpu":
        close(fft.fft(x), np.fft.fft(x))
    torch = pytest.importorskip("torch")
    if device.platform.name == "nvidia" and torch.cuda.is_available():
        t = torch.from_numpy(x).cuda()
        close(fft.fft(t), np.fft.fft(x))


def test_out(device, rng):
    """``out=``: written in place and returned, for transforms over the last axes (the
    plan's own output) and over others (copied there); a wrong one is a ValueError."""
    x = random(rng, (6, 32), np.complex64)
    d = hipkit.to_device(x)
    out = hipkit.empty((6, 32), np.complex64)
    assert fft.fft(d, out=out) is out
    close(out, np.fft.fft(x))
    assert fft.fft(d, axis=0, out=out) is out
    close(out, np.fft.fft(x, axis=0))
    r = hipkit.empty((6, 17), np.complex64)
    fft.rfft(hipkit.to_device(x.real.copy()), out=r)
    close(r, np.fft.rfft(x.real))
    fft.fft(d, out=d)  # in place
    close(d, np.fft.fft(x))
    with pytest.raises(ValueError, match="out"):
        fft.fft(d, out=hipkit.empty((6, 31), np.complex64))
    with pytest.raises(ValueError, match="out"):
        fft.fft(d, out=hipkit.empty((6, 32), np.complex128))


@pytest.mark.parametrize("target", ["sm_90", "gfx90a"])
def test_kernels_compile_for_gpus(target):
    """hipkit.fft's own kernels (gather and scale) compile for NVIDIA and AMD targets
    without a device (the GPU runs use the same source)."""
    from hipkit.fft import _kernels

    names = [f"hk_gather<{_kernels._C_NAMES[d]}, {_kernels._C_NAMES[s]}>" for d, s in _kernels._GATHERS]
    try:
        module = hipkit.compile(
            _kernels._SOURCE,
            name="hipkit_fft.hip",
            name_expressions=[*names, "hk_scale<float>"],
            target=target,
        )
    except hipkit.CompileError as exc:
        if "not found" in str(exc) or "not installed" in str(exc):
            pytest.skip(str(exc))
        raise
    assert module is not None

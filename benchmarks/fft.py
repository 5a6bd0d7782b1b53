"""hipkit's FFTs beside their peers, in one run (issue 18, its FFT benchmark table).

On the CPU platform (the default), beside scipy.fft with the same worker count (the
CPU device's cores): hipkit.fft (which runs on scipy.fft's pocketfft) on batched
2048 × 4096 c2c complex64, 2^22 c2c, 2048² 2-D, batched rfft, each into ``out=`` and
into a new result, and a plan-cache hit (8 × 4096 points, into ``out=``); then the
CPU programs' engine (libhipkit_cpu_fft.so, through its hipFFT C API) on the same
shapes.  On NVIDIA (``--platform nvidia``), beside CuPy's
cuFFT on the same GPU: batched 16384 × 4096 c2c complex64, 2^24 c2c, 8192² 2-D, and a
plan-cache hit (8 × 4096 points, host µs per call).

Every case is checked against its peer's answer before it is timed.  GPU times are
medians of CUDA-event timings of batches; CPU times medians of wall-clock timings;
hipkit and the peer alternate.  Each line prints both and the ratio peer time / hipkit
time (above 1: hipkit is faster); overhead lines print µs per call and hipkit's / the
peer's (below 1: hipkit is cheaper).

    python benchmarks/fft.py [--platform cpu|nvidia] [--repeat 9]
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time
from collections.abc import Callable

import numpy as np

import hipkit
from hipkit import fft


def alternate(ours: Callable[[], float], peer: Callable[[], float], repeat: int) -> tuple[float, float]:
    """Median of each timer (seconds), taking turns so both see the same machine."""
    ours(), peer()  # warm-up
    a, b = [], []
    for _ in range(repeat):
        a.append(ours())
        b.append(peer())
    return statistics.median(a), statistics.median(b)


def wall(fn: Callable[[], object], count: int = 1) -> Callable[[], float]:
    def timed() -> float:
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        return (time.perf_counter() - t0) / count

    return timed


def report(case: str, ours: float, peer: float, peer_name: str) -> None:
    print(
        f"{case:<40} hipkit {ours * 1e3:9.3f} ms   {peer_name} {peer * 1e3:9.3f} ms   ratio {peer / ours:.3f}"
    )


def overhead(case: str, ours: float, peer: float, peer_name: str) -> None:
    us, peer_us = ours * 1e6, peer * 1e6
    print(f"{case:<40} hipkit {us:8.2f} us   {peer_name} {peer_us:8.2f} us   ratio {us / peer_us:.3f}")


def check(got: np.ndarray, want: np.ndarray, case: str) -> None:
    err = float(np.abs(got - want).max())
    scale = float(np.abs(want).max())
    assert err <= 1e-4 * scale, f"{case}: hipkit differs from its peer by {err} (scale {scale})"


CPU_CASES = [  # (case, shape, dtype, axes, real)
    ("batched 2048 x 4096 c2c complex64", (2048, 4096), np.complex64, (-1,), False),
    ("2^22 c2c complex64", (1 << 22,), np.complex64, (-1,), False),
    ("2048^2 2-D c2c complex64", (2048, 2048), np.complex64, (-2, -1), False),
    ("batched 1024 x 4096 rfft float64", (1024, 4096), np.float64, (-1,), True),
]


def cpu(repeat: int) -> None:
    import scipy
    import scipy.fft

    device = hipkit.get_device()
    workers = device.properties.multiProcessorCount
    print(f"# CPU: {hipkit.hipfft.provider()}; scipy {scipy.__version__}, workers={workers}")
    rng = np.random.default_rng(0)
    engine_cases = []
    for case, shape, dtype, axes, real in CPU_CASES:
        x = rng.standard_normal(shape)
        if not real:
            x = x + 1j * rng.standard_normal(shape)
        x = x.astype(dtype)
        d = hipkit.to_device(x)
        half = (*shape[:-1], shape[-1] // 2 + 1)
        out = hipkit.empty(half if real else shape, np.complex128 if real else np.complex64)

        def ours(d=d, axes=axes, real=real) -> object:
            return fft.rfftn(d, axes=axes) if real else fft.fftn(d, axes=axes)

        def ours_out(d=d, axes=axes, real=real, out=out) -> object:
            return fft.rfftn(d, axes=axes, out=out) if real else fft.fftn(d, axes=axes, out=out)

        def peer(x=x, axes=axes, real=real) -> object:
            return (
                scipy.fft.rfftn(x, axes=axes, workers=workers)
                if real
                else scipy.fft.fftn(x, axes=axes, workers=workers)
            )

        check(ours().get(), peer(), case)
        t, tp = alternate(wall(ours_out), wall(peer), repeat)
        report(f"{case}, out=", t, tp, "scipy.fft")
        t, tp = alternate(wall(ours), wall(peer), repeat)
        report(f"{case}, new result", t, tp, "scipy.fft")
        engine_cases.append((case, x, axes, real, tp))

    small = hipkit.to_device(rng.standard_normal((8, 4096)).astype(np.complex64))
    result = hipkit.empty((8, 4096), np.complex64)
    host = small.get()
    fft.fft(small, out=result)
    t, tp = alternate(
        wall(lambda: fft.fft(small, out=result), 200),
        wall(lambda: scipy.fft.fft(host, workers=workers), 200),
        repeat,
    )
    overhead("plan-cache hit, 8 x 4096 c2c", t, tp, "scipy.fft")

    print("# the CPU programs' engine (libhipkit_cpu_fft.so) beside scipy.fft")
    from hipkit.platforms.cpu import fft_engine

    lib = fft_engine.library()
    for case, x, axes, real, _ in engine_cases:
        n = x.shape[len(x.shape) - len(axes) :]
        batch = int(np.prod(x.shape[: len(x.shape) - len(axes)]))
        kind = 0x6A if real else 0x29
        slot = ctypes.c_uint64(0)
        dims = (ctypes.c_int * len(n))(*n)
        assert (
            lib.function("hipfftPlanMany")(
                ctypes.addressof(slot), len(n), ctypes.addressof(dims), 0, 1, 0, 0, 1, 0, kind, batch
            )
            == 0
        )
        want = scipy.fft.rfftn(x, axes=axes) if real else scipy.fft.fftn(x, axes=axes)
        out = np.empty(want.shape, want.dtype)
        name = "hipfftExecD2Z" if real else "hipfftExecC2C"
        args = (slot.value, x.ctypes.data, out.ctypes.data) + (() if real else (-1,))

        def engine(name=name, args=args) -> None:
            lib.function(name)(*args)
            device.synchronize()

        engine()
        check(out, want, case)
        t, tp = alternate(
            wall(engine),
            wall(
                lambda x=x, axes=axes, real=real: (
                    scipy.fft.rfftn(x, axes=axes, workers=workers)
                    if real
                    else scipy.fft.fftn(x, axes=axes, workers=workers)
                )
            ),
            repeat,
        )
        report(f"engine: {case}", t, tp, "scipy.fft")
        lib.function("hipfftDestroy")(slot.value)


def nvidia(repeat: int) -> None:
    import cupy

    device = hipkit.Device(0, "nvidia")
    print(f"# NVIDIA: {hipkit.hipfft.provider(device)}; cupy {cupy.__version__}")
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()

    def gpu(fn: Callable[[], object], batch: int) -> Callable[[], float]:
        def timed() -> float:
            start.record()
            for _ in range(batch):
                fn()
            stop.record()
            stop.synchronize()
            return cupy.cuda.get_elapsed_time(start, stop) / 1e3 / batch

        return timed

    def case(name: str, shape: tuple[int, ...], axes: tuple[int, ...], batch: int) -> None:
        x = (
            cupy.random.standard_normal(shape, dtype=cupy.float32)
            + 1j * cupy.random.standard_normal(shape, dtype=cupy.float32)
        ).astype(cupy.complex64)
        out = cupy.empty_like(x)
        hx, hout = hipkit.from_dlpack(x, device=device), hipkit.from_dlpack(out, device=device)

        def ours() -> object:
            return fft.fftn(hx, axes=axes, out=hout)

        def peer() -> object:
            return cupy.fft.fftn(x, axes=axes)

        ours()
        want = peer()
        cupy.cuda.Device().synchronize()
        check(cupy.asnumpy(out), cupy.asnumpy(want), name)
        t, tp = alternate(gpu(ours, batch), gpu(peer, batch), repeat)
        report(name, t, tp, "cupy")

    with device:
        case("batched 16384 x 4096 c2c complex64", (16384, 4096), (-1,), 10)
        case("2^24 c2c complex64", (1 << 24,), (-1,), 10)
        case("8192^2 2-D c2c complex64", (8192, 8192), (-2, -1), 5)
        x = cupy.random.standard_normal((8, 4096), dtype=cupy.float32).astype(cupy.complex64)
        hx = hipkit.from_dlpack(x, device=device)
        hout = hipkit.from_dlpack(cupy.empty_like(x), device=device)
        fft.fft(hx, out=hout)
        cupy.fft.fft(x)
        count = 2000

        def host_loop(fn: Callable[[], object]) -> float:
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            for _ in range(count):
                fn()
            t = (time.perf_counter() - t0) / count
            cupy.cuda.Device().synchronize()
            return t

        t, tp = alternate(
            lambda: host_loop(lambda: fft.fft(hx, out=hout)),
            lambda: host_loop(lambda: cupy.fft.fft(x)),
            repeat,
        )
        overhead("plan-cache hit, 8 x 4096 c2c (host)", t, tp, "cupy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", choices=["cpu", "nvidia"], default="cpu")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    if args.platform == "nvidia":
        nvidia(args.repeat)
    else:
        cpu(args.repeat)


if __name__ == "__main__":
    main()

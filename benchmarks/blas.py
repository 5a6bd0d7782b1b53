"""hipkit's BLAS beside its peers, in one run (issue "BLAS", its benchmark table).

On the CPU platform (the default), beside NumPy on the same machine: sgemm and dgemm
2048³, and a 64³ sgemm's call overhead.  On NVIDIA (``--platform nvidia``), beside
PyTorch and CuPy on the same GPU: sgemm 8192³ with TF32 off, bf16 gemm 8192³, bf16
strided-batched 512 × 1024³, sgemv 16384², and a 64³ sgemm's call overhead from Python.

Every case is checked against its peer's answer before it is timed.  GPU times are
medians of CUDA-event timings of batches, hipkit and the peer alternating (METHOD.md:
correctness first, warm up, median of many); CPU times are medians of wall-clock
timings, the two alternating.  Each line prints hipkit's rate, the peer's and the
ratio (hipkit / peer: above 1 is faster); overhead lines print microseconds per call
and the ratio of hipkit's to the peer's (below 1 is cheaper).

    python benchmarks/blas.py [--platform cpu|nvidia] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import hipkit
from hipkit import blas


def median_wall(fn: Callable[[], object], count: int, repeat: int) -> float:
    """Median seconds per call of ``fn`` over ``count`` back-to-back calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        times.append((time.perf_counter() - t0) / count)
    return statistics.median(times)


def alternate(ours: Callable[[], float], peer: Callable[[], float], repeat: int) -> tuple[float, float]:
    """Median of each timer (seconds), taking turns so both see the same machine."""
    ours(), peer()  # warm-up
    a, b = [], []
    for _ in range(repeat):
        a.append(ours())
        b.append(peer())
    return statistics.median(a), statistics.median(b)


def report(case: str, unit: str, ours: float, peer: float, peer_name: str) -> None:
    print(
        f"{case:<34} hipkit {ours:10.2f} {unit}   {peer_name} {peer:10.2f} {unit}   ratio {ours / peer:.3f}"
    )


def overhead(case: str, ours: float, peer: float, peer_name: str) -> None:
    us, peer_us = ours * 1e6, peer * 1e6
    print(f"{case:<34} hipkit {us:8.2f} us   {peer_name} {peer_us:8.2f} us   ratio {us / peer_us:.3f}")


def cpu(repeat: int) -> None:
    device = hipkit.Device(0, "cpu")
    rng = np.random.default_rng(0)
    print(f"# CPU: {blas.provider(device)}")
    for dtype, name in ((np.float32, "sgemm"), (np.float64, "dgemm")):
        n = 2048
        a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
        da, db = hipkit.to_device(a, device=device), hipkit.to_device(b, device=device)
        out = hipkit.empty((n, n), dtype, device=device)
        blas.matmul(da, db, out=out)
        device.synchronize()
        tol = 1e-3 if dtype == np.float32 else 1e-10
        np.testing.assert_allclose(out.get(), a @ b, rtol=tol, atol=tol * n)
        host_out = np.empty((n, n), dtype)

        def ours(da=da, db=db, out=out) -> float:
            t0 = time.perf_counter()
            blas.matmul(da, db, out=out)
            device.synchronize()
            return time.perf_counter() - t0

        def peer(a=a, b=b, host_out=host_out) -> float:
            t0 = time.perf_counter()
            np.matmul(a, b, out=host_out)
            return time.perf_counter() - t0

        t, tp = alternate(ours, peer, repeat)
        flop = 2.0 * n**3
        report(f"{name} {n}^3", "GFLOP/s", flop / t / 1e9, flop / tp / 1e9, "numpy")

    n = 64
    a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    da, db = hipkit.to_device(a, device=device), hipkit.to_device(b, device=device)
    out, host_out = hipkit.empty((n, n), np.float32, device=device), np.empty((n, n), np.float32)

    def small() -> None:
        blas.matmul(da, db, out=out)
        device.synchronize()

    small()
    np.testing.assert_allclose(out.get(), a @ b, rtol=1e-4, atol=1e-3)
    count = 2000
    t, tp = alternate(
        lambda: median_wall(small, count, 1),
        lambda: median_wall(lambda: np.matmul(a, b, out=host_out), count, 1),
        repeat,
    )
    overhead("sgemm 64^3 call (with sync)", t, tp, "numpy")


def nvidia(repeat: int) -> None:
    import cupy
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = hipkit.Device(0, "nvidia")
    print(f"# NVIDIA: {blas.provider(device)}; torch {torch.__version__}, cupy {cupy.__version__}")
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def gpu_seconds(fn: Callable[[], object], batch: int) -> Callable[[], float]:
        def timed() -> float:
            start.record()
            for _ in range(batch):
                fn()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) / 1e3 / batch

        return timed

    def gemm_case(case: str, shape_a, shape_b, dtype, batch: int, rtol: float) -> None:
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(shape_a, device="cuda", dtype=dtype, generator=g)
        b = torch.randn(shape_b, device="cuda", dtype=dtype, generator=g)
        ours_out, peer_out = torch.empty_like(a @ b), torch.empty_like(a @ b)
        blas.matmul(a, b, out=ours_out)
        torch.matmul(a, b, out=peer_out)
        torch.cuda.synchronize()
        err = (ours_out.float() - peer_out.float()).abs().max().item()
        scale = peer_out.float().abs().max().item()
        assert err <= rtol * scale, f"{case}: hipkit differs from torch by {err} (scale {scale})"
        t, tp = alternate(
            gpu_seconds(lambda: blas.matmul(a, b, out=ours_out), batch),
            gpu_seconds(lambda: torch.matmul(a, b, out=peer_out), batch),
            repeat,
        )
        flop = 2.0 * np.prod(peer_out.shape) * shape_a[-1]
        report(case, "TFLOP/s", flop / t / 1e12, flop / tp / 1e12, "torch")

    gemm_case("sgemm 8192^3 (TF32 off)", (8192, 8192), (8192, 8192), torch.float32, 5, 1e-4)
    gemm_case("bf16 gemm 8192^3", (8192, 8192), (8192, 8192), torch.bfloat16, 10, 2e-2)
    gemm_case("bf16 batched 512 x 1024^3", (512, 1024, 1024), (512, 1024, 1024), torch.bfloat16, 5, 2e-2)

    n = 16384
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn((n, n), device="cuda", generator=g)
    x = torch.randn((n,), device="cuda", generator=g)
    y, y_peer = torch.empty(n, device="cuda"), torch.empty(n, device="cuda")
    blas.gemv(a, x, out=y)
    torch.mv(a, x, out=y_peer)
    torch.testing.assert_close(y, y_peer, rtol=1e-4, atol=1e-2)
    t, tp = alternate(
        gpu_seconds(lambda: blas.gemv(a, x, out=y), 50),
        gpu_seconds(lambda: torch.mv(a, x, out=y_peer), 50),
        repeat,
    )
    moved = 4.0 * (n * n + 2 * n)
    report("sgemv 16384^2", "TB/s", moved / t / 1e12, moved / tp / 1e12, "torch")

    m = 64
    ca, cb = (
        cupy.random.standard_normal((m, m), dtype=cupy.float32),
        cupy.random.standard_normal((m, m), dtype=cupy.float32),
    )
    cc_ours, cc_peer = cupy.empty((m, m), cupy.float32), cupy.empty((m, m), cupy.float32)
    ha, hb, hc = (hipkit.from_dlpack(t, device=device) for t in (ca, cb, cc_ours))
    blas.matmul(ha, hb, out=hc)
    cupy.matmul(ca, cb, out=cc_peer)
    cupy.testing.assert_allclose(cc_ours, cc_peer, rtol=1e-4, atol=1e-3)
    count = 5000

    def host_loop(fn: Callable[[], object]) -> float:
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        t = (time.perf_counter() - t0) / count
        cupy.cuda.Device().synchronize()
        return t

    t, tp = alternate(
        lambda: host_loop(lambda: blas.matmul(ha, hb, out=hc)),
        lambda: host_loop(lambda: cupy.matmul(ca, cb, out=cc_peer)),
        repeat,
    )
    overhead("sgemm 64^3 call from Python", t, tp, "cupy")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="cpu", choices=("cpu", "nvidia"))
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    (cpu if args.platform == "cpu" else nvidia)(args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""hipkit's NVIDIA platform beside CuPy (and cuda.core), in one run.

Measures what the NVIDIA issue names: empty-kernel launch overhead from
Python; the seed's vector add at 2^28 floats; module load from the on-disk
cache; pinned host<->device copies; and the five kernels of the CPU benchmark
(benchmarks/cpu_kernels.py), each compiled by hipkit from its HIP source and
by CuPy's RawKernel from the same text (with CUDA's spelling of the two HIP
names it uses).  Results are checked against NumPy before timing; GPU times
are medians of CUDA-event timings of batches, hipkit and CuPy alternating.

    python benchmarks/nvidia_kernels.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import cupy
from cpu_kernels import HIP_SOURCE

import hipkit

# The same kernels for CuPy: HIP's mask-free shuffle and warpSize (a constant in HIP).
CUDA_SOURCE = (
    "#define warpSize 32\n#define __shfl_down(v, d) __shfl_down_sync(0xffffffffu, v, d)\n"
    + HIP_SOURCE.replace("#include <hip/hip_runtime.h>", "")
)
NAMES = ("vector_add", "tree_reduce", "transpose", "warp_reduce", "histogram", "empty")


def gpu_ms(launch, batch: int, events) -> float:
    """Milliseconds per call of ``launch`` over a batch, by CUDA events on the null stream."""
    start, stop = events
    start.record()
    for _ in range(batch):
        launch()
    stop.record()
    stop.synchronize()
    return cupy.cuda.get_elapsed_time(start, stop) / batch


def alternate(hipkit_fn, cupy_fn, repeat: int, batch: int) -> tuple[float, float]:
    """Median ms per call of each, batches alternating so both see the same clocks."""
    events = (cupy.cuda.Event(), cupy.cuda.Event())
    for fn in (hipkit_fn, cupy_fn):
        gpu_ms(fn, batch, events)  # warm-up
    hk, cp = [], []
    for _ in range(repeat):
        hk.append(gpu_ms(hipkit_fn, batch, events))
        cp.append(gpu_ms(cupy_fn, batch, events))
    return statistics.median(hk), statistics.median(cp)


def host_us(launchers: dict, count: int, repeat: int) -> dict[str, float]:
    """Median host microseconds per call of each launcher over ``count``
    back-to-back calls; the launchers take turns, so all see the same machine."""
    times: dict[str, list[float]] = {name: [] for name in launchers}
    for _ in range(repeat):
        for name, fn in launchers.items():
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            for _ in range(count):
                fn()
            times[name].append((time.perf_counter() - t0) / count)
            cupy.cuda.Device().synchronize()
    return {name: statistics.median(t) * 1e6 for name, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    device = hipkit.Device(0, platform="nvidia")
    hipkit.set_device(device)
    mod = hipkit.compile(HIP_SOURCE, name="bench.hip")
    hk = {name: mod.get_function(name) for name in NAMES}
    raw = cupy.RawModule(code=CUDA_SOURCE, options=("-std=c++17",))
    cp = {name: raw.get_function(name) for name in NAMES}
    rows: list[tuple[str, float, float, str]] = []  # (what, hipkit, cupy, unit)

    # Launch overhead: back-to-back launches of an empty kernel, host time per launch.
    hk_empty, cp_empty = hk["empty"], cp["empty"]
    launchers = {"hipkit": lambda: hk_empty[1, 1](), "cupy": lambda: cp_empty((1,), (1,), ())}
    try:
        from cuda.core import Device as CoreDevice
        from cuda.core import LaunchConfig, Program, ProgramOptions
        from cuda.core import launch as core_launch

        core = CoreDevice(0)
        core.set_current()
        kernel = (
            Program('extern "C" __global__ void empty() {}', "c++", ProgramOptions(arch="sm_90"))
            .compile("cubin")
            .get_kernel("empty")
        )
        config = LaunchConfig(grid=1, block=1)
        core_stream = core.default_stream
        launchers["cuda.core"] = lambda: core_launch(core_stream, config, kernel)
    except Exception as exc:  # cuda.core's version on the machine may differ
        print(f"(cuda.core launch not measured: {type(exc).__name__}: {exc})")
    launch = host_us(launchers, 20000, 15)
    rows.append(("empty kernel launch (host)", launch["hipkit"], launch["cupy"], "us"))
    # The same with arguments to convert: vector_add on no elements (each library's own idiom).
    h1, c1, zero = hipkit.empty(1), cupy.empty(1, cupy.float32), np.int32(0)
    with_args = host_us(
        {
            "hipkit": lambda: hk["vector_add"][1, 1](h1, h1, h1, 0),
            "cupy": lambda: cp["vector_add"]((1,), (1,), (c1, c1, c1, zero)),
        },
        20000,
        15,
    )
    rows.append(("4-argument launch (host)", with_args["hipkit"], with_args["cupy"], "us"))

    # The seed's vector add at 2^28 floats.
    n = 1 << 28
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    ha, hb, hc = hipkit.to_device(a), hipkit.to_device(b), hipkit.empty(n)
    ca, cb, cc = cupy.asarray(a), cupy.asarray(b), cupy.empty(n, cupy.float32)
    grid = (n + 255) // 256
    hk["vector_add"][grid, 256](ha, hb, hc, n)
    cp["vector_add"]((grid,), (256,), (ca, cb, cc, np.int32(n)))
    np.testing.assert_array_equal(hc.get(), a + b)
    np.testing.assert_array_equal(cupy.asnumpy(cc), a + b)
    t_hk, t_cp = alternate(
        lambda: hk["vector_add"][grid, 256](ha, hb, hc, n),
        lambda: cp["vector_add"]((grid,), (256,), (ca, cb, cc, np.int32(n))),
        args.repeat,
        10,
    )
    tb = 3 * n * 4 / 1e12
    rows.append(("vector add 2^28 floats (TB/s)", tb / (t_hk / 1e3), tb / (t_cp / 1e3), "TB/s"))

    # Device copy ceiling.
    x = cupy.empty(1 << 30, cupy.uint8)
    y = cupy.empty_like(x)
    events = (cupy.cuda.Event(), cupy.cuda.Event())
    gpu_ms(lambda: y.__setitem__(Ellipsis, x), 3, events)
    copy_ms = statistics.median(gpu_ms(lambda: y.__setitem__(Ellipsis, x), 10, events) for _ in range(10))
    ceiling = 2 * (1 << 30) / 1e12 / (copy_ms / 1e3)

    # Module load from the on-disk cache (a new Module each time: cache read + cuModuleLoadData).
    loads = []
    for _ in range(50):
        t0 = time.perf_counter()
        hipkit.compile(HIP_SOURCE, name="bench.hip")
        loads.append(time.perf_counter() - t0)
    load_ms = statistics.median(loads) * 1e3

    # Pinned host <-> device copies, 1 GiB.
    size = 1 << 28
    pinned = hipkit.empty_pinned(size, np.float32)
    pinned[...] = 1.0
    dev = hipkit.empty(size)
    cp_pinned = cupy.cuda.alloc_pinned_memory(size * 4)
    cp_host = np.frombuffer(cp_pinned, np.float32, size)
    cp_host[...] = 1.0
    cp_dev = cupy.empty(size, cupy.float32)
    gb = size * 4 / 1e9
    for direction, hk_fn, cp_fn in (
        ("host->device", lambda: dev.set(pinned), lambda: cp_dev.set(cp_host)),
        ("device->host", lambda: dev.get(out=pinned), lambda: cp_dev.get(out=cp_host)),
    ):
        hk_fn(), cp_fn()
        hk_t, cp_t = [], []
        for _ in range(max(args.repeat // 3, 5)):
            t0 = time.perf_counter()
            hk_fn()
            hk_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            cp_fn()
            cupy.cuda.Device().synchronize()
            cp_t.append(time.perf_counter() - t0)
        rows.append(
            (
                f"pinned copy {direction} 1 GiB (GB/s)",
                gb / statistics.median(hk_t),
                gb / statistics.median(cp_t),
                "GB/s",
            )
        )

    # The five CPU-benchmark kernels.
    n = 1 << 24
    xs = rng.random(n, dtype=np.float32)
    hx, cx = hipkit.to_device(xs), cupy.asarray(xs)
    blocks = n // 256
    hpart, cpart = hipkit.empty(blocks), cupy.empty(blocks, cupy.float32)
    expect = xs.reshape(blocks, 256).sum(axis=1, dtype=np.float64)
    hy, cy = hipkit.empty(n), cupy.empty(n, cupy.float32)
    side = 4096
    hm, cm = hx.reshape(side, side), cx.reshape(side, side)
    hout, cout = hipkit.empty((side, side)), cupy.empty((side, side), cupy.float32)
    data = rng.integers(0, 256, n, dtype=np.uint8)
    hdata, cdata = hipkit.to_device(data), cupy.asarray(data)
    hbins, cbins = hipkit.zeros(256, np.uint32), cupy.zeros(256, cupy.uint32)
    hist_grid = device.properties.multiProcessorCount * 32
    n32 = np.int32(n)
    cases = {
        "vector add 2^24": (
            lambda: hk["vector_add"][blocks, 256](hx, hx, hy, n),
            lambda: cp["vector_add"]((blocks,), (256,), (cx, cx, cy, n32)),
            lambda: (hy.get(), cupy.asnumpy(cy), xs + xs),
        ),
        "tree reduction": (
            lambda: hk["tree_reduce"][blocks, 256](hx, hpart, n),
            lambda: cp["tree_reduce"]((blocks,), (256,), (cx, cpart, n32)),
            lambda: (hpart.get(), cupy.asnumpy(cpart), expect),
        ),
        "4096^2 transpose": (
            lambda: hk["transpose"][(side // 32, side // 32), (32, 8)](hout, hm, side, side),
            lambda: cp["transpose"](
                (side // 32, side // 32), (32, 8), (cout, cm, np.int32(side), np.int32(side))
            ),
            lambda: (hout.get(), cupy.asnumpy(cout), xs.reshape(side, side).T),
        ),
        "warp-shuffle reduction": (
            lambda: hk["warp_reduce"][blocks, 256](hx, hpart, n),
            lambda: cp["warp_reduce"]((blocks,), (256,), (cx, cpart, n32)),
            lambda: (hpart.get(), cupy.asnumpy(cpart), expect),
        ),
        "histogram (atomics)": (
            lambda: (hbins.fill(0), hk["histogram"][hist_grid, 256](hdata, hbins, n)),
            lambda: (cbins.fill(0), cp["histogram"]((hist_grid,), (256,), (cdata, cbins, n32))),
            lambda: (hbins.get(), cupy.asnumpy(cbins), np.bincount(data, minlength=256)),
        ),
    }
    for label, (hk_fn, cp_fn, results) in cases.items():
        hk_fn(), cp_fn()
        got_hk, got_cp, want = results()
        np.testing.assert_allclose(got_hk, want, rtol=1e-5)
        np.testing.assert_allclose(got_cp, want, rtol=1e-5)
        t_hk, t_cp = alternate(hk_fn, cp_fn, args.repeat, 20)
        rows.append((label, t_hk * 1e3, t_cp * 1e3, "us"))

    print(f"hipkit NVIDIA platform vs CuPy {cupy.__version__} -- {device.name}")
    print(f"device copy ceiling: {ceiling:.2f} TB/s (read + write)")
    print(f"module load from the on-disk cache: {load_ms:.3f} ms (median of 50)")
    print("launch overhead, us: " + ", ".join(f"{k} {v:.2f}" for k, v in launch.items()))
    print(f"{'benchmark':<40} {'hipkit':>10} {'CuPy':>10} {'hipkit/CuPy speed':>18}")
    for label, h, c, unit in rows:
        faster_is_higher = unit in ("TB/s", "GB/s")
        speed = h / c if faster_is_higher else c / h
        print(f"{label:<40} {h:>10.3f} {c:>10.3f} {speed:>17.3f}x  ({unit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

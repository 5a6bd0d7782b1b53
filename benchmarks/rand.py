"""hipkit's random numbers beside their peers, in one run (issue 18, its benchmark table).

On the CPU platform (the default), beside NumPy's Philox Generator on the same machine
(``numpy.random.Generator(numpy.random.Philox(seed))``, one thread, as NumPy runs):
uniform and standard normal float32 and float64, 2^24 numbers each, through
``hipkit.random`` (hipkit's kernels, the reproducibility rule) and through
``hipkit.hiprand`` (the CPU's hipRAND provider, the same rule).  On NVIDIA
(``--platform nvidia``), uniform float32 2^28 numbers beside ``torch.rand`` (Philox) and
cuRAND (hipkit.hiprand's provider on NVIDIA, XORWOW and Philox).

Every case is timed into a preallocated output, hipkit and the peer alternating;
medians of wall-clock timings of batches, each batch waited for.  Each line prints
hipkit's rate (Gsamples/s), the peer's and the ratio (hipkit / peer: above 1 is faster).

    python benchmarks/rand.py [--platform cpu|nvidia] [--repeat 9] [--log2n 24]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import hipkit
import hipkit.random
from hipkit import hiprand


def seconds(fn: Callable[[], object], wait: Callable[[], object], count: int) -> float:
    """Seconds per call of ``fn`` over ``count`` calls, waited for at the end."""
    t0 = time.perf_counter()
    for _ in range(count):
        fn()
    wait()
    return (time.perf_counter() - t0) / count


def compare(
    case: str, n: int, ours: Callable[[], float], peers: dict[str, Callable[[], float]], repeat: int
) -> None:
    timers = {"hipkit": ours, **peers}
    for timer in timers.values():
        timer()  # warm-up: compiles, first touches
    samples: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(repeat):
        for name, timer in timers.items():
            samples[name].append(timer())
    rates = {name: n / statistics.median(times) / 1e9 for name, times in samples.items()}
    best_peer = max((name for name in rates if name != "hipkit"), key=rates.__getitem__)
    peers_text = "   ".join(f"{name} {rates[name]:7.3f}" for name in peers)
    print(
        f"{case:<30} hipkit {rates['hipkit']:7.3f} Gsamples/s   {peers_text}   "
        f"ratio {rates['hipkit'] / rates[best_peer]:.3f} (vs {best_peer})"
    )


def cpu(repeat: int, log2n: int) -> None:
    n = 1 << log2n
    rng = hipkit.random.default_rng(2026)
    peer = np.random.Generator(np.random.Philox(2026))
    sync = hipkit.synchronize
    g = hiprand.hiprandCreateGenerator(hiprand.HIPRAND_RNG_PSEUDO_PHILOX4_32_10)
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        out = hipkit.empty(n, dtype)
        host = np.empty(n, dtype)
        generate = (
            hiprand.hiprandGenerateUniform if dtype == np.float32 else hiprand.hiprandGenerateUniformDouble
        )
        compare(
            f"uniform {name} 2^{log2n}",
            n,
            lambda out=out, dtype=dtype: seconds(lambda: rng.random(out=out, dtype=dtype), sync, 3),
            {
                "numpy": lambda host=host, dtype=dtype: seconds(
                    lambda: peer.random(dtype=dtype, out=host), sync, 3
                ),
                "hipRAND": lambda out=out, generate=generate: seconds(lambda: generate(g, out, n), sync, 3),
            },
            repeat,
        )
        normal = hiprand.hiprandGenerateNormal if dtype == np.float32 else hiprand.hiprandGenerateNormalDouble
        compare(
            f"standard_normal {name} 2^{log2n}",
            n,
            lambda out=out, dtype=dtype: seconds(lambda: rng.standard_normal(out=out, dtype=dtype), sync, 3),
            {
                "numpy": lambda host=host, dtype=dtype: seconds(
                    lambda: peer.standard_normal(dtype=dtype, out=host), sync, 3
                ),
                "hipRAND": lambda out=out, normal=normal: seconds(
                    lambda: normal(g, out, n, 0.0, 1.0), sync, 3
                ),
            },
            repeat,
        )
    hiprand.hiprandDestroyGenerator(g)


def nvidia(repeat: int, log2n: int) -> None:
    import torch

    n = 1 << log2n
    rng = hipkit.random.default_rng(2026)
    out = hipkit.empty(n, np.float32)
    t = torch.empty(n, dtype=torch.float32, device="cuda")
    torch.manual_seed(2026)
    generators = {}
    for name, kind in (
        ("cuRAND XORWOW", "HIPRAND_RNG_PSEUDO_XORWOW"),
        ("cuRAND Philox", "HIPRAND_RNG_PSEUDO_PHILOX4_32_10"),
    ):
        generators[name] = hiprand.hiprandCreateGenerator(getattr(hiprand, kind))

    def wait() -> None:
        hipkit.synchronize()
        torch.cuda.synchronize()

    peers = {"torch": lambda: seconds(lambda: torch.rand(n, out=t), wait, 20)}
    for name, g in generators.items():
        peers[name] = lambda g=g: seconds(lambda: hiprand.hiprandGenerateUniform(g, out, n), wait, 20)
    compare(
        f"uniform float32 2^{log2n}",
        n,
        lambda: seconds(lambda: rng.random(out=out, dtype=np.float32), wait, 20),
        peers,
        repeat,
    )
    for g in generators.values():
        hiprand.hiprandDestroyGenerator(g)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--platform", default="cpu", choices=("cpu", "nvidia"))
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--log2n", type=int, default=None, help="2^N numbers (CPU 24, NVIDIA 28)")
    args = parser.parse_args()
    with hipkit.Device(0, platform=args.platform) as device:
        print(f"{device!r}; hipRAND: {hiprand.provider(device)}; NumPy {np.__version__}")
        if args.platform == "cpu":
            cpu(args.repeat, args.log2n or 24)
        else:
            nvidia(args.repeat, args.log2n or 28)


if __name__ == "__main__":
    main()

"""hipkit's random numbers beside their peers, in one run (issue 18, its benchmark table).

On the CPU platform (the default), beside NumPy's Philox Generator on the same machine
(``numpy.random.Generator(numpy.random.Philox(seed))``, one thread, as NumPy runs):
uniform and standard normal float32 and float64, 2^24 numbers each, through
``hipkit.random`` (hipkit's kernels, the reproducibility rule) and through
``hipkit.hiprand`` (the CPU's hipRAND provider, the same rule).  On NVIDIA
(``--platform nvidia``), uniform float32 2^28 numbers beside ``torch.rand`` (Philox) and
cuRAND (hipkit.hiprand's provider on NVIDIA, XORWOW and Philox).

Every case is timed into a preallocated output, hipkit and the peers taking turns;
medians of wall-clock timings of batches, each batch waited for.  Each line prints a
hipkit path's rate (Gsamples/s), the peers' and the ratio to the fastest peer (above 1 is
faster).  (On NVIDIA the cuRAND lines are hipkit.hiprand's provider there, cuRAND itself.)

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
    case: str,
    n: int,
    ours: dict[str, Callable[[], float]],
    peers: dict[str, Callable[[], float]],
    repeat: int,
) -> None:
    """Median rates of each of ``ours`` and ``peers``, timed in turns; each of ours is
    printed with its ratio to the fastest peer."""
    timers = {**ours, **peers}
    for timer in timers.values():
        timer()  # warm-up: compiles, first touches
    samples: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(repeat):
        for name, timer in timers.items():
            samples[name].append(timer())
    rates = {name: n / statistics.median(times) / 1e9 for name, times in samples.items()}
    best = max(peers, key=rates.__getitem__)
    peers_text = "   ".join(f"{name} {rates[name]:7.3f}" for name in peers)
    for name in ours:
        ratio = rates[name] / rates[best]
        print(f"{case:<30} {name:<14} {rates[name]:7.3f} Gsamples/s   {peers_text}   ratio {ratio:.3f}")


def _cpu_timers(ours, theirs, generate, out, host, dtype, n):
    """(hipkit's timers, NumPy's) of one case: hipkit.random's method ``ours``, the CPU
    hipRAND's ``generate(out, n)``, NumPy's method ``theirs``."""
    sync = hipkit.synchronize
    return (
        {
            "hipkit.random": lambda: seconds(lambda: ours(out=out, dtype=dtype), sync, 3),
            "hipkit.hiprand": lambda: seconds(lambda: generate(out, n), sync, 3),
        },
        {"numpy": lambda: seconds(lambda: theirs(dtype=dtype, out=host), sync, 3)},
    )


def cpu(repeat: int, log2n: int) -> None:
    n = 1 << log2n
    rng = hipkit.random.default_rng(2026)
    peer = np.random.Generator(np.random.Philox(2026))
    g = hiprand.hiprandCreateGenerator(hiprand.HIPRAND_RNG_PSEUDO_PHILOX4_32_10)
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        out, host = hipkit.empty(n, dtype), np.empty(n, dtype)
        double = dtype == np.float64
        uniform = hiprand.hiprandGenerateUniformDouble if double else hiprand.hiprandGenerateUniform
        normal = hiprand.hiprandGenerateNormalDouble if double else hiprand.hiprandGenerateNormal
        cases = (
            ("uniform", rng.random, peer.random, lambda o, k, f=uniform: f(g, o, k)),
            (
                "standard_normal",
                rng.standard_normal,
                peer.standard_normal,
                lambda o, k, f=normal: f(g, o, k, 0.0, 1.0),
            ),
        )
        for case, ours, theirs, generate in cases:
            timers = _cpu_timers(ours, theirs, generate, out, host, dtype, n)
            compare(f"{case} {name} 2^{log2n}", n, *timers, repeat)
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
    ours = {"hipkit.random": lambda: seconds(lambda: rng.random(out=out, dtype=np.float32), wait, 20)}
    compare(f"uniform float32 2^{log2n}", n, ours, peers, repeat)
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

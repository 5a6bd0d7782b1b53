"""Concurrency: host threads each driving their own stream, threads compiling
the same source at once, and processes compiling the same new source into one
cache directory at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np

import hipkit
from hipkit import config

SOURCE = r"""
extern "C" __global__ void accumulate(unsigned* x, unsigned k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 5u + k + (unsigned)i;
}
"""

N = 3000


def accumulate_reference(x: np.ndarray, ks) -> np.ndarray:
    x = x.astype(np.uint32)
    i = np.arange(x.size, dtype=np.uint32)
    for k in ks:
        x = x * np.uint32(5) + np.uint32(k) + i
    return x


def unique_source(rng: np.random.Generator) -> tuple[str, int]:
    """A kernel source no cache has seen: it adds a random constant."""
    constant = int(rng.integers(1, 1 << 30))
    source = textwrap.dedent(f"""
        // fresh source {constant}
        extern "C" __global__ void add_constant(int* x, int n) {{
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] += {constant};
        }}
    """)
    return source, constant


def run_threads(target, count: int) -> list:
    """Run ``target(index)`` on ``count`` threads started together; re-raise the
    first exception; return the results in order."""
    results: list = [None] * count
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def body(index: int) -> None:
        try:
            barrier.wait()
            results[index] = target(index)
        except BaseException as exc:  # handed to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]
    return results


def test_threads_with_their_own_streams(device, rng):
    kernel = hipkit.compile(SOURCE).get_function("accumulate")
    count, launches = 8, 50
    starts = [rng.integers(0, 2**32, N, dtype=np.uint32) for _ in range(count)]
    keys = [rng.integers(0, 2**32, launches, dtype=np.uint32) for _ in range(count)]

    def work(index: int) -> np.ndarray:
        stream = hipkit.Stream(device)
        x = hipkit.to_device(starts[index], device=device)
        for k in keys[index]:
            kernel[(N + 255) // 256, 256, 0, stream](x, int(k), N)
        stream.synchronize()
        return x.get()

    results = run_threads(work, count)
    for index, result in enumerate(results):
        np.testing.assert_array_equal(result, accumulate_reference(starts[index], keys[index]))


def test_threads_compiling_the_same_new_source(device, rng):
    source, constant = unique_source(rng)
    host = rng.integers(-1000, 1000, N, dtype=np.int32)

    def work(index: int) -> np.ndarray:
        kernel = hipkit.compile(source, device=device).get_function("add_constant")
        x = hipkit.to_device(host, device=device)
        kernel[(N + 255) // 256, 256](x, N)
        return x.get()

    for result in run_threads(work, 6):
        np.testing.assert_array_equal(result, host + constant)


CHILD = r"""
import os, sys, time
import numpy as np
import hipkit

device = hipkit.Device(0, platform=os.environ["HK_TEST_PLATFORM"])
device.synchronize()                       # the runtime is up before the race starts
ready, go = sys.argv[1], sys.argv[2]
open(ready, "w").close()
deadline = time.monotonic() + 120
while not os.path.exists(go):
    if time.monotonic() > deadline:
        sys.exit("no go signal")
    time.sleep(0.001)
source = open(sys.argv[3]).read()
host = np.fromfile(sys.argv[4], np.int32)
kernel = hipkit.compile(source, device=device).get_function("add_constant")
x = hipkit.to_device(host, device=device)
kernel[(host.size + 255) // 256, 256](x, host.size)
x.get().tofile(sys.argv[5])
"""


def child_environment(device: hipkit.Device) -> dict[str, str]:
    """This process's environment, with hipkit importable and the same cache."""
    env = dict(os.environ)
    package_root = str(Path(hipkit.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["HIPKIT_CACHE_DIR"] = str(config.cache_dir())
    env["HK_TEST_PLATFORM"] = device.platform.name
    return env


def test_processes_compiling_the_same_new_source_into_one_cache(device, rng, tmp_path):
    source, constant = unique_source(rng)
    (tmp_path / "kernel.hip").write_text(source)
    host = rng.integers(-1000, 1000, N, dtype=np.int32)
    # Raw int32 files: on the GPU machine under pytest-xdist, the child read part of an
    # .npy header written here as NUL bytes (cause not found) and np.load failed; raw
    # data has no header to parse, and a wrong read still fails the comparison below.
    host.tofile(tmp_path / "input.bin")
    (tmp_path / "child.py").write_text(CHILD)
    go = tmp_path / "go"
    children = []
    for i in range(2):
        command = [
            sys.executable,
            str(tmp_path / "child.py"),
            str(tmp_path / f"ready{i}"),
            str(go),
            str(tmp_path / "kernel.hip"),
            str(tmp_path / "input.bin"),
            str(tmp_path / f"out{i}.bin"),
        ]
        children.append(
            subprocess.Popen(
                command,
                env=child_environment(device),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready{i}").exists() for i in range(2)):
            assert all(c.poll() is None for c in children), [c.communicate() for c in children]
            assert time.monotonic() < deadline, "children did not start"
            time.sleep(0.01)
        go.touch()
        outputs = [c.communicate(timeout=300) for c in children]
    finally:
        for c in children:
            if c.poll() is None:
                c.kill()
    for c, (_, err) in zip(children, outputs, strict=True):
        assert c.returncode == 0, err
    for i in range(2):
        np.testing.assert_array_equal(np.fromfile(tmp_path / f"out{i}.bin", np.int32), host + constant)
    # The cache entry they left is whole: this process loads it and gets the same result.
    kernel = hipkit.compile(source, device=device).get_function("add_constant")
    x = hipkit.to_device(host, device=device)
    kernel[(N + 255) // 256, 256](x, N)
    np.testing.assert_array_equal(x.get(), host + constant)

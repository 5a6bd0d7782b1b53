"""hipRAND in programs built by ``hipkit cc`` for the CPU: cuRAND programs of our own
(``rand_programs/curand_both.cu``: the host API and the device API;
``rand_programs/curand_sobol.cu``: SOBOL32 in both; ``rand_programs/curand_mtgp.cu``:
MTGP32 in both) translated by ``hipkit hipify``, built with ``-lhiprand`` and run, their
numbers against the rand_reference.py streams and SciPy's Sobol points on fresh seeds
and offsets; and the statuses of the C API that
only C can provoke (NULL pointers)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import rand_reference as ref
from test_cc import build, hipkit_command, program_lines, write

from hipkit import platforms

PROGRAMS = Path(__file__).resolve().parent / "rand_programs"
PROGRAM = PROGRAMS / "curand_both.cu"
pytestmark = pytest.mark.skipif(bool(platforms.status()["cpu"]), reason=f"cpu: {platforms.status()['cpu']}")


def hipify_curand_program(folder: Path) -> Path:
    """``rand_programs/curand_both.cu`` translated by hipkit hipify into ``folder``."""
    done = hipkit_command("hipify", str(PROGRAM), "-o", "both.hip", cwd=folder)
    assert done.returncode == 0, done.stderr
    text = (folder / "both.hip").read_text()
    assert (
        "<hiprand/hiprand.h>" in text
        and "hiprand_init" in text
        and "curand" not in text.replace("CURAND", "")
    )
    return folder / "both.hip"


def check_curand_program(exe: Path, rng, tmp_path: Path, host_rule: bool) -> None:
    """Run the program on a fresh seed and offset; its device API's numbers are the
    references' (thread t's subsequence t); its host API's are hipkit's rule's (Philox's
    stream from the offset: uniforms, then normal pairs) where ``host_rule``, else (the
    vendor's order, cuRAND's) checked by their statistics."""
    seed, offset, n = int(rng.integers(0, 2**63)), int(rng.integers(0, 2**32)), 3000
    out = tmp_path / "out.bin"
    done = subprocess.run(
        [str(exe), str(seed), str(offset), str(n), str(out)], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, f"done {n}\n"), done.stderr
    data = out.read_bytes()
    floats = np.frombuffer(data[: 3 * 4 * n], np.float32).reshape(3, n)
    pairs = np.frombuffer(data[3 * 4 * n : 5 * 4 * n], np.float32).reshape(n, 2)
    ints = np.frombuffer(data[5 * 4 * n :], np.uint32).reshape(2, n)
    if host_rule:
        stream = ref.philox_words(seed, 0, offset, 2 * n)
        np.testing.assert_array_equal(floats[0], ref.uniform(stream[:n]))
        s, c = ref.box_muller(stream[n::2], stream[n + 1 :: 2])
        np.testing.assert_allclose(
            floats[1], 2.0 + 0.5 * np.stack([s, c], axis=1).ravel(), rtol=1e-5, atol=1e-5
        )
    else:
        assert 0 < floats[0].min() and floats[0].max() <= 1 and abs(floats[0].mean() - 0.5) < 0.03
        assert abs(floats[1].mean() - 2.0) < 0.05 and abs(floats[1].std() - 0.5) < 0.05
    assert abs(ints[0].astype(np.float64).mean() - 3.0) < 5 * np.sqrt(3.0 / n)
    xorwow = np.array([ref.xorwow_words(seed, t, 0, 1)[0] for t in range(0, n, 97)], np.uint32)
    np.testing.assert_array_equal(floats[2][::97], ref.uniform(xorwow))
    first = np.array([ref.philox_words(seed, t, 0, 3) for t in range(n)])
    s, c = ref.box_muller(first[:, 0], first[:, 1])
    np.testing.assert_allclose(pairs, np.stack([s, c], axis=1), rtol=1e-5, atol=1e-4)  # __sincosf on NVIDIA
    np.testing.assert_array_equal(ints[1], first[:, 2])


def test_hipified_curand_program(rng, tmp_path):
    hipify_curand_program(tmp_path)
    build(tmp_path, "-O2", "-o", "both", "both.hip", "-lhiprand")
    check_curand_program(tmp_path / "both", rng, tmp_path, host_rule=True)


def hipify_sobol_program(folder: Path) -> Path:
    """``rand_programs/curand_sobol.cu`` translated by hipkit hipify into ``folder``."""
    done = hipkit_command("hipify", str(PROGRAMS / "curand_sobol.cu"), "-o", "sobol.hip", cwd=folder)
    assert done.returncode == 0, done.stderr
    text = (folder / "sobol.hip").read_text()
    assert "hiprandGetDirectionVectors32" in text and "curand" not in text.replace("CURAND", "")
    return folder / "sobol.hip"


def check_sobol_program(exe: Path, rng, tmp_path: Path) -> None:
    """Run it on fresh dimensions and offset: the host API's points and uniforms, and the
    kernel's (after its skip ahead), are SciPy's; the normals its inverse distribution."""
    dimensions, offset, m = int(rng.integers(2, 9)), int(rng.integers(0, 2**24)), 300
    out = tmp_path / "sobol.bin"
    done = subprocess.run(
        [str(exe), str(dimensions), str(offset), str(m), str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    n = dimensions * m
    data = out.read_bytes()
    bits = np.frombuffer(data[: 4 * n], np.uint32).reshape(dimensions, m)
    double = np.frombuffer(data[4 * n : 12 * n], np.float64).reshape(dimensions, m)
    uniform = np.frombuffer(data[12 * n : 16 * n], np.float32).reshape(dimensions, m)
    normal = np.frombuffer(data[16 * n :], np.float64).reshape(dimensions, m)
    want = ref.sobol_points(dimensions, offset, m)
    np.testing.assert_array_equal(bits, want)
    np.testing.assert_array_equal(double, want * 2.0**-32 + 2.0**-32)
    np.testing.assert_array_equal(uniform, ref.uniform(want))
    np.testing.assert_allclose(normal, ref.sobol_normal(want), rtol=1e-13, atol=1e-13)
    mean = float(done.stdout.split()[1])
    assert mean == pytest.approx(np.prod(double, axis=0).mean(), rel=1e-8)
    # Quasi-Monte Carlo's estimate, within three standard deviations of plain Monte Carlo's
    # (which it beats): the product of d uniforms has variance 3^-d - 4^-d.
    spread = 3 * np.sqrt((4 / 3) ** dimensions - 1) / np.sqrt(m)
    assert mean == pytest.approx(0.5**dimensions, rel=spread)


def test_hipified_sobol_program(rng, tmp_path):
    hipify_sobol_program(tmp_path)
    build(tmp_path, "-O2", "-o", "sobol", "sobol.hip", "-lhiprand")
    check_sobol_program(tmp_path / "sobol", rng, tmp_path)


def hipify_mtgp_program(folder: Path) -> Path:
    """``rand_programs/curand_mtgp.cu`` translated by hipkit hipify into ``folder``."""
    done = hipkit_command("hipify", str(PROGRAMS / "curand_mtgp.cu"), "-o", "mtgp.hip", cwd=folder)
    assert done.returncode == 0, done.stderr
    text = (folder / "mtgp.hip").read_text()
    assert "<hiprand/hiprand_mtgp32_host.h>" in text and "hiprandMakeMTGP32KernelState" in text
    assert "curand" not in text.replace("CURAND", "")
    return folder / "mtgp.hip"


def check_mtgp_program(exe: Path, rng, tmp_path: Path) -> None:
    """Run it on a fresh seed: each block's rounds are its state's (rand_reference.py's
    MTGP32, cuRAND's), as bits, uniforms and normals; the pi estimate counts the pairs
    of the last rounds; the host API's numbers are cuRAND's layout of 192 states."""
    seed, blocks, rounds, n = int(rng.integers(0, 2**64, dtype=np.uint64)), 3, 5, 3001
    out = tmp_path / "mtgp.bin"
    done = subprocess.run(
        [str(exe), str(seed), str(blocks), str(rounds), str(n), str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    k = blocks * rounds * 128
    data = np.frombuffer(out.read_bytes(), np.uint8)
    sizes = [
        (np.uint32, k),
        (np.float32, k),
        (np.float64, k),
        (np.uint32, n),
        (np.float64, n),
        (np.float32, n),
    ]
    parts, at = [], 0
    for dtype, count in sizes:
        parts.append(data[at : at + count * np.dtype(dtype).itemsize].view(dtype))
        at += count * np.dtype(dtype).itemsize
    bits, uniform, normal, host_bits, host_uniform, host_normal = parts
    want = np.array(
        [ref.mtgp32_rounds(b, ref.mtgp32_kernel_seed(seed, b), 128, 5 * rounds) for b in range(blocks)]
    )
    np.testing.assert_array_equal(bits.reshape(blocks, rounds, 128), want[:, :rounds])
    np.testing.assert_array_equal(
        uniform.reshape(blocks, rounds, 128), ref.uniform(want[:, rounds : 2 * rounds])
    )
    np.testing.assert_allclose(
        normal.reshape(blocks, rounds, 128),
        ref.sobol_normal(want[:, 2 * rounds : 3 * rounds]),
        rtol=1e-13,
        atol=1e-13,
    )
    pairs = ref.uniform(want[:, 3 * rounds :]).reshape(blocks, rounds, 2, 128)
    inside = int((pairs[:, :, 0] ** 2 + pairs[:, :, 1] ** 2 <= 1).sum())
    assert done.stdout.split()[:2] == ["inside", str(inside)]
    words = ref.mtgp32_host(seed, 3 * n)
    np.testing.assert_array_equal(host_bits, words[:n])
    np.testing.assert_array_equal(host_uniform, words[n : 2 * n] * 2.0**-32 + 2.0**-32)
    np.testing.assert_allclose(host_normal, 1 + 2 * ref.sobol_normal(words[2 * n :]), rtol=1e-5, atol=1e-5)


def test_hipified_mtgp_program(rng, tmp_path):
    hipify_mtgp_program(tmp_path)
    build(tmp_path, "-O2", "-o", "mtgp", "mtgp.hip", "-lhiprand")
    check_mtgp_program(tmp_path / "mtgp", rng, tmp_path)


STATUSES = r"""
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include <cstdio>

int main() {
  hiprandGenerator_t g = nullptr;
  printf("%d\n", hiprandGetVersion(nullptr));
  printf("%d\n", hiprandCreateGenerator(nullptr, HIPRAND_RNG_PSEUDO_XORWOW));
  printf("%d\n", hiprandCreateGenerator(&g, (hiprandRngType_t)77));
  printf("%d\n", hiprandGenerate(nullptr, nullptr, 4));
  printf("%d\n", hiprandDestroyGenerator(nullptr));
  int version = 0;
  const hiprandStatus_t status = hiprandGetVersion(&version);
  printf("%d %d\n", status, version);
  hiprandDirectionVectors32_t* vectors = nullptr;
  printf("%d\n", hiprandGetDirectionVectors32(nullptr, HIPRAND_DIRECTION_VECTORS_32_JOEKUO6));
  printf("%d\n", hiprandGetDirectionVectors32(&vectors, HIPRAND_DIRECTION_VECTORS_64_JOEKUO6));
  printf("%d\n", hiprandGetDirectionVectors32(&vectors, HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
  const hiprandStatus_t got = hiprandGetDirectionVectors32(&vectors, HIPRAND_DIRECTION_VECTORS_32_JOEKUO6);
  printf("%d %u %u\n", got, vectors[0][31], vectors[19999][0]);
  return 0;
}
"""


def test_statuses_of_null_pointers(tmp_path):
    write(tmp_path, "statuses.hip", STATUSES)
    build(tmp_path, "-o", "statuses", "statuses.hip", "-lhiprand")
    lines = program_lines(tmp_path / "statuses")
    assert lines == ["104", "101", "103", "101", "101", "0 201009", "104", "104", "1000", "0 1 2147483648"]


def test_hiprand_is_linked_only_where_asked(tmp_path):
    write(tmp_path, "plain.hip", "#include <hip/hip_runtime.h>\nint main() { return 0; }\n")
    build(tmp_path, "-o", "plain", "plain.hip")
    linked = subprocess.run(["ldd", str(tmp_path / "plain")], capture_output=True, text=True).stdout
    assert "libhipkit_cpu_rand" not in linked

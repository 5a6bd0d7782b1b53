"""hipkit's hiprand_kernel.h against cuRAND's own curand_kernel.h, in the same kernels of
one nvcc-built program on an NVIDIA GPU: for the same (seed, subsequence, offset) every
call gives cuRAND's bits (issue 18, item 5), and SOBOL32's for the same direction
numbers and offset.  The program is built for sm_90 wherever
nvcc and cuRAND's headers are (no GPU needed); it runs where an NVIDIA GPU is.

cuRAND's headers are NVIDIA's ``nvidia-curand`` wheel's (``pip install 'hipkit[nvidia]'``)
or a CUDA toolkit's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_cc import build, write
from test_cc_nvidia import no_gpu_reason
from test_cc_rand import (
    check_curand_program,
    check_mtgp_program,
    check_sobol_program,
    hipify_curand_program,
    hipify_mtgp_program,
    hipify_sobol_program,
)

from hipkit.platforms.nvidia import toolkit
from hipkit.platforms.nvidia.toolchain import NvidiaToolchain

STATES = {
    "philox": ("curandStatePhilox4_32_10_t", "hiprandStatePhilox4_32_10_t"),
    "xorwow": ("curandState_t", "hiprandState_t"),
    "mrg": ("curandStateMRG32k3a_t", "hiprandStateMRG32k3a_t"),
}
# (name, C type of an output, outputs per call, the call with X for curand/hiprand)
CALLS = (
    ("bits", "unsigned int", 1, "X(&s)"),
    ("uniform", "float", 1, "X_uniform(&s)"),
    ("uniform_double", "double", 1, "X_uniform_double(&s)"),
    ("normal", "float", 1, "X_normal(&s)"),
    ("normal_double", "double", 1, "X_normal_double(&s)"),
    ("normal2", "float2", 2, "X_normal2(&s)"),
    ("normal2_double", "double2", 2, "X_normal2_double(&s)"),
    ("log_normal", "float", 1, "X_log_normal(&s, 0.25f, 1.5f)"),
    ("log_normal_double", "double", 1, "X_log_normal_double(&s, 0.25, 1.5)"),
    ("log_normal2", "float2", 2, "X_log_normal2(&s, -1.0f, 0.5f)"),
    ("poisson", "unsigned int", 1, "X_poisson(&s, lambda)"),
)
PHILOX_CALLS = (
    ("bits4", "uint4", 4, "X4(&s)"),
    ("uniform4", "float4", 4, "X_uniform4(&s)"),
    ("uniform2_double", "double2", 2, "X_uniform2_double(&s)"),
    ("normal4", "float4", 4, "X_normal4(&s)"),
    ("log_normal4", "float4", 4, "X_log_normal4(&s, 0.5f, 0.5f)"),
    ("poisson4", "uint4", 4, "X_poisson4(&s, lambda)"),
)


def _scalar(ctype: str) -> str:
    return {"uint": "unsigned int", "float": "float", "double": "double"}.get(ctype.rstrip("24"), ctype)


def _kernel(engine: str, name: str, ctype: str, per: int, call: str) -> str:
    theirs, ours = STATES[engine]
    body = []
    for side, state, prefix in (("c", theirs, "curand"), ("h", ours, "hiprand")):
        # hiprand4 is hipRAND's name of cuRAND's curand4.
        body.append(f"""  {{
    {state} s;
    {prefix}_init(seed, sub, off, &s);
    {ctype}* o = reinterpret_cast<{ctype}*>(out_{side}) + (size_t)t * CALLS;
    for (int i = 0; i < CALLS; ++i) o[i] = {call.replace("X", prefix)};
  }}""")
    scalar = _scalar(ctype)
    kernel = f"{engine}_{name}"
    return f"""
__global__ void {kernel}(unsigned long long seed, double lambda, {scalar}* out_c, {scalar}* out_h) {{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long sub, off;
  start(seed, t, {2**51 - 1 if engine == "mrg" else 2**64 - 1}ull, &sub, &off);
{chr(10).join(body)}
}}
static int run_{kernel}(unsigned long long seed, double lambda) {{
  return compare<{scalar}>("{kernel}", {per}, [&]({scalar}* c, {scalar}* h) {{
    {kernel}<<<BLOCKS, THREADS>>>(seed, lambda, c, h);
  }}, lambda);
}}
"""


# SOBOL32's calls: one point each (its Poisson numbers are made by hipkit's own method).
SOBOL_CALLS = tuple(c for c in CALLS if "2" not in c[0] and c[0] != "poisson")


def _sobol_kernel(name: str, ctype: str, per: int, call: str) -> str:
    """A kernel whose threads make SOBOL32 points from 32 direction numbers of
    splitmix64 (any 32 words are an engine's) and an offset below 2^32 - CALLS."""
    body = []
    for side, prefix in (("c", "curand"), ("h", "hiprand")):
        body.append(f"""  {{
    {prefix}StateSobol32_t s;
    {prefix}_init(v, off, &s);
    {ctype}* o = out_{side} + (size_t)t * CALLS;
    for (int i = 0; i < CALLS; ++i) o[i] = {call.replace("X", prefix)};
  }}""")
    kernel = f"sobol_{name}"
    return f"""
__global__ void {kernel}(unsigned long long seed, double lambda, {ctype}* out_c, {ctype}* out_h) {{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int v[32];
  for (int k = 0; k < 32; ++k) v[k] = (unsigned int)splitmix(seed ^ (64ull * t + k));
  const unsigned int off = (unsigned int)(splitmix(seed ^ (64ull * t + 40)) % (0xFFFFFFFFull - CALLS));
{chr(10).join(body)}
}}
static int run_{kernel}(unsigned long long seed, double lambda) {{
  return compare<{ctype}>("{kernel}", 1, [&]({ctype}* c, {ctype}* h) {{
    {kernel}<<<BLOCKS, THREADS>>>(seed, lambda, c, h);
  }}, lambda);
}}
"""


ENTRIES = (
    [(e, *c) for e in STATES for c in CALLS]
    + [("philox", *c) for c in PHILOX_CALLS]
    + [("sobol", *c) for c in SOBOL_CALLS]
)

# One program: each kernel makes cuRAND's numbers and hipkit's for the same starts,
# and the host compares their bits.  Half the threads start at (subsequence t, a small
# offset), the rest at random 64-bit (or MRG32k3a's 51-bit) subsequences and offsets
# below 2^62, from splitmix64 of the seed.  NVRTC cannot take cuRAND's headers under
# hipkit's device dialect (CCCL's cstdint clashes with its C library), so nvcc builds it.
PROGRAM = (
    r"""
// HIP's uint3 (hipkit's macro for it) is not CUDA's, which cuRAND's host-side
// declaration of threadIdx names.
#pragma push_macro("uint3")
#undef uint3
#include <curand_kernel.h>
#pragma pop_macro("uint3")
#include <hiprand/hiprand_kernel.h>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>

#define BLOCKS 4
#define THREADS 128
#define CALLS 7

__device__ unsigned long long splitmix(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__device__ void start(unsigned long long seed, int t, unsigned long long top, unsigned long long* sub,
                      unsigned long long* off) {
  const bool plain = t < BLOCKS * THREADS / 2;
  *sub = plain ? (unsigned long long)t : splitmix(seed ^ (2ull * t)) & top;
  *off = splitmix(seed ^ (2ull * t + 1)) & (plain ? 127ull : (1ull << 62) - 1);
}

template <class T, class Launch> int compare(const char* name, int per, Launch launch, double lambda) {
  const size_t n = (size_t)BLOCKS * THREADS * CALLS * per;
  T *c, *h;
  if (hipMalloc(&c, n * sizeof(T)) != hipSuccess || hipMalloc(&h, n * sizeof(T)) != hipSuccess) return 1;
  launch(c, h);
  std::vector<T> vc(n), vh(n);
  hipMemcpy(vc.data(), c, n * sizeof(T), hipMemcpyDeviceToHost);
  if (hipMemcpy(vh.data(), h, n * sizeof(T), hipMemcpyDeviceToHost) != hipSuccess) return 1;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += memcmp(&vc[i], &vh[i], sizeof(T)) != 0;
  printf("%s %g %zu %zu\n", name, lambda, bad, n);
  hipFree(c);
  hipFree(h);
  return 0;
}
"""
    + "".join(_sobol_kernel(*entry[1:]) if entry[0] == "sobol" else _kernel(*entry) for entry in ENTRIES)
    + "int main(int argc, char** argv) {\n  const unsigned long long seed = strtoull(argv[1], 0, 10);\n"
    + "  int failed = 0;\n"
    + "".join(
        f"  for (double lambda : {{4.5, 300.0, 5000.0}}) failed |= run_{e}_{c[0]}(seed, lambda);\n"
        if "poisson" in c[0]
        else f"  failed |= run_{e}_{c[0]}(seed, 0.0);\n"
        for e, *c in ENTRIES
    )
    + "  return failed;\n}\n"
)


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    reason = NvidiaToolchain.missing()
    if reason:
        pytest.skip(reason)
    curand = toolkit.find_curand()
    if curand is None:
        pytest.skip(toolkit.CURAND_MISSING)
    folder = tmp_path_factory.mktemp("rand_nvidia")
    write(folder, "compare.hip", PROGRAM)
    build(
        folder,
        "--platform",
        "nvidia",
        "--offload-arch=sm_90",
        f"-I{curand.include}",
        "-o",
        "compare",
        "compare.hip",
    )
    return folder / "compare"


def test_builds_for_sm_90(program):
    assert program.is_file()


def test_bit_for_bit_with_curand(program, rng):
    reason = no_gpu_reason()
    if reason:
        pytest.skip(reason)
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    done = subprocess.run([str(program), str(seed)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert len(rows) == len(ENTRIES) + 2 * sum("poisson" in c[0] for _, *c in ENTRIES)
    differ = [f"{name} (lambda {lam}): {bad} of {n}" for name, lam, bad, n in rows if bad != "0"]
    assert not differ, f"seed {seed}: " + "; ".join(differ)


def build_hipified(tmp_path_factory, hipify, name: str) -> Path:
    """A cuRAND program of test_cc_rand.py, translated by ``hipify`` and built for sm_90
    (hipRAND on cuRAND) as ``name``."""
    reason = NvidiaToolchain.missing()
    if reason:
        pytest.skip(reason)
    if toolkit.find_curand() is None:
        pytest.skip(toolkit.CURAND_MISSING)
    folder = tmp_path_factory.mktemp(f"rand_nvidia_{name}")
    source = hipify(folder)
    build(folder, "--platform", "nvidia", "--offload-arch=sm_90", "-O2", "-o", name, source.name, "-lhiprand")
    return folder / name


@pytest.fixture(scope="module")
def hipified(tmp_path_factory) -> Path:
    return build_hipified(tmp_path_factory, hipify_curand_program, "both")


def test_hipified_curand_program_on_nvidia(hipified, rng, tmp_path):
    reason = no_gpu_reason()
    if reason:
        pytest.skip(f"built, not run: {reason}")
    check_curand_program(hipified, rng, tmp_path, host_rule=False)


@pytest.fixture(scope="module")
def hipified_sobol(tmp_path_factory) -> Path:
    """Its host API is cuRAND's, its kernel hipkit's device API over cuRAND's direction
    vectors."""
    return build_hipified(tmp_path_factory, hipify_sobol_program, "sobol")


def test_hipified_sobol_program_on_nvidia(hipified_sobol, rng, tmp_path):
    reason = no_gpu_reason()
    if reason:
        pytest.skip(f"built, not run: {reason}")
    check_sobol_program(hipified_sobol, rng, tmp_path)


@pytest.fixture(scope="module")
def hipified_mtgp(tmp_path_factory) -> Path:
    """Its host API is cuRAND's MTGP32 generator, its kernel hipkit's device API over the
    states of hipkit's host functions: the same reference (cuRAND's numbers) for both."""
    return build_hipified(tmp_path_factory, hipify_mtgp_program, "mtgp")


def test_hipified_mtgp_program_on_nvidia(hipified_mtgp, rng, tmp_path):
    reason = no_gpu_reason()
    if reason:
        pytest.skip(f"built, not run: {reason}")
    check_mtgp_program(hipified_mtgp, rng, tmp_path)

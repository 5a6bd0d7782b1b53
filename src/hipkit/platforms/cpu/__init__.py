"""The CPU platform: HIP kernels compiled to native code, run on all cores.

Its faces, each a module here:

- :mod:`.platform`: the runtime (``CpuPlatform``), the Python face of
  libhipkit_cpu (C++ in ``runtime/``, built on first use by :mod:`._lib`), the
  same library whole HIP programs link against;
- :mod:`.compiler`, :mod:`.transform`: kernels from HIP C++,
  through a source transform, compiled by the system C++ compiler;
- :mod:`.isa`: the target instruction set (HIPKIT_CPU_ISA) and what this CPU executes;
- :mod:`.toolchain`: whole programs (``hipkit cc --platform cpu``);
- :mod:`.checks`: its section of ``hipkit doctor``;
- :mod:`.blas`: hipBLAS on OpenBLAS (C++ in ``openblas/``), for Python and programs;
- :mod:`.rand`: hipRAND, hipkit's own generators (C++ in ``hiprand/``), for Python and programs;
- ``include/``: the HIP headers of CPU kernels and programs.

Programs trace themselves for ``hipkit prof`` (libhipkit_cpu writes the trace),
so this platform needs no program tracing face;
- :mod:`.sanitize`: ``hipkit sanitize``'s face: kernels built with probes, memcheck in the runtime.
"""

from ..base.faces import Faces

FACES = Faces(
    __name__,
    title="CPU",
    gpu=False,
    runtime=".platform:CpuPlatform",
    toolchain=".toolchain:CpuToolchain",
    checks=".checks:checks",
    devices=".checks:devices",
    blas=".blas:library",
    fft=".fft:library",
    rand=".rand:library",
    sanitizer=".sanitize:CpuSanitizer",
    # The compiler, its target ISA, and the warp size and execution of barrier
    # kernels, fixed when a unit is compiled; the OpenBLAS that -lhipblas links.
    build_variables=(
        "HIPKIT_CXX",
        "HIPKIT_CPU_ISA",
        "HIPKIT_CPU_WARP_SIZE",
        "HIPKIT_CPU_EXEC",
        "HIPKIT_OPENBLAS",
    ),
    # Barrier kernels run split into loops by default; HIPKIT_CPU_EXEC=fiber runs
    # every one on fibers, the general path.
    variants={"fiber": {"HIPKIT_CPU_EXEC": "fiber"}},
)

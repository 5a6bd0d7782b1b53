"""The AMD platform: HIP kernels through ROCm's hiprtc, run by ROCm's HIP runtime.

Its faces, each a module here:

- :mod:`.platform`: the runtime (``AmdPlatform``) over ``libamdhip64`` (:mod:`._hip`);
- :mod:`.compiler`, :mod:`.codeobject`: kernels from HIP C++ through hiprtc and
  comgr, with hipkit's additions to ROCm's headers (``include/``);
- :mod:`.toolchain`: whole programs through ROCm's hipcc (``hipkit cc --platform amd``);
- :mod:`.checks`, :mod:`.gfx`: its section of ``hipkit doctor``, and the GPUs as the
  machine describes them (KFD topology, gfx targets);
- :mod:`.toolkit`: where ROCm's parts are, looked up once;
- :mod:`.blas`: ROCm's hipBLAS (libhipblas.so), for Python;
- :mod:`.rand`: ROCm's hipRAND (libhiprand.so), for Python.

Programs built with ROCm's hipcc are traced by ROCm's own tools (rocprofv3).
"""

import os

from ..base.faces import Faces


def _kfd_nodes() -> bool:
    """Whether the amdgpu driver's KFD topology is there (where its GPUs are listed)."""
    return os.path.isdir("/sys/class/kfd/kfd/topology/nodes")


FACES = Faces(
    __name__,
    title="AMD",
    gpu=True,
    runtime=".platform:AmdPlatform",
    toolchain=".toolchain:AmdToolchain",
    checks=".checks:checks",
    devices=".checks:devices",
    blas=".blas:library",
    fft=".fft:library",
    rand=".rand:library",
    probe=_kfd_nodes,
)

"""The NVIDIA platform: HIP kernels through NVRTC, run by the CUDA driver API.

Its faces, each a module here:

- :mod:`.platform`: the runtime (``NvidiaPlatform``) over the CUDA driver
  (:mod:`.driver`: NVIDIA's ``cuda.bindings``, its errors as HIP's), with CUPTI's
  activity records for the profiler (:mod:`.activity`; CUPTI's buffers read in
  :mod:`.cupti_buffers`, kernels joined with their launch calls in :mod:`.launch_records`);
- :mod:`.compiler`: kernels from HIP C++ through NVRTC and hipkit's HIP-on-CUDA
  device headers (``include/``);
- :mod:`.toolchain`: whole programs through nvcc (``hipkit cc --platform nvidia``),
  with the HIP-on-CUDA program headers (``include/program``);
- :mod:`.checks`: its section of ``hipkit doctor``;
- :mod:`.tracing`: the CUPTI library with which ``hipkit prof`` traces its programs;
- :mod:`.blas`: hipBLAS for Python, cuBLAS through nvmath-python's bindings (programs get
  hipBLAS on cuBLAS from ``include/program/hipblas``);
- :mod:`.rand`: hipRAND for Python, cuRAND through nvmath-python's bindings (programs get
  hipRAND on cuRAND from ``include/program/hiprand``);
- :mod:`.toolkit`: where CUDA's parts are (nvcc, NVRTC, CUPTI, cuBLAS), looked up once;
- :mod:`.sanitize`: ``hipkit sanitize``'s face: the program run under compute-sanitizer.
"""

import os

from ..base.faces import Faces


def gpu_present() -> bool:
    """Whether the NVIDIA driver shows a GPU: a device file /dev/nvidiaN, or an
    entry in /proc/driver/nvidia/gpus."""
    try:
        if any(name.startswith("nvidia") and name[6:7].isdigit() for name in os.listdir("/dev")):
            return True
    except OSError:
        pass
    try:
        return bool(os.listdir("/proc/driver/nvidia/gpus"))
    except OSError:
        return False


FACES = Faces(
    __name__,
    title="NVIDIA",
    gpu=True,
    runtime=".platform:NvidiaPlatform",
    toolchain=".toolchain:NvidiaToolchain",
    checks=".checks:checks",
    devices=".checks:devices",
    program_tracing=".tracing:program_tracing",
    blas=".blas:library",
    fft=".fft:library",
    rand=".rand:library",
    sanitizer=".sanitize:NvidiaSanitizer",
    probe=gpu_present,
)

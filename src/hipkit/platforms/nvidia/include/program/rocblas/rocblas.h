// hipkit NVIDIA platform, whole programs: rocBLAS's C API, on hipBLAS on cuBLAS.
#pragma once

#include <hipblas/hipblas.h>
#include <hipkit_blas/rocblas_api.h>

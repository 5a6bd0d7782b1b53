// hipkit CPU platform: rocBLAS's C API, on hipkit's hipBLAS (OpenBLAS).
#pragma once

#include <hipblas/hipblas.h>
#include <hipkit_blas/rocblas_api.h>

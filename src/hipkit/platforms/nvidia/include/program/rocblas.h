// hipkit NVIDIA platform, whole programs: rocBLAS's older include path (rocBLAS has both).
#pragma once

#include <rocblas/rocblas.h>

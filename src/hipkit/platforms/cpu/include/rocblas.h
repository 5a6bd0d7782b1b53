// hipkit CPU platform: rocBLAS's older include path (rocBLAS has both).
#pragma once

#include <rocblas/rocblas.h>

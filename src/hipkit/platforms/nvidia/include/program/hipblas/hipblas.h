// hipkit NVIDIA platform, whole programs: hipBLAS, on cuBLAS (hipkit_blas/cublas.h), as
// hipBLAS's own NVIDIA backend does.  Programs that include it link with -lhipblas, which
// hipkit cc --platform nvidia makes cuBLAS.
#pragma once
#include <hipkit_blas/cublas.h>

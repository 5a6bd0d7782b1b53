// hipkit NVIDIA platform, whole programs: hipBLAS's older include path (#include <hipblas.h>).
#pragma once
#include "hipblas/hipblas.h"

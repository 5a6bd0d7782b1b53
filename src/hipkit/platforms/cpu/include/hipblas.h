// hipkit CPU platform: hipBLAS's header at its old path (before ROCm 5.7).
#pragma once

#include <hipblas/hipblas.h>

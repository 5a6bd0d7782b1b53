// hipkit NVIDIA platform, whole programs: HIP's library_types.h (hipDataType), the
// portable one.  Its names are HIP's (HIP_R_32F, hipLibraryPropertyType) and CUDA's
// library_types.h, which cuBLAS includes, has its own (CUDA_R_32F, libraryPropertyType):
// both can be read in one program, and a hipDataType is a cudaDataType of the same number.
#pragma once
#include "hip_runtime.h"
#include <hipkit_portable/library_types.h>

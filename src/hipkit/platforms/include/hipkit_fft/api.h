// hipkit: hipFFT's C API (types, enums, functions) for the programs of the platforms
// that serve hipFFT themselves (CPU: hipkit's own FFT engine; NVIDIA: hipFFT on cuFFT).
// Each platform's hipfft/hipfft.h includes this after defining HIPKIT_FFT_DECL and
// hipfftHandle.  The values are hipFFT's own (hipfft.h), so that a program that prints
// or stores them sees what it sees on ROCm.
#pragma once

#include <stddef.h>

#include <hip/hip_runtime_api.h>
#include <hip/hip_complex.h>
#include <hip/library_types.h>

// How a platform's header makes hipFFT's functions: empty where a library defines them,
// `inline` where the header does.
#ifndef HIPKIT_FFT_DECL
#define HIPKIT_FFT_DECL
#endif

// The hipFFT whose API this follows (1.0.21, ROCm 7.1's), by hipfft-version.h's names;
// platforms/base/fft.py's HIPFFT_VERSION says the same for Python.
#define hipfftVersionMajor 1
#define hipfftVersionMinor 0
#define hipfftVersionPatch 21

typedef enum hipfftResult_t {
  HIPFFT_SUCCESS = 0,
  HIPFFT_INVALID_PLAN = 1,
  HIPFFT_ALLOC_FAILED = 2,
  HIPFFT_INVALID_TYPE = 3,
  HIPFFT_INVALID_VALUE = 4,
  HIPFFT_INTERNAL_ERROR = 5,
  HIPFFT_EXEC_FAILED = 6,
  HIPFFT_SETUP_FAILED = 7,
  HIPFFT_INVALID_SIZE = 8,
  HIPFFT_UNALIGNED_DATA = 9,
  HIPFFT_INCOMPLETE_PARAMETER_LIST = 10,
  HIPFFT_INVALID_DEVICE = 11,
  HIPFFT_PARSE_ERROR = 12,
  HIPFFT_NO_WORKSPACE = 13,
  HIPFFT_NOT_IMPLEMENTED = 14,
  HIPFFT_NOT_SUPPORTED = 16
} hipfftResult;

typedef enum hipfftType_t {
  HIPFFT_R2C = 0x2a,
  HIPFFT_C2R = 0x2c,
  HIPFFT_C2C = 0x29,
  HIPFFT_D2Z = 0x6a,
  HIPFFT_Z2D = 0x6c,
  HIPFFT_Z2Z = 0x69
} hipfftType;

typedef enum hipfftLibraryPropertyType_t {
  HIPFFT_MAJOR_VERSION,
  HIPFFT_MINOR_VERSION,
  HIPFFT_PATCH_LEVEL
} hipfftLibraryPropertyType;

#define HIPFFT_FORWARD -1
#define HIPFFT_BACKWARD 1

typedef hipComplex hipfftComplex;
typedef hipDoubleComplex hipfftDoubleComplex;
typedef float hipfftReal;
typedef double hipfftDoubleReal;

#ifdef __cplusplus
extern "C" {
#endif

HIPKIT_FFT_DECL hipfftResult hipfftCreate(hipfftHandle* plan);
HIPKIT_FFT_DECL hipfftResult hipfftDestroy(hipfftHandle plan);
HIPKIT_FFT_DECL hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch);
HIPKIT_FFT_DECL hipfftResult hipfftPlan2d(hipfftHandle* plan, int nx, int ny, hipfftType type);
HIPKIT_FFT_DECL hipfftResult hipfftPlan3d(hipfftHandle* plan, int nx, int ny, int nz,
                                          hipfftType type);
HIPKIT_FFT_DECL hipfftResult hipfftPlanMany(hipfftHandle* plan, int rank, int* n, int* inembed,
                                            int istride, int idist, int* onembed, int ostride,
                                            int odist, hipfftType type, int batch);
HIPKIT_FFT_DECL hipfftResult hipfftExtPlanScaleFactor(hipfftHandle plan, double scalefactor);
HIPKIT_FFT_DECL hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type,
                                              int batch, size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftMakePlan2d(hipfftHandle plan, int nx, int ny, hipfftType type,
                                              size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftMakePlan3d(hipfftHandle plan, int nx, int ny, int nz,
                                              hipfftType type, size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int* n, int* inembed,
                                                int istride, int idist, int* onembed,
                                                int ostride, int odist, hipfftType type,
                                                int batch, size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftGetSize1d(hipfftHandle plan, int nx, hipfftType type,
                                             int batch, size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftGetSize2d(hipfftHandle plan, int nx, int ny, hipfftType type,
                                             size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftGetSize3d(hipfftHandle plan, int nx, int ny, int nz,
                                             hipfftType type, size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftGetSizeMany(hipfftHandle plan, int rank, int* n, int* inembed,
                                               int istride, int idist, int* onembed, int ostride,
                                               int odist, hipfftType type, int batch,
                                               size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftGetSize(hipfftHandle plan, size_t* workSize);
HIPKIT_FFT_DECL hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int autoAllocate);
HIPKIT_FFT_DECL hipfftResult hipfftSetWorkArea(hipfftHandle plan, void* workArea);
HIPKIT_FFT_DECL hipfftResult hipfftSetStream(hipfftHandle plan, hipStream_t stream);
HIPKIT_FFT_DECL hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex* idata,
                                           hipfftComplex* odata, int direction);
HIPKIT_FFT_DECL hipfftResult hipfftExecR2C(hipfftHandle plan, hipfftReal* idata,
                                           hipfftComplex* odata);
HIPKIT_FFT_DECL hipfftResult hipfftExecC2R(hipfftHandle plan, hipfftComplex* idata,
                                           hipfftReal* odata);
HIPKIT_FFT_DECL hipfftResult hipfftExecZ2Z(hipfftHandle plan, hipfftDoubleComplex* idata,
                                           hipfftDoubleComplex* odata, int direction);
HIPKIT_FFT_DECL hipfftResult hipfftExecD2Z(hipfftHandle plan, hipfftDoubleReal* idata,
                                           hipfftDoubleComplex* odata);
HIPKIT_FFT_DECL hipfftResult hipfftExecZ2D(hipfftHandle plan, hipfftDoubleComplex* idata,
                                           hipfftDoubleReal* odata);
HIPKIT_FFT_DECL hipfftResult hipfftGetVersion(int* version);
HIPKIT_FFT_DECL hipfftResult hipfftGetProperty(hipfftLibraryPropertyType type, int* value);

#ifdef __cplusplus
}
#endif

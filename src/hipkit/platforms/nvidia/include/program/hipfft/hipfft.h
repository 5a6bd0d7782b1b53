// hipkit NVIDIA platform, whole programs: hipFFT on cuFFT, inline, as hipFFT's own
// NVIDIA backend does.  Programs that include it link with -lhipfft, which
// hipkit cc --platform nvidia makes cuFFT.  hipFFT kept cuFFT's functions, arguments
// and numbers (types, directions, results), so each function is cuFFT's of the same
// name; the plan is cuFFT's int handle, as in hipFFT on NVIDIA.  Under `hipkit prof`
// each call is an API row named by hipFFT, its cuFFT kernels correlated with it
// (hipkit_nvidia_program/library_trace.h), as hipBLAS's and hipRAND's are.
#pragma once

#include <cufft.h>

#include "../hipkit_nvidia_program/library_trace.h"

typedef int hipfftHandle;

#define HIPKIT_FFT_DECL inline
#include <hipkit_fft/api.h>

namespace hkfft_nv {
inline hipfftResult result(cufftResult r) { return static_cast<hipfftResult>(r); }
inline cufftType type(hipfftType t) { return static_cast<cufftType>(t); }
inline cufftComplex* c(hipfftComplex* p) { return reinterpret_cast<cufftComplex*>(p); }
inline cufftDoubleComplex* z(hipfftDoubleComplex* p) { return reinterpret_cast<cufftDoubleComplex*>(p); }
}  // namespace hkfft_nv

// Each function: its API row, then cuFFT's function of the same arguments.
#define __HK_FFT_CALL(NAME, CU_CALL)          \
  const __hk_trace::LibraryCall call_(#NAME); \
  return hkfft_nv::result(CU_CALL)

extern "C" {

inline hipfftResult hipfftCreate(hipfftHandle* plan) {
  __HK_FFT_CALL(hipfftCreate, cufftCreate(plan));
}
inline hipfftResult hipfftDestroy(hipfftHandle plan) {
  __HK_FFT_CALL(hipfftDestroy, cufftDestroy(plan));
}
inline hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch) {
  __HK_FFT_CALL(hipfftPlan1d, cufftPlan1d(plan, nx, hkfft_nv::type(type), batch));
}
inline hipfftResult hipfftPlan2d(hipfftHandle* plan, int nx, int ny, hipfftType type) {
  __HK_FFT_CALL(hipfftPlan2d, cufftPlan2d(plan, nx, ny, hkfft_nv::type(type)));
}
inline hipfftResult hipfftPlan3d(hipfftHandle* plan, int nx, int ny, int nz, hipfftType type) {
  __HK_FFT_CALL(hipfftPlan3d, cufftPlan3d(plan, nx, ny, nz, hkfft_nv::type(type)));
}
inline hipfftResult hipfftPlanMany(hipfftHandle* plan, int rank, int* n, int* inembed, int istride,
                                   int idist, int* onembed, int ostride, int odist, hipfftType type,
                                   int batch) {
  __HK_FFT_CALL(hipfftPlanMany, cufftPlanMany(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, hkfft_nv::type(type), batch));
}
// cuFFT has no scale factor.
inline hipfftResult hipfftExtPlanScaleFactor(hipfftHandle, double) { return HIPFFT_NOT_IMPLEMENTED; }
inline hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                     size_t* workSize) {
  __HK_FFT_CALL(hipfftMakePlan1d, cufftMakePlan1d(plan, nx, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftMakePlan2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize) {
  __HK_FFT_CALL(hipfftMakePlan2d, cufftMakePlan2d(plan, nx, ny, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftMakePlan3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                     size_t* workSize) {
  __HK_FFT_CALL(hipfftMakePlan3d, cufftMakePlan3d(plan, nx, ny, nz, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride,
                                       int idist, int* onembed, int ostride, int odist,
                                       hipfftType type, int batch, size_t* workSize) {
  __HK_FFT_CALL(hipfftMakePlanMany, cufftMakePlanMany(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftGetSize1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                    size_t* workSize) {
  __HK_FFT_CALL(hipfftGetSize1d, cufftGetSize1d(plan, nx, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftGetSize2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize) {
  __HK_FFT_CALL(hipfftGetSize2d, cufftGetSize2d(plan, nx, ny, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftGetSize3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                    size_t* workSize) {
  __HK_FFT_CALL(hipfftGetSize3d, cufftGetSize3d(plan, nx, ny, nz, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftGetSizeMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride,
                                      int idist, int* onembed, int ostride, int odist,
                                      hipfftType type, int batch, size_t* workSize) {
  __HK_FFT_CALL(hipfftGetSizeMany, cufftGetSizeMany(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftGetSize(hipfftHandle plan, size_t* workSize) {
  __HK_FFT_CALL(hipfftGetSize, cufftGetSize(plan, workSize));
}
inline hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int autoAllocate) {
  __HK_FFT_CALL(hipfftSetAutoAllocation, cufftSetAutoAllocation(plan, autoAllocate));
}
inline hipfftResult hipfftSetWorkArea(hipfftHandle plan, void* workArea) {
  __HK_FFT_CALL(hipfftSetWorkArea, cufftSetWorkArea(plan, workArea));
}
inline hipfftResult hipfftSetStream(hipfftHandle plan, hipStream_t stream) {
  __HK_FFT_CALL(hipfftSetStream, cufftSetStream(plan, stream));
}
inline hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex* idata, hipfftComplex* odata,
                                  int direction) {
  __HK_FFT_CALL(hipfftExecC2C, cufftExecC2C(plan, hkfft_nv::c(idata), hkfft_nv::c(odata), direction));
}
inline hipfftResult hipfftExecR2C(hipfftHandle plan, hipfftReal* idata, hipfftComplex* odata) {
  __HK_FFT_CALL(hipfftExecR2C, cufftExecR2C(plan, idata, hkfft_nv::c(odata)));
}
inline hipfftResult hipfftExecC2R(hipfftHandle plan, hipfftComplex* idata, hipfftReal* odata) {
  __HK_FFT_CALL(hipfftExecC2R, cufftExecC2R(plan, hkfft_nv::c(idata), odata));
}
inline hipfftResult hipfftExecZ2Z(hipfftHandle plan, hipfftDoubleComplex* idata,
                                  hipfftDoubleComplex* odata, int direction) {
  __HK_FFT_CALL(hipfftExecZ2Z, cufftExecZ2Z(plan, hkfft_nv::z(idata), hkfft_nv::z(odata), direction));
}
inline hipfftResult hipfftExecD2Z(hipfftHandle plan, hipfftDoubleReal* idata, hipfftDoubleComplex* odata) {
  __HK_FFT_CALL(hipfftExecD2Z, cufftExecD2Z(plan, idata, hkfft_nv::z(odata)));
}
inline hipfftResult hipfftExecZ2D(hipfftHandle plan, hipfftDoubleComplex* idata, hipfftDoubleReal* odata) {
  __HK_FFT_CALL(hipfftExecZ2D, cufftExecZ2D(plan, hkfft_nv::z(idata), odata));
}
// cuFFT's version, as hipFFT on NVIDIA answers (cuFFT's number: major * 1000 + minor *
// 100 + patch), after ROCm's checks: NULL or a property hipFFT lacks is HIPFFT_INVALID_VALUE.
inline hipfftResult hipfftGetVersion(int* version) {
  if (version == nullptr) return HIPFFT_INVALID_VALUE;
  __HK_FFT_CALL(hipfftGetVersion, cufftGetVersion(version));
}
inline hipfftResult hipfftGetProperty(hipfftLibraryPropertyType type, int* value) {
  if (value == nullptr || (type != HIPFFT_MAJOR_VERSION && type != HIPFFT_MINOR_VERSION && type != HIPFFT_PATCH_LEVEL))
    return HIPFFT_INVALID_VALUE;
  __HK_FFT_CALL(hipfftGetProperty, cufftGetProperty(static_cast<libraryPropertyType>(type), value));
}

}  // extern "C"

// hipkit NVIDIA platform, whole programs: hipFFT on cuFFT, inline, as hipFFT's own
// NVIDIA backend does.  Programs that include it link with -lhipfft, which
// hipkit cc --platform nvidia makes cuFFT.  hipFFT kept cuFFT's functions, arguments
// and numbers (types, directions, results), so each function is cuFFT's of the same
// name; the plan is cuFFT's int handle, as in hipFFT on NVIDIA.
#pragma once

#include <cufft.h>

typedef int hipfftHandle;

#define HIPKIT_FFT_DECL inline
#include <hipkit_fft/api.h>

namespace hkfft_nv {
inline hipfftResult result(cufftResult r) { return static_cast<hipfftResult>(r); }
inline cufftType type(hipfftType t) { return static_cast<cufftType>(t); }
inline cufftComplex* c(hipfftComplex* p) { return reinterpret_cast<cufftComplex*>(p); }
inline cufftDoubleComplex* z(hipfftDoubleComplex* p) { return reinterpret_cast<cufftDoubleComplex*>(p); }
}  // namespace hkfft_nv

extern "C" {

inline hipfftResult hipfftCreate(hipfftHandle* plan) { return hkfft_nv::result(cufftCreate(plan)); }
inline hipfftResult hipfftDestroy(hipfftHandle plan) { return hkfft_nv::result(cufftDestroy(plan)); }
inline hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch) {
  return hkfft_nv::result(cufftPlan1d(plan, nx, hkfft_nv::type(type), batch));
}
inline hipfftResult hipfftPlan2d(hipfftHandle* plan, int nx, int ny, hipfftType type) {
  return hkfft_nv::result(cufftPlan2d(plan, nx, ny, hkfft_nv::type(type)));
}
inline hipfftResult hipfftPlan3d(hipfftHandle* plan, int nx, int ny, int nz, hipfftType type) {
  return hkfft_nv::result(cufftPlan3d(plan, nx, ny, nz, hkfft_nv::type(type)));
}
inline hipfftResult hipfftPlanMany(hipfftHandle* plan, int rank, int* n, int* inembed, int istride,
                                   int idist, int* onembed, int ostride, int odist, hipfftType type,
                                   int batch) {
  return hkfft_nv::result(cufftPlanMany(plan, rank, n, inembed, istride, idist, onembed, ostride,
                                        odist, hkfft_nv::type(type), batch));
}
// cuFFT has no scale factor.
inline hipfftResult hipfftExtPlanScaleFactor(hipfftHandle, double) { return HIPFFT_NOT_IMPLEMENTED; }
inline hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                     size_t* workSize) {
  return hkfft_nv::result(cufftMakePlan1d(plan, nx, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftMakePlan2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize) {
  return hkfft_nv::result(cufftMakePlan2d(plan, nx, ny, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftMakePlan3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                     size_t* workSize) {
  return hkfft_nv::result(cufftMakePlan3d(plan, nx, ny, nz, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride,
                                       int idist, int* onembed, int ostride, int odist,
                                       hipfftType type, int batch, size_t* workSize) {
  return hkfft_nv::result(cufftMakePlanMany(plan, rank, n, inembed, istride, idist, onembed,
                                            ostride, odist, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftGetSize1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                    size_t* workSize) {
  return hkfft_nv::result(cufftGetSize1d(plan, nx, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftGetSize2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* workSize) {
  return hkfft_nv::result(cufftGetSize2d(plan, nx, ny, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftGetSize3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                    size_t* workSize) {
  return hkfft_nv::result(cufftGetSize3d(plan, nx, ny, nz, hkfft_nv::type(type), workSize));
}
inline hipfftResult hipfftGetSizeMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride,
                                      int idist, int* onembed, int ostride, int odist,
                                      hipfftType type, int batch, size_t* workSize) {
  return hkfft_nv::result(cufftGetSizeMany(plan, rank, n, inembed, istride, idist, onembed, ostride,
                                           odist, hkfft_nv::type(type), batch, workSize));
}
inline hipfftResult hipfftGetSize(hipfftHandle plan, size_t* workSize) {
  return hkfft_nv::result(cufftGetSize(plan, workSize));
}
inline hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int autoAllocate) {
  return hkfft_nv::result(cufftSetAutoAllocation(plan, autoAllocate));
}
inline hipfftResult hipfftSetWorkArea(hipfftHandle plan, void* workArea) {
  return hkfft_nv::result(cufftSetWorkArea(plan, workArea));
}
inline hipfftResult hipfftSetStream(hipfftHandle plan, hipStream_t stream) {
  return hkfft_nv::result(cufftSetStream(plan, stream));
}
inline hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex* idata, hipfftComplex* odata,
                                  int direction) {
  return hkfft_nv::result(cufftExecC2C(plan, hkfft_nv::c(idata), hkfft_nv::c(odata), direction));
}
inline hipfftResult hipfftExecR2C(hipfftHandle plan, hipfftReal* idata, hipfftComplex* odata) {
  return hkfft_nv::result(cufftExecR2C(plan, idata, hkfft_nv::c(odata)));
}
inline hipfftResult hipfftExecC2R(hipfftHandle plan, hipfftComplex* idata, hipfftReal* odata) {
  return hkfft_nv::result(cufftExecC2R(plan, hkfft_nv::c(idata), odata));
}
inline hipfftResult hipfftExecZ2Z(hipfftHandle plan, hipfftDoubleComplex* idata,
                                  hipfftDoubleComplex* odata, int direction) {
  return hkfft_nv::result(cufftExecZ2Z(plan, hkfft_nv::z(idata), hkfft_nv::z(odata), direction));
}
inline hipfftResult hipfftExecD2Z(hipfftHandle plan, hipfftDoubleReal* idata, hipfftDoubleComplex* odata) {
  return hkfft_nv::result(cufftExecD2Z(plan, idata, hkfft_nv::z(odata)));
}
inline hipfftResult hipfftExecZ2D(hipfftHandle plan, hipfftDoubleComplex* idata, hipfftDoubleReal* odata) {
  return hkfft_nv::result(cufftExecZ2D(plan, hkfft_nv::z(idata), odata));
}

}  // extern "C"

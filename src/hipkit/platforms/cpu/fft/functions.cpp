// hipkit's CPU FFT engine: the hipFFT functions made of api.cpp's (plan.h).
#include "plan.h"

using namespace hkfft;

namespace {

// hipfftPlan*: create, then make; a plan that cannot be made is destroyed.
hipfftResult plan_and_make(hipfftHandle* plan, int rank, const int* n, const int* inembed,
                           int istride, int idist, const int* onembed, int ostride, int odist,
                           hipfftType type, int batch) {
  hipfftResult status = hipfftCreate(plan);
  if (status != HIPFFT_SUCCESS) return status;
  status = make(*plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, nullptr);
  if (status != HIPFFT_SUCCESS) {
    hipfftDestroy(*plan);
    *plan = nullptr;
  }
  return status;
}

}  // namespace

HK_FFT_API hipfftResult hipfftPlan1d(hipfftHandle* plan, int nx, hipfftType type, int batch) {
  const hkprovider::ApiCall call("hipfftPlan1d");
  return plan_and_make(plan, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch);
}

HK_FFT_API hipfftResult hipfftPlan2d(hipfftHandle* plan, int nx, int ny, hipfftType type) {
  const hkprovider::ApiCall call("hipfftPlan2d");
  int n[2] = {nx, ny};
  return plan_and_make(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
}

HK_FFT_API hipfftResult hipfftPlan3d(hipfftHandle* plan, int nx, int ny, int nz, hipfftType type) {
  const hkprovider::ApiCall call("hipfftPlan3d");
  int n[3] = {nx, ny, nz};
  return plan_and_make(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1);
}

HK_FFT_API hipfftResult hipfftPlanMany(hipfftHandle* plan, int rank, int* n, int* inembed, int istride,
                                       int idist, int* onembed, int ostride, int odist,
                                       hipfftType type, int batch) {
  const hkprovider::ApiCall call("hipfftPlanMany");
  return plan_and_make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
}

HK_FFT_API hipfftResult hipfftGetSize1d(hipfftHandle plan, int nx, hipfftType type, int batch,
                                        size_t* work) {
  const hkprovider::ApiCall call("hipfftGetSize1d");
  return estimate(plan, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch, work);
}

HK_FFT_API hipfftResult hipfftGetSize2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* work) {
  const hkprovider::ApiCall call("hipfftGetSize2d");
  int n[2] = {nx, ny};
  return estimate(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}

HK_FFT_API hipfftResult hipfftGetSize3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                        size_t* work) {
  const hkprovider::ApiCall call("hipfftGetSize3d");
  int n[3] = {nx, ny, nz};
  return estimate(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}

HK_FFT_API hipfftResult hipfftGetSizeMany(hipfftHandle plan, int rank, int* n, int* inembed, int istride,
                                          int idist, int* onembed, int ostride, int odist,
                                          hipfftType type, int batch, size_t* work) {
  const hkprovider::ApiCall call("hipfftGetSizeMany");
  return estimate(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work);
}

HK_FFT_API hipfftResult hipfftGetSize(hipfftHandle plan, size_t* work) {
  const hkprovider::ApiCall call("hipfftGetSize");
  if (find(plan) == nullptr) return HIPFFT_INVALID_PLAN;
  if (work == nullptr) return HIPFFT_INVALID_VALUE;
  *work = 0;
  return HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftSetStream(hipfftHandle plan, hipStream_t stream) {
  const hkprovider::ApiCall call("hipfftSetStream");
  Plan* p = find(plan);
  if (p == nullptr) return HIPFFT_INVALID_PLAN;
  p->stream = stream;
  return HIPFFT_SUCCESS;
}

// The engine needs no work area (each exec's buffers are its own): a work area given is
// not used, and auto-allocation changes nothing.
HK_FFT_API hipfftResult hipfftSetWorkArea(hipfftHandle plan, void*) {
  const hkprovider::ApiCall call("hipfftSetWorkArea");
  return find(plan) == nullptr ? HIPFFT_INVALID_PLAN : HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int) {
  const hkprovider::ApiCall call("hipfftSetAutoAllocation");
  return find(plan) == nullptr ? HIPFFT_INVALID_PLAN : HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftExecC2C(hipfftHandle plan, hipfftComplex* in, hipfftComplex* out, int direction) {
  const hkprovider::ApiCall call("hipfftExecC2C");
  return exec(plan, HIPFFT_C2C, "hipfftExecC2C", in, out, direction);
}

HK_FFT_API hipfftResult hipfftExecZ2Z(hipfftHandle plan, hipfftDoubleComplex* in, hipfftDoubleComplex* out,
                                      int direction) {
  const hkprovider::ApiCall call("hipfftExecZ2Z");
  return exec(plan, HIPFFT_Z2Z, "hipfftExecZ2Z", in, out, direction);
}

HK_FFT_API hipfftResult hipfftExecR2C(hipfftHandle plan, hipfftReal* in, hipfftComplex* out) {
  const hkprovider::ApiCall call("hipfftExecR2C");
  return exec(plan, HIPFFT_R2C, "hipfftExecR2C", in, out, HIPFFT_FORWARD);
}

HK_FFT_API hipfftResult hipfftExecD2Z(hipfftHandle plan, hipfftDoubleReal* in, hipfftDoubleComplex* out) {
  const hkprovider::ApiCall call("hipfftExecD2Z");
  return exec(plan, HIPFFT_D2Z, "hipfftExecD2Z", in, out, HIPFFT_FORWARD);
}

HK_FFT_API hipfftResult hipfftExecC2R(hipfftHandle plan, hipfftComplex* in, hipfftReal* out) {
  const hkprovider::ApiCall call("hipfftExecC2R");
  return exec(plan, HIPFFT_C2R, "hipfftExecC2R", in, out, HIPFFT_BACKWARD);
}

HK_FFT_API hipfftResult hipfftExecZ2D(hipfftHandle plan, hipfftDoubleComplex* in, hipfftDoubleReal* out) {
  const hkprovider::ApiCall call("hipfftExecZ2D");
  return exec(plan, HIPFFT_Z2D, "hipfftExecZ2D", in, out, HIPFFT_BACKWARD);
}

// The version of the hipFFT whose API the engine follows (api.h), written as hipFFT
// writes its version (ROCm's answers rocFFT's, the library doing its work).
HK_FFT_API hipfftResult hipfftGetVersion(int* version) {
  const hkprovider::ApiCall call("hipfftGetVersion");
  if (version == nullptr) return HIPFFT_INVALID_VALUE;
  *version = hipfftVersionMajor * 10000 + hipfftVersionMinor * 100 + hipfftVersionPatch;
  return HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftGetProperty(hipfftLibraryPropertyType type, int* value) {
  const hkprovider::ApiCall call("hipfftGetProperty");
  if (value == nullptr) return HIPFFT_INVALID_VALUE;
  switch (type) {
    case HIPFFT_MAJOR_VERSION: *value = hipfftVersionMajor; return HIPFFT_SUCCESS;
    case HIPFFT_MINOR_VERSION: *value = hipfftVersionMinor; return HIPFFT_SUCCESS;
    case HIPFFT_PATCH_LEVEL: *value = hipfftVersionPatch; return HIPFFT_SUCCESS;
  }
  return HIPFFT_INVALID_VALUE;
}

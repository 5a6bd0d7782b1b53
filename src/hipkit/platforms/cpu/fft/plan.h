// hipkit's CPU FFT engine, libhipkit_cpu_fft.so: hipFFT's C API for programs built by
// `hipkit cc ... -lhipfft`, on hipkit's own transforms (Python uses scipy.fft).
//
// plan.h: a plan as made (lengths, both layouts, the 1-D plans of each axis);
// execute.cpp: a transform, axis by axis, its lines divided among the device's
// workers; api.cpp: plans, their checks (hipFFT's codes, as ROCm answers them), and
// the work on the runtime's streams; functions.cpp: the rest of hipFFT's functions.

#define HK_FFT_API extern "C" __attribute__((visibility("default")))
#pragma once

#include <hip/hip_runtime_api.h>
#include <hipfft/hipfft.h>

#include <memory>
#include <vector>

#include "real.h"
#include "work.h"

namespace hkfft {

// One side of a plan (input or output): element (b, x0, .., x_{r-1}) at
// b * dist + sum(x_k * stride[k]), in elements of its type.
struct Side {
  long long dist = 0;
  long long stride[3] = {0, 0, 0};
  long long lengths[3] = {1, 1, 1};
};

// The 1-D plans of a precision, one per axis.
template <typename T>
struct Axes {
  std::vector<std::unique_ptr<Plan1D<T>>> complex;  // per axis (c2c, and the real side's others)
  std::unique_ptr<RealPlan<T>> real;                // the last axis of a real transform
};

struct Plan {
  int device = 0;
  hkrt_stream* stream = nullptr;
  bool made = false;
  int rank = 0;
  long long n[3] = {1, 1, 1};
  hipfftType type = HIPFFT_C2C;
  long long batch = 1;
  Side in, out;        // out of place
  Side in_ip, out_ip;  // in place
  bool in_place_ok = false;
  double scale = 1.0;
  int workers = 1;
  Axes<float> single;
  Axes<double> twice;
};

inline bool is_double(hipfftType t) { return t == HIPFFT_Z2Z || t == HIPFFT_D2Z || t == HIPFFT_Z2D; }
inline bool is_r2c(hipfftType t) { return t == HIPFFT_R2C || t == HIPFFT_D2Z; }
inline bool is_c2r(hipfftType t) { return t == HIPFFT_C2R || t == HIPFFT_Z2D; }

// Runs the made plan (its arguments checked); in and out are the data pointers.
void execute(const Plan& plan, const void* in, void* out, bool inverse);

// api.cpp: the live plan of a handle (nullptr: none); make a plan (hipfftMakePlanMany's
// arguments); its work size without making it; check and enqueue an exec.
Plan* find(hipfftHandle handle);
hipfftResult make(hipfftHandle handle, int rank, const int* n, const int* inembed, int istride,
                  int idist, const int* onembed, int ostride, int odist, hipfftType type, int batch,
                  size_t* work);
hipfftResult estimate(hipfftHandle handle, int rank, const int* n, const int* inembed, int istride,
                      int idist, const int* onembed, int ostride, int odist, hipfftType type,
                      int batch, size_t* work);
hipfftResult exec(hipfftHandle handle, hipfftType type, const char* name, const void* in, void* out,
                  int direction);

}  // namespace hkfft

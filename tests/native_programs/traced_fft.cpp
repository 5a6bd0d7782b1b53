// A hipFFT program for `hipkit prof` (tests/test_prof_native.py): a batched complex
// transform of n points, forward and back, on a stream of its own.  Prints the sum
// of the squared magnitudes after the round trip, which the test checks (n times the
// input's, hipFFT's inverse being unnormalized).
#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                  \
  do {                                                               \
    if (!(call)) {                                                   \
      fprintf(stderr, "line %d: %s failed\n", __LINE__, #call);      \
      return 1;                                                      \
    }                                                                \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 16, batch = 3;
  std::vector<hipfftComplex> x(size_t(n) * batch);
  for (size_t i = 0; i < x.size(); ++i) x[i] = {float(i % 7) - 3.0f, float(i % 5) - 2.0f};
  hipfftComplex* d_x = nullptr;
  const size_t bytes = x.size() * sizeof(hipfftComplex);
  CHECK(hipMalloc(&d_x, bytes) == hipSuccess);
  CHECK(hipMemcpy(d_x, x.data(), bytes, hipMemcpyHostToDevice) == hipSuccess);
  hipStream_t stream;
  CHECK(hipStreamCreate(&stream) == hipSuccess);
  hipfftHandle plan;
  CHECK(hipfftPlan1d(&plan, n, HIPFFT_C2C, batch) == HIPFFT_SUCCESS);
  CHECK(hipfftSetStream(plan, stream) == HIPFFT_SUCCESS);
  CHECK(hipfftExecC2C(plan, d_x, d_x, HIPFFT_FORWARD) == HIPFFT_SUCCESS);
  CHECK(hipfftExecC2C(plan, d_x, d_x, HIPFFT_BACKWARD) == HIPFFT_SUCCESS);
  CHECK(hipStreamSynchronize(stream) == hipSuccess);
  CHECK(hipfftDestroy(plan) == HIPFFT_SUCCESS);
  CHECK(hipMemcpy(x.data(), d_x, bytes, hipMemcpyDeviceToHost) == hipSuccess);
  CHECK(hipStreamDestroy(stream) == hipSuccess);
  CHECK(hipFree(d_x) == hipSuccess);
  double sum = 0.0;
  for (const hipfftComplex& v : x) sum += double(v.x) * v.x + double(v.y) * v.y;
  printf("%.9g\n", sum);
  return 0;
}

// A CUDA program that uses cuFFT as CUDA programs do: plans (1-D batched, 2-D, an
// advanced layout), forward and inverse transforms in and out of place, a kernel on
// the same stream, and its own checks against a direct DFT.  hipkit's tests translate
// it with `hipkit hipify` and build it with `hipkit cc -lhipfft`.
//
// Usage: cufft_client [seed]        prints one "... ok" line per check, then PASSED
#include <cuda_runtime.h>
#include <cufft.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      printf("FAILED: %s: %s\n", #call, cudaGetErrorString(err_));             \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CHECK_FFT(call)                                                        \
  do {                                                                         \
    cufftResult r_ = (call);                                                   \
    if (r_ != CUFFT_SUCCESS) {                                                 \
      printf("FAILED: %s: cufftResult %d\n", #call, (int)r_);                  \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static unsigned long long state = 1;
static double uniform() {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return double(state >> 11) / double(1ULL << 53) - 0.5;
}

// The direct DFT of n complex numbers, `xs` apart, into y, `ys` apart (sign -1
// forward, +1 inverse).
static void dft(const cufftDoubleComplex* x, cufftDoubleComplex* y, int n, int xs, int ys, int sign) {
  for (int k = 0; k < n; ++k) {
    double re = 0, im = 0;
    for (int j = 0; j < n; ++j) {
      double a = sign * 2.0 * M_PI * double((long long)j * k % n) / n;
      re += x[j * xs].x * cos(a) - x[j * xs].y * sin(a);
      im += x[j * xs].x * sin(a) + x[j * xs].y * cos(a);
    }
    y[k * ys].x = re;
    y[k * ys].y = im;
  }
}

static void report(const char* what, double err, double tol) {
  if (!(err <= tol)) {
    printf("%s FAILED: error %g > %g\n", what, err, tol);
    exit(1);
  }
  printf("%s ok\n", what);
}

__global__ void scale(cufftComplex* data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i].x *= factor;
    data[i].y *= factor;
  }
}

// 1-D, batched, single precision: forward out of place, inverse in place, a kernel
// normalizing on the same stream; the round trip gives the input back.
static void batched_c2c(cudaStream_t stream) {
  const int n = 360, batch = 5, total = n * batch;
  std::vector<cufftComplex> h(total), back(total);
  for (auto& v : h) v = make_cuFloatComplex(float(uniform()), float(uniform()));
  cufftComplex *a, *b;
  CHECK_CUDA(cudaMalloc(&a, total * sizeof(cufftComplex)));
  CHECK_CUDA(cudaMalloc(&b, total * sizeof(cufftComplex)));
  CHECK_CUDA(cudaMemcpy(a, h.data(), total * sizeof(cufftComplex), cudaMemcpyHostToDevice));
  cufftHandle plan;
  CHECK_FFT(cufftPlan1d(&plan, n, CUFFT_C2C, batch));
  CHECK_FFT(cufftSetStream(plan, stream));
  CHECK_FFT(cufftExecC2C(plan, a, b, CUFFT_FORWARD));
  std::vector<cufftComplex> spectrum(total);
  CHECK_CUDA(cudaMemcpyAsync(spectrum.data(), b, total * sizeof(cufftComplex), cudaMemcpyDeviceToHost, stream));
  CHECK_FFT(cufftExecC2C(plan, b, b, CUFFT_INVERSE));
  scale<<<(total + 255) / 256, 256, 0, stream>>>(b, 1.0f / n, total);
  CHECK_CUDA(cudaMemcpyAsync(back.data(), b, total * sizeof(cufftComplex), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  double err = 0, round = 0;
  std::vector<cufftDoubleComplex> x(n), y(n);
  for (int r = 0; r < batch; ++r) {
    for (int j = 0; j < n; ++j) x[j] = make_cuDoubleComplex(h[r * n + j].x, h[r * n + j].y);
    dft(x.data(), y.data(), n, 1, 1, -1);
    for (int k = 0; k < n; ++k) {
      err = fmax(err, fabs(y[k].x - spectrum[r * n + k].x) + fabs(y[k].y - spectrum[r * n + k].y));
      round = fmax(round, fabs(back[r * n + k].x - h[r * n + k].x) + fabs(back[r * n + k].y - h[r * n + k].y));
    }
  }
  report("c2c 1-D batched forward", err, 1e-3);
  report("c2c 1-D inverse in place, scaled by a kernel", round, 1e-5);
  CHECK_FFT(cufftDestroy(plan));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
}

// 2-D, double precision, real to complex and back (unnormalized: n0 * n1 times).
static void real_2d() {
  const int n0 = 12, n1 = 10, h1 = n1 / 2 + 1;
  std::vector<double> x(n0 * n1), back(n0 * n1);
  for (auto& v : x) v = uniform();
  double* real;
  cufftDoubleComplex* spec;
  CHECK_CUDA(cudaMalloc(&real, x.size() * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&spec, n0 * h1 * sizeof(cufftDoubleComplex)));
  CHECK_CUDA(cudaMemcpy(real, x.data(), x.size() * sizeof(double), cudaMemcpyHostToDevice));
  cufftHandle fwd, inv;
  CHECK_FFT(cufftPlan2d(&fwd, n0, n1, CUFFT_D2Z));
  CHECK_FFT(cufftPlan2d(&inv, n0, n1, CUFFT_Z2D));
  CHECK_FFT(cufftExecD2Z(fwd, real, spec));
  std::vector<cufftDoubleComplex> got(n0 * h1);
  CHECK_CUDA(cudaMemcpy(got.data(), spec, got.size() * sizeof(cufftDoubleComplex), cudaMemcpyDeviceToHost));
  // The direct 2-D DFT: rows, then columns.
  std::vector<cufftDoubleComplex> full(n0 * n1), rows(n0 * n1), want(n0 * n1);
  for (int i = 0; i < n0 * n1; ++i) full[i] = make_cuDoubleComplex(x[i], 0);
  for (int r = 0; r < n0; ++r) dft(&full[r * n1], &rows[r * n1], n1, 1, 1, -1);
  for (int c = 0; c < n1; ++c) dft(&rows[c], &want[c], n0, n1, n1, -1);
  double err = 0;
  for (int r = 0; r < n0; ++r)
    for (int c = 0; c < h1; ++c)
      err = fmax(err, fabs(want[r * n1 + c].x - got[r * h1 + c].x) + fabs(want[r * n1 + c].y - got[r * h1 + c].y));
  report("d2z 2-D", err, 1e-10);
  CHECK_FFT(cufftExecZ2D(inv, spec, real));
  CHECK_CUDA(cudaMemcpy(back.data(), real, x.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double round = 0;
  for (int i = 0; i < n0 * n1; ++i) round = fmax(round, fabs(back[i] / (n0 * n1) - x[i]));
  report("z2d 2-D round trip", round, 1e-12);
  CHECK_FFT(cufftDestroy(fwd));
  CHECK_FFT(cufftDestroy(inv));
  CHECK_CUDA(cudaFree(real));
  CHECK_CUDA(cudaFree(spec));
}

// An advanced layout: 3 transforms of 7 points, each a column of a 7 x 4 row-major
// matrix (stride 4, distance 1), written out densely; then a size cuFFT refuses.
static void strided_and_errors() {
  const int n = 7, cols = 4;
  std::vector<cufftDoubleComplex> h(n * cols), got(n * 3);
  for (auto& v : h) v = make_cuDoubleComplex(uniform(), uniform());
  cufftDoubleComplex *a, *b;
  CHECK_CUDA(cudaMalloc(&a, h.size() * sizeof(cufftDoubleComplex)));
  CHECK_CUDA(cudaMalloc(&b, got.size() * sizeof(cufftDoubleComplex)));
  CHECK_CUDA(cudaMemcpy(a, h.data(), h.size() * sizeof(cufftDoubleComplex), cudaMemcpyHostToDevice));
  int dims[1] = {n}, inembed[1] = {n * cols}, onembed[1] = {n};
  cufftHandle plan;
  CHECK_FFT(cufftPlanMany(&plan, 1, dims, inembed, cols, 1, onembed, 1, n, CUFFT_Z2Z, 3));
  CHECK_FFT(cufftExecZ2Z(plan, a, b, CUFFT_FORWARD));
  CHECK_CUDA(cudaMemcpy(got.data(), b, got.size() * sizeof(cufftDoubleComplex), cudaMemcpyDeviceToHost));
  double err = 0;
  std::vector<cufftDoubleComplex> y(n);
  for (int c = 0; c < 3; ++c) {
    dft(&h[c], y.data(), n, cols, 1, -1);
    for (int k = 0; k < n; ++k) err = fmax(err, fabs(y[k].x - got[c * n + k].x) + fabs(y[k].y - got[c * n + k].y));
  }
  report("z2z strided columns", err, 1e-12);
  CHECK_FFT(cufftDestroy(plan));
  cufftHandle bad;
  cufftResult r = cufftPlan1d(&bad, 0, CUFFT_C2C, 1);
  report("a length of 0 is CUFFT_INVALID_SIZE", r == CUFFT_INVALID_SIZE ? 0 : 1, 0);
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
}

int main(int argc, char** argv) {
  state = argc > 1 ? strtoull(argv[1], nullptr, 10) : 1;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  batched_c2c(stream);
  real_2d();
  strided_and_errors();
  CHECK_CUDA(cudaStreamDestroy(stream));
  printf("PASSED\n");
  return 0;
}

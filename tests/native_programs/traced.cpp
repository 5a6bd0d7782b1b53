// hipkit prof's test program for C++ programs: kernels, copies, a memset,
// allocations and roctx ranges, in amounts given on the command line.
//   traced MODE N LAUNCHES   (MODE: ok, abort, exit7)
#include <roctracer/roctx.h>
#include <roctx.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t error_ = (call);                                                       \
    if (error_ != hipSuccess) {                                                       \
      fprintf(stderr, "%s: %s\n", #call, hipGetErrorString(error_));                  \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

__global__ void scale(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const char* mode = argv[1];
  const int n = atoi(argv[2]), launches = atoi(argv[3]);
  const size_t bytes = size_t(n) * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i % 97), b[i] = float(i % 89);

  float *da, *db, *dc;
  CHECK(hipMalloc(&da, bytes));
  CHECK(hipMalloc(&db, bytes));
  CHECK(hipMalloc(&dc, bytes));
  CHECK(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));

  const int blocks = (n + 255) / 256;
  const int outer = roctxRangePushA("outer");
  for (int k = 0; k < launches; ++k) {
    const int inner = roctxRangePushA("iteration");
    hipLaunchKernelGGL(scale, dim3(blocks), dim3(256), 0, 0, da, 2.0f, n);
    if (roctxRangePop() != inner) return 3;
  }
  roctxMarkA("launched\t1 \\ 2\n");  // a tab, a backslash, a newline: escaped in the trace
  add<<<blocks, 256>>>(da, db, dc, n);
  CHECK(hipDeviceSynchronize());
  const int popped = roctxRangePop();
  const int extra = roctxRangePop();
  printf("levels %d %d %d\n", outer, popped, extra);
  fflush(stdout);
  if (strcmp(mode, "abort") == 0) abort();

  hipStream_t stream;
  CHECK(hipStreamCreate(&stream));
  CHECK(hipMemsetAsync(db, 0, bytes, stream));
  CHECK(hipStreamSynchronize(stream));
  CHECK(hipStreamDestroy(stream));
  const roctx_range_id_t id = roctxRangeStartA("copy back");
  CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));
  roctxRangeStop(id);

  float factor = 1.0f;
  for (int k = 0; k < launches; ++k) factor *= 2.0f;
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] * factor + b[i]) {
      printf("mismatch at %d: %f\n", i, c[i]);
      return 1;
    }
  }
  CHECK(hipFree(da));
  CHECK(hipFree(db));
  CHECK(hipFree(dc));
  printf("ok\n");
  return strcmp(mode, "exit7") == 0 ? 7 : 0;
}

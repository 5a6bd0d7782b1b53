// A 2-D index with the wrong stride: row r of a rows x cols matrix starts at r * rows,
// not r * cols, so with more rows than columns the last rows read past the end (a
// 16 x 8 matrix: rows 8 to 15 of the 8 x 16 block, 64 threads, read out of bounds; the
// first is thread (0,8)).
// EXPECT: Invalid __global__ read of size 8 bytes
// EXPECT: row_stride.hip:{line}
// EXPECT: by thread (0,8,0) in block (0,0,0)
// EXPECT: is 0 bytes after the nearest allocation at 0x
// EXPECT: of size 1024 bytes
// EXPECT: ERROR SUMMARY: 64 errors
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void twice(const double* in, double* out, int rows, int cols) {
  const int c = threadIdx.x, r = threadIdx.y;
  if (r < rows && c < cols) {
    const int at = r * rows + c;  // the bug: r * cols
    const double v = in[at];  // <- the bad reads
    out[r * cols + c] = 2 * v;
  }
}

int main() {
  const int rows = 16, cols = 8;
  double *in, *out;
  hipMalloc(&in, rows * cols * sizeof(double));
  hipMalloc(&out, rows * cols * sizeof(double));
  hipMemset(in, 0, rows * cols * sizeof(double));
  twice<<<1, dim3(cols, rows)>>>(in, out, rows, cols);
  printf("%s\n", hipGetErrorName(hipDeviceSynchronize()));
  return 0;
}

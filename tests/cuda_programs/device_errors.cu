// Device properties and error handling: cudaGetDeviceProperties, cudaDeviceGetAttribute,
// a launch with too many threads and one with too much shared memory (each reported once
// by cudaGetLastError, then cleared), a bad device number, and a good launch afterwards.
//
// usage: device_errors N
//   prints key=value lines: the properties, the error names, and "sum=S", the sum of
//   0..N-1 computed by a kernel after the failed launches.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void iota_sum(unsigned long long* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, (unsigned long long)i);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s N\n", argv[0]);
    return 2;
  }
  const int n = atoi(argv[1]);
  int devices = 0, device = -1, warp_attribute = 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) return 1;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return 1;
  if (cudaDeviceGetAttribute(&warp_attribute, cudaDevAttrWarpSize, device) != cudaSuccess) return 1;
  printf("devices=%d\ndevice=%d\nname_nonempty=%d\n", devices, device, prop.name[0] ? 1 : 0);
  printf("warpSize=%d\nattributeWarpSize=%d\n", prop.warpSize, warp_attribute);
  printf("maxThreadsPerBlock=%d\nmaxThreadsDim0=%d\n", prop.maxThreadsPerBlock, prop.maxThreadsDim[0]);
  printf("sharedMemPerBlock=%zu\nmultiProcessorCount=%d\n", prop.sharedMemPerBlock, prop.multiProcessorCount);
  printf("totalGlobalMem_positive=%d\n", prop.totalGlobalMem > 0);

  unsigned long long* d_sum;
  if (cudaMalloc(&d_sum, sizeof *d_sum) != cudaSuccess) return 1;
  if (cudaMemset(d_sum, 0, sizeof *d_sum) != cudaSuccess) return 1;

  iota_sum<<<1, prop.maxThreadsPerBlock + 1>>>(d_sum, n);
  cudaError_t too_many = cudaGetLastError();
  cudaError_t after_read = cudaGetLastError();
  printf("too_many_threads=%s\nafter_read=%s\n", cudaGetErrorName(too_many), cudaGetErrorName(after_read));
  printf("message_nonempty=%d\n", cudaGetErrorString(too_many)[0] != '\0');

  iota_sum<<<1, 32, prop.sharedMemPerBlock + 1>>>(d_sum, n);
  cudaError_t too_much_shared = cudaGetLastError();
  printf("too_much_shared=%s\n", cudaGetErrorName(too_much_shared));

  cudaError_t bad_device = cudaSetDevice(devices);
  cudaError_t peeked = cudaPeekAtLastError();
  cudaError_t cleared = cudaGetLastError();
  printf("bad_device=%s\npeeked=%s\ncleared=%s\n", cudaGetErrorName(bad_device), cudaGetErrorName(peeked),
         cudaGetErrorName(cleared));

  iota_sum<<<(n + 127) / 128, 128>>>(d_sum, n);
  cudaError_t good = cudaGetLastError();
  unsigned long long sum = 0;
  cudaError_t copied = cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
  printf("good_launch=%s\ncopy=%s\nsum=%llu\n", cudaGetErrorName(good), cudaGetErrorName(copied), sum);
  cudaFree(d_sum);
  return 0;
}

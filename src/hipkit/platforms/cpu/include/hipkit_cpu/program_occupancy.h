// hipkit CPU platform: occupancy of whole programs' kernels (part of program.h):
// the hipOccupancy* family, its templates, and the hipModuleOccupancy* forms.
//
// Computed from the device's properties as a GPU's occupancy calculator does:
// a multiprocessor (a worker thread) holds as many blocks as its limits allow
// (maxBlocksPerMultiProcessor, maxThreadsPerMultiProcessor in whole warps,
// sharedMemPerMultiprocessor), none if the block exceeds the kernel's
// maxThreadsPerBlock (hipFuncGetAttributes) or its shared memory
// sharedMemPerBlock.  On the CPU a worker runs one block at a time, so the
// answer is 1 or 0; the potential block size is the one that keeps the most
// threads resident (the largest on a tie), and the grid enough of those blocks
// for every multiprocessor.
#ifndef HIPKIT_CPU_PROGRAM_OCCUPANCY_H
#define HIPKIT_CPU_PROGRAM_OCCUPANCY_H

#include <algorithm>

#define hipOccupancyDefault 0x00
#define hipOccupancyDisableCachingOverride 0x01

namespace __hk {

// The blocks of `block_size` threads and `dynamic_shared` bytes a multiprocessor holds.
inline hipError_t active_blocks(int* blocks, const hk_kernel_desc* desc, int block_size,
                                size_t dynamic_shared) {
  if (blocks == nullptr || block_size <= 0) return result(hipErrorInvalidValue);
  hkrt_function_attributes a;
  if (hipError_t code = attributes(desc, &a)) return code;
  hipDeviceProp_t p;
  if (hipError_t code = hipGetDeviceProperties(&p, current_device)) return code;
  const size_t shared = a.static_shared_bytes + dynamic_shared;
  *blocks = 0;
  if (static_cast<uint32_t>(block_size) > a.max_threads_per_block || shared > p.sharedMemPerBlock)
    return hipSuccess;
  const int warps = (block_size + p.warpSize - 1) / p.warpSize;
  int fit = p.maxBlocksPerMultiProcessor;
  fit = std::min(fit, p.maxThreadsPerMultiProcessor / (warps * p.warpSize));
  if (shared > 0) fit = std::min(fit, static_cast<int>(p.sharedMemPerMultiprocessor / shared));
  *blocks = fit;
  return hipSuccess;
}

// The block size, from the largest allowed down in whole warps, that keeps the
// most threads resident; `shared(size)` is a block's dynamic shared memory.
template <class Shared>
inline hipError_t potential_block_size(int* grid_size, int* block_size,
                                       const hk_kernel_desc* desc, Shared shared, int limit,
                                       unsigned int flags) {
  if (grid_size == nullptr || block_size == nullptr || limit < 0 ||
      (flags & ~unsigned(hipOccupancyDisableCachingOverride)) != 0)
    return result(hipErrorInvalidValue);
  hkrt_function_attributes a;
  if (hipError_t code = attributes(desc, &a)) return code;
  hipDeviceProp_t p;
  if (hipError_t code = hipGetDeviceProperties(&p, current_device)) return code;
  int size = std::min(static_cast<int>(a.max_threads_per_block), p.maxThreadsPerBlock);
  if (limit > 0) size = std::min(size, limit);
  int best_size = 0, best_blocks = 0;
  for (int s = size; s > 0; s = (s % p.warpSize != 0) ? s / p.warpSize * p.warpSize : s - p.warpSize) {
    int blocks = 0;
    if (hipError_t code = active_blocks(&blocks, desc, s, static_cast<size_t>(shared(s))))
      return code;
    if (blocks * s > best_blocks * best_size) {
      best_size = s;
      best_blocks = blocks;
    }
  }
  *block_size = best_size;
  *grid_size = best_blocks * p.multiProcessorCount;
  return hipSuccess;
}

inline hipError_t occupancy_flags(unsigned int flags) {
  return (flags & ~unsigned(hipOccupancyDisableCachingOverride)) != 0
             ? result(hipErrorInvalidValue)
             : hipSuccess;
}

}  // namespace __hk

// Each takes a kernel (typed: any kernel) or a `const void*` handle to one (a
// kernel some unit registered, or one launched before).
template <class F>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, F kernel,
                                                                        int block_size,
                                                                        size_t dynamic_shared,
                                                                        unsigned int flags) {
  __HK_API_CALL();
  if (hipError_t code = __hk::occupancy_flags(flags)) return code;
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::active_blocks(blocks, desc, block_size, dynamic_shared);
}
template <class F>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F kernel,
                                                               int block_size,
                                                               size_t dynamic_shared) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, kernel, block_size,
                                                               dynamic_shared, 0);
}

template <class UnaryFunction, class F>
inline hipError_t hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* grid_size, int* block_size, F kernel, UnaryFunction block_size_to_dynamic_shared,
    int block_size_limit = 0, unsigned int flags = 0) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::potential_block_size(grid_size, block_size, desc, block_size_to_dynamic_shared,
                                    block_size_limit, flags);
}
template <class UnaryFunction, class F>
inline hipError_t hipOccupancyMaxPotentialBlockSizeVariableSMem(
    int* grid_size, int* block_size, F kernel, UnaryFunction block_size_to_dynamic_shared,
    int block_size_limit = 0) {
  return hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
      grid_size, block_size, kernel, block_size_to_dynamic_shared, block_size_limit, 0);
}
template <class F>
inline hipError_t hipOccupancyMaxPotentialBlockSizeWithFlags(int* grid_size, int* block_size,
                                                             F kernel, size_t dynamic_shared = 0,
                                                             int block_size_limit = 0,
                                                             unsigned int flags = 0) {
  return hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
      grid_size, block_size, kernel, [dynamic_shared](int) { return dynamic_shared; },
      block_size_limit, flags);
}
template <class F>
inline hipError_t hipOccupancyMaxPotentialBlockSize(int* grid_size, int* block_size, F kernel,
                                                    size_t dynamic_shared = 0,
                                                    int block_size_limit = 0) {
  return hipOccupancyMaxPotentialBlockSizeWithFlags(grid_size, block_size, kernel, dynamic_shared,
                                                    block_size_limit, 0);
}

// A module's kernel (hipModuleGetFunction).
inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* blocks, hipFunction_t f, int block_size, size_t dynamic_shared, unsigned int flags) {
  __HK_API_CALL();
  if (hipError_t code = __hk::occupancy_flags(flags)) return code;
  return __hk::active_blocks(blocks, f, block_size, dynamic_shared);
}
inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, hipFunction_t f,
                                                                     int block_size,
                                                                     size_t dynamic_shared) {
  return hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, f, block_size,
                                                                     dynamic_shared, 0);
}
inline hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* grid_size, int* block_size,
                                                                   hipFunction_t f,
                                                                   size_t dynamic_shared,
                                                                   int block_size_limit,
                                                                   unsigned int flags) {
  __HK_API_CALL();
  return __hk::potential_block_size(grid_size, block_size, f,
                                    [dynamic_shared](int) { return dynamic_shared; },
                                    block_size_limit, flags);
}
inline hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* grid_size, int* block_size,
                                                          hipFunction_t f, size_t dynamic_shared,
                                                          int block_size_limit) {
  return hipModuleOccupancyMaxPotentialBlockSizeWithFlags(grid_size, block_size, f,
                                                          dynamic_shared, block_size_limit, 0);
}

#endif  // HIPKIT_CPU_PROGRAM_OCCUPANCY_H

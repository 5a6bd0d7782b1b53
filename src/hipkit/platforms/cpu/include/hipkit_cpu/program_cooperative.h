// hipkit CPU platform: cooperative launches of whole programs (part of program.h):
// hipLaunchCooperativeKernel, whose kernels may call grid.sync()
// (hip/hip_cooperative_groups.h).  Every block of the grid runs at once, one per
// worker thread: hipOccupancyMaxActiveBlocksPerMultiprocessor is 1 for a block that
// fits and multiProcessorCount the device's workers, and a larger grid is
// hipErrorCooperativeLaunchTooLarge, as on a GPU.
#ifndef HIPKIT_CPU_PROGRAM_COOPERATIVE_H
#define HIPKIT_CPU_PROGRAM_COOPERATIVE_H

namespace __hk {

inline hipError_t launch_cooperative(const hk_kernel_desc* desc, const dim3& grid,
                                     const dim3& block, unsigned int shared, hipStream_t stream,
                                     void** args) {
  const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  return result(
      hkrt_launch_cooperative(current(), desc, g, b, shared, stream, args, nullptr, 0));
}

}  // namespace __hk

inline hipError_t hipLaunchCooperativeKernel(const void* kernel, dim3 grid, dim3 block,
                                             void** args, unsigned int shared,
                                             hipStream_t stream) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  return __hk::launch_cooperative(desc, grid, block, shared, stream, args);
}

template <class... P>
inline hipError_t hipLaunchCooperativeKernel(void (*kernel)(P...), dim3 grid, dim3 block,
                                             void** args, unsigned int shared,
                                             hipStream_t stream) {
  __HK_API_CALL();
  const hk_kernel_desc* desc = nullptr;
  if (hipError_t code = __hk::function_of(kernel, &desc)) return code;
  if (args == nullptr && sizeof...(P) > 0) return __hk::result(hipErrorInvalidValue);
  auto function = kernel;
  void* pointers[sizeof...(P) + 1];
  for (size_t i = 0; i < sizeof...(P); ++i) pointers[i] = args[i];
  pointers[sizeof...(P)] = reinterpret_cast<void*>(&function);
  return __hk::launch_cooperative(desc, grid, block, shared, stream, pointers);
}

#endif  // HIPKIT_CPU_PROGRAM_COOPERATIVE_H

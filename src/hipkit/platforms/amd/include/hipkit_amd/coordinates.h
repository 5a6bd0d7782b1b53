// hipkit AMD platform: threadIdx, blockIdx, blockDim, gridDim and dim3 as in
// CUDA and on hipkit's other platforms (part of device.h).
//
// HIP's built-in coordinates are objects whose x, y and z convert to
// unsigned int (a class of their own up to ROCm 6, a property in ROCm 7), and
// convert to dim3 only; HIP's dim3 has no constructor from uint3.  So on HIP,
// `uint3 t = threadIdx;`, passing a uint3 where a dim3 is wanted, and
// `printf("%u", threadIdx.x)` (a class through varargs) go wrong.  hipkit's
// coordinates read the same registers (ROCm's device library: __ockl_*),
// their x, y and z are unsigned ints, and they convert to uint3 and dim3;
// hipkit's dim3 is HIP's with CUDA's constructor from uint3.
#pragma once

extern "C" __device__ __attribute__((const)) size_t __ockl_get_local_id(unsigned int);
extern "C" __device__ __attribute__((const)) size_t __ockl_get_group_id(unsigned int);
extern "C" __device__ __attribute__((const)) size_t __ockl_get_local_size(unsigned int);
extern "C" __device__ __attribute__((const)) size_t __ockl_get_num_groups(unsigned int);

struct __hk_dim3 : dim3 {
  using dim3::dim3;
  constexpr __host__ __device__ __hk_dim3(const dim3& d) : dim3(d) {}
  constexpr __host__ __device__ __hk_dim3(uint3 v) : dim3(v.x, v.y, v.z) {}
};

namespace __hk {

// One of the four: F is the device-library function that reads its registers.
template <size_t (*F)(unsigned int)>
struct coordinates {
  __declspec(property(get = __get_x)) unsigned int x;
  __declspec(property(get = __get_y)) unsigned int y;
  __declspec(property(get = __get_z)) unsigned int z;
  static __device__ __forceinline__ unsigned int __get_x() { return static_cast<unsigned int>(F(0)); }
  static __device__ __forceinline__ unsigned int __get_y() { return static_cast<unsigned int>(F(1)); }
  static __device__ __forceinline__ unsigned int __get_z() { return static_cast<unsigned int>(F(2)); }
  // Through the getters: clang 15 (ROCm 5's hiprtc) crashes on a property read in a template's member.
  __device__ operator uint3() const { return uint3(__get_x(), __get_y(), __get_z()); }
  __device__ operator __hk_dim3() const { return __hk_dim3(__get_x(), __get_y(), __get_z()); }
};

}  // namespace __hk

static constexpr __hk::coordinates<__ockl_get_local_id> __hk_threadIdx{};
static constexpr __hk::coordinates<__ockl_get_group_id> __hk_blockIdx{};
static constexpr __hk::coordinates<__ockl_get_local_size> __hk_blockDim{};
static constexpr __hk::coordinates<__ockl_get_num_groups> __hk_gridDim{};
#define threadIdx __hk_threadIdx
#define blockIdx __hk_blockIdx
#define blockDim __hk_blockDim
#define gridDim __hk_gridDim
#define dim3 __hk_dim3

// hipkit CPU platform: char1 ... double4 and dim3 (part of device.h).
//
// Each vector type is a plain struct with members x, y, z, w, CUDA's size and
// alignment (float2 8, float4 16, double2 16, ...), a trivial default
// constructor (so `__shared__ float4 s[64];` runs no code) and trivially
// copyable.  As in HIP: a one-argument constructor broadcasts, the
// N-argument constructor converts each element (no narrowing errors), and
// the arithmetic operators work element-wise, with a scalar on either side.
// Unlike HIP (like CUDA's aggregates), 2..N-1 arguments zero-fill the rest.
#ifndef HIPKIT_CPU_VECTOR_TYPES_H
#define HIPKIT_CPU_VECTOR_TYPES_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

// The vector types are global here, as CUDA's and HIP's, and so are their
// operators.
#define __HK_VEC_NAMESPACE_BEGIN
#define __HK_VEC_NAMESPACE_END
#include "hipkit_portable/vector_ops.h"
#undef __HK_VEC_NAMESPACE_BEGIN
#undef __HK_VEC_NAMESPACE_END

// CUDA's alignment: rank 1 and 3 as the element, rank 2 twice its size,
// rank 4 four times its size but at most 16.
#define __HK_VEC_ALIGN2(T) (2 * sizeof(T))
#define __HK_VEC_ALIGN4(T) (4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16)

#define __HK_VEC_BROADCAST(name, T, ...)                                       \
  name() = default;                                                            \
  template <class U, __hk::enable_if_arith<U> = 0>                             \
  constexpr name(U s) : __VA_ARGS__ {}

#define __HK_VEC_INFO(name, T, n)                                              \
  namespace __hk {                                                             \
  template <>                                                                  \
  struct vec_info<name> {                                                      \
    using elem = T;                                                            \
    static constexpr int rank = n;                                             \
  };                                                                           \
  }

// base1 ... base4 over element type T; EXTRA3 adds members to base3.
#define __HK_VEC_TYPES(base, T, EXTRA3)                                        \
  struct alignas(sizeof(T)) base##1 {                                          \
    T x;                                                                       \
    __HK_VEC_BROADCAST(base##1, T, x(static_cast<T>(s)))                       \
  };                                                                           \
  struct alignas(__HK_VEC_ALIGN2(T)) base##2 {                                 \
    T x, y;                                                                    \
    __HK_VEC_BROADCAST(base##2, T, x(static_cast<T>(s)), y(static_cast<T>(s))) \
    template <class U0, class U1>                                              \
    constexpr base##2(U0 a, U1 b) : x(static_cast<T>(a)), y(static_cast<T>(b)) {} \
  };                                                                           \
  struct alignas(sizeof(T)) base##3 {                                          \
    T x, y, z;                                                                 \
    __HK_VEC_BROADCAST(base##3, T, x(static_cast<T>(s)), y(static_cast<T>(s)),  \
                       z(static_cast<T>(s)))                                   \
    template <class U0, class U1, class U2 = T>                                \
    constexpr base##3(U0 a, U1 b, U2 c = U2())                                 \
        : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)) {}  \
    EXTRA3                                                                     \
  };                                                                           \
  struct alignas(__HK_VEC_ALIGN4(T)) base##4 {                                 \
    T x, y, z, w;                                                              \
    __HK_VEC_BROADCAST(base##4, T, x(static_cast<T>(s)), y(static_cast<T>(s)),  \
                       z(static_cast<T>(s)), w(static_cast<T>(s)))             \
    template <class U0, class U1, class U2 = T, class U3 = T>                  \
    constexpr base##4(U0 a, U1 b, U2 c = U2(), U3 d = U3())                    \
        : x(static_cast<T>(a)), y(static_cast<T>(b)), z(static_cast<T>(c)),    \
          w(static_cast<T>(d)) {}                                              \
  };                                                                           \
  __HK_FN constexpr base##1 make_##base##1(T x) { return base##1(x); }         \
  __HK_FN constexpr base##2 make_##base##2(T x, T y) { return base##2(x, y); } \
  __HK_FN constexpr base##3 make_##base##3(T x, T y, T z) {                    \
    return base##3(x, y, z);                                                   \
  }                                                                            \
  __HK_FN constexpr base##4 make_##base##4(T x, T y, T z, T w) {               \
    return base##4(x, y, z, w);                                                \
  }                                                                            \
  __HK_VEC_INFO(base##1, T, 1)                                                 \
  __HK_VEC_INFO(base##2, T, 2)                                                 \
  __HK_VEC_INFO(base##3, T, 3)                                                 \
  __HK_VEC_INFO(base##4, T, 4)

// CUDA's char vectors hold signed char (plain char is unsigned on AArch64).
__HK_VEC_TYPES(char, signed char, )
__HK_VEC_TYPES(uchar, unsigned char, )
__HK_VEC_TYPES(short, short, )
__HK_VEC_TYPES(ushort, unsigned short, )
__HK_VEC_TYPES(int, int, )
// uint3 is what threadIdx & co. convert to: `uint3 t = threadIdx;`.
#define __HK_UINT3_FROM_INDEX constexpr uint3(const hk_index3& v) : x(v.x), y(v.y), z(v.z) {}
__HK_VEC_TYPES(uint, unsigned int, __HK_UINT3_FROM_INDEX)
#undef __HK_UINT3_FROM_INDEX
__HK_VEC_TYPES(long, long, )
__HK_VEC_TYPES(ulong, unsigned long, )
__HK_VEC_TYPES(longlong, long long, )
__HK_VEC_TYPES(ulonglong, unsigned long long, )
__HK_VEC_TYPES(float, float, )
__HK_VEC_TYPES(double, double, )

#undef __HK_VEC_TYPES
#undef __HK_VEC_BROADCAST
#undef __HK_VEC_INFO
#undef __HK_VEC_ALIGN2
#undef __HK_VEC_ALIGN4

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(const uint3& v) : x(v.x), y(v.y), z(v.z) {}
  constexpr dim3(const hk_index3& v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3(x, y, z); }
};

#endif  // HIPKIT_CPU_VECTOR_TYPES_H

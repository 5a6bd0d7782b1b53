// hipkit CPU platform: integer, bit-cast and conversion intrinsics, fences,
// clocks and loads (part of device.h).
#ifndef HIPKIT_CPU_DEVICE_INTRINSICS_H
#define HIPKIT_CPU_DEVICE_INTRINSICS_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

#include <cfenv>
#include <ctime>  // C's clock() stays the kernel's clock(); see clock64()

namespace __hk {

// A value the optimizer must treat as unknown: keeps rounding-mode sensitive
// arithmetic between the mode switches, and keeps "_rn" intrinsics from being
// contracted into fused multiply-adds.
template <class T>
__HK_INLINE T opaque(T v) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__("" : "+x"(v));
#elif defined(__aarch64__)
  __asm__("" : "+w"(v));
#else
  __asm__("" : "+m"(v));
#endif
  return v;
}

// Runs f() under a directed rounding mode (FE_TOWARDZERO, FE_UPWARD,
// FE_DOWNWARD); f must launder its operands through opaque_in() so that the
// arithmetic is not moved across the mode switch or constant-folded.
template <class T>
__HK_INLINE T opaque_in(T v) {
  __asm__ __volatile__("" : "+m"(v) : : "memory");
  return v;
}
template <class F>
inline auto rounded(int mode, F f) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  auto r = opaque_in(f());
  std::fesetround(saved);
  return r;
}

// Float-to-integer conversion, truncating, saturating out-of-range values and
// mapping NaN to 0 as the GPU's conversion instructions do.
template <class I, class F>
__HK_INLINE I saturate_to(F v) {
  constexpr bool is_signed = I(-1) < I(0);
  constexpr int bits = int(sizeof(I) * 8);
  constexpr F top = F(1ull << (bits - 1));
  constexpr F hi = is_signed ? top : top * F(2);  // first value out of range
  constexpr F lo = is_signed ? -top : F(0);       // lowest value in range
  constexpr I max = I(is_signed ? (1ull << (bits - 1)) - 1 : ~0ull);
  constexpr I min = is_signed ? I(-max - 1) : I(0);
  // Convert only in-range values (branch-free, so that loops vectorize).
  const I r = static_cast<I>(v >= lo && v < hi ? v : lo);
  return v != v ? I(0) : v >= hi ? max : v < lo ? min : r;
}

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

}  // namespace __hk

// ---- Bit casts ------------------------------------------------------------

__HK_FN constexpr float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__HK_FN constexpr int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__HK_FN constexpr float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__HK_FN constexpr unsigned int __float_as_uint(float x) {
  return __builtin_bit_cast(unsigned int, x);
}
__HK_FN constexpr double __longlong_as_double(long long x) {
  return __builtin_bit_cast(double, x);
}
__HK_FN constexpr long long __double_as_longlong(double x) {
  return __builtin_bit_cast(long long, x);
}
__HK_FN constexpr int __double2hiint(double x) {
  return int(__builtin_bit_cast(unsigned long long, x) >> 32);
}
__HK_FN constexpr int __double2loint(double x) {
  return int(__builtin_bit_cast(unsigned long long, x) & 0xffffffffu);
}
__HK_FN constexpr double __hiloint2double(int hi, int lo) {
  const unsigned long long bits = static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32;
  return __builtin_bit_cast(double, bits | static_cast<unsigned>(lo));
}

// ---- Integer intrinsics ---------------------------------------------------
// Return types are HIP's where HIP and CUDA differ (__popc and __ffs return
// unsigned int, __ffs also takes unsigned).

__HK_FN unsigned int __popc(unsigned int x) { return unsigned(__builtin_popcount(x)); }
__HK_FN unsigned int __popcll(unsigned long long x) { return unsigned(__builtin_popcountll(x)); }
__HK_FN int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
__HK_FN int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
__HK_FN unsigned int __ffs(int x) { return unsigned(__builtin_ffs(x)); }
__HK_FN unsigned int __ffs(unsigned int x) { return unsigned(__builtin_ffs(int(x))); }
__HK_FN unsigned int __ffsll(long long x) { return unsigned(__builtin_ffsll(x)); }
__HK_FN unsigned int __ffsll(unsigned long long x) {
  return unsigned(__builtin_ffsll(static_cast<long long>(x)));
}
// Every 64-bit integer, as in HIP: long and unsigned long (int64_t, uint64_t)
// are types of their own beside long long.
__HK_FN unsigned int __ffsll(long x) { return unsigned(__builtin_ffsll(static_cast<long long>(x))); }
__HK_FN unsigned int __ffsll(unsigned long x) {
  return unsigned(__builtin_ffsll(static_cast<long long>(x)));
}

__HK_FN unsigned int __brev(unsigned int x) {
  x = __builtin_bswap32(x);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  return ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
}
__HK_FN unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(unsigned(x))) << 32) | __brev(unsigned(x >> 32));
}

// Byte i of the result is byte (s >> 4i) & 7 of the eight bytes y:x.
__HK_FN unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((v >> (((s >> (4 * i)) & 7u) * 8)) & 0xffu) << (8 * i);
  return r;
}

__HK_FN int __hadd(int x, int y) { return int((static_cast<long long>(x) + y) >> 1); }
__HK_FN int __rhadd(int x, int y) { return int((static_cast<long long>(x) + y + 1) >> 1); }
__HK_FN unsigned int __uhadd(unsigned int x, unsigned int y) {
  return unsigned((static_cast<unsigned long long>(x) + y) >> 1);
}
__HK_FN unsigned int __urhadd(unsigned int x, unsigned int y) {
  return unsigned((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

// Low 24 bits (sign-extended for __mul24), low 32 bits of the product.
__HK_FN int __mul24(int x, int y) {
  const long long a = static_cast<int>(static_cast<unsigned>(x) << 8) >> 8;
  const long long b = static_cast<int>(static_cast<unsigned>(y) << 8) >> 8;
  return static_cast<int>(static_cast<unsigned>(a * b));
}
__HK_FN unsigned int __umul24(unsigned int x, unsigned int y) {
  return (x & 0xffffffu) * (y & 0xffffffu);
}
__HK_FN int __mulhi(int x, int y) { return int((static_cast<long long>(x) * y) >> 32); }
__HK_FN unsigned int __umulhi(unsigned int x, unsigned int y) {
  return unsigned((static_cast<unsigned long long>(x) * y) >> 32);
}
__HK_FN long long __mul64hi(long long x, long long y) {
  return static_cast<long long>((static_cast<__hk::int128>(x) * y) >> 64);
}
__HK_FN unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<__hk::uint128>(x) * y) >> 64);
}
__HK_FN unsigned int __sad(int x, int y, unsigned int z) {
  return (x > y ? unsigned(x) - unsigned(y) : unsigned(y) - unsigned(x)) + z;
}
__HK_FN unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}

// hi:lo shifted left (upper word kept) or right (lower word kept); the "c"
// forms clamp the shift to 32 instead of taking it modulo 32.
__HK_FN unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return unsigned((v << (shift & 31)) >> 32);
}
__HK_FN unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return unsigned((v << (shift < 32 ? shift : 32)) >> 32);
}
__HK_FN unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return unsigned(v >> (shift & 31));
}
__HK_FN unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return unsigned(v >> (shift < 32 ? shift : 32));
}

#include "hipkit_portable/bits.h"

// -1 as 0xffffffff, as CUDA's __fns.
__HK_FN unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  return unsigned(__fns32(mask, base, offset));
}

// ---- Conversions ----------------------------------------------------------
// Float to integer: rn rounds to nearest even, rz truncates, ru/rd round up
// and down; out-of-range values saturate and NaN gives 0, as the GPU does.
// Integer/double to float: rn is the C++ conversion; rz/ru/rd convert under
// the directed rounding mode.

#define __HK_F2I(from, F, to, I)                                                      \
  __HK_FN I __##from##2##to##_rn(F x) { return __hk::saturate_to<I>(std::nearbyint(x)); } \
  __HK_FN I __##from##2##to##_rz(F x) { return __hk::saturate_to<I>(x); }     \
  __HK_FN I __##from##2##to##_ru(F x) { return __hk::saturate_to<I>(std::ceil(x)); }      \
  __HK_FN I __##from##2##to##_rd(F x) { return __hk::saturate_to<I>(std::floor(x)); }
__HK_F2I(float, float, int, int)
__HK_F2I(float, float, uint, unsigned int)
__HK_F2I(float, float, ll, long long)
__HK_F2I(float, float, ull, unsigned long long)
__HK_F2I(double, double, int, int)
__HK_F2I(double, double, uint, unsigned int)
__HK_F2I(double, double, ll, long long)
__HK_F2I(double, double, ull, unsigned long long)
#undef __HK_F2I

#define __HK_TO_FLOAT(from, I, to, F)                                                \
  __HK_FN F __##from##2##to##_rn(I x) { return static_cast<F>(x); }             \
  __HK_FN F __##from##2##to##_rz(I x) {                                         \
    return __hk::rounded(FE_TOWARDZERO, [x] { return static_cast<F>(__hk::opaque_in(x)); }); \
  }                                                                                 \
  __HK_FN F __##from##2##to##_ru(I x) {                                         \
    return __hk::rounded(FE_UPWARD, [x] { return static_cast<F>(__hk::opaque_in(x)); });     \
  }                                                                                 \
  __HK_FN F __##from##2##to##_rd(I x) {                                         \
    return __hk::rounded(FE_DOWNWARD, [x] { return static_cast<F>(__hk::opaque_in(x)); });   \
  }
__HK_TO_FLOAT(int, int, float, float)
__HK_TO_FLOAT(uint, unsigned int, float, float)
__HK_TO_FLOAT(ll, long long, float, float)
__HK_TO_FLOAT(ull, unsigned long long, float, float)
__HK_TO_FLOAT(ll, long long, double, double)
__HK_TO_FLOAT(ull, unsigned long long, double, double)
__HK_TO_FLOAT(double, double, float, float)
#undef __HK_TO_FLOAT

// Exact conversions: one rounding mode suffices.
__HK_FN double __int2double_rn(int x) { return x; }
__HK_FN double __uint2double_rn(unsigned int x) { return x; }
__HK_FN double __float2double_rn(float x) { return x; }

// ---- Fences, clocks, loads, misc ------------------------------------------

__HK_FN void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__HK_FN void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// A block's threads all run on one worker thread: ordering them needs only
// the compiler's cooperation.
__HK_FN void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// The CPU's cycle-like counter (TSC / CNTVCT).  C's clock() is not replaced:
// a device clock() would clash with <ctime>'s, so kernels calling clock() get
// the process CPU time (it still measures intervals).
__HK_FN long long clock64() {
#if defined(__x86_64__) || defined(__i386__)
  return static_cast<long long>(__builtin_ia32_rdtsc());
#elif defined(__aarch64__)
  unsigned long long v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return static_cast<long long>(v);
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
#endif
}
__HK_FN long long __clock64() { return clock64(); }
__HK_FN long long __clock() { return clock64(); }

// A constant-rate clock in nanoseconds (hipDeviceAttributeWallClockRate is
// 1000000 kHz).
__HK_FN long long wall_clock64() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

// Cache-hinted loads and stores are plain loads and stores on the CPU.
template <class T> __HK_INLINE T __ldg(const T* p) { return *p; }
template <class T> __HK_INLINE T __ldca(const T* p) { return *p; }
template <class T> __HK_INLINE T __ldcg(const T* p) { return *p; }
template <class T> __HK_INLINE T __ldcs(const T* p) { return *p; }
template <class T> __HK_INLINE T __ldlu(const T* p) { return *p; }
template <class T> __HK_INLINE T __ldcv(const T* p) { return *p; }
template <class T> __HK_INLINE void __stwb(T* p, T v) { *p = v; }
template <class T> __HK_INLINE void __stcg(T* p, T v) { *p = v; }
template <class T> __HK_INLINE void __stcs(T* p, T v) { *p = v; }
template <class T> __HK_INLINE void __stwt(T* p, T v) { *p = v; }

// hipErrorLaunchFailure, as a GPU trap.
template <class = void>
[[noreturn]] inline void __trap() { __hk_trap(719, "__trap() called"); }

// A busy-wait hint only: it cannot yield to other threads of the block.
__HK_FN void __nanosleep(unsigned int) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
// AMD's sleep builtin, which HIP code for AMD calls in its wait loops (g++ has no
// such builtin, so the name is free): the same hint.
__HK_FN void __builtin_amdgcn_s_sleep(int) { __nanosleep(0); }

// The calling thread's lane in its warp, from its linear index in the block.
__HK_FN unsigned int __lane_id() {
  return (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) &
         unsigned(warpSize - 1);
}

#include "hipkit_portable/mbcnt.h"

#endif  // HIPKIT_CPU_DEVICE_INTRINSICS_H

// hipkit NVIDIA platform: __half and __half2, the hip_fp16.h API (part of
// device.h).
//
// NVRTC has no cuda_fp16.h without the CUDA toolkit's include directory, so
// the types are hipkit_portable/half.h's, as on the CPU platform, on these
// primitives: conversions and + - * fma are the GPU's f16 instructions (one
// rounding, never contracted).
#pragma once

#include "hipkit_portable/half_raw.h"
#include "hipkit_portable/half_convert.h"

namespace __hk {

// Host code (a program's, under nvcc) converts in software, bit-exact with
// the instructions.
__HK_CONVERT float half_to_float(unsigned short h) {
#ifdef __CUDA_ARCH__
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  return soft::half_to_float(h);
#endif
}

// Directed rounding to half: 0 nearest even, 1 toward zero, 2 up, 3 down.
#define __HK_HALF_FROM_ASM(ptx, constraint)                        \
  unsigned short h;                                                \
  switch (mode) {                                                  \
    case 1:                                                        \
      asm("cvt.rz.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
      break;                                                       \
    case 2:                                                        \
      asm("cvt.rp.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
      break;                                                       \
    case 3:                                                        \
      asm("cvt.rm.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
      break;                                                       \
    default:                                                       \
      asm("cvt.rn.f16." ptx " %0, %1;" : "=h"(h) : constraint(v)); \
  }                                                                \
  return h;
__HK_CONVERT unsigned short to_half(float v, int mode) {
#ifdef __CUDA_ARCH__
  __HK_HALF_FROM_ASM("f32", "f")
#else
  return mode == 0 ? soft::float_to_half(v) : soft::double_to_half_mode(v, mode);
#endif
}
__HK_CONVERT unsigned short to_half(double v, int mode) {
#ifdef __CUDA_ARCH__
  __HK_HALF_FROM_ASM("f64", "d")
#else
  return soft::double_to_half_mode(v, mode);
#endif
}
// Integers, in device code.
#define __HK_HALF_FROM(F, ptx, constraint)          \
  __HK_FN unsigned short to_half(F v, int mode) {   \
    __HK_HALF_FROM_ASM(ptx, constraint)             \
  }
__HK_HALF_FROM(short, "s16", "h")
__HK_HALF_FROM(unsigned short, "u16", "h")
__HK_HALF_FROM(int, "s32", "r")
__HK_HALF_FROM(unsigned int, "u32", "r")
__HK_HALF_FROM(long long, "s64", "l")
__HK_HALF_FROM(unsigned long long, "u64", "l")
#undef __HK_HALF_FROM
#undef __HK_HALF_FROM_ASM

// f16 -> integer, rounding 0 nearest even, 1 toward zero, 2 up, 3 down; the
// instruction saturates and maps NaN to 0, as the CPU platform does.
#define __HK_HALF_TO(I, ptx, constraint)                                 \
  __HK_FN I half_to(unsigned short h, int mode, I*) {                    \
    I r;                                                                 \
    switch (mode) {                                                      \
      case 1:                                                            \
        asm("cvt.rzi." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
        break;                                                           \
      case 2:                                                            \
        asm("cvt.rpi." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
        break;                                                           \
      case 3:                                                            \
        asm("cvt.rmi." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
        break;                                                           \
      default:                                                           \
        asm("cvt.rni." ptx ".f16 %0, %1;" : "=" constraint(r) : "h"(h)); \
    }                                                                    \
    return r;                                                            \
  }
__HK_HALF_TO(short, "s16", "h")
__HK_HALF_TO(unsigned short, "u16", "h")
__HK_HALF_TO(int, "s32", "r")
__HK_HALF_TO(unsigned int, "u32", "r")
__HK_HALF_TO(long long, "s64", "l")
__HK_HALF_TO(unsigned long long, "u64", "l")
#undef __HK_HALF_TO

// Both halves of a __half2 as one 32-bit pattern (x in the low half), as
// f16x2 instructions, shuffles and atomics take them.
__HK_FN unsigned int half2_bits(__half2_raw v) {
  return v.x | static_cast<unsigned int>(v.y) << 16;
}
__HK_FN __half2_raw half2_from_bits(unsigned int v) {
  return __half2_raw{static_cast<unsigned short>(v), static_cast<unsigned short>(v >> 16)};
}

// One f16 instruction, and its f16x2 form for a __half2.
#define __HK_HALF_OP2(name, name2, ptx)                                                \
  __HK_FN unsigned short name(unsigned short a, unsigned short b) {                   \
    unsigned short r;                                                                 \
    asm(ptx ".f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b));                           \
    return r;                                                                         \
  }                                                                                   \
  __HK_FN __half2_raw name2(__half2_raw a, __half2_raw b) {                           \
    unsigned int r;                                                                   \
    asm(ptx ".f16x2 %0, %1, %2;" : "=r"(r) : "r"(half2_bits(a)), "r"(half2_bits(b))); \
    return half2_from_bits(r);                                                        \
  }
#define __HK_HALF_OP3(name, name2, ptx)                                                   \
  __HK_FN unsigned short name(unsigned short a, unsigned short b, unsigned short c) {    \
    unsigned short r;                                                                    \
    asm(ptx ".f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"(c));                  \
    return r;                                                                            \
  }                                                                                      \
  __HK_FN __half2_raw name2(__half2_raw a, __half2_raw b, __half2_raw c) {               \
    unsigned int r;                                                                      \
    asm(ptx ".f16x2 %0, %1, %2, %3;"                                                     \
        : "=r"(r)                                                                        \
        : "r"(half2_bits(a)), "r"(half2_bits(b)), "r"(half2_bits(c)));                   \
    return half2_from_bits(r);                                                           \
  }
__HK_HALF_OP2(hadd, hadd2, "add.rn")
__HK_HALF_OP2(hsub, hsub2, "sub.rn")
__HK_HALF_OP2(hmul, hmul2, "mul.rn")
__HK_HALF_OP2(hadd_sat, hadd2_sat, "add.rn.sat")
__HK_HALF_OP2(hsub_sat, hsub2_sat, "sub.rn.sat")
__HK_HALF_OP2(hmul_sat, hmul2_sat, "mul.rn.sat")
__HK_HALF_OP3(hfma, hfma2, "fma.rn")
__HK_HALF_OP3(hfma_sat, hfma2_sat, "fma.rn.sat")
#undef __HK_HALF_OP2
#undef __HK_HALF_OP3

// hexp10's 10^x (the CPU platform's is float pow).
__HK_FN float half_exp10(float x) { return exp10f(x); }

}  // namespace __hk

#include "hipkit_portable/half.h"

// hipkit: conversions between float or double and half's bit patterns in
// plain integer and float operations, for the CPU platform's kernels and
// programs and NVIDIA programs' host code (their device code has the GPU's
// instructions).  Before including this, the platform defines __HK_CONVERT,
// the qualifiers of a function that host and device code both call.
#pragma once

namespace __hk {
namespace soft {

// Half to float and float to half, bit-exact with the F16C/AVX512-FP16
// instructions (NaNs quieted), written without branches so that loops over
// halves vectorize, which GCC does not do for _Float16 conversions.
__HK_CONVERT float half_to_float(unsigned short h) {
  const unsigned em = (h & 0x7fffu) << 13;  // exponent and mantissa, float-aligned
  const unsigned e = em & 0x0f800000u;
  unsigned bits = em + 0x38000000u;  // rebias 15 -> 127
  // Inf and NaN: maximal exponent, quiet NaN.
  bits = e == 0x0f800000u ? (bits + 0x38000000u) | (em & 0x7fffffu ? 0x400000u : 0u) : bits;
  // Zero and subnormals: m * 2^-24, as (2^-14 + m * 2^-24) - 2^-14.
  const float sub = __builtin_bit_cast(float, bits + 0x00800000u) - 0x1p-14f;
  bits = e == 0 ? __builtin_bit_cast(unsigned, sub) : bits;
  return __builtin_bit_cast(float, bits | static_cast<unsigned>(h & 0x8000u) << 16);
}
// Round to nearest even.
__HK_CONVERT unsigned short float_to_half(float f) {
  const unsigned u = __builtin_bit_cast(unsigned, f);
  const unsigned a = u & 0x7fffffffu;
  // Subnormal or zero result: adding 0.5 rounds to a multiple of 2^-24.
  const float sum = __builtin_bit_cast(float, a) + 0.5f;
  const unsigned sub = __builtin_bit_cast(unsigned, sum) - 0x3f000000u;
  // Normal result: rebias, round on the 13 dropped bits (a carry may reach inf).
  const unsigned norm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  unsigned h = a < 0x38800000u ? sub : norm;
  h = a >= 0x47800000u ? (a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : 0x7c00u) : h;
  return static_cast<unsigned short>(h | ((u >> 16) & 0x8000u));
}

// Round to nearest even from a double, directly (through float would round
// twice).
__HK_CONVERT unsigned short double_to_half(double d) {
  const unsigned long long b = __builtin_bit_cast(unsigned long long, d);
  const unsigned sign = static_cast<unsigned>((b >> 48) & 0x8000u);
  const unsigned long long a = b & 0x7fffffffffffffffull;
  if (a > 0x7ff0000000000000ull)  // NaN, quiet, with its top payload bits
    return static_cast<unsigned short>(sign | 0x7e00u | ((a >> 42) & 0x3ffu));
  const int e = static_cast<int>(a >> 52) - 1023;
  if (e > 15) return static_cast<unsigned short>(sign | 0x7c00u);  // and inf
  if (e < -25) return static_cast<unsigned short>(sign);
  const unsigned long long m = (a & 0xfffffffffffffull) | (1ull << 52);
  const int shift = e >= -14 ? 42 : 42 + (-14 - e);  // bits below the half's last digit
  unsigned long long q = m >> shift;
  const unsigned long long rem = m & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) ++q;
  // A carry out of the significand moves to the next exponent (or to inf).
  const unsigned long long biased = static_cast<unsigned long long>(e + 15) << 10;
  const unsigned long long h = e >= -14 ? biased + (q - 1024) : q;
  return static_cast<unsigned short>(sign | h);
}

// Directed rounding to half (0 nearest even, 1 toward zero, 2 up, 3 down) of
// a value exact in double: round to nearest, then step one half-ulp pattern
// if that went the wrong way.
__HK_CONVERT unsigned short double_to_half_mode(double v, int mode) {
  unsigned short h = double_to_half(v);
  if (mode == 0 || v != v) return h;
  const double r = half_to_float(h);
  const bool need_down = r > v && (mode == 3 || (mode == 1 && v > 0));
  const bool need_up = r < v && (mode == 2 || (mode == 1 && v < 0));
  if (need_down) h = h & 0x8000u ? h + 1 : h == 0 ? 0x8001u : h - 1;
  if (need_up) h = !(h & 0x8000u) ? h + 1 : h == 0x8000u ? 0x0001u : h - 1;
  return h;
}

}  // namespace soft
}  // namespace __hk

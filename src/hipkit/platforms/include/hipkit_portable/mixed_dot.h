// hipkit: HIP's amd_mixed_dot, shared by the CPU and NVIDIA platforms (HIP on AMD
// has it from the dot instructions).  The dot product of a's and b's elements
// plus c, in 32-bit integer arithmetic (or float for __half2); with saturate,
// a result beyond the result type's range is clamped to it (the float form
// clamps to [0, 1], as the instructions' clamp modifier does).  int and
// unsigned operands are eight packed 4-bit elements, signed or unsigned.
// The platform's device.h includes it after its vector types and half.h.
#pragma once

namespace __hk {

__HK_FN int dot_saturate_signed(long long v, bool saturate) {
  if (!saturate) return static_cast<int>(static_cast<unsigned>(v));
  return v > 2147483647LL ? 2147483647 : v < -2147483647LL - 1 ? -2147483647 - 1 : static_cast<int>(v);
}
__HK_FN unsigned dot_saturate_unsigned(unsigned long long v, bool saturate) {
  if (!saturate) return static_cast<unsigned>(v);
  return v > 4294967295ULL ? 4294967295u : static_cast<unsigned>(v);
}

// sum + c, wrapped or clamped, without a wider type (sum is exact in 32 bits).
__HK_FN int dot_add_signed(int sum, int c, bool saturate) {
  const int r = static_cast<int>(static_cast<unsigned>(sum) + static_cast<unsigned>(c));
  if (!saturate || ((sum ^ r) & (c ^ r)) >= 0) return r;
  return sum > 0 ? 2147483647 : -2147483647 - 1;
}
__HK_FN unsigned dot_add_unsigned(unsigned sum, unsigned c, bool saturate) {
  const unsigned r = sum + c;
  return saturate && r < c ? 4294967295u : r;
}

}  // namespace __hk

__HK_FN int amd_mixed_dot(short2 a, short2 b, int c, bool saturate) {
  const long long v = static_cast<long long>(a.x) * b.x + static_cast<long long>(a.y) * b.y + c;
  return __hk::dot_saturate_signed(v, saturate);
}
__HK_FN unsigned amd_mixed_dot(ushort2 a, ushort2 b, unsigned c, bool saturate) {
  const unsigned long long v =
      static_cast<unsigned long long>(a.x) * b.x + static_cast<unsigned long long>(a.y) * b.y + c;
  return __hk::dot_saturate_unsigned(v, saturate);
}
// The byte forms add c in 32-bit arithmetic with an explicit overflow test:
// with the sum widened to 64 bits and clamped, the H200 (NVRTC 13) still gave
// the wrapped result of the char4 form where the clamped one was due.
__HK_FN int amd_mixed_dot(char4 a, char4 b, int c, bool saturate) {
  return __hk::dot_add_signed(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w, c, saturate);
}
__HK_FN unsigned amd_mixed_dot(uchar4 a, uchar4 b, unsigned c, bool saturate) {
  return __hk::dot_add_unsigned(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w, c, saturate);
}
__HK_FN int amd_mixed_dot(int a, int b, int c, bool saturate) {
  long long v = c;
  for (int i = 0; i < 8; ++i) {  // sign-extended nibbles
    const int x = static_cast<int>(static_cast<unsigned>(a) << (28 - 4 * i)) >> 28;
    const int y = static_cast<int>(static_cast<unsigned>(b) << (28 - 4 * i)) >> 28;
    v += x * y;
  }
  return __hk::dot_saturate_signed(v, saturate);
}
__HK_FN unsigned amd_mixed_dot(unsigned a, unsigned b, unsigned c, bool saturate) {
  unsigned long long v = c;
  for (int i = 0; i < 8; ++i) v += ((a >> (4 * i)) & 15u) * ((b >> (4 * i)) & 15u);
  return __hk::dot_saturate_unsigned(v, saturate);
}
__HK_FN float amd_mixed_dot(__half2 a, __half2 b, float c, bool saturate) {
  const float v = __low2float(a) * __low2float(b) + __high2float(a) * __high2float(b) + c;
  return saturate ? (v > 1.0f ? 1.0f : v >= 0.0f ? v : 0.0f) : v;
}

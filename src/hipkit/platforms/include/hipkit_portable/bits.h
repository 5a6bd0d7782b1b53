// hipkit: HIP's bit-field extract and insert, and __fns32/__fns64.
// Plain C++ on HIP's own device API, shared by the CPU and NVIDIA platforms'
// device headers, which define __HK_FN and __HK_INLINE and include this.
#pragma once

// HIP's bit-field extract and insert (offset and width taken modulo 32/64).
__HK_FN unsigned int __bitextract_u32(unsigned int src, unsigned int offset, unsigned int width) {
  offset &= 31;
  width &= 31;
  return width == 0 ? 0u : (src >> offset) & ((1u << width) - 1);
}
__HK_FN unsigned long long __bitextract_u64(unsigned long long src, unsigned int offset,
                                            unsigned int width) {
  offset &= 63;
  width &= 63;
  return width == 0 ? 0ull : (src >> offset) & ((1ull << width) - 1);
}
__HK_FN unsigned int __bitinsert_u32(unsigned int src, unsigned int ins, unsigned int offset,
                                     unsigned int width) {
  offset &= 31;
  const unsigned int mask = (1u << (width & 31)) - 1;
  return (src & ~(mask << offset)) | ((ins & mask) << offset);
}
__HK_FN unsigned long long __bitinsert_u64(unsigned long long src, unsigned long long ins,
                                           unsigned int offset, unsigned int width) {
  offset &= 63;
  const unsigned long long mask = (1ull << (width & 63)) - 1;
  return (src & ~(mask << offset)) | ((ins & mask) << offset);
}

// The position of the |offset|-th set bit of mask counting up (offset > 0) or
// down (offset < 0) from bit base, inclusive; offset 0 asks whether bit base
// itself is set.  -1 if there is no such bit.
__HK_FN int __fns64(unsigned long long mask, unsigned int base, int offset) {
  if (base > 63) return -1;
  if (offset == 0) return (mask >> base) & 1 ? int(base) : -1;
  if (offset > 0) {
    unsigned long long m = mask & (~0ull << base);
    for (int n = 1; m != 0; ++n, m &= m - 1)
      if (n == offset) return int(__ffsll(static_cast<long long>(m))) - 1;
    return -1;
  }
  unsigned long long m = base == 63 ? mask : mask & ((2ull << base) - 1);
  for (int n = -1; m != 0; --n) {
    const int top = 63 - __clzll(static_cast<long long>(m));
    if (n == offset) return top;
    m &= ~(1ull << top);
  }
  return -1;
}
__HK_FN int __fns32(unsigned long long mask, unsigned int base, int offset) {
  return base > 31 ? -1 : __fns64(mask & 0xffffffffull, base, offset);
}

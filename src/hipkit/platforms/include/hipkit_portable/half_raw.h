// hipkit: __half_raw and __half2_raw, the bit patterns the CPU and NVIDIA
// platforms' half primitives work on (before hipkit_portable/half.h).
#pragma once

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

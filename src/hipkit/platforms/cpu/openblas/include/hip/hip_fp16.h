// hipkit's CPU hipBLAS provider: __half as storage only, two bytes; the provider
// converts through _Float16 (see hip_runtime_api.h here).
#pragma once

#include <stdint.h>

struct __half {
  uint16_t bits;
};

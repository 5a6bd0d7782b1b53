// hipkit AMD platform: assert() for kernel code (no include guard: NDEBUG may differ at each inclusion).
#include "hipkit_amd/assert.h"

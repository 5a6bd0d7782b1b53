// hipkit CPU platform: HIP's main header.  Kernel sources compiled by hipkit
// get the device API; whole programs (hipkit cc defines __HIPKIT_PROGRAM__)
// also get the host API, as HIP's hip_runtime.h gives both.
#include "hipkit_cpu/kernel.h"
#ifdef __HIPKIT_PROGRAM__
#include "hipkit_cpu/program.h"
#endif

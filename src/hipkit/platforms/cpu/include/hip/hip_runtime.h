// hipkit CPU platform: HIP's main header, for kernel sources compiled by hipkit.
#include "hipkit_cpu/kernel.h"

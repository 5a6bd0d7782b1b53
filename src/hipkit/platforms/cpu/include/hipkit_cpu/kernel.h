// hipkit CPU platform: included first into every HIP source compiled for the CPU.
//
// HIP's execution-space and memory-space keywords become marker identifiers
// (__hk_global, __hk_device, __hk_shared, __hk_launch_bounds, __hk_noinline) that survive
// preprocessing; hipkit's source transform then rewrites each kernel into a
// block function and removes every marker.  A source compiled without the
// transform therefore fails to build instead of running wrongly.
#ifndef HIPKIT_CPU_KERNEL_H
#define HIPKIT_CPU_KERNEL_H

#include "device.h"
#include "exec.h"

#define __global__ __hk_global
#define __device__ __hk_device
#define __constant__ __hk_device
#define __managed__ __hk_device
#define __shared__ __hk_shared
#define __host__
#define __launch_bounds__(...) __hk_launch_bounds(__VA_ARGS__)
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
// A marker too: libstdc++ 13 writes __attribute__((__noinline__, ...)), where the
// attribute must stay a name; the transform writes what each place needs.
#define __noinline__ __hk_noinline
#define HIP_DYNAMIC_SHARED(type, var) extern __hk_shared type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

// The target ISA and the instruction sets the module needs (hipkit's -D), which
// hipkit reads from the file before loading it (platforms/cpu/isa.py): code for
// a CPU newer than the host's is refused with an error instead of SIGILL.
#ifdef __HK_ISA
__attribute__((used, section(".hipkit_isa"))) static const char __hk_isa[] = __HK_ISA;
#endif

#endif  // HIPKIT_CPU_KERNEL_H

// hipkit CPU platform: the block executor, the support for the block
// functions that hipkit's source transform generates
// (hipkit/platforms/cpu/transform/).  Included by kernel.h, after device.h.
// Nothing here is meant to be called by user code.
//
// - exec_block.h: the block being run, its scratch and per-thread storage;
// - exec_mask.h: the threads taking part in a split kernel's constructs;
// - exec_thread_set.h: the threads a region's `if` selects by threadIdx.x;
// - exec_warp_ops.h: warp and block operations of split kernels;
// - exec_warp_rounds.h: a loop of shuffles folding a variable, in registers;
// - exec_local_atomics.h: atomics on a block's own shared memory;
// - exec_kernel.h: fibers, namespace-scope extern __shared__, a kernel's
//   assert, kernel descriptors.
#ifndef HIPKIT_CPU_EXEC_H
#define HIPKIT_CPU_EXEC_H

#include "exec_block.h"
#include "exec_mask.h"
#include "exec_thread_set.h"
#include "exec_warp_ops.h"
#include "exec_warp_rounds.h"
#include "exec_local_atomics.h"
#include "exec_kernel.h"

#endif  // HIPKIT_CPU_EXEC_H

// hipkit: the host side of MTGP32's device API (hiprand/hiprand_mtgp32_host.h), for
// programs: the parameter sets into the kernels' tables, and the states' seeding.  The
// including header makes hipMemcpy and the device API (rand_mtgp32.h) available.
//
// hiprandMakeMTGP32KernelState(s, params, k, n, seed) seeds state i with parameter set i
// and the 32 bits (seed ^ (seed >> 32)) + i + 1 (__hk_mtgp32_seed), offset 0: cuRAND's
// states, and so its numbers.  n may be 0 to 200 (there are 200 sets; cuRAND reads past
// its table beyond); a bad n or a null pointer is HIPRAND_STATUS_OUT_OF_RANGE or
// HIPRAND_STATUS_NOT_INITIALIZED, a failed copy HIPRAND_STATUS_INITIALIZATION_FAILED.
#pragma once

#include <stdlib.h>

static inline hiprandStatus_t hiprandMakeMTGP32Constants(const mtgp32_params_fast_t params[],
                                                         mtgp32_kernel_params_t* p) {
  if (params == NULL || p == NULL) return HIPRAND_STATUS_NOT_INITIALIZED;
  mtgp32_kernel_params_t* h = (mtgp32_kernel_params_t*)malloc(sizeof(mtgp32_kernel_params_t));
  if (h == NULL) return HIPRAND_STATUS_ALLOCATION_FAILED;
  h->mask[0] = params[0].mask;
  for (int i = 0; i < __HK_MTGP32_SETS; ++i) {
    h->pos_tbl[i] = (unsigned int)params[i].pos;
    h->sh1_tbl[i] = (unsigned int)params[i].sh1;
    h->sh2_tbl[i] = (unsigned int)params[i].sh2;
    for (int j = 0; j < 16; ++j) {
      h->param_tbl[i][j] = params[i].tbl[j];
      h->temper_tbl[i][j] = params[i].tmp_tbl[j];
      h->single_temper_tbl[i][j] = params[i].flt_tmp_tbl[j];
    }
  }
  const hipError_t copied = hipMemcpy(p, h, sizeof(*h), hipMemcpyHostToDevice);
  free(h);
  return copied == hipSuccess ? HIPRAND_STATUS_SUCCESS : HIPRAND_STATUS_INITIALIZATION_FAILED;
}

static inline hiprandStatus_t hiprandMakeMTGP32KernelState(hiprandStateMtgp32_t* s, mtgp32_params_fast_t params[],
                                                           mtgp32_kernel_params_t* k, int n,
                                                           unsigned long long seed) {
  if (n < 0 || n > __HK_MTGP32_SETS) return HIPRAND_STATUS_OUT_OF_RANGE;
  if (n == 0) return HIPRAND_STATUS_SUCCESS;
  if (s == NULL || params == NULL || k == NULL) return HIPRAND_STATUS_NOT_INITIALIZED;
  hiprandStateMtgp32_t* h = (hiprandStateMtgp32_t*)malloc(sizeof(hiprandStateMtgp32_t) * (size_t)n);
  if (h == NULL) return HIPRAND_STATUS_ALLOCATION_FAILED;
  const unsigned int seed32 = (unsigned int)(seed ^ (seed >> 32));
  for (int i = 0; i < n; ++i) {
    __hk_mtgp32_seed(h[i].s, &params[i], seed32 + (unsigned int)i + 1u);
    h[i].offset = 0;
    h[i].pIdx = i;
    h[i].k = k;
  }
  const hipError_t copied = hipMemcpy(s, h, sizeof(hiprandStateMtgp32_t) * (size_t)n, hipMemcpyHostToDevice);
  free(h);
  return copied == hipSuccess ? HIPRAND_STATUS_SUCCESS : HIPRAND_STATUS_INITIALIZATION_FAILED;
}

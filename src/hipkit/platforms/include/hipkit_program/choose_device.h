// hipkit: hipChooseDevice's choice, one rule for the CPU and NVIDIA platforms'
// program headers (which define hipDeviceProp_t first).  Plain C++.
//
// As HIP: each field of `wanted` that is not 0 is a requirement the device meets
// when its own value is at least as large; the device meeting the most wins,
// the lowest-numbered on a tie (so a request of nothing chooses device 0).
#pragma once

namespace __hk_portable {

// How many of the non-zero fields of `wanted` the device `have` meets.
inline int requirements_met(const hipDeviceProp_t& wanted, const hipDeviceProp_t& have) {
  int met = 0;
  auto check = [&](auto want, auto value) {
    if (want != 0 && value >= want) ++met;
  };
  if (wanted.major != 0)  // the version as one number: 8.0 meets 7.5
    check(wanted.major * 100 + wanted.minor, have.major * 100 + have.minor);
  else
    check(wanted.minor, have.minor);
  check(wanted.totalGlobalMem, have.totalGlobalMem);
  check(wanted.sharedMemPerBlock, have.sharedMemPerBlock);
  check(wanted.maxThreadsPerBlock, have.maxThreadsPerBlock);
  check(wanted.totalConstMem, have.totalConstMem);
  check(wanted.multiProcessorCount, have.multiProcessorCount);
  check(wanted.maxThreadsPerMultiProcessor, have.maxThreadsPerMultiProcessor);
  check(wanted.memoryClockRate, have.memoryClockRate);
  check(wanted.memoryBusWidth, have.memoryBusWidth);
  check(wanted.l2CacheSize, have.l2CacheSize);
  check(wanted.regsPerBlock, have.regsPerBlock);
  check(wanted.maxSharedMemoryPerMultiProcessor, have.maxSharedMemoryPerMultiProcessor);
  check(wanted.warpSize, have.warpSize);
  check(wanted.clockRate, have.clockRate);
  return met;
}

// The device of `count` (properties(i, &prop) gives device i's) that meets the
// most requirements, in *device; the first error of properties() otherwise.
template <class Properties>
inline hipError_t choose_device(int* device, const hipDeviceProp_t& wanted, int count,
                                Properties properties) {
  int best = -1, best_met = -1;
  for (int i = 0; i < count; ++i) {
    hipDeviceProp_t have;
    if (hipError_t error = properties(i, &have)) return error;
    const int met = requirements_met(wanted, have);
    if (met > best_met) {
      best = i;
      best_met = met;
    }
  }
  if (best < 0) return hipErrorNoDevice;
  *device = best;
  return hipSuccess;
}

}  // namespace __hk_portable

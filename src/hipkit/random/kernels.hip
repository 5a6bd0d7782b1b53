// hipkit.random's kernels: numbers by hipkit's reproducibility rule (README), from
// Philox4x32-10 through the portable device API (hiprand/hiprand_kernel.h), the same
// code on every platform.
//
// Arithmetic after the numbers is exact or one fused multiply-add (fma: the same
// rounding everywhere, where a compiler may or may not fuse a * b + c).
//
// Element i of a call takes the K numbers at positions offset + i K .. offset + i K + K - 1
// of the stream (seed, subsequence 0).  Thread j makes the elements of the four numbers
// at offset + 4j .. offset + 4j + 3 (one Philox block, two where offset is not a
// multiple of 4), so what an element is does not depend on the launch.  Poisson number
// j is draw j % 4096 of subsequence 1 + j / 4096 (hiprand_poisson), one thread a
// subsequence.
#include <hiprand/hiprand_kernel.h>

enum Kind {
  BITS = 0,        // K 1: the 32-bit number
  FLOAT01 = 1,     // K 1: [0, 1) from its high 24 bits, then fma(high - low, x, low)
  DOUBLE01 = 2,    // K 2: [0, 1) from 53 bits of two numbers (the first's high 27, the second's high 26)
  NORMAL = 3,      // K 1: Box-Muller pairs of two numbers (hiprand_normal2), loc + scale z
  NORMAL_DOUBLE = 4,  // K 2: pairs of four numbers (hiprand_normal2_double)
  INT32 = 5,       // K 1: low + (x range) >> 32, range <= 2^32
  INT64 = 6,       // K 2: low + (v range) >> 64, v = the two numbers as 64 bits
};

// The high 64 bits of a 64 by 64-bit product, in 32-bit halves (no 128-bit integers in NVRTC).
__device__ unsigned long long __hk_mulhi64(unsigned long long a, unsigned long long b) {
  const unsigned long long a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const unsigned long long p01 = a0 * b1, p10 = a1 * b0;
  const unsigned long long mid = ((a0 * b0) >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

// Philox's block `block` of subsequence 0 into r[0..3].
__device__ void __hk_random_block(unsigned long long block, uint2 key, unsigned int* r) {
  const uint4 v = __hk_philox4x32_10(make_uint4((unsigned int)block, (unsigned int)(block >> 32), 0, 0), key);
  r[0] = v.x;
  r[1] = v.y;
  r[2] = v.z;
  r[3] = v.w;
}

// The numbers each element of KIND takes.
template <int KIND> struct Numbers {
  static constexpr unsigned int per = (KIND == DOUBLE01 || KIND == NORMAL_DOUBLE || KIND == INT64) ? 2 : 1;
};

// One kernel per kind (name expressions hk_random<KIND>): the kind is known at compile
// time, so each thread's work is straight-line code the CPU's compiler vectorizes.
template <int KIND>
__global__ void hk_random(unsigned long long seed, unsigned long long offset, unsigned long long n, double low,
                          double high, long long ilow, unsigned long long range, void* out) {
  constexpr unsigned int per = Numbers<KIND>::per, count = 4 / per;
  const uint2 key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  const unsigned int shift = (unsigned int)(offset % 4);
  const unsigned long long words = n * per;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; 4 * j < words;
       j += stride) {
    unsigned int r[8];
    __hk_random_block(offset / 4 + j, key, r);
    if (shift != 0) __hk_random_block(offset / 4 + j + 1, key, r + 4);
    const unsigned int* w = r + shift;
    const unsigned long long first = 4 * j / per;  // this thread's first element
    if (KIND == NORMAL) {  // two pairs; an odd count's last element is the first of its pair
      for (unsigned int p = 0; p < 2 && first + 2 * p < n; ++p) {
        const float2 z = __hk_box_muller(w[2 * p], w[2 * p + 1]);
        float* o = static_cast<float*>(out) + first + 2 * p;
        o[0] = fmaf((float)high, z.x, (float)low);
        if (first + 2 * p + 1 < n) o[1] = fmaf((float)high, z.y, (float)low);
      }
      continue;
    }
    if (KIND == NORMAL_DOUBLE) {  // one pair
      const double2 z = __hk_box_muller_double(w[0], w[1], w[2], w[3]);
      double* o = static_cast<double*>(out) + first;
      o[0] = fma(high, z.x, low);
      if (first + 1 < n) o[1] = fma(high, z.y, low);
      continue;
    }
    for (unsigned int e = 0; e < count && first + e < n; ++e) {
      const unsigned long long i = first + e;
      const unsigned int x = w[e * per], y = w[e * per + per - 1];
      if (KIND == BITS) {
        static_cast<unsigned int*>(out)[i] = x;
      } else if (KIND == FLOAT01) {
        const float u = (float)(x >> 8) * (1.0f / 16777216.0f);
        static_cast<float*>(out)[i] = fmaf((float)high - (float)low, u, (float)low);
      } else if (KIND == DOUBLE01) {
        const double u = ((double)(x >> 5) * 67108864.0 + (double)(y >> 6)) * (1.0 / 9007199254740992.0);
        static_cast<double*>(out)[i] = fma(high - low, u, low);
      } else if (KIND == INT32) {
        static_cast<long long*>(out)[i] = ilow + (long long)(((unsigned long long)x * range) >> 32);
      } else {  // INT64; range 0: all of int64's 2^64 values
        const unsigned long long v = (unsigned long long)y << 32 | x;
        static_cast<long long*>(out)[i] = ilow + (long long)(range == 0 ? v : __hk_mulhi64(v, range));
      }
    }
  }
}

extern "C" __global__ void hk_random_poisson(unsigned long long seed, unsigned long long offset,
                                             unsigned long long n, double lambda, unsigned int* out) {
  const unsigned long long blocks = (offset + n + 4095) / 4096 - offset / 4096;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; t < blocks; t += stride) {
    const unsigned long long b = offset / 4096 + t;
    hiprandStatePhilox4_32_10_t s;
    hiprand_init(seed, 1 + b, 0, &s);
    for (unsigned long long k = b * 4096; k < (b + 1) * 4096 && k < offset + n; ++k) {
      const unsigned int x = hiprand_poisson(&s, lambda);
      if (k >= offset) out[k - offset] = x;
    }
  }
}

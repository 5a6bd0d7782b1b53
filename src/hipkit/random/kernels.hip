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

__device__ unsigned int __hk_random_word(const uint4& a, const uint4& b, unsigned int q) {
  return q < 4 ? __hk_philox_word(a, q) : __hk_philox_word(b, q - 4);
}

extern "C" __global__ void hk_random(unsigned long long seed, unsigned long long offset, unsigned long long n,
                                     int kind, double low, double high, long long ilow,
                                     unsigned long long range, void* out) {
  const uint2 key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  const unsigned int shift = (unsigned int)(offset % 4);
  const unsigned long long per = (kind == DOUBLE01 || kind == NORMAL_DOUBLE || kind == INT64) ? 2 : 1;
  const unsigned long long words = n * per;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; 4 * j < words;
       j += stride) {
    const unsigned long long block = offset / 4 + j;
    const uint4 a = __hk_philox4x32_10(make_uint4((unsigned int)block, (unsigned int)(block >> 32), 0, 0), key);
    uint4 b = a;
    if (shift != 0) {
      const unsigned long long next = block + 1;
      b = __hk_philox4x32_10(make_uint4((unsigned int)next, (unsigned int)(next >> 32), 0, 0), key);
    }
    unsigned int w[4];
    for (unsigned int q = 0; q < 4; ++q) w[q] = __hk_random_word(a, b, q + shift);
    const unsigned long long first = 4 * j / per;  // this thread's first element
    const unsigned int count = (unsigned int)(4 / per);
    for (unsigned int e = 0; e < count && first + e < n; ++e) {
      const unsigned long long i = first + e;
      const unsigned int x = w[e * per], y = per == 2 ? w[e * per + 1] : 0;
      switch (kind) {
        case BITS:
          static_cast<unsigned int*>(out)[i] = x;
          break;
        case FLOAT01: {
          const float u = (float)(x >> 8) * (1.0f / 16777216.0f);
          static_cast<float*>(out)[i] = fmaf((float)high - (float)low, u, (float)low);
          break;
        }
        case DOUBLE01: {
          const double u = ((double)(x >> 5) * 67108864.0 + (double)(y >> 6)) * (1.0 / 9007199254740992.0);
          static_cast<double*>(out)[i] = fma(high - low, u, low);
          break;
        }
        case INT32:
          static_cast<long long*>(out)[i] = ilow + (long long)(((unsigned long long)x * range) >> 32);
          break;
        case INT64: {
          const unsigned long long v = (unsigned long long)y << 32 | x;
          // range 0: all of int64's 2^64 values.
          static_cast<long long*>(out)[i] = ilow + (long long)(range == 0 ? v : __hk_mulhi64(v, range));
          break;
        }
        default:
          break;
      }
    }
    // Normals: loc (low) + scale (high) z, two pairs of floats or one of doubles; an odd
    // count's last element is the first of its pair.
    if (kind == NORMAL) {
      for (unsigned int p = 0; p < 2 && first + 2 * p < n; ++p) {
        const float2 z = __hk_box_muller(w[2 * p], w[2 * p + 1]);
        float* o = static_cast<float*>(out) + first + 2 * p;
        o[0] = fmaf((float)high, z.x, (float)low);
        if (first + 2 * p + 1 < n) o[1] = fmaf((float)high, z.y, (float)low);
      }
    } else if (kind == NORMAL_DOUBLE && first < n) {
      const double2 z = __hk_box_muller_double(w[0], w[1], w[2], w[3]);
      double* o = static_cast<double*>(out) + first;
      o[0] = fma(high, z.x, low);
      if (first + 1 < n) o[1] = fma(high, z.y, low);
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

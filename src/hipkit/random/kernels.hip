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

// Philox's block `block` of subsequence 0.
__device__ uint4 __hk_random_block(unsigned long long block, uint2 key) {
  return __hk_philox4x32_10(make_uint4((unsigned int)block, (unsigned int)(block >> 32), 0, 0), key);
}

// The numbers each element of KIND takes.
template <int KIND> struct Numbers {
  static constexpr unsigned int per = (KIND == DOUBLE01 || KIND == NORMAL_DOUBLE || KIND == INT64) ? 2 : 1;
};

// A thread's elements, stored as one 16-byte-aligned piece where the output allows
// (one vector store on a GPU), else one by one.
template <class T, int N> struct alignas(16) Piece {
  T v[N];
};

template <class T, int N> __device__ void __hk_random_store(T* o, const Piece<T, N>& p) {
  if (((unsigned long long)o & 15) == 0) {
    *reinterpret_cast<Piece<T, N>*>(o) = p;
  } else {
    for (int e = 0; e < N; ++e) o[e] = p.v[e];
  }
}

template <class T, int N> __device__ void __hk_random_put(void* out, unsigned long long first, unsigned long long n,
                                                          const Piece<T, N>& p) {
  T* o = static_cast<T*>(out) + first;
  if (first + N <= n) {
    __hk_random_store(o, p);
  } else {
    for (int e = 0; e < N; ++e)
      if (first + e < n) o[e] = p.v[e];
  }
}

// The elements of KIND from a thread's four numbers, given by value: an array
// indexed at run time would live in a GPU's local memory and keep a CPU's loop
// over threads from vectorizing.
template <int KIND>
__device__ void __hk_random_emit(unsigned int w0, unsigned int w1, unsigned int w2, unsigned int w3,
                                 unsigned long long first, unsigned long long n, double low, double high,
                                 long long ilow, unsigned long long range, void* out) {
  if (KIND == BITS) {
    __hk_random_put(out, first, n, Piece<unsigned int, 4>{{w0, w1, w2, w3}});
  } else if (KIND == FLOAT01) {
    const float lo = (float)low, span = (float)high - (float)low, unit = 1.0f / 16777216.0f;
    __hk_random_put(out, first, n,
                    Piece<float, 4>{{fmaf(span, (float)(w0 >> 8) * unit, lo), fmaf(span, (float)(w1 >> 8) * unit, lo),
                                     fmaf(span, (float)(w2 >> 8) * unit, lo), fmaf(span, (float)(w3 >> 8) * unit, lo)}});
  } else if (KIND == DOUBLE01) {
    const double a = ((double)(w0 >> 5) * 67108864.0 + (double)(w1 >> 6)) * (1.0 / 9007199254740992.0);
    const double b = ((double)(w2 >> 5) * 67108864.0 + (double)(w3 >> 6)) * (1.0 / 9007199254740992.0);
    __hk_random_put(out, first, n, Piece<double, 2>{{fma(high - low, a, low), fma(high - low, b, low)}});
  } else if (KIND == NORMAL) {  // two pairs; an odd count's last element is the first of its pair
    const float2 a = __hk_box_muller(w0, w1), b = __hk_box_muller(w2, w3);
    const float s = (float)high, l = (float)low;
    __hk_random_put(out, first, n,
                    Piece<float, 4>{{fmaf(s, a.x, l), fmaf(s, a.y, l), fmaf(s, b.x, l), fmaf(s, b.y, l)}});
  } else if (KIND == NORMAL_DOUBLE) {  // one pair
    const double2 z = __hk_box_muller_double(w0, w1, w2, w3);
    __hk_random_put(out, first, n, Piece<double, 2>{{fma(high, z.x, low), fma(high, z.y, low)}});
  } else if (KIND == INT32) {
    __hk_random_put(out, first, n,
                    Piece<long long, 4>{{ilow + (long long)(((unsigned long long)w0 * range) >> 32),
                                         ilow + (long long)(((unsigned long long)w1 * range) >> 32),
                                         ilow + (long long)(((unsigned long long)w2 * range) >> 32),
                                         ilow + (long long)(((unsigned long long)w3 * range) >> 32)}});
  } else {  // INT64; range 0: all of int64's 2^64 values
    const unsigned long long a = (unsigned long long)w1 << 32 | w0, b = (unsigned long long)w3 << 32 | w2;
    __hk_random_put(out, first, n,
                    Piece<long long, 2>{{ilow + (long long)(range == 0 ? a : __hk_mulhi64(a, range)),
                                         ilow + (long long)(range == 0 ? b : __hk_mulhi64(b, range))}});
  }
}

// One kernel per kind (name expressions hk_random<KIND>): the kind is known at compile
// time, so each thread's work is straight-line code the CPU's compiler vectorizes.
template <int KIND>
__global__ void hk_random(unsigned long long seed, unsigned long long offset, unsigned long long n, double low,
                          double high, long long ilow, unsigned long long range, void* out) {
  constexpr unsigned int per = Numbers<KIND>::per;
  const uint2 key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  const unsigned int shift = (unsigned int)(offset % 4);
  const unsigned long long words = n * per, base = offset / 4;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; 4 * j < words;
       j += stride) {
    const unsigned long long first = 4 * j / per;  // this thread's first element
    const uint4 a = __hk_random_block(base + j, key);
    if (shift == 0) {
      __hk_random_emit<KIND>(a.x, a.y, a.z, a.w, first, n, low, high, ilow, range, out);
    } else {  // the four numbers straddle two blocks
      const uint4 b = __hk_random_block(base + j + 1, key);
      if (shift == 1)
        __hk_random_emit<KIND>(a.y, a.z, a.w, b.x, first, n, low, high, ilow, range, out);
      else if (shift == 2)
        __hk_random_emit<KIND>(a.z, a.w, b.x, b.y, first, n, low, high, ilow, range, out);
      else
        __hk_random_emit<KIND>(a.w, b.x, b.y, b.z, first, n, low, high, ilow, range, out);
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

// hipkit AMD platform: the CUDA and HIP-CPU names hipkit's kernel language
// has and HIP on AMD lacks (part of device.h).
#pragma once

__HK_FN unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__HK_FN unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__HK_FN long long llmin(long long a, long long b) { return a < b ? a : b; }
__HK_FN long long llmax(long long a, long long b) { return a > b ? a : b; }
__HK_FN unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__HK_FN unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
__HK_FN float saturate(float x) { return __saturatef(x); }
__HK_FN double __float2double_rn(float x) { return x; }

// -1 as 0xffffffff, as CUDA's __fns.
__HK_FN unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  return unsigned(__fns32(mask, base, offset));
}

// A hint, as on the CPU platform: the wavefront sleeps a short while (s_sleep
// takes a constant), not the time asked for.
__HK_FN void __nanosleep(unsigned int) { __builtin_amdgcn_s_sleep(1); }

// __ffsll of long and unsigned long (int64_t and uint64_t here), which HIP's
// long long overloads make ambiguous: templates, so that an exact overload HIP
// gains one day is chosen over them.
template <class T, typename __hk::enable_if<__hk::is_same<T, long>::value ||
                                               __hk::is_same<T, unsigned long>::value,
                                           int>::type = 0>
__HK_INLINE unsigned int __ffsll(T x) {
  return __ffsll(static_cast<unsigned long long>(x));
}

// HIP's double division by name (fdividef is clang's).
__HK_FN double fdivide(double x, double y) { return x / y; }

// hipkit: what kernel code takes from the C library, for the GPU platforms'
// compilers, which have no C library headers (NVRTC, and hiprtc under
// -nostdinc): fixed-width integers, limits, floating-point constants.  Part
// of the NVIDIA and AMD platforms' libc.h, which first declare what their
// compiler lacks of int32_t, int64_t & co.: those differ between the two
// (see there).  The CPU platform has the host's C library.
//
// Literals, not the compilers' predefined macros (__INT_MAX__ & co.), which
// NVRTC lacks; they are usable in #if.  Each group is guarded: under nvcc
// (hipkit_nvidia_program/device.h) the real C library came first.
#pragma once

typedef signed char int8_t;
typedef short int16_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef int8_t int_least8_t, int_fast8_t;
typedef int16_t int_least16_t, int_fast16_t;
typedef int32_t int_least32_t, int_fast32_t;
typedef int64_t int_least64_t, int_fast64_t;
typedef uint8_t uint_least8_t, uint_fast8_t;
typedef uint16_t uint_least16_t, uint_fast16_t;
typedef uint32_t uint_least32_t, uint_fast32_t;
typedef uint64_t uint_least64_t, uint_fast64_t;
typedef ptrdiff_t intptr_t;
typedef size_t uintptr_t;
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;

#ifndef CHAR_BIT
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-LONG_MAX - 1L)
#ifdef __LP64__
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#else
#define LONG_MAX 2147483647L
#define ULONG_MAX 4294967295UL
#endif
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#endif

#ifndef INT8_MIN
#define INT8_MIN SCHAR_MIN
#define INT8_MAX SCHAR_MAX
#define UINT8_MAX UCHAR_MAX
#define INT16_MIN SHRT_MIN
#define INT16_MAX SHRT_MAX
#define UINT16_MAX USHRT_MAX
#define INT32_MIN INT_MIN
#define INT32_MAX INT_MAX
#define UINT32_MAX UINT_MAX
#define INT64_MIN (-INT64_MAX - 1)
#define INT64_MAX 0x7fffffffffffffffLL
#define UINT64_MAX 0xffffffffffffffffULL
#define INTPTR_MIN PTRDIFF_MIN
#define INTPTR_MAX PTRDIFF_MAX
#define UINTPTR_MAX SIZE_MAX
#ifdef __LP64__
#define SIZE_MAX 18446744073709551615UL
#define PTRDIFF_MAX 9223372036854775807L
#else
#define SIZE_MAX 4294967295U
#define PTRDIFF_MAX 2147483647
#endif
#define PTRDIFF_MIN (-PTRDIFF_MAX - 1)
#endif

#ifndef FLT_MAX
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX 3.40282347e+38F
#define FLT_MIN 1.17549435e-38F
#define FLT_EPSILON 1.19209290e-7F
#define FLT_TRUE_MIN 1.40129846e-45F
#define DBL_MAX 1.7976931348623157e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-16
#define DBL_TRUE_MIN 4.9406564584124654e-324
#endif

#ifndef INFINITY
#define INFINITY __builtin_bit_cast(float, 0x7f800000U)
#define NAN __builtin_bit_cast(float, 0x7fc00000U)
#define HUGE_VALF INFINITY
#define HUGE_VAL __builtin_bit_cast(double, 0x7ff0000000000000ULL)
#endif

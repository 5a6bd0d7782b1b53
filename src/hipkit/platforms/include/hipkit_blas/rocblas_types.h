// hipkit: rocBLAS's types and enums, for rocBLAS's C API on the platforms that serve
// hipBLAS themselves (hipkit_blas/rocblas_api.h).  The values are rocBLAS's own
// (rocblas-types.h), so that a program that prints or stores them sees what it sees on
// ROCm; hipkit_blas/rocblas_api.h converts them to hipBLAS's.
#pragma once

#include <math.h>
#include <stdint.h>

#include <complex>

// __HK_HOST_DEVICE: the platform's marks of what host and device code both call (none
// on the CPU, whose headers pass its transform untouched).
#include <hip/hip_runtime.h>

typedef struct _rocblas_handle* rocblas_handle;

// rocblas_ILP64 is rocBLAS's 64-bit build; hipBLAS's routines here take int.
typedef int32_t rocblas_int;
typedef int64_t rocblas_stride;
typedef float rocblas_float;
typedef double rocblas_double;

// rocBLAS's half and bfloat16 are their bit patterns (`data`), the layout of __half and
// of bfloat16.
typedef struct rocblas_half {
  uint16_t data;
} rocblas_half;

// As rocBLAS's C++ type: explicit from float (rounded to nearest even, NaN kept NaN),
// implicitly to float.
struct rocblas_bfloat16 {
  uint16_t data;

  rocblas_bfloat16() = default;
  explicit __HK_HOST_DEVICE rocblas_bfloat16(float f) : data(from_float(f)) {}
  __HK_HOST_DEVICE operator float() const {
    union {
      uint32_t u;
      float f;
    } v = {uint32_t(data) << 16};
    return v.f;
  }

 private:
  static __HK_HOST_DEVICE uint16_t from_float(float f) {
    union {
      float f;
      uint32_t u;
    } v = {f};
    if ((v.u & 0x7fffffffu) > 0x7f800000u) return uint16_t((v.u >> 16) | 0x40u);
    return uint16_t((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);
  }
};

// rocBLAS's complex numbers.  As rocBLAS does for hipcc's C++, a class with complex
// arithmetic (not float2, whose operators are element-wise: z * w would be wrong), with
// the layout of hipFloatComplex and hipDoubleComplex, whose pointers
// hipkit_blas/rocblas_api.h converts.  With ROCM_MATHLIBS_API_USE_HIP_COMPLEX, as in
// rocBLAS, they are hipFloatComplex and hipDoubleComplex themselves.
#if defined(ROCM_MATHLIBS_API_USE_HIP_COMPLEX)
typedef hipFloatComplex rocblas_float_complex;
typedef hipDoubleComplex rocblas_double_complex;
#else
template <typename T>
class rocblas_complex_num {
  T x, y;  // private, as in rocBLAS: real() and imag() read them

 public:
  using value_type = T;

  rocblas_complex_num() = default;
  __HK_HOST_DEVICE constexpr rocblas_complex_num(T r, T i) : x(r), y(i) {}
  __HK_HOST_DEVICE constexpr rocblas_complex_num(T r) : x(r), y(0) {}
  __HK_HOST_DEVICE constexpr rocblas_complex_num(const std::complex<T>& z)
      : x(z.real()), y(z.imag()) {}
  template <typename U>
  __HK_HOST_DEVICE explicit constexpr rocblas_complex_num(const rocblas_complex_num<U>& z)
      : x(T(z.real())), y(T(z.imag())) {}
  __HK_HOST_DEVICE constexpr operator std::complex<T>() const { return {x, y}; }

  __HK_HOST_DEVICE constexpr T real() const { return x; }
  __HK_HOST_DEVICE constexpr T imag() const { return y; }
  __HK_HOST_DEVICE void real(T r) { x = r; }
  __HK_HOST_DEVICE void imag(T i) { y = i; }

  __HK_HOST_DEVICE rocblas_complex_num& operator+=(const rocblas_complex_num& w) {
    x += w.x;
    y += w.y;
    return *this;
  }
  __HK_HOST_DEVICE rocblas_complex_num& operator-=(const rocblas_complex_num& w) {
    x -= w.x;
    y -= w.y;
    return *this;
  }
  __HK_HOST_DEVICE rocblas_complex_num& operator*=(const rocblas_complex_num& w) {
    T r = x * w.x - y * w.y;
    y = x * w.y + y * w.x;
    x = r;
    return *this;
  }
  // Smith's division: no overflow for large parts of w.
  __HK_HOST_DEVICE rocblas_complex_num& operator/=(const rocblas_complex_num& w) {
    T ar = w.x < 0 ? -w.x : w.x, ai = w.y < 0 ? -w.y : w.y;
    T r, i;
    if (ar >= ai) {
      T q = w.y / w.x, d = w.x + w.y * q;
      r = (x + y * q) / d;
      i = (y - x * q) / d;
    } else {
      T q = w.x / w.y, d = w.x * q + w.y;
      r = (x * q + y) / d;
      i = (y * q - x) / d;
    }
    x = r;
    y = i;
    return *this;
  }

  __HK_HOST_DEVICE friend rocblas_complex_num operator+(rocblas_complex_num a,
                                                           const rocblas_complex_num& b) {
    return a += b;
  }
  __HK_HOST_DEVICE friend rocblas_complex_num operator-(rocblas_complex_num a,
                                                           const rocblas_complex_num& b) {
    return a -= b;
  }
  __HK_HOST_DEVICE friend rocblas_complex_num operator*(rocblas_complex_num a,
                                                           const rocblas_complex_num& b) {
    return a *= b;
  }
  __HK_HOST_DEVICE friend rocblas_complex_num operator/(rocblas_complex_num a,
                                                           const rocblas_complex_num& b) {
    return a /= b;
  }
  __HK_HOST_DEVICE friend constexpr rocblas_complex_num operator-(const rocblas_complex_num& a) {
    return {-a.x, -a.y};
  }
  __HK_HOST_DEVICE friend constexpr rocblas_complex_num operator+(const rocblas_complex_num& a) {
    return a;
  }
  __HK_HOST_DEVICE friend constexpr bool operator==(const rocblas_complex_num& a,
                                                       const rocblas_complex_num& b) {
    return a.x == b.x && a.y == b.y;
  }
  __HK_HOST_DEVICE friend constexpr bool operator!=(const rocblas_complex_num& a,
                                                       const rocblas_complex_num& b) {
    return !(a == b);
  }
};

typedef rocblas_complex_num<float> rocblas_float_complex;
typedef rocblas_complex_num<double> rocblas_double_complex;

// std::real, std::imag, std::conj, std::abs and std::norm of them, as rocBLAS gives.
namespace std {
template <typename T>
__HK_HOST_DEVICE constexpr T real(const rocblas_complex_num<T>& z) {
  return z.real();
}
template <typename T>
__HK_HOST_DEVICE constexpr T imag(const rocblas_complex_num<T>& z) {
  return z.imag();
}
template <typename T>
__HK_HOST_DEVICE constexpr rocblas_complex_num<T> conj(const rocblas_complex_num<T>& z) {
  return {z.real(), -z.imag()};
}
template <typename T>
__HK_HOST_DEVICE T norm(const rocblas_complex_num<T>& z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <typename T>
__HK_HOST_DEVICE T abs(const rocblas_complex_num<T>& z) {
  return hypot(z.real(), z.imag());
}
}  // namespace std
#endif

typedef enum rocblas_operation_ {
  rocblas_operation_none = 111,
  rocblas_operation_transpose = 112,
  rocblas_operation_conjugate_transpose = 113,
} rocblas_operation;

typedef enum rocblas_fill_ {
  rocblas_fill_upper = 121,
  rocblas_fill_lower = 122,
  rocblas_fill_full = 123,
} rocblas_fill;

typedef enum rocblas_diagonal_ {
  rocblas_diagonal_non_unit = 131,
  rocblas_diagonal_unit = 132,
} rocblas_diagonal;

typedef enum rocblas_side_ {
  rocblas_side_left = 141,
  rocblas_side_right = 142,
  rocblas_side_both = 143,
} rocblas_side;

typedef enum rocblas_datatype_ {
  rocblas_datatype_f16_r = 150,
  rocblas_datatype_f32_r = 151,
  rocblas_datatype_f64_r = 152,
  rocblas_datatype_f16_c = 153,
  rocblas_datatype_f32_c = 154,
  rocblas_datatype_f64_c = 155,
  rocblas_datatype_i8_r = 160,
  rocblas_datatype_u8_r = 161,
  rocblas_datatype_i32_r = 162,
  rocblas_datatype_u32_r = 163,
  rocblas_datatype_i8_c = 164,
  rocblas_datatype_u8_c = 165,
  rocblas_datatype_i32_c = 166,
  rocblas_datatype_u32_c = 167,
  rocblas_datatype_bf16_r = 168,
  rocblas_datatype_bf16_c = 169,
  rocblas_datatype_f8_r = 170,
  rocblas_datatype_bf8_r = 171,
  rocblas_datatype_invalid = 255,
} rocblas_datatype;

// rocblas_gemm_ex3's compute types (the Ex forms here take a rocblas_datatype).
typedef enum rocblas_computetype_ {
  rocblas_compute_type_f32 = 300,
  rocblas_compute_type_f8_f8_f32 = 301,
  rocblas_compute_type_f8_bf8_f32 = 302,
  rocblas_compute_type_bf8_f8_f32 = 303,
  rocblas_compute_type_bf8_bf8_f32 = 304,
  rocblas_compute_type_invalid = 455,
} rocblas_computetype;

typedef enum rocblas_status_ {
  rocblas_status_success = 0,
  rocblas_status_invalid_handle = 1,
  rocblas_status_not_implemented = 2,
  rocblas_status_invalid_pointer = 3,
  rocblas_status_invalid_size = 4,
  rocblas_status_memory_error = 5,
  rocblas_status_internal_error = 6,
  rocblas_status_perf_degraded = 7,
  rocblas_status_size_query_mismatch = 8,
  rocblas_status_size_increased = 9,
  rocblas_status_size_unchanged = 10,
  rocblas_status_invalid_value = 11,
  rocblas_status_continue = 12,
  rocblas_status_check_numerics_fail = 13,
  rocblas_status_excluded_from_build = 14,
  rocblas_status_arch_mismatch = 15,
} rocblas_status;

typedef enum rocblas_pointer_mode_ {
  rocblas_pointer_mode_host = 0,
  rocblas_pointer_mode_device = 1,
} rocblas_pointer_mode;

typedef enum rocblas_atomics_mode_ {
  rocblas_atomics_not_allowed = 0,
  rocblas_atomics_allowed = 1,
} rocblas_atomics_mode;

typedef enum rocblas_math_mode_ {
  rocblas_default_math = 0,
  rocblas_xf32_xdl_math_op = 1,
} rocblas_math_mode;

typedef enum rocblas_gemm_algo_ {
  rocblas_gemm_algo_standard = 0x0,
  rocblas_gemm_algo_solution_index = 0x1,
} rocblas_gemm_algo;

typedef enum rocblas_gemm_flags_ {
  rocblas_gemm_flags_none = 0x0,
  rocblas_gemm_flags_use_cu_efficiency = 0x2,
  rocblas_gemm_flags_fp16_alt_impl = 0x4,
  rocblas_gemm_flags_check_solution_index = 0x8,
  rocblas_gemm_flags_fp16_alt_impl_rnz = 0x10,
  rocblas_gemm_flags_stochastic_rounding = 0x20,
} rocblas_gemm_flags;

// hipBLAS's gemm family on OpenBLAS: gemm, its batched and strided batched forms, for
// S, D, C, Z and H (half), and the Ex forms typed by hipDataType and
// hipblasComputeType_t.
//
// One template serves them all: the inputs' element type, the output's and the
// scalars'.  Float, double and complex matrices go to OpenBLAS's ?gemm as they are;
// half and bfloat16 ones (OpenBLAS has no half gemm, and bfloat16 only in some builds)
// are widened to float, multiplied by sgemm and rounded back: the products and sums
// are float's, as hipBLAS's 32F compute types say.  A batch is one ?gemm per matrix
// (OpenBLAS threads each).
#include <vector>

#include "provider.h"

namespace hkblas {

float to_float(hipblasHalf h) {
  _Float16 f;
  memcpy(&f, &h, sizeof f);
  return float(f);
}

float to_float(bf16 b) {
  const uint32_t bits = uint32_t(b.bits) << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

namespace {

template <class T> T from_float(float f);
template <> hipblasHalf from_float<hipblasHalf>(float f) {
  const _Float16 h = static_cast<_Float16>(f);  // rounded to nearest even
  hipblasHalf out;
  memcpy(&out, &h, sizeof out);
  return out;
}
template <> bf16 from_float<bf16>(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return bf16{uint16_t((bits >> 16) | 0x40)};  // NaN, quiet
  bits += 0x7fffu + ((bits >> 16) & 1u);  // to nearest, ties to even
  return bf16{uint16_t(bits >> 16)};
}

// A column-major rows x cols matrix of T as floats (leading dimension rows), and back.
template <class T> void widen(const T* src, int ld, int rows, int cols, float* dst) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) dst[size_t(j) * rows + i] = to_float(src[int64_t(j) * ld + i]);
}
template <class T> void narrow(const float* src, int rows, int cols, T* dst, int ld) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) dst[int64_t(j) * ld + i] = from_float<T>(src[size_t(j) * rows + i]);
}

template <class T>
constexpr bool native = std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex<T>;

// One product: C = alpha op(A) op(B) + beta C, inputs In, output Out, scalars S.
template <class In, class Out, class S>
void product(int ta, int tb, int m, int n, int k, S alpha, const In* A, int lda, const In* B,
             int ldb, S beta, Out* C, int ldc) {
  ta = cblas_op<In>(ta);
  tb = cblas_op<In>(tb);
  if constexpr (native<In> && std::is_same_v<In, Out> && std::is_same_v<In, S>) {
    HK_CBLAS(In, gemm)(kColMajor, ta, tb, m, n, k, arg(alpha), A, ld1(lda), B, ld1(ldb), arg(beta),
                       C, ldc);
  } else {
    const int ra = ta == HIPBLAS_OP_N ? m : k, ca = ta == HIPBLAS_OP_N ? k : m;
    const int rb = tb == HIPBLAS_OP_N ? k : n, cb = tb == HIPBLAS_OP_N ? n : k;
    std::vector<float> a(size_t(ra) * ca), b(size_t(rb) * cb);
    widen(A, lda, ra, ca, a.data());
    widen(B, ldb, rb, cb, b.data());
    const float fa = to_float(alpha), fb = to_float(beta);
    if constexpr (std::is_same_v<Out, float>) {
      HK_CB(sgemm)(kColMajor, ta, tb, m, n, k, fa, a.data(), ld1(ra), b.data(), ld1(rb), fb, C, ldc);
    } else {
      std::vector<float> c(size_t(m) * n);
      if (fb != 0) widen(C, ldc, m, n, c.data());  // beta == 0: C is not read (BLAS's rule)
      HK_CB(sgemm)(kColMajor, ta, tb, m, n, k, fa, a.data(), ld1(ra), b.data(), ld1(rb), fb,
                   c.data(), m);
      narrow(c.data(), m, n, C, ldc);
    }
  }
}

// Where the matrices of a call are: one (batch 1) or a strided batch, or a device array
// of pointers (read when the work runs: device memory is host memory on the CPU).
template <class P> struct Strided {
  P base;
  int64_t stride;
  P at(int i) const { return base + i * stride; }
  bool null() const { return base == nullptr; }
};
template <class P> struct Listed {
  P const* list;
  P at(int i) const { return list[i]; }
  bool null() const { return list == nullptr; }
};

// The family: hipBLAS's enum conversions (trans, and the algorithm of the Ex forms),
// then rocblas_gemm_arg_check: m, n, k, batch >= 0; lda, ldb, ldc at least the rows
// of A, B and C as stored; m == 0, n == 0 or batch == 0 is a quick return (k == 0 is
// not: C is still scaled by beta); beta must be given; in host mode beta == 1 with
// k == 0 or alpha == 0 is a quick return, C must be given, and A, B and alpha unless
// k == 0 or alpha == 0.
template <class In, class Out, class S, class MA, class MB, class MC>
hipblasStatus_t gemm_family(const char* name, hipblasHandle_t handle, int ta, int tb, int m, int n,
                            int k, const S* alpha, MA A, int lda, MB B, int ldb, const S* beta,
                            MC C, int ldc, int batch, bool algo_ok = true) {
  HK_CHECK(enums_then_handle(handle, {is_operation(ta), is_operation(tb), algo_ok}));
  const Handle& h = *handle_of(handle);
  if (m < 0 || n < 0 || k < 0 || batch < 0) return HIPBLAS_STATUS_INVALID_VALUE;
  if ((ta == HIPBLAS_OP_N ? m : k) > lda || (tb == HIPBLAS_OP_N ? k : n) > ldb || m > ldc)
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return HIPBLAS_STATUS_SUCCESS;
  if (beta == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  if (host_mode(h)) {
    if (is_one(*beta)) {
      if (k == 0) return HIPBLAS_STATUS_SUCCESS;
      if (alpha == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
      if (is_zero(*alpha)) return HIPBLAS_STATUS_SUCCESS;
    }
    const bool ab_missing = alpha == nullptr || (!is_zero(*alpha) && (A.null() || B.null()));
    if (C.null() || (k != 0 && ab_missing)) return HIPBLAS_STATUS_INVALID_VALUE;
  } else if (C.null() || (k != 0 && (alpha == nullptr || A.null() || B.null()))) {
    return HIPBLAS_STATUS_INVALID_VALUE;
  }
  const Scalar<S> a = capture(h, alpha), b = capture(h, beta);
  return enqueue(h, name, [=] {
    const S av = a.get(), bv = b.get();
    for (int i = 0; i < batch; ++i)
      product<In, Out, S>(ta, tb, m, n, k, av, A.at(i), lda, B.at(i), ldb, bv, C.at(i), ldc);
  });
}

template <class T> Strided<T*> one(T* p) { return {p, 0}; }
template <class T> Strided<T*> strided(T* p, int64_t stride) { return {p, stride}; }
template <class T> Listed<T*> listed(T* const* list) { return {list}; }

// ---- the Ex forms ---------------------------------------------------------------

template <class T> struct Type {
  using type = T;
};

// Calls `body(Type<In>, Type<Out>, Type<S>)` for a supported combination of the
// matrices' types and the compute type, else answers HIPBLAS_STATUS_NOT_SUPPORTED,
// before any other check (hipBLAS's hipblasInternalGemmExTypes).  hipBLAS's
// combinations, with cuBLAS's pedantic and fast twins of their compute types (every
// one computes in float or double here): float and complex float with any 32F
// compute type; double and complex double with 64F; half in, half or float out, with
// 32F (scalars float) or, half out, 16F (scalars half); bfloat16 in, bfloat16 or
// float out, with 32F.  Int8 is not supported (OpenBLAS has no integer gemm).
template <class F>
hipblasStatus_t ex_types(hipDataType a, hipDataType b, hipDataType c, hipblasComputeType_t compute,
                         F body) {
  const bool c16 = compute == HIPBLAS_COMPUTE_16F || compute == HIPBLAS_COMPUTE_16F_PEDANTIC;
  const bool c32 = compute == HIPBLAS_COMPUTE_32F || compute == HIPBLAS_COMPUTE_32F_PEDANTIC;
  const bool c32_any = c32 || compute == HIPBLAS_COMPUTE_32F_FAST_16F ||
                       compute == HIPBLAS_COMPUTE_32F_FAST_16BF ||
                       compute == HIPBLAS_COMPUTE_32F_FAST_TF32;
  const bool c64 = compute == HIPBLAS_COMPUTE_64F || compute == HIPBLAS_COMPUTE_64F_PEDANTIC;
  if (a != b) return HIPBLAS_STATUS_NOT_SUPPORTED;
  if (a == HIP_R_32F && c == HIP_R_32F && c32_any) return body(Type<float>(), Type<float>(), Type<float>());
  if (a == HIP_R_64F && c == HIP_R_64F && c64) return body(Type<double>(), Type<double>(), Type<double>());
  if (a == HIP_C_32F && c == HIP_C_32F && c32_any)
    return body(Type<hipComplex>(), Type<hipComplex>(), Type<hipComplex>());
  if (a == HIP_C_64F && c == HIP_C_64F && c64)
    return body(Type<hipDoubleComplex>(), Type<hipDoubleComplex>(), Type<hipDoubleComplex>());
  if (a == HIP_R_16F && c == HIP_R_16F && c16)
    return body(Type<hipblasHalf>(), Type<hipblasHalf>(), Type<hipblasHalf>());
  if (a == HIP_R_16F && c == HIP_R_16F && c32) return body(Type<hipblasHalf>(), Type<hipblasHalf>(), Type<float>());
  if (a == HIP_R_16F && c == HIP_R_32F && c32) return body(Type<hipblasHalf>(), Type<float>(), Type<float>());
  if (a == HIP_R_16BF && c == HIP_R_16BF && c32) return body(Type<bf16>(), Type<bf16>(), Type<float>());
  if (a == HIP_R_16BF && c == HIP_R_32F && c32) return body(Type<bf16>(), Type<float>(), Type<float>());
  return HIPBLAS_STATUS_NOT_SUPPORTED;
}

// The matrices of an Ex call, typed: `make(pointer, stride)` of each side.
#define HK_EX(make_a, make_b, make_c)                                                            \
  ex_types(aType, bType, cType, computeType, [&](auto in, auto out, auto scalar) {               \
    using In = typename decltype(in)::type;                                                      \
    using Out = typename decltype(out)::type;                                                    \
    using S = typename decltype(scalar)::type;                                                   \
    return gemm_family<In, Out, S>(NAME, handle, transA, transB, m, n, k,                        \
                                   static_cast<const S*>(alpha), make_a, lda, make_b, ldb,        \
                                   static_cast<const S*>(beta), make_c, ldc, BATCH,              \
                                   algo == HIPBLAS_GEMM_DEFAULT);                                \
  })

}  // namespace
}  // namespace hkblas

using namespace hkblas;
using C32 = hipComplex;
using C64 = hipDoubleComplex;
using H = hipblasHalf;

#define HK_GEMM_HEAD hipblasHandle_t handle, hipblasOperation_t transA, hipblasOperation_t transB, \
                     int m, int n, int k
#define HK_GEMM(name, T)                                                                         \
  HK_DEFINE(name, (HK_GEMM_HEAD, const T* alpha, const T* A, int lda, const T* B, int ldb,       \
                   const T* beta, T* C, int ldc),                                               \
            gemm_family<T, T, T>(NAME, handle, transA, transB, m, n, k, alpha, one(A), lda,      \
                                 one(B), ldb, beta, one(C), ldc, 1))
HK_GEMM(hipblasHgemm, H)
HK_GEMM(hipblasSgemm, float)
HK_GEMM(hipblasDgemm, double)
HK_GEMM(hipblasCgemm, C32)
HK_GEMM(hipblasZgemm, C64)

#define HK_GEMM_BATCHED(name, T)                                                                 \
  HK_DEFINE(name, (HK_GEMM_HEAD, const T* alpha, const T* const A[], int lda,                    \
                   const T* const B[], int ldb, const T* beta, T* const C[], int ldc,            \
                   int batchCount),                                                             \
            gemm_family<T, T, T>(NAME, handle, transA, transB, m, n, k, alpha, listed(A), lda,   \
                                 listed(B), ldb, beta, listed(C), ldc, batchCount))
HK_GEMM_BATCHED(hipblasHgemmBatched, H)
HK_GEMM_BATCHED(hipblasSgemmBatched, float)
HK_GEMM_BATCHED(hipblasDgemmBatched, double)
HK_GEMM_BATCHED(hipblasCgemmBatched, C32)
HK_GEMM_BATCHED(hipblasZgemmBatched, C64)

#define HK_GEMM_STRIDED(name, T)                                                                 \
  HK_DEFINE(name, (HK_GEMM_HEAD, const T* alpha, const T* A, int lda, hipblasStride strideA,     \
                   const T* B, int ldb, hipblasStride strideB, const T* beta, T* C, int ldc,     \
                   hipblasStride strideC, int batchCount),                                      \
            gemm_family<T, T, T>(NAME, handle, transA, transB, m, n, k, alpha,                   \
                                 strided(A, strideA), lda, strided(B, strideB), ldb, beta,       \
                                 strided(C, strideC), ldc, batchCount))
HK_GEMM_STRIDED(hipblasHgemmStridedBatched, H)
HK_GEMM_STRIDED(hipblasSgemmStridedBatched, float)
HK_GEMM_STRIDED(hipblasDgemmStridedBatched, double)
HK_GEMM_STRIDED(hipblasCgemmStridedBatched, C32)
HK_GEMM_STRIDED(hipblasZgemmStridedBatched, C64)

#define BATCH 1
HK_DEFINE(hipblasGemmEx,
          (HK_GEMM_HEAD, const void* alpha, const void* A, hipDataType aType, int lda,
           const void* B, hipDataType bType, int ldb, const void* beta, void* C, hipDataType cType,
           int ldc, hipblasComputeType_t computeType, hipblasGemmAlgo_t algo),
          HK_EX(one(static_cast<const In*>(A)), one(static_cast<const In*>(B)),
                one(static_cast<Out*>(C))))
#undef BATCH

#define BATCH batchCount
HK_DEFINE(hipblasGemmBatchedEx,
          (HK_GEMM_HEAD, const void* alpha, const void* A[], hipDataType aType, int lda,
           const void* B[], hipDataType bType, int ldb, const void* beta, void* C[],
           hipDataType cType, int ldc, int batchCount, hipblasComputeType_t computeType,
           hipblasGemmAlgo_t algo),
          HK_EX(listed(reinterpret_cast<const In* const*>(A)),
                listed(reinterpret_cast<const In* const*>(B)),
                listed(reinterpret_cast<Out* const*>(C))))

HK_DEFINE(hipblasGemmStridedBatchedEx,
          (HK_GEMM_HEAD, const void* alpha, const void* A, hipDataType aType, int lda,
           hipblasStride strideA, const void* B, hipDataType bType, int ldb, hipblasStride strideB,
           const void* beta, void* C, hipDataType cType, int ldc, hipblasStride strideC,
           int batchCount, hipblasComputeType_t computeType, hipblasGemmAlgo_t algo),
          HK_EX(strided(static_cast<const In*>(A), strideA),
                strided(static_cast<const In*>(B), strideB), strided(static_cast<Out*>(C), strideC)))
#undef BATCH

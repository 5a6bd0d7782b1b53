// hipkit: rocBLAS's gemm_ex, gemm_batched_ex and gemm_strided_batched_ex on hipBLAS's
// GemmEx forms (part of hipkit_blas/rocblas_api.h).
//
// rocBLAS computes D = alpha op(A) op(B) + beta C with D apart from C; hipBLAS computes in
// place in C.  Where D is not C, C is first copied to D on the handle's stream (so the
// copy is ordered with the product), then hipBLAS computes in D.  rocBLAS's datatypes
// become hipDataType, its compute type (a rocblas_datatype) hipBLAS's compute type; what
// hipBLAS has no form of is rocblas_status_not_implemented.  The algorithm's solution
// index chooses among rocBLAS's own kernels: only the default (an index <= 0) is here, and
// the flags, which are hints to rocBLAS's kernels, are accepted and change nothing.
#pragma once

#include <vector>

namespace __hk_rocblas {

// hipBLAS's datatype and the element's size, or false where hipBLAS has none.
inline bool data_type(rocblas_datatype t, hipDataType* type, size_t* size) {
  struct entry {
    rocblas_datatype roc;
    hipDataType hip;
    size_t size;
  };
  static constexpr entry table[] = {
      {rocblas_datatype_f16_r, HIP_R_16F, 2},  {rocblas_datatype_f32_r, HIP_R_32F, 4},
      {rocblas_datatype_f64_r, HIP_R_64F, 8},  {rocblas_datatype_f16_c, HIP_C_16F, 4},
      {rocblas_datatype_f32_c, HIP_C_32F, 8},  {rocblas_datatype_f64_c, HIP_C_64F, 16},
      {rocblas_datatype_i8_r, HIP_R_8I, 1},    {rocblas_datatype_u8_r, HIP_R_8U, 1},
      {rocblas_datatype_i32_r, HIP_R_32I, 4},  {rocblas_datatype_u32_r, HIP_R_32U, 4},
      {rocblas_datatype_i8_c, HIP_C_8I, 2},    {rocblas_datatype_u8_c, HIP_C_8U, 2},
      {rocblas_datatype_i32_c, HIP_C_32I, 8},  {rocblas_datatype_u32_c, HIP_C_32U, 8},
      {rocblas_datatype_bf16_r, HIP_R_16BF, 2}, {rocblas_datatype_bf16_c, HIP_C_16BF, 4},
  };
  for (const entry& e : table) {
    if (e.roc == t) {
      *type = e.hip;
      *size = e.size;
      return true;
    }
  }
  return false;
}

// hipBLAS's compute type for rocBLAS's (complex products compute in their real type's
// precision, as cuBLAS's and hipBLAS's compute types say), or false where it has none.
inline bool compute_type(rocblas_datatype t, hipblasComputeType_t* out) {
  switch (t) {
    case rocblas_datatype_f16_r:
      *out = HIPBLAS_COMPUTE_16F;
      return true;
    case rocblas_datatype_f32_r:
    case rocblas_datatype_f32_c:
      *out = HIPBLAS_COMPUTE_32F;
      return true;
    case rocblas_datatype_f64_r:
    case rocblas_datatype_f64_c:
      *out = HIPBLAS_COMPUTE_64F;
      return true;
    case rocblas_datatype_i32_r:
      *out = HIPBLAS_COMPUTE_32I;
      return true;
    default:
      return false;
  }
}

// One Ex call's problem, as hipBLAS takes it.
struct gemm_ex_types {
  hipDataType a, b, c;
  hipblasComputeType_t compute;
  size_t c_size;  // bytes of an element of C and D
};

// rocBLAS's checks of a gemm_ex call, in its order (rocblas_status_continue: compute;
// success: nothing to compute), and hipBLAS's types for it.
inline rocblas_status gemm_ex_arguments(rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,
                                        rocblas_int m, rocblas_int n, rocblas_int k, const void* alpha,
                                        rocblas_datatype a_type, rocblas_int lda, rocblas_datatype b_type,
                                        rocblas_int ldb, const void* beta, const void* c, rocblas_datatype c_type,
                                        rocblas_int ldc, const void* d, rocblas_datatype d_type, rocblas_int ldd,
                                        rocblas_int batch_count, rocblas_datatype compute,
                                        rocblas_gemm_algo algo, int32_t solution_index, gemm_ex_types* types) {
  if (!handle) return rocblas_status_invalid_handle;
  for (rocblas_operation t : {transA, transB}) {
    if (t != rocblas_operation_none && t != rocblas_operation_transpose &&
        t != rocblas_operation_conjugate_transpose)
      return rocblas_status_invalid_value;
  }
  if (m < 0 || n < 0 || k < 0 || batch_count < 0) return rocblas_status_invalid_size;
  if (ldc < m || ldd < m || lda < (transA == rocblas_operation_none ? m : k) ||
      ldb < (transB == rocblas_operation_none ? k : n))
    return rocblas_status_invalid_size;
  if (c == d && ldc != ldd) return rocblas_status_invalid_size;
  if (c == d && c_type != d_type) return rocblas_status_invalid_value;
  if (algo != rocblas_gemm_algo_standard && algo != rocblas_gemm_algo_solution_index)
    return rocblas_status_invalid_value;
  if (algo == rocblas_gemm_algo_solution_index && solution_index > 0) return rocblas_status_invalid_value;
  if (m == 0 || n == 0 || batch_count == 0) return rocblas_status_success;
  if ((k && !alpha) || !beta || !d) return rocblas_status_invalid_pointer;
  size_t a_size, b_size;
  // hipBLAS writes the type it reads: D's type must be C's.
  if (c_type != d_type || !data_type(a_type, &types->a, &a_size) || !data_type(b_type, &types->b, &b_size) ||
      !data_type(c_type, &types->c, &types->c_size) || !compute_type(compute, &types->compute))
    return rocblas_status_not_implemented;
  return rocblas_status_continue;
}

// The stream the handle's work is queued on.
inline hipStream_t stream_of(rocblas_handle handle) {
  hipStream_t stream = nullptr;
  hipblasGetStream(hip(handle), &stream);
  return stream;
}

inline rocblas_status copy_c_to_d(const void* c, rocblas_int ldc, void* d, rocblas_int ldd, rocblas_int m,
                                  rocblas_int n, size_t size, hipStream_t stream) {
  return copy_2d(c, size * size_t(ldc), d, size * size_t(ldd), size * size_t(m), size_t(n),
                 hipMemcpyDeviceToDevice, stream);
}

}  // namespace __hk_rocblas

extern "C" {

inline rocblas_status rocblas_gemm_ex(rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,
                                      rocblas_int m, rocblas_int n, rocblas_int k, const void* alpha, const void* a,
                                      rocblas_datatype a_type, rocblas_int lda, const void* b,
                                      rocblas_datatype b_type, rocblas_int ldb, const void* beta, const void* c,
                                      rocblas_datatype c_type, rocblas_int ldc, void* d, rocblas_datatype d_type,
                                      rocblas_int ldd, rocblas_datatype compute_type, rocblas_gemm_algo algo,
                                      int32_t solution_index, uint32_t flags) {
  (void)flags;
  __hk_rocblas::gemm_ex_types t;
  rocblas_status s = __hk_rocblas::gemm_ex_arguments(handle, transA, transB, m, n, k, alpha, a_type, lda, b_type,
                                                     ldb, beta, c, c_type, ldc, d, d_type, ldd, 1, compute_type,
                                                     algo, solution_index, &t);
  if (s != rocblas_status_continue) return s;
  if (c && c != d) {
    s = __hk_rocblas::copy_c_to_d(c, ldc, d, ldd, m, n, t.c_size, __hk_rocblas::stream_of(handle));
    if (s != rocblas_status_success) return s;
  }
  return __hk_rocblas::status(hipblasGemmEx(__hk_rocblas::hip(handle), __hk_rocblas::hip(transA),
                                            __hk_rocblas::hip(transB), m, n, k, alpha, a, t.a, lda, b, t.b, ldb,
                                            beta, d, t.c, ldd, t.compute, HIPBLAS_GEMM_DEFAULT));
}

// a, b, c and d are device arrays of batch_count pointers to matrices.
inline rocblas_status rocblas_gemm_batched_ex(rocblas_handle handle, rocblas_operation transA,
                                              rocblas_operation transB, rocblas_int m, rocblas_int n, rocblas_int k,
                                              const void* alpha, const void* a, rocblas_datatype a_type,
                                              rocblas_int lda, const void* b, rocblas_datatype b_type,
                                              rocblas_int ldb, const void* beta, const void* c,
                                              rocblas_datatype c_type, rocblas_int ldc, void* d,
                                              rocblas_datatype d_type, rocblas_int ldd, rocblas_int batch_count,
                                              rocblas_datatype compute_type, rocblas_gemm_algo algo,
                                              int32_t solution_index, uint32_t flags) {
  (void)flags;
  __hk_rocblas::gemm_ex_types t;
  rocblas_status s = __hk_rocblas::gemm_ex_arguments(handle, transA, transB, m, n, k, alpha, a_type, lda, b_type,
                                                     ldb, beta, c, c_type, ldc, d, d_type, ldd, batch_count,
                                                     compute_type, algo, solution_index, &t);
  if (s != rocblas_status_continue) return s;
  if (c && c != d) {
    // The matrices' addresses are in device memory: read them first (the stream's work
    // before may write them), then queue each matrix's copy.
    hipStream_t stream = __hk_rocblas::stream_of(handle);
    std::vector<const void*> cs(batch_count);
    std::vector<void*> ds(batch_count);
    size_t bytes = sizeof(void*) * size_t(batch_count);
    if (hipMemcpyAsync(cs.data(), c, bytes, hipMemcpyDeviceToHost, stream) != hipSuccess ||
        hipMemcpyAsync(ds.data(), d, bytes, hipMemcpyDeviceToHost, stream) != hipSuccess ||
        hipStreamSynchronize(stream) != hipSuccess)
      return rocblas_status_memory_error;
    for (rocblas_int i = 0; i < batch_count; ++i) {
      s = __hk_rocblas::copy_c_to_d(cs[i], ldc, ds[i], ldd, m, n, t.c_size, stream);
      if (s != rocblas_status_success) return s;
    }
  }
  return __hk_rocblas::status(hipblasGemmBatchedEx(
      __hk_rocblas::hip(handle), __hk_rocblas::hip(transA), __hk_rocblas::hip(transB), m, n, k, alpha,
      static_cast<const void**>(const_cast<void*>(a)), t.a, lda, static_cast<const void**>(const_cast<void*>(b)),
      t.b, ldb, beta, static_cast<void**>(d), t.c, ldd, batch_count, t.compute, HIPBLAS_GEMM_DEFAULT));
}

inline rocblas_status rocblas_gemm_strided_batched_ex(
    rocblas_handle handle, rocblas_operation transA, rocblas_operation transB, rocblas_int m, rocblas_int n,
    rocblas_int k, const void* alpha, const void* a, rocblas_datatype a_type, rocblas_int lda,
    rocblas_stride stride_a, const void* b, rocblas_datatype b_type, rocblas_int ldb, rocblas_stride stride_b,
    const void* beta, const void* c, rocblas_datatype c_type, rocblas_int ldc, rocblas_stride stride_c, void* d,
    rocblas_datatype d_type, rocblas_int ldd, rocblas_stride stride_d, rocblas_int batch_count,
    rocblas_datatype compute_type, rocblas_gemm_algo algo, int32_t solution_index, uint32_t flags) {
  (void)flags;
  __hk_rocblas::gemm_ex_types t;
  rocblas_status s = __hk_rocblas::gemm_ex_arguments(handle, transA, transB, m, n, k, alpha, a_type, lda, b_type,
                                                     ldb, beta, c, c_type, ldc, d, d_type, ldd, batch_count,
                                                     compute_type, algo, solution_index, &t);
  if (s != rocblas_status_continue) return s;
  if (c && c != d) {
    hipStream_t stream = __hk_rocblas::stream_of(handle);
    for (rocblas_int i = 0; i < batch_count; ++i) {
      const char* from = static_cast<const char*>(c) + size_t(i) * size_t(stride_c) * t.c_size;
      char* to = static_cast<char*>(d) + size_t(i) * size_t(stride_d) * t.c_size;
      s = __hk_rocblas::copy_c_to_d(from, ldc, to, ldd, m, n, t.c_size, stream);
      if (s != rocblas_status_success) return s;
    }
  } else if (c == d && stride_c != stride_d) {
    return rocblas_status_invalid_size;
  }
  return __hk_rocblas::status(hipblasGemmStridedBatchedEx(
      __hk_rocblas::hip(handle), __hk_rocblas::hip(transA), __hk_rocblas::hip(transB), m, n, k, alpha, a, t.a, lda,
      stride_a, b, t.b, ldb, stride_b, beta, d, t.c, ldd, stride_d, batch_count, t.compute, HIPBLAS_GEMM_DEFAULT));
}

}  // extern "C"

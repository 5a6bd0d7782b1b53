// The part of OpenBLAS's API the provider calls: CBLAS, OpenBLAS's extensions
// (omatcopy, axpby, i?amin, the thread count) and two LAPACK routines.
//
// Declared here rather than taken from OpenBLAS's cblas.h: the system's OpenBLAS
// (Debian's libopenblas0) ships no header, and the scipy-openblas32 wheel's names
// carry a prefix.  HIPKIT_OPENBLAS_PREFIX (a -D macro: `scipy_` or empty) is that
// prefix.  Integers are 32-bit (blasint of both builds); CBLAS's enums are passed as
// ints, with hipBLAS's numbers, which are CBLAS's (HIPBLAS_OP_T == CblasTrans...).
// Real routines take scalars by value, complex ones by address (T and S below).
#pragma once

#include <stddef.h>

#ifndef HIPKIT_OPENBLAS_PREFIX
#error "build with -DHIPKIT_OPENBLAS_PREFIX=<the OpenBLAS library's symbol prefix>"
#endif

#define HK_PASTE_(a, b) a##b
#define HK_PASTE(a, b) HK_PASTE_(a, b)
// OpenBLAS's name `name` (cblas_sgemm, openblas_set_num_threads, crot_).
#define HK_OB(name) HK_PASTE(HIPKIT_OPENBLAS_PREFIX, name)
#define HK_CB(name) HK_OB(cblas_##name)

extern "C" {

void HK_OB(openblas_set_num_threads)(int num_threads);
int HK_OB(openblas_get_num_threads)(void);
char* HK_OB(openblas_get_config)(void);

// Level 1, for element T with scalars S (p: the type letter).
#define HK_CBLAS_LEVEL1(p, T, S)                                                              \
  void HK_CB(p##axpy)(int n, S alpha, const T* x, int incx, T* y, int incy);                  \
  void HK_CB(p##axpby)(int n, S alpha, const T* x, int incx, S beta, T* y, int incy);         \
  void HK_CB(p##scal)(int n, S alpha, T* x, int incx);                                         \
  void HK_CB(p##copy)(int n, const T* x, int incx, T* y, int incy);                           \
  void HK_CB(p##swap)(int n, T* x, int incx, T* y, int incy);                                 \
  size_t HK_CB(i##p##amax)(int n, const T* x, int incx);                                      \
  size_t HK_CB(i##p##amin)(int n, const T* x, int incx);

// Level 2 and 3, and the matrix extensions.
#define HK_CBLAS_LEVEL23(p, T, S)                                                             \
  void HK_CB(p##gemv)(int order, int trans, int m, int n, S alpha, const T* A, int lda,       \
                      const T* x, int incx, S beta, T* y, int incy);                          \
  void HK_CB(p##trsv)(int order, int uplo, int trans, int diag, int n, const T* A, int lda,   \
                      T* x, int incx);                                                        \
  void HK_CB(p##trmv)(int order, int uplo, int trans, int diag, int n, const T* A, int lda,   \
                      T* x, int incx);                                                        \
  void HK_CB(p##gemm)(int order, int ta, int tb, int m, int n, int k, S alpha, const T* A,    \
                      int lda, const T* B, int ldb, S beta, T* C, int ldc);                   \
  void HK_CB(p##symm)(int order, int side, int uplo, int m, int n, S alpha, const T* A,       \
                      int lda, const T* B, int ldb, S beta, T* C, int ldc);                   \
  void HK_CB(p##syrk)(int order, int uplo, int trans, int n, int k, S alpha, const T* A,      \
                      int lda, S beta, T* C, int ldc);                                        \
  void HK_CB(p##syr2k)(int order, int uplo, int trans, int n, int k, S alpha, const T* A,     \
                       int lda, const T* B, int ldb, S beta, T* C, int ldc);                  \
  void HK_CB(p##trsm)(int order, int side, int uplo, int trans, int diag, int m, int n,       \
                      S alpha, const T* A, int lda, T* B, int ldb);                           \
  void HK_CB(p##trmm)(int order, int side, int uplo, int trans, int diag, int m, int n,       \
                      S alpha, const T* A, int lda, T* B, int ldb);                           \
  void HK_CB(p##omatcopy)(int order, int trans, int rows, int cols, S alpha, const T* A,      \
                          int lda, T* B, int ldb);

HK_CBLAS_LEVEL1(s, float, float)
HK_CBLAS_LEVEL1(d, double, double)
HK_CBLAS_LEVEL1(c, void, const void*)
HK_CBLAS_LEVEL1(z, void, const void*)
HK_CBLAS_LEVEL23(s, float, float)
HK_CBLAS_LEVEL23(d, double, double)
HK_CBLAS_LEVEL23(c, void, const void*)
HK_CBLAS_LEVEL23(z, void, const void*)
#undef HK_CBLAS_LEVEL1
#undef HK_CBLAS_LEVEL23

void HK_CB(csscal)(int n, float alpha, void* x, int incx);
void HK_CB(zdscal)(int n, double alpha, void* x, int incx);

float HK_CB(sdot)(int n, const float* x, int incx, const float* y, int incy);
double HK_CB(ddot)(int n, const double* x, int incx, const double* y, int incy);
void HK_CB(cdotu_sub)(int n, const void* x, int incx, const void* y, int incy, void* result);
void HK_CB(cdotc_sub)(int n, const void* x, int incx, const void* y, int incy, void* result);
void HK_CB(zdotu_sub)(int n, const void* x, int incx, const void* y, int incy, void* result);
void HK_CB(zdotc_sub)(int n, const void* x, int incx, const void* y, int incy, void* result);

float HK_CB(snrm2)(int n, const float* x, int incx);
double HK_CB(dnrm2)(int n, const double* x, int incx);
float HK_CB(scnrm2)(int n, const void* x, int incx);
double HK_CB(dznrm2)(int n, const void* x, int incx);
float HK_CB(sasum)(int n, const float* x, int incx);
double HK_CB(dasum)(int n, const double* x, int incx);
float HK_CB(scasum)(int n, const void* x, int incx);
double HK_CB(dzasum)(int n, const void* x, int incx);

void HK_CB(srot)(int n, float* x, int incx, float* y, int incy, float c, float s);
void HK_CB(drot)(int n, double* x, int incx, double* y, int incy, double c, double s);
void HK_CB(csrot)(int n, void* x, int incx, void* y, int incy, float c, float s);
void HK_CB(zdrot)(int n, void* x, int incx, void* y, int incy, double c, double s);

void HK_CB(sger)(int order, int m, int n, float alpha, const float* x, int incx, const float* y,
                 int incy, float* A, int lda);
void HK_CB(dger)(int order, int m, int n, double alpha, const double* x, int incx,
                 const double* y, int incy, double* A, int lda);
#define HK_CBLAS_GER(name)                                                                    \
  void HK_CB(name)(int order, int m, int n, const void* alpha, const void* x, int incx,      \
                   const void* y, int incy, void* A, int lda);
HK_CBLAS_GER(cgeru)
HK_CBLAS_GER(cgerc)
HK_CBLAS_GER(zgeru)
HK_CBLAS_GER(zgerc)
#undef HK_CBLAS_GER

void HK_CB(ssymv)(int order, int uplo, int n, float alpha, const float* A, int lda,
                  const float* x, int incx, float beta, float* y, int incy);
void HK_CB(dsymv)(int order, int uplo, int n, double alpha, const double* A, int lda,
                  const double* x, int incx, double beta, double* y, int incy);

// CBLAS has neither a complex symmetric matrix-vector product nor a complex rotation
// with a complex sine: OpenBLAS's Fortran interface has both (csymv_ is OpenBLAS's
// own, crot_ LAPACK's).  Arguments by address; uplo is 'U' or 'L' (the hidden
// length of a Fortran string is not read by either).
void HK_OB(csymv_)(const char* uplo, const int* n, const void* alpha, const void* A,
                   const int* lda, const void* x, const int* incx, const void* beta, void* y,
                   const int* incy);
void HK_OB(zsymv_)(const char* uplo, const int* n, const void* alpha, const void* A,
                   const int* lda, const void* x, const int* incx, const void* beta, void* y,
                   const int* incy);
void HK_OB(crot_)(const int* n, void* x, const int* incx, void* y, const int* incy,
                  const float* c, const void* s);
void HK_OB(zrot_)(const int* n, void* x, const int* incx, void* y, const int* incy,
                  const double* c, const void* s);

}  // extern "C"

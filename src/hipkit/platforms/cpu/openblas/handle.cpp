// The handle's functions, hipBLAS's host-device copies, and the work on streams.
//
// A handle is the device current when it was made (a program's hipSetDevice, or for
// Python hipkitBlasSetDevice), its stream (that device's null stream by default) and
// its modes.  A routine's work is a host function of the CPU runtime
// (hkrt_launch_host_func), named after the routine: it runs on a worker of the
// stream's device in stream order, so it orders with kernels, copies and events as a
// kernel does; the call returns before it runs.  OpenBLAS runs it with as many
// threads as the device has workers (the others wait meanwhile: the work is the
// stream's, as a kernel would be).
#include <mutex>

#include "provider.h"

extern "C" {
// A program built by hipkit cc that includes <hipblas/hipblas.h> defines this (the CPU
// platform's hipblas/hipblas.h): its thread's current device, the runtime's index.
// Python processes do not: they say which device with hipkitBlasSetDevice.
__attribute__((weak)) int __hipkit_blas_program_device(void);
}

namespace hkblas {
namespace {

thread_local int selected_device = 0;  // hipkitBlasSetDevice's

int current_device() {
  return __hipkit_blas_program_device != nullptr ? __hipkit_blas_program_device()
                                                 : selected_device;
}

std::once_flag threads_set;

// OpenBLAS runs each routine with the device's workers (hkrt_device_info's
// multiprocessor_count), set once, by the first handle: its own default is every core,
// which oversubscribes them when HIPKIT_CPU_THREADS or HIPKIT_CPU_DEVICES divide them.
void set_openblas_threads(int device) {
  std::call_once(threads_set, [device] {
    hkrt_device_info info;
    if (hkrt_get_device_info(device, &info) == HKRT_SUCCESS && info.multiprocessor_count > 0)
      HK_OB(openblas_set_num_threads)(int(info.multiprocessor_count));
  });
}

// A synchronous copy between host and device memory (hipMemcpy's semantics, ordered
// after the current device's null stream): one runtime copy where both sides are
// contiguous, else the current device's null stream's work, waited for.
hipblasStatus_t copy_sync(const char* name, const void* src, int lds, void* dst, int ldd,
                          int rows, int cols, size_t elem, int kind) {
  const int device = current_device();
  if (lds == rows && ldd == rows) {
    size_t bytes = elem * size_t(rows) * size_t(cols);
    return hkrt_memcpy(device, dst, src, bytes, kind, nullptr, 0) == HKRT_SUCCESS
               ? HIPBLAS_STATUS_SUCCESS
               : HIPBLAS_STATUS_EXECUTION_FAILED;
  }
  Handle h{device, nullptr, HIPBLAS_POINTER_MODE_HOST, HIPBLAS_ATOMICS_ALLOWED, HIPBLAS_DEFAULT_MATH};
  hipblasStatus_t status = enqueue(h, name, [=] { copy_matrix(src, lds, dst, ldd, rows, cols, elem); });
  return status != HIPBLAS_STATUS_SUCCESS ? status : wait(h);
}

// rocblas_set_vector / rocblas_get_vector's rules (incx, incy > 0).
hipblasStatus_t vector(const char* name, int n, int elem, const void* x, int incx, void* y,
                       int incy, int kind) {
  if (n == 0) return HIPBLAS_STATUS_SUCCESS;
  if (n < 0 || incx <= 0 || incy <= 0 || elem <= 0) return HIPBLAS_STATUS_INVALID_VALUE;
  if (x == nullptr || y == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  // A vector of stride inc is a matrix of one row and leading dimension inc.
  return copy_sync(name, x, incx, y, incy, 1, n, size_t(elem), kind);
}

// rocblas_set_matrix / rocblas_get_matrix's rules (lda, ldb >= max(1, rows)).
hipblasStatus_t matrix(const char* name, int rows, int cols, int elem, const void* A, int lda,
                       void* B, int ldb, int kind) {
  if (rows == 0 || cols == 0) return HIPBLAS_STATUS_SUCCESS;
  if (rows < 0 || cols < 0 || lda <= 0 || ldb <= 0 || rows > lda || rows > ldb || elem <= 0)
    return HIPBLAS_STATUS_INVALID_VALUE;
  if (A == nullptr || B == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  return copy_sync(name, A, lda, B, ldb, rows, cols, size_t(elem), kind);
}

}  // namespace

void copy_matrix(const void* src, int lds, void* dst, int ldd, int rows, int cols, size_t elem) {
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  for (int j = 0; j < cols; ++j)
    memcpy(to + size_t(j) * ldd * elem, from + size_t(j) * lds * elem, size_t(rows) * elem);
}

hipblasStatus_t launch(const Handle& h, const char* name, Work* work, double madds) {
  return hkprovider::launch(h.device, h.stream, name, work, madds <= kSmallWork) ? HIPBLAS_STATUS_SUCCESS
                                                                               : HIPBLAS_STATUS_EXECUTION_FAILED;
}

hipblasStatus_t wait(const Handle& h) {
  return hkrt_stream_synchronize(h.device, h.stream) == HKRT_SUCCESS
             ? HIPBLAS_STATUS_SUCCESS
             : HIPBLAS_STATUS_EXECUTION_FAILED;
}

}  // namespace hkblas

using namespace hkblas;

extern "C" {

// For Python (the BLAS seam's set_device): the device, the runtime's index, that this
// thread's next hipblasCreate makes its handle on; the first call also sets OpenBLAS's
// threads (the library's loader calls it).  Programs need not call it.
__attribute__((visibility("default"))) int hipkitBlasSetDevice(int device) {
  hkrt_device_info info;
  if (hkrt_get_device_info(device, &info) != HKRT_SUCCESS) return HIPBLAS_STATUS_INVALID_VALUE;
  set_openblas_threads(device);
  selected_device = device;
  return HIPBLAS_STATUS_SUCCESS;
}

// What does the work, for reports: OpenBLAS's configuration line and thread count.
__attribute__((visibility("default"))) const char* hipkitBlasOpenBLASConfig(void) {
  return HK_OB(openblas_get_config)();
}
__attribute__((visibility("default"))) int hipkitBlasOpenBLASThreads(void) {
  return HK_OB(openblas_get_num_threads)();
}

// rocblas_create_handle: the current device, its null stream, host pointer mode,
// atomics allowed (rocBLAS's default).  A device that cannot be used (none visible, a
// runtime that cannot start) is HIPBLAS_STATUS_NOT_INITIALIZED, as cuBLAS answers.
hipblasStatus_t hipblasCreate(hipblasHandle_t* handle) {
  const ApiCall call("hipblasCreate");
  if (handle == nullptr) return HIPBLAS_STATUS_HANDLE_IS_NULLPTR;  // hipBLAS's own check
  const int device = current_device();
  hkrt_device_info info;
  if (hkrt_get_device_info(device, &info) != HKRT_SUCCESS) return HIPBLAS_STATUS_NOT_INITIALIZED;
  set_openblas_threads(device);
  *handle = new Handle{device, nullptr, HIPBLAS_POINTER_MODE_HOST, HIPBLAS_ATOMICS_ALLOWED,
                       HIPBLAS_DEFAULT_MATH};
  return HIPBLAS_STATUS_SUCCESS;
}

// The handle's work holds copies of what it needs: the handle may go at once.
hipblasStatus_t hipblasDestroy(hipblasHandle_t handle) {
  const ApiCall call("hipblasDestroy");
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  delete handle_of(handle);
  return HIPBLAS_STATUS_SUCCESS;
}

// rocblas_set_stream: a stream that is no live stream is rocblas_status_invalid_value.
hipblasStatus_t hipblasSetStream(hipblasHandle_t handle, hipStream_t stream) {
  const ApiCall call("hipblasSetStream");
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  Handle& h = *handle_of(handle);
  int device = 0;
  if (stream != nullptr && hkrt_stream_get_device(h.device, stream, &device) != HKRT_SUCCESS)
    return HIPBLAS_STATUS_INVALID_VALUE;
  h.stream = stream;
  return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasGetStream(hipblasHandle_t handle, hipStream_t* stream) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (stream == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  *stream = handle_of(handle)->stream;
  return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t mode) {
  if (mode != HIPBLAS_POINTER_MODE_HOST && mode != HIPBLAS_POINTER_MODE_DEVICE)
    return HIPBLAS_STATUS_INVALID_ENUM;
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  handle_of(handle)->pointer_mode = mode;
  return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t handle, hipblasPointerMode_t* mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  *mode = handle_of(handle)->pointer_mode;
  return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasSetAtomicsMode(hipblasHandle_t handle, hipblasAtomicsMode_t mode) {
  if (mode != HIPBLAS_ATOMICS_NOT_ALLOWED && mode != HIPBLAS_ATOMICS_ALLOWED)
    return HIPBLAS_STATUS_INVALID_ENUM;
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  handle_of(handle)->atomics_mode = mode;  // kept, and answered: OpenBLAS's results do
  return HIPBLAS_STATUS_SUCCESS;           // not depend on it
}

hipblasStatus_t hipblasGetAtomicsMode(hipblasHandle_t handle, hipblasAtomicsMode_t* mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  *mode = handle_of(handle)->atomics_mode;
  return HIPBLAS_STATUS_SUCCESS;
}

// Every math mode computes in the precision of the data on the CPU (TF32 and the
// tensor-op modes are GPU units); the mode is kept and answered.
hipblasStatus_t hipblasSetMathMode(hipblasHandle_t handle, hipblasMath_t mode) {
  if (mode < HIPBLAS_DEFAULT_MATH || mode > HIPBLAS_TENSOR_OP_MATH) return HIPBLAS_STATUS_INVALID_ENUM;
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  handle_of(handle)->math_mode = mode;
  return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasGetMathMode(hipblasHandle_t handle, hipblasMath_t* mode) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  *mode = handle_of(handle)->math_mode;
  return HIPBLAS_STATUS_SUCCESS;
}

// hipBLAS's hipblasStatusToString: each status's name.
const char* hipblasStatusToString(hipblasStatus_t status) {
#define HK_CASE(s) \
  case s:          \
    return #s
  switch (status) {
    HK_CASE(HIPBLAS_STATUS_SUCCESS);
    HK_CASE(HIPBLAS_STATUS_NOT_INITIALIZED);
    HK_CASE(HIPBLAS_STATUS_ALLOC_FAILED);
    HK_CASE(HIPBLAS_STATUS_INVALID_VALUE);
    HK_CASE(HIPBLAS_STATUS_MAPPING_ERROR);
    HK_CASE(HIPBLAS_STATUS_EXECUTION_FAILED);
    HK_CASE(HIPBLAS_STATUS_INTERNAL_ERROR);
    HK_CASE(HIPBLAS_STATUS_NOT_SUPPORTED);
    HK_CASE(HIPBLAS_STATUS_ARCH_MISMATCH);
    HK_CASE(HIPBLAS_STATUS_HANDLE_IS_NULLPTR);
    HK_CASE(HIPBLAS_STATUS_INVALID_ENUM);
    HK_CASE(HIPBLAS_STATUS_UNKNOWN);
  }
#undef HK_CASE
  return "<undefined hipblasStatus_t value>";
}

// cuBLAS's encoding of its version (major * 10000 + minor * 100 + patch), of the
// hipBLAS API these headers follow.
hipblasStatus_t hipblasGetVersion(hipblasHandle_t handle, int* version) {
  if (handle == nullptr) return HIPBLAS_STATUS_NOT_INITIALIZED;
  if (version == nullptr) return HIPBLAS_STATUS_INVALID_VALUE;
  *version = HIPBLAS_VERSION_MAJOR * 10000 + HIPBLAS_VERSION_MINOR * 100 + HIPBLAS_VERSION_PATCH;
  return HIPBLAS_STATUS_SUCCESS;
}

hipblasStatus_t hipblasSetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  const ApiCall call("hipblasSetVector");
  return vector("hipblasSetVector", n, elemSize, x, incx, y, incy, HKRT_MEMCPY_HOST_TO_DEVICE);
}

hipblasStatus_t hipblasGetVector(int n, int elemSize, const void* x, int incx, void* y, int incy) {
  const ApiCall call("hipblasGetVector");
  return vector("hipblasGetVector", n, elemSize, x, incx, y, incy, HKRT_MEMCPY_DEVICE_TO_HOST);
}

hipblasStatus_t hipblasSetMatrix(int rows, int cols, int elemSize, const void* AP, int lda, void* BP,
                                 int ldb) {
  const ApiCall call("hipblasSetMatrix");
  return matrix("hipblasSetMatrix", rows, cols, elemSize, AP, lda, BP, ldb, HKRT_MEMCPY_HOST_TO_DEVICE);
}

hipblasStatus_t hipblasGetMatrix(int rows, int cols, int elemSize, const void* AP, int lda, void* BP,
                                 int ldb) {
  const ApiCall call("hipblasGetMatrix");
  return matrix("hipblasGetMatrix", rows, cols, elemSize, AP, lda, BP, ldb, HKRT_MEMCPY_DEVICE_TO_HOST);
}

}  // extern "C"

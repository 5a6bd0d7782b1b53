// hipkit's CPU FFT engine: hipFFT's functions (plan.h).
//
// A plan is made on the current device (a program's hipSetDevice, or for Python
// hipkitFftSetDevice) and runs on the device's workers.  An exec is checked, then
// enqueued on the plan's stream as a host function of the CPU runtime named after the
// function, which a worker runs in stream order; the call returns before it runs.
// The codes are ROCm's hipFFT's (hipkit/platforms/base/fft.py says which case is which).
// functions.cpp has the functions made of these.
#include <cmath>
#include <mutex>
#include <new>
#include <set>

#include "plan.h"

extern "C" {
// Defined by a program built by hipkit cc that includes <hipfft/hipfft.h> (the CPU
// platform's hipfft/hipfft.h): its thread's current device.  Python sets it instead.
__attribute__((weak)) int __hipkit_fft_program_device(void);
}

namespace hkfft {
namespace {

thread_local int selected_device = 0;  // hipkitFftSetDevice's

int current_device() {
  return __hipkit_fft_program_device != nullptr ? __hipkit_fft_program_device() : selected_device;
}

std::mutex live_lock;
std::set<Plan*>& live() {
  static std::set<Plan*> plans;
  return plans;
}

}  // namespace

Plan* find(hipfftHandle handle) {
  Plan* plan = reinterpret_cast<Plan*>(handle);
  std::lock_guard<std::mutex> guard(live_lock);
  return plan != nullptr && live().count(plan) ? plan : nullptr;
}

namespace {

bool known_type(int t) {
  return t == HIPFFT_C2C || t == HIPFFT_Z2Z || t == HIPFFT_R2C || t == HIPFFT_D2Z ||
         t == HIPFFT_C2R || t == HIPFFT_Z2D;
}

// A side of `lengths` laid out by (stride, embed, dist).
Side side(int rank, const long long* lengths, long long stride, const long long* embed, long long dist) {
  Side s;
  s.dist = dist;
  long long step = stride;
  for (int k = rank - 1; k >= 0; --k) {
    s.lengths[k] = lengths[k];
    s.stride[k] = step;
    step *= embed[k];
  }
  return s;
}

long long product(int rank, const long long* v) {
  long long p = 1;
  for (int k = 0; k < rank; ++k) p *= v[k];
  return p;
}

// Whether the in-place layouts overlay element for element (fft_plan.py's _overlay).
bool overlay(hipfftType type, int rank, const Side& in, const Side& out) {
  if (!is_r2c(type) && !is_c2r(type)) {
    for (int k = 0; k < rank; ++k)
      if (in.stride[k] != out.stride[k]) return false;
    return in.dist == out.dist;
  }
  const Side& real = is_r2c(type) ? in : out;
  const Side& cplx = is_r2c(type) ? out : in;
  if (real.dist != 2 * cplx.dist) return false;
  for (int k = 0; k < rank - 1; ++k)
    if (real.stride[k] != 2 * cplx.stride[k]) return false;
  return real.stride[rank - 1] == 1 && cplx.stride[rank - 1] == 1;
}

template <typename T>
void make_axes(Axes<T>& axes, const Plan& p) {
  axes.complex.clear();
  for (int k = 0; k < p.rank; ++k) axes.complex.push_back(std::make_unique<Plan1D<T>>(p.n[k]));
  if (is_r2c(p.type) || is_c2r(p.type)) axes.real = std::make_unique<RealPlan<T>>(p.n[p.rank - 1]);
}

hipfftResult describe(Plan& p, int rank, const int* n, const int* inembed, int istride, int idist,
                      const int* onembed, int ostride, int odist, hipfftType type, int batch) {
  if (!known_type(type)) return HIPFFT_NOT_IMPLEMENTED;
  if (rank < 1 || rank > 3 || n == nullptr || batch < 1) return HIPFFT_INVALID_SIZE;
  long long len[3], half[3];
  for (int k = 0; k < rank; ++k) {
    if (n[k] < 1) return HIPFFT_INVALID_SIZE;
    len[k] = half[k] = n[k];
  }
  half[rank - 1] = len[rank - 1] / 2 + 1;
  const long long* in_len = is_c2r(type) ? half : len;
  const long long* out_len = is_r2c(type) ? half : len;
  p.rank = rank;
  p.type = type;
  p.batch = batch;
  for (int k = 0; k < rank; ++k) p.n[k] = len[k];
  if (inembed == nullptr || onembed == nullptr) {  // the basic layout
    long long padded[3] = {len[0], len[1], len[2]};
    padded[rank - 1] = 2 * half[rank - 1];
    const long long* ip_in = is_r2c(type) ? padded : in_len;
    const long long* ip_out = is_c2r(type) ? padded : out_len;
    p.in = side(rank, in_len, 1, in_len, product(rank, in_len));
    p.out = side(rank, out_len, 1, out_len, product(rank, out_len));
    p.in_ip = side(rank, in_len, 1, ip_in, product(rank, ip_in));
    p.out_ip = side(rank, out_len, 1, ip_out, product(rank, ip_out));
  } else {
    long long ie[3], oe[3];
    for (int k = 0; k < rank; ++k) {
      ie[k] = inembed[k];
      oe[k] = onembed[k];
      if (k > 0 && (ie[k] < in_len[k] || oe[k] < out_len[k])) return HIPFFT_INVALID_SIZE;
    }
    if (istride < 1 || ostride < 1 || idist < 0 || odist < 0) return HIPFFT_INVALID_VALUE;
    p.in = p.in_ip = side(rank, in_len, istride, ie, idist);
    p.out = p.out_ip = side(rank, out_len, ostride, oe, odist);
  }
  p.in_place_ok = overlay(type, rank, p.in_ip, p.out_ip);
  return HIPFFT_SUCCESS;
}

}  // namespace

hipfftResult make(hipfftHandle handle, int rank, const int* n, const int* inembed, int istride,
                  int idist, const int* onembed, int ostride, int odist, hipfftType type, int batch,
                  size_t* work) {
  Plan* plan = find(handle);
  if (plan == nullptr) return HIPFFT_INVALID_PLAN;
  Plan p;
  p.device = plan->device;
  p.stream = plan->stream;
  p.scale = plan->scale;
  p.workers = plan->workers;
  hipfftResult status = describe(p, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  if (status != HIPFFT_SUCCESS) return status;
  try {
    if (is_double(type))
      make_axes(p.twice, p);
    else
      make_axes(p.single, p);
  } catch (const std::bad_alloc&) {
    return HIPFFT_ALLOC_FAILED;
  }
  p.made = true;
  *plan = std::move(p);
  if (work != nullptr) *work = 0;  // each exec's buffers are its own
  return HIPFFT_SUCCESS;
}

hipfftResult estimate(hipfftHandle handle, int rank, const int* n, const int* inembed, int istride,
                      int idist, const int* onembed, int ostride, int odist, hipfftType type,
                      int batch, size_t* work) {
  if (find(handle) == nullptr) return HIPFFT_INVALID_PLAN;
  Plan p;
  hipfftResult status = describe(p, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
  if (status == HIPFFT_SUCCESS && work != nullptr) *work = 0;
  return status;
}

namespace {

struct Work {
  const Plan* plan;
  const void* in;
  void* out;
  bool inverse;
  int device;
};

void run_work(void* data) {
  Work* work = static_cast<Work*>(data);
  if (hkrt_sticky_error(work->device) == HKRT_SUCCESS) execute(*work->plan, work->in, work->out, work->inverse);
  delete work;
}

}  // namespace

hipfftResult exec(hipfftHandle handle, hipfftType type, const char* name, const void* in, void* out,
                  int direction) {
  Plan* plan = find(handle);
  if (plan == nullptr || !plan->made || plan->type != type) return HIPFFT_INVALID_PLAN;
  if (in == nullptr || out == nullptr || (direction != HIPFFT_FORWARD && direction != HIPFFT_BACKWARD))
    return HIPFFT_INVALID_VALUE;
  if (in == out && !plan->in_place_ok) return HIPFFT_INVALID_VALUE;
  int device = plan->device;
  if (plan->stream != nullptr && hkrt_stream_get_device(plan->device, plan->stream, &device) != HKRT_SUCCESS)
    return HIPFFT_EXEC_FAILED;
  Work* work = new Work{plan, in, out, direction == HIPFFT_BACKWARD, device};
  if (hkrt_launch_host_func(plan->device, plan->stream, run_work, work, name, HKRT_HOST_FUNC_ALWAYS) !=
      HKRT_SUCCESS) {
    delete work;
    return HIPFFT_EXEC_FAILED;
  }
  return HIPFFT_SUCCESS;
}

}  // namespace hkfft

using namespace hkfft;

// For Python: the device (the runtime's index) of this thread's next plans.
HK_FFT_API int hipkitFftSetDevice(int device) {
  hkrt_device_info info;
  if (hkrt_get_device_info(device, &info) != HKRT_SUCCESS) return 1;
  selected_device = device;
  return 0;
}

HK_FFT_API hipfftResult hipfftCreate(hipfftHandle* plan) {
  const hkprovider::ApiCall call("hipfftCreate");
  if (plan == nullptr) return HIPFFT_INVALID_VALUE;
  Plan* p = new (std::nothrow) Plan;
  if (p == nullptr) return HIPFFT_ALLOC_FAILED;
  p->device = current_device();
  hkrt_device_info info;
  p->workers = hkrt_get_device_info(p->device, &info) == HKRT_SUCCESS && info.multiprocessor_count > 0
                   ? int(info.multiprocessor_count)
                   : 1;
  {
    std::lock_guard<std::mutex> guard(live_lock);
    live().insert(p);
  }
  *plan = reinterpret_cast<hipfftHandle>(p);
  return HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftDestroy(hipfftHandle plan) {
  const hkprovider::ApiCall call("hipfftDestroy");
  Plan* p = find(plan);
  if (p == nullptr) return HIPFFT_INVALID_PLAN;
  // Work queued on it runs first: a plan is destroyed once its stream is done with it.
  hkrt_stream_synchronize(p->device, p->stream);
  {
    std::lock_guard<std::mutex> guard(live_lock);
    live().erase(p);
  }
  delete p;
  return HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftExtPlanScaleFactor(hipfftHandle plan, double factor) {
  const hkprovider::ApiCall call("hipfftExtPlanScaleFactor");
  Plan* p = find(plan);
  if (p == nullptr) return HIPFFT_INVALID_PLAN;
  if (!std::isfinite(factor)) return HIPFFT_INVALID_VALUE;
  p->scale = factor;
  return HIPFFT_SUCCESS;
}

HK_FFT_API hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int* n, int* inembed,
                                           int istride, int idist, int* onembed, int ostride,
                                           int odist, hipfftType type, int batch, size_t* work) {
  const hkprovider::ApiCall call("hipfftMakePlanMany");
  return make(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work);
}

HK_FFT_API hipfftResult hipfftMakePlan1d(hipfftHandle plan, int nx, hipfftType type, int batch, size_t* work) {
  const hkprovider::ApiCall call("hipfftMakePlan1d");
  return make(plan, 1, &nx, nullptr, 1, 0, nullptr, 1, 0, type, batch, work);
}

HK_FFT_API hipfftResult hipfftMakePlan2d(hipfftHandle plan, int nx, int ny, hipfftType type, size_t* work) {
  const hkprovider::ApiCall call("hipfftMakePlan2d");
  int n[2] = {nx, ny};
  return make(plan, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}

HK_FFT_API hipfftResult hipfftMakePlan3d(hipfftHandle plan, int nx, int ny, int nz, hipfftType type,
                                         size_t* work) {
  const hkprovider::ApiCall call("hipfftMakePlan3d");
  int n[3] = {nx, ny, nz};
  return make(plan, 3, n, nullptr, 1, 0, nullptr, 1, 0, type, 1, work);
}


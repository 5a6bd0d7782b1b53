// Kernel launches: the registry of launchable functions (with the attributes
// found by running each once in query mode), launch validation, and the
// copy of the arguments into the launch.
#include <dlfcn.h>

#include <cstring>
#include <unordered_map>

#include "graph.h"

namespace hk {

namespace {

struct FunctionInfo {
  Module* module = nullptr;  // null for kernels not loaded from a module
  const char* activity_name = nullptr;  // its name in activity records (activity.h)
  uint32_t static_shared_bytes = 0;
  uint32_t max_threads_per_block = 1024;
  std::vector<size_t> offsets;  // of each parameter in the packed buffer
  size_t packed_bytes = 0;      // where the last parameter ends
  size_t padded_bytes = 0;      // rounded up to the largest alignment
};

// Under the registry lock.  Entries are keyed by descriptor: kernels of
// whole programs are launched without ever being looked up in a module.
std::unordered_map<const hk_kernel_desc*, FunctionInfo> functions;

constexpr uint32_t kMaxBlockThreads = 1024;
constexpr uint32_t kSharedBytes = 65536;

size_t round_up(size_t value, size_t align) { return (value + align - 1) / align * align; }

void compute_layout(const hk_kernel_desc* desc, FunctionInfo* info) {
  size_t offset = 0, max_align = 1;
  for (uint32_t i = 0; i < desc->num_params; ++i) {
    size_t align = desc->params[i].align != 0 ? desc->params[i].align : 1;
    offset = round_up(offset, align);
    info->offsets.push_back(offset);
    offset += desc->params[i].size;
    max_align = std::max(max_align, align);
  }
  info->packed_bytes = offset;
  info->padded_bytes = round_up(offset, max_align);
}

// Gives `k` storage for the arguments: the pointer array, then the bytes
// (64-byte aligned, zeroed), which are returned.
unsigned char* allocate_arguments(KernelLaunch& k, const hk_kernel_desc* desc,
                                  const FunctionInfo& info) {
  const size_t pointers = desc->num_params * sizeof(void*);
  k.storage.reset(new unsigned char[pointers + 64 + info.padded_bytes]());
  k.args = reinterpret_cast<void**>(k.storage.get());
  auto* bytes = reinterpret_cast<unsigned char*>(
      round_up(reinterpret_cast<uintptr_t>(k.storage.get()) + pointers, 64));
  for (uint32_t i = 0; i < desc->num_params; ++i) k.args[i] = bytes + info.offsets[i];
  k.arg_bytes = info.padded_bytes;
  return bytes;
}

unsigned char* argument_bytes(const KernelLaunch& k) {
  const size_t pointers = k.desc->num_params * sizeof(void*);
  return reinterpret_cast<unsigned char*>(
      round_up(reinterpret_cast<uintptr_t>(k.storage.get()) + pointers, 64));
}

// Runs the block function once with nthreads == 0, on this thread: it runs
// no GPU thread and reports its static shared memory and launch bounds.
int query(const hk_kernel_desc* desc, FunctionInfo* info) {
  KernelLaunch k;
  allocate_arguments(k, desc, *info);
  // A generic kernel of a program calls the function in its last argument.
  if (const void* function = program_generic_function(desc))
    memcpy(k.args[desc->num_params - 1], &function, sizeof(function));
  static const hk_index3 no_thread = {0, 0, 0};
  alignas(64) static unsigned char no_shared[64];
  hk_block_context block = {};
  block.warp_size = config.warp_size;
  block.thread_ids = &no_thread;
  block.dynamic_shared = no_shared;
  hk_block_context* saved_block = __hk_block;
  const hk_index3 saved[4] = {threadIdx, blockIdx, blockDim, gridDim};
  threadIdx = blockIdx = blockDim = gridDim = no_thread;
  __hk_block = &block;
  ExecContext exec;
  exec.kernel = desc;
  int code = run_guarded(exec, [&] { desc->entry(k.args); });
  __hk_block = saved_block;
  threadIdx = saved[0], blockIdx = saved[1], blockDim = saved[2], gridDim = saved[3];
  if (code != HKRT_SUCCESS) return fail(code, "%s (in query mode)", exec.detail);
  info->static_shared_bytes = block.static_shared_bytes;
  info->max_threads_per_block = block.max_threads_per_block == 0
                                    ? kMaxBlockThreads
                                    : std::min(block.max_threads_per_block, kMaxBlockThreads);
  return HKRT_SUCCESS;
}

int validate(const hk_kernel_desc* desc, const FunctionInfo& info, const hk_index3& g,
             const hk_index3& b, uint32_t dynamic_shared) {
  auto bad = [&](const char* why) {
    return fail(HKRT_ERROR_INVALID_CONFIGURATION,
                "launch of %s with grid (%u,%u,%u), block (%u,%u,%u), %u bytes of dynamic "
                "shared memory: %s",
                desc->name, g.x, g.y, g.z, b.x, b.y, b.z, dynamic_shared, why);
  };
  if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0)
    return bad("every dimension must be at least 1");
  if (b.x > kMaxBlockThreads || b.y > kMaxBlockThreads || b.z > kMaxBlockThreads)
    return bad("a block dimension exceeds 1024");
  uint64_t threads = uint64_t(b.x) * b.y * b.z;
  if (threads > kMaxBlockThreads) return bad("more than 1024 threads per block");
  if (threads > info.max_threads_per_block)
    return bad("more threads per block than the kernel's __launch_bounds__");
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    return bad("the grid exceeds (2^31-1, 65535, 65535)");
  if (uint64_t(dynamic_shared) + info.static_shared_bytes > kSharedBytes)
    return bad("more than 64 KiB of shared memory per block");
  return HKRT_SUCCESS;
}

}  // namespace

// Checks a launch of `k` and copies its arguments: exactly one of `packed`
// (with `packed_bytes`) and `args` gives them.
int prepare_launch(KernelLaunch& k, Device* device, const void* packed, size_t packed_bytes,
                   void** args) {
  const hk_kernel_desc* function = k.desc;
  const uint32_t dynamic_shared = k.dynamic_shared_bytes;
  {
    auto lock = registry_lock();
    auto it = functions.find(function);
    if (it == functions.end()) {
      lock.unlock();
      if (int error = function_register(function)) return error;
      lock.lock();
      it = functions.find(function);
      if (it == functions.end())
        return fail(HKRT_ERROR_INVALID_HANDLE, "%s was unloaded", function->name);
    }
    const FunctionInfo& info = it->second;
    if (info.module != nullptr && module_device(info.module) != device)
      return fail(HKRT_ERROR_INVALID_HANDLE,
                  "launch of %s on CPU device %d: its module is loaded on device %d",
                  function->name, device->index, module_device(info.module)->index);
    if (int error = validate(function, info, k.grid, k.block, dynamic_shared)) return error;
    if (k.grid_barrier)
      if (int error = cooperative_check(k, device)) return error;
    const uint32_t n = function->num_params;
    if (args == nullptr && packed_bytes != info.packed_bytes && packed_bytes != info.padded_bytes)
      return fail(HKRT_ERROR_INVALID_VALUE, "%s takes %zu bytes of packed arguments, not %zu",
                  function->name, info.packed_bytes, packed_bytes);
    if (n > 0 && args == nullptr && packed == nullptr)
      return fail(HKRT_ERROR_INVALID_VALUE, "%s: NULL arguments", function->name);
    for (uint32_t i = 0; args != nullptr && i < n; ++i)
      if (args[i] == nullptr)
        return fail(HKRT_ERROR_INVALID_VALUE, "%s: argument %u is NULL", function->name, i);
    unsigned char* bytes = allocate_arguments(k, function, info);
    if (args == nullptr) {
      if (info.packed_bytes != 0) memcpy(bytes, packed, info.packed_bytes);
    } else {
      for (uint32_t i = 0; i < n; ++i) memcpy(k.args[i], args[i], function->params[i].size);
    }
    k.module = info.module;
    k.name = info.activity_name;
    k.static_shared_bytes = info.static_shared_bytes;
  }
  return HKRT_SUCCESS;
}

void copy_launch(KernelLaunch& to, const KernelLaunch& from) {
  to.desc = from.desc;
  to.module = from.module;
  to.name = from.name;
  to.grid = from.grid;
  to.block = from.block;
  to.dynamic_shared_bytes = from.dynamic_shared_bytes;
  to.static_shared_bytes = from.static_shared_bytes;
  to.arg_bytes = from.arg_bytes;
  if (from.desc == nullptr) return;
  const uint32_t n = from.desc->num_params;
  to.storage.reset(new unsigned char[n * sizeof(void*) + 64 + from.arg_bytes]);
  to.args = reinterpret_cast<void**>(to.storage.get());
  const unsigned char* source = argument_bytes(from);
  unsigned char* bytes = argument_bytes(to);
  memcpy(bytes, source, from.arg_bytes);
  for (uint32_t i = 0; i < n; ++i)
    to.args[i] = bytes + (static_cast<const unsigned char*>(from.args[i]) - source);
}

namespace {

// Checks the launch `k` describes and enqueues it (`*enqueued` then true).
int enqueue_launch(KernelLaunch& k, Device* device, hkrt_stream* handle, const void* packed,
                   size_t packed_bytes, void** args, int64_t call_ns, bool* enqueued) {
  Stream* stream = nullptr;
  if (int error = stream_get(device, handle, &stream)) return error;
  // As on a GPU, a kernel runs on the device it is launched on, in one of
  // that device's streams.
  if (stream_device(stream) != device)
    return fail(HKRT_ERROR_INVALID_HANDLE,
                "launch of %s on CPU device %d in a stream of device %d", k.desc->name,
                device->index, stream_device(stream)->index);
  if (int error = sticky_check(device)) return error;
  if (int error = capture_admit(stream, kCaptureEnqueue)) return error;
  if (int error = prepare_launch(k, device, packed, packed_bytes, args)) return error;
  if (k.module != nullptr) {
    auto lock = registry_lock();
    module_launch_started(k.module);
  }
  auto* op = new Op;
  op->kind = OpKind::Kernel;
  op->is_job = true;
  op->total = uint64_t(k.grid.x) * k.grid.y * k.grid.z;
  op->call_ns = call_ns;
  op->kernel = std::move(k);
  *enqueued = true;
  Op* waited = enqueue(stream, op, nullptr, config.launch_blocking);
  if (waited == nullptr) return HKRT_SUCCESS;
  wait_and_unref(waited);
  return sticky_check(device);
}

// The common part of both launch forms.  With activity on, the call is
// stamped as it enters, and a launch refused before it was enqueued pushes a
// record of its own (activity.h).
int launch(int index, const hk_kernel_desc* function, const uint32_t grid[3],
           const uint32_t block[3], uint32_t dynamic_shared, hkrt_stream* stream,
           const void* packed, size_t packed_bytes, void** args, bool cooperative = false) {
  const bool traced = activity_session.load(std::memory_order_relaxed) != 0;
  const int64_t call_ns = traced ? now_ns() : 0;
  if (int error = ensure_init()) return error;
  if (function == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "launch of a NULL function");
  if (grid == nullptr || block == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "launch with a NULL grid or block");
  KernelLaunch k;
  k.desc = function;
  k.grid = {grid[0], grid[1], grid[2]};
  k.block = {block[0], block[1], block[2]};
  k.dynamic_shared_bytes = dynamic_shared;
  if (cooperative) {
    k.grid_barrier.reset(new GridBarrier);
    k.grid_barrier->live = grid[0] * grid[1] * grid[2];  // at most the workers, once checked
  }
  bool enqueued = false;
  Device* device = nullptr;
  int error = device_get(index, &device);
  if (error == HKRT_SUCCESS)
    error = enqueue_launch(k, device, stream, packed, packed_bytes, args, call_ns, &enqueued);
  if (traced && error != HKRT_SUCCESS && !enqueued)
    activity_refused(k, index, stream, call_ns, error);
  if (traced && error == HKRT_SUCCESS && activity_read_soon()) return HK_ACTIVITY_READ_SOON;
  return error;
}

}  // namespace

int function_register(const hk_kernel_desc* desc) {
  {
    auto lock = registry_lock();
    if (functions.count(desc) != 0) return HKRT_SUCCESS;
  }
  FunctionInfo info;
  compute_layout(desc, &info);
  if (int error = query(desc, &info)) return error;
  // Its (mangled) symbol where the dynamic linker knows it, else its source name.
  Dl_info symbol;
  bool exact = desc->symbol != nullptr && dladdr(desc->symbol, &symbol) != 0 &&
               symbol.dli_saddr == desc->symbol && symbol.dli_sname != nullptr;
  info.activity_name = activity_intern(exact ? symbol.dli_sname : desc->name);
  auto lock = registry_lock();
  info.module = module_owning_locked(desc);
  functions.emplace(desc, std::move(info));
  return HKRT_SUCCESS;
}

void function_forget_locked(const hk_kernel_desc* desc) { functions.erase(desc); }

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_function_get_attributes(const hk_kernel_desc* function, hkrt_function_attributes* out) {
  if (int error = ensure_init()) return error;
  if (function == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "attributes of a NULL function");
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "function attributes: NULL output");
  if (int error = function_register(function)) return error;
  auto lock = registry_lock();
  auto it = functions.find(function);
  if (it == functions.end())
    return fail(HKRT_ERROR_INVALID_HANDLE, "%s was unloaded", function->name);
  out->mode = function->mode;
  out->num_params = function->num_params;
  out->static_shared_bytes = it->second.static_shared_bytes;
  out->max_threads_per_block = it->second.max_threads_per_block;
  out->activity_name = it->second.activity_name;
  return HKRT_SUCCESS;
}

int hkrt_launch(int device, const hk_kernel_desc* function, const uint32_t grid[3],
                const uint32_t block[3], uint32_t dynamic_shared_bytes, hkrt_stream* stream,
                void** args) {
  if (function != nullptr && function->num_params > 0 && args == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "%s: NULL argument array", function->name);
  static void* no_arguments[1];
  return launch(device, function, grid, block, dynamic_shared_bytes, stream, nullptr, 0,
                args != nullptr ? args : no_arguments);
}

int hkrt_launch_packed(int device, const hk_kernel_desc* function, const uint32_t grid[3],
                       const uint32_t block[3], uint32_t dynamic_shared_bytes,
                       hkrt_stream* stream, const void* arg_buffer, size_t arg_bytes) {
  return launch(device, function, grid, block, dynamic_shared_bytes, stream, arg_buffer,
                arg_bytes, nullptr);
}

int hkrt_launch_cooperative(int device, const hk_kernel_desc* function, const uint32_t grid[3],
                            const uint32_t block[3], uint32_t dynamic_shared_bytes,
                            hkrt_stream* stream, void** args, const void* arg_buffer,
                            size_t arg_bytes) {
  if (function != nullptr && function->num_params > 0 && args == nullptr && arg_buffer == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "%s: NULL argument array", function->name);
  static void* no_arguments[1];
  if (args == nullptr && arg_buffer == nullptr) args = no_arguments;
  return launch(device, function, grid, block, dynamic_shared_bytes, stream, arg_buffer,
                arg_bytes, args, true);
}

}  // extern "C"

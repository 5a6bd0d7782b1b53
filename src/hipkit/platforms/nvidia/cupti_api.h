// hipkit prof's CUPTI injection library: the API callbacks.  Each thread's
// outermost runtime or driver call becomes an API record, with the
// allocations and frees it made, unless it is made inside a library's call
// (hipBLAS's): that call is the record, and what the CUDA calls inside it
// enqueue and allocate is its.  A new context names its device.
//
// Part of the injection library's one translation unit, cupti_inject.cpp
// (which says what the library does): its names stay inside the library, in
// the unit's unnamed namespace, as the library exports InitializeInjection alone.
#ifndef HIPKIT_CUPTI_API_H
#define HIPKIT_CUPTI_API_H

#include <dlfcn.h>
#include <pthread.h>

#include "cupti_hip_names.h"
#include "cupti_state.h"

namespace {

struct ThreadState {
  int depth = 0;
  uint64_t cid = 0;
  int64_t start = 0;
  int library_depth = 0;  // inside a library's call (nested: rocBLAS's over hipBLAS's)
  uint64_t library_cid = 0;
  int64_t library_start = 0;
  bool named = false;     // its thread record is written
  bool internal = false;  // this library calls the driver: not the program's call
  // The thread that loaded this library, inside the call that initialized
  // CUDA (whose entry CUPTI could not report): see on_api.
  bool bootstrap = false;
  const char* held_name = nullptr;  // a driver call that ended there, maybe the program's own
  uint32_t held_cid = 0;
  int64_t held_end = 0;
};
ThreadState& state() { return hk_native::per_thread<ThreadState>(); }

void name_thread(ThreadState& t) {
  if (t.named) return;
  t.named = true;
  char name[64] = "";
  pthread_getname_np(pthread_self(), name, sizeof(name));
  writer.write(line("thread").num(thread_id()).str(name).end());
}

void write_api(uint64_t cid, const std::string& name, int64_t start, int64_t end) {
  writer.write(line("api").unum(cid).num(thread_id()).str(name.c_str()).num(start).num(end).end());
}

void write_alloc(uint64_t cid, const char* operation, const char* memory, const std::string& device,
                 uint64_t size, uint64_t address, int64_t start, int64_t end) {
  writer.write(line("alloc").unum(cid).num(thread_id()).str(operation).str(memory)
                   .str(device.c_str()).unum(size).unum(address).num(start).num(end).end());
}

// The parameters of the allocation functions (their layout since CUDA 3.2
// and 6.0, as the _v3020 and _v6000 of their callback ids say).
struct AllocParams {
  void** address;
  size_t size;
};
struct FreeParams {
  void* address;
};

// Allocations and frees of a finished runtime call.
void record_memory(uint64_t cid, CUpti_CallbackId cbid, const CUpti_CallbackData* data,
                   int64_t start, int64_t end) {
  if (*static_cast<const int*>(data->functionReturnValue) != 0) return;  // a cudaError_t
  const void* params = data->functionParams;
  const char* operation = "ALLOCATE";
  const char* memory = "device";
  void* address = nullptr;
  size_t size = 0;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      memory = "host";
      [[fallthrough]];
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
      auto p = static_cast<const AllocParams*>(params);
      address = *p->address, size = p->size;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      memory = "host";
      [[fallthrough]];
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      address = static_cast<const FreeParams*>(params)->address, operation = "FREE";
      break;
    default:
      return;
  }
  if (address == nullptr) return;  // a zero-byte allocation, a free of NULL
  const uint64_t key = reinterpret_cast<uintptr_t>(address);
  std::string device = "host";
  if (memory[0] == 'd') {
    uint32_t id = 0;
    if (data->context != nullptr && cuptiGetDeviceId(data->context, &id) == CUPTI_SUCCESS)
      device = device_name(id);
  }
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    if (operation[0] == 'A') {
      allocated[key] = size;
    } else {
      auto it = allocated.find(key);
      size = it != allocated.end() ? it->second : 0;
      if (it != allocated.end()) allocated.erase(it);
    }
  }
  write_alloc(cid, operation, memory, device, size, key, start, end);
}

void finish_call(ThreadState& t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                 const CUpti_CallbackData* data) {
  const int64_t end = monotonic_ns();
  name_thread(t);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) record_memory(t.cid, cbid, data, t.start, end);
  if (t.library_depth == 0) write_api(t.cid, hip_name(data->functionName), t.start, end);
}

void release_held(ThreadState& t) {
  if (t.held_name == nullptr) return;
  name_thread(t);
  write_api(t.held_cid, hip_name(t.held_name), t.start, t.held_end);
  t.held_name = nullptr;
}

// The CUDA runtime's own lazy loading of kernels (cuLibrary*, cuKernel*), which
// it does outside the program's calls: not calls of the program.
bool runtime_internal(const char* name) {
  return strncmp(name, "cuLibrary", 9) == 0 || strncmp(name, "cuKernel", 8) == 0;
}

void on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  ThreadState& t = state();
  if (t.internal) return;
  if (t.depth == 0 && domain == CUPTI_CB_DOMAIN_DRIVER_API && runtime_internal(data->functionName))
    return;  // its exit, at depth 0 too, is passed over below
  if (t.bootstrap) {
    // The call that initialized CUDA began before this library was loaded.
    // If the program called cuInit itself, the first driver call to end here
    // was it, and a runtime call to begin next tells so; if a runtime call
    // initialized CUDA, it is the first runtime call to end here, and the
    // driver calls that ended before were its inside.
    if (t.depth == 1 && data->callbackSite == CUPTI_API_EXIT) {
      if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        t.held_name = nullptr;
        t.bootstrap = false;
        t.depth = 0;
        t.cid = data->correlationId;
        if (enqueues_work(data->functionName)) remember_call(t.cid, thread_id(), t.start);
        finish_call(t, domain, cbid, data);
      } else if (t.held_name == nullptr) {
        t.held_name = data->functionName, t.held_cid = data->correlationId;
        t.held_end = monotonic_ns();
      }
      return;
    }
    // A runtime call beginning: runtime calls do not nest, so the initializing
    // call has returned (whether or not its exit was reported to us).
    if (t.depth == 1 && domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
        data->callbackSite == CUPTI_API_ENTER) {
      release_held(t);
      t.bootstrap = false;
      t.depth = 0;
    }
  }
  if (data->callbackSite == CUPTI_API_ENTER) {
    if (t.depth++ == 0) {
      t.start = monotonic_ns();
      if (t.library_depth > 0) {  // its work is the library call's
        t.cid = t.library_cid;
        if (enqueues_work(data->functionName)) belongs_to(data->correlationId, t.cid);
      } else {
        t.cid = data->correlationId;
        if (enqueues_work(data->functionName)) remember_call(t.cid, thread_id(), t.start);
      }
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && t.cid != 0 && data->correlationId != t.cid &&
               enqueues_work(data->functionName)) {
      belongs_to(data->correlationId, t.cid);
    }
    return;
  }
  if (t.depth == 0) return;  // began before tracing did
  if (--t.depth == 0) finish_call(t, domain, cbid, data);
}

// A context is made: its NULL stream's id (stream 0 of its device) and the
// device's name.
void on_context(const CUpti_ResourceData* data) {
  uint32_t context = 0, device = 0, null_stream = 0;
  if (cuptiGetContextId(data->context, &context) != CUPTI_SUCCESS ||
      cuptiGetDeviceId(data->context, &device) != CUPTI_SUCCESS)
    return;
  bool name_it = false;
  {
    std::lock_guard<std::mutex> lock(state_mutex);
    if (cuptiGetStreamIdEx(data->context, nullptr, 0, &null_stream) == CUPTI_SUCCESS)
      null_stream_of[context] = null_stream;
    name_it = devices_named.insert(device).second;
  }
  if (!name_it) return;
  std::string description = device_name(device);
  // The driver that loaded this library (the runtime opens it RTLD_LOCAL).
  using GetName = CUresult (*)(char*, int, CUdevice);
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  auto get_name =
      driver != nullptr ? reinterpret_cast<GetName>(dlsym(driver, "cuDeviceGetName")) : nullptr;
  char name[256] = "";
  state().internal = true;
  if (get_name != nullptr && get_name(name, sizeof(name), CUdevice(device)) == CUDA_SUCCESS)
    description += std::string(" ") + name;
  state().internal = false;
  if (driver != nullptr) dlclose(driver);  // the reference RTLD_NOLOAD took
  writer.write(line("device").str(device_name(device).c_str()).str(description.c_str()).end());
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (!started) return;  // the trace has ended (the runtime's teardown at exit)
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)
    on_api(domain, cbid, static_cast<const CUpti_CallbackData*>(data));
  else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
    on_context(static_cast<const CUpti_ResourceData*>(data));
}

}  // namespace

#endif  // HIPKIT_CUPTI_API_H

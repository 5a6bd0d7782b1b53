// Whole programs: the kernels and device globals of the translation units
// linked into an executable by `hipkit cc`, found by their host-side address
// (the kernel's function, the global's variable), as HIP's registration of
// fat binaries makes them known to its runtime.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "internal.h"

namespace hk {

namespace {

// A descriptor made for a kernel no unit registered (a template instance):
// its entry takes the function (a pointer) or a callable object that calls
// it (any other kind of parameter) as an extra last argument.
struct Generic {
  hk_kernel_desc desc;
  std::string name;
};

Mutex program_mutex;
// Under program_mutex.  Entries are never removed: a program's kernels and
// globals live as long as the process.
std::unordered_map<const void*, const hk_kernel_desc*> kernels;  // by symbol
std::unordered_map<const hk_kernel_desc*, const void*> generic_functions;
std::map<uintptr_t, size_t> globals;                              // address -> size
std::vector<std::unique_ptr<Generic>> generics;

}  // namespace

const void* program_generic_function(const hk_kernel_desc* desc) {
  Lock lock(program_mutex);
  if (generic_functions.empty()) return nullptr;  // the Python API's case
  auto it = generic_functions.find(desc);
  return it == generic_functions.end() ? nullptr : it->second;
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_program_register(const hk_module_desc* unit) {
  if (unit == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "program register: NULL unit");
  if (unit->abi_version != HK_ABI_VERSION)
    return fail(HKRT_ERROR_INVALID_IMAGE,
                "a unit of this program was built for kernel ABI version %u, the runtime has "
                "version %u: rebuild the program with this hipkit",
                unit->abi_version, unsigned(HK_ABI_VERSION));
  if (int error = hkrt_init(unit->warp_size, 0, 0)) {
    // Already running (then config is valid) with another warp size?
    if (error == HKRT_ERROR_INVALID_VALUE && ensure_init() == HKRT_SUCCESS &&
        config.warp_size != unit->warp_size)
      return fail(error,
                  "the units of this program were compiled for different warp sizes (%u and "
                  "%u): compile them all with the same HIPKIT_CPU_WARP_SIZE",
                  config.warp_size, unit->warp_size);
    return error;
  }
  Lock lock(program_mutex);
  for (uint32_t i = 0; i < unit->num_kernels; ++i)
    kernels.emplace(unit->kernels[i]->symbol, unit->kernels[i]);
  for (uint32_t i = 0; i < unit->num_globals; ++i)
    globals.emplace(reinterpret_cast<uintptr_t>(unit->globals[i].address), unit->globals[i].size);
  return HKRT_SUCCESS;
}

int hkrt_program_function(const void* symbol, const hk_kernel_desc* generic, const char* name,
                          const hk_kernel_desc** out) {
  if (int error = ensure_init()) return error;
  if (symbol == nullptr || out == nullptr)
    return fail(HKRT_ERROR_INVALID_DEVICE_FUNCTION, "NULL kernel function");
  Lock lock(program_mutex);
  auto it = kernels.find(symbol);
  if (it != kernels.end()) {
    *out = it->second;
    return HKRT_SUCCESS;
  }
  if (generic == nullptr || generic->num_params == 0)
    return fail(HKRT_ERROR_INVALID_DEVICE_FUNCTION,
                "%p is not a kernel of this program (a template instance is known once "
                "given to a call as a typed function pointer, e.g. kernel<float>)",
                symbol);
  auto made = std::make_unique<Generic>();
  made->name = name != nullptr && name[0] != '\0' ? name : "kernel";
  made->desc = *generic;
  made->desc.symbol = symbol;
  made->desc.name = made->name.c_str();
  const hk_kernel_desc* desc = &made->desc;
  generics.push_back(std::move(made));
  kernels.emplace(symbol, desc);
  const hk_param_desc& last = desc->params[desc->num_params - 1];
  if (last.kind == HK_PARAM_POINTER && last.size == sizeof(void*))
    generic_functions.emplace(desc, symbol);
  *out = desc;
  return HKRT_SUCCESS;
}

int hkrt_program_global(const void* address, size_t* size) {
  if (int error = ensure_init()) return error;
  Lock lock(program_mutex);
  auto it = globals.find(reinterpret_cast<uintptr_t>(address));
  if (it == globals.end())
    return fail(HKRT_ERROR_INVALID_SYMBOL, "%p is not a __device__ or __constant__ variable",
                address);
  if (size != nullptr) *size = it->second;
  return HKRT_SUCCESS;
}

}  // extern "C"

// Kernel modules: shared objects exporting __hk_module (abi.h), loaded with
// dlopen on one device, their kernels found by name, their globals by name.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstring>
#include <string>
#include <unordered_set>

#include "internal.h"

struct hkrt_module {};

namespace hk {

struct Module : hkrt_module {
  Device* device = nullptr;  // where its kernels launch; its reset unloads it
  void* handle = nullptr;
  const hk_module_desc* desc = nullptr;
  // The symbol name of each kernel (its mangled name, say), so that it can
  // be looked up by lowered name as well as by desc->name.
  std::vector<std::string> symbol_names;
  std::atomic<int> launches{0};  // launches not yet completed
};

namespace {

Mutex registry_mutex;
std::unordered_set<Module*> modules;  // under registry_mutex

int module_check_locked(hkrt_module* module) {
  if (module == nullptr || modules.count(static_cast<Module*>(module)) == 0)
    return fail(HKRT_ERROR_INVALID_HANDLE, "invalid module handle %p",
                static_cast<void*>(module));
  return HKRT_SUCCESS;
}

// Waits for the module's launches, then closes it.
void close_module(Module* module) {
  wait_until([module] { return module->launches.load(std::memory_order_acquire) == 0; });
  dlclose(module->handle);
  delete module;
}

void forget_kernels_locked(Module* module) {
  for (uint32_t i = 0; i < module->desc->num_kernels; ++i)
    function_forget_locked(module->desc->kernels[i]);
}

}  // namespace

Lock registry_lock() {
  return Lock(registry_mutex);
}

void module_launch_started(Module* module) {
  module->launches.fetch_add(1, std::memory_order_relaxed);
}

void module_launch_done(Module* module) {
  module->launches.fetch_sub(1, std::memory_order_release);
}

Device* module_device(const Module* module) { return module->device; }

Module* module_owning_locked(const hk_kernel_desc* desc) {
  for (Module* module : modules)
    for (uint32_t i = 0; i < module->desc->num_kernels; ++i)
      if (module->desc->kernels[i] == desc) return module;
  return nullptr;
}

void unload_all_modules(Device* device) {
  std::vector<Module*> all;
  {
    auto lock = registry_lock();
    for (auto it = modules.begin(); it != modules.end();) {
      if ((*it)->device != device) {
        ++it;
        continue;
      }
      forget_kernels_locked(*it);
      all.push_back(*it);
      it = modules.erase(it);
    }
  }
  for (Module* module : all) close_module(module);
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_module_load(int index, const char* path, hkrt_module** out) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (path == nullptr || out == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "module load: NULL path or output");
  struct stat st;
  if (stat(path, &st) != 0) return fail(HKRT_ERROR_FILE_NOT_FOUND, "no such file: %s", path);
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return fail(HKRT_ERROR_INVALID_IMAGE, "cannot load %s: %s", path, dlerror());
  auto reject = [&](const char* format, auto... args) {
    dlclose(handle);
    return fail(HKRT_ERROR_INVALID_IMAGE, format, args...);
  };
  auto entry = reinterpret_cast<hk_module_fn>(dlsym(handle, HK_MODULE_SYMBOL));
  if (entry == nullptr)
    return reject("%s is not a hipkit kernel module (it has no %s)", path, HK_MODULE_SYMBOL);
  const hk_module_desc* desc = entry();
  if (desc == nullptr || desc->abi_version != HK_ABI_VERSION)
    return reject("%s was built for kernel ABI version %u, the runtime has version %u", path,
                  desc != nullptr ? desc->abi_version : 0u, unsigned(HK_ABI_VERSION));
  if (desc->warp_size != config.warp_size)
    return reject("%s was compiled for warp size %u, but the device's warp size is %u", path,
                  desc->warp_size, config.warp_size);
  auto* module = new Module;
  module->device = device;
  module->handle = handle;
  module->desc = desc;
  for (uint32_t i = 0; i < desc->num_kernels; ++i) {
    const hk_kernel_desc* kernel = desc->kernels[i];
    Dl_info info;
    bool exact = kernel->symbol != nullptr && dladdr(kernel->symbol, &info) != 0 &&
                 info.dli_saddr == kernel->symbol && info.dli_sname != nullptr;
    module->symbol_names.push_back(exact ? info.dli_sname : "");
  }
  auto lock = registry_lock();
  modules.insert(module);
  *out = module;
  return HKRT_SUCCESS;
}

int hkrt_module_unload(hkrt_module* handle) {
  if (int error = ensure_init()) return error;
  Module* module = static_cast<Module*>(handle);
  {
    auto lock = registry_lock();
    if (int error = module_check_locked(handle)) return error;
    modules.erase(module);
    forget_kernels_locked(module);
  }
  close_module(module);
  return HKRT_SUCCESS;
}

int hkrt_module_get_function(hkrt_module* handle, const char* name, const hk_kernel_desc** out) {
  if (int error = ensure_init()) return error;
  if (name == nullptr || out == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "get function: NULL name or output");
  const hk_kernel_desc* found = nullptr;
  {
    auto lock = registry_lock();
    if (int error = module_check_locked(handle)) return error;
    const Module* module = static_cast<Module*>(handle);
    for (uint32_t i = 0; i < module->desc->num_kernels && found == nullptr; ++i) {
      const hk_kernel_desc* kernel = module->desc->kernels[i];
      if (strcmp(kernel->name, name) == 0 || module->symbol_names[i] == name) found = kernel;
    }
  }
  if (found == nullptr) return fail(HKRT_ERROR_NOT_FOUND, "no kernel named %s in the module", name);
  if (int error = function_register(found)) return error;
  *out = found;
  return HKRT_SUCCESS;
}

int hkrt_module_get_global(hkrt_module* handle, const char* name, void** ptr, size_t* size) {
  if (int error = ensure_init()) return error;
  if (name == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "get global: NULL name");
  auto lock = registry_lock();
  if (int error = module_check_locked(handle)) return error;
  const hk_module_desc* desc = static_cast<Module*>(handle)->desc;
  for (uint32_t i = 0; i < desc->num_globals; ++i) {
    if (strcmp(desc->globals[i].name, name) != 0) continue;
    if (ptr != nullptr) *ptr = desc->globals[i].address;
    if (size != nullptr) *size = desc->globals[i].size;
    return HKRT_SUCCESS;
  }
  return fail(HKRT_ERROR_NOT_FOUND, "no global named %s in the module", name);
}

}  // extern "C"

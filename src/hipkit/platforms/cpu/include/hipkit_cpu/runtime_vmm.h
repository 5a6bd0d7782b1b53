// hipkit CPU platform: the runtime's virtual memory management (runtime/vmm.cpp; part
// of runtime.h): reserved address ranges, physical allocations that can be mapped
// into them, and access to the mappings, as CUDA's driver and HIP have them.
#ifndef HIPKIT_CPU_RUNTIME_VMM_H
#define HIPKIT_CPU_RUNTIME_VMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// A physical allocation (hipMemGenericAllocationHandle_t).
typedef struct hkrt_vmm hkrt_vmm;

// Access to a mapping, hipMemAccessFlags' values.
enum { HKRT_VMM_ACCESS_NONE = 0, HKRT_VMM_ACCESS_READ = 1, HKRT_VMM_ACCESS_READ_WRITE = 3 };

// The granularity of sizes, offsets and addresses: the page size, or (recommended)
// 2 MiB, CUDA's.
int hkrt_vmm_granularity(int recommended, size_t* out);
// Reserves `size` bytes of address space aligned to `alignment` (0: a page), near
// `addr` if it is not NULL; hkrt_vmm_free gives back a whole reservation, with the
// mappings left in it.
int hkrt_vmm_reserve(void** ptr, size_t size, size_t alignment, void* addr);
int hkrt_vmm_free(void* ptr, size_t size);
// A physical allocation of `size` bytes for device `index`, exportable as a file
// descriptor if `exportable`; released once its handles and mappings are gone.
int hkrt_vmm_create(int index, size_t size, int exportable, hkrt_vmm** out);
int hkrt_vmm_release(hkrt_vmm* allocation);
// Maps `size` bytes of the allocation from `offset` at `ptr`, inside a reservation
// and not over another mapping, inaccessible until hkrt_vmm_set_access; unmap takes
// whole mappings.
int hkrt_vmm_map(void* ptr, size_t size, size_t offset, hkrt_vmm* allocation);
int hkrt_vmm_unmap(void* ptr, size_t size);
// Device `index`'s access (HKRT_VMM_ACCESS_*) to whole mappings; the pages get the
// widest access any device has.
int hkrt_vmm_set_access(void* ptr, size_t size, int index, int access);
int hkrt_vmm_get_access(const void* ptr, int index, int* access);
// Another handle to the allocation mapped at `addr`.
int hkrt_vmm_retain(const void* addr, hkrt_vmm** out);
int hkrt_vmm_info(hkrt_vmm* allocation, int* device, int* exportable, size_t* size);
// The allocation's file descriptor (a new one, which the caller owns), and an
// allocation from one (another process's export; the descriptor stays the caller's).
int hkrt_vmm_export(hkrt_vmm* allocation, int* fd);
int hkrt_vmm_import(int fd, hkrt_vmm** out);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPKIT_CPU_RUNTIME_VMM_H

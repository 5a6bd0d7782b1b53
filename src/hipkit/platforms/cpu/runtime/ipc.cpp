// Device memory shared between processes (hkrt_ipc_*): hipIpcGetMemHandle,
// hipIpcOpenMemHandle, hipIpcCloseMemHandle.
//
// No daemon and no name in the file system: exporting an allocation moves its
// pages, in place, to a memfd (memory.cpp, share_allocation) that stays open
// in the exporting process as long as the allocation lives.  The 64-byte
// handle names that descriptor by process id and number, with the file's
// device and inode to tell a reused number; another process of the same user
// opens it through /proc/<pid>/fd/<fd> and maps it shared.  When the exporter
// exits or frees the allocation, the descriptor closes with it; mappings
// already open keep the pages until they are closed, and nothing is left behind.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace hk {

namespace {

constexpr char kMagic[8] = {'h', 'k', 'i', 'p', 'c', 'm', 'e', 'm'};

struct MemHandle {
  char magic[8];
  int32_t pid;
  int32_t fd;
  uint64_t file_device, inode;  // the memfd's, from fstat
  uint64_t size;                // the allocation's
  uint64_t offset;              // of the exported pointer in it
  uint64_t unused;
};
static_assert(sizeof(MemHandle) <= HKRT_IPC_HANDLE_SIZE, "a handle is 64 bytes");

}  // namespace

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_ipc_get_mem_handle(void* out, void* ptr) {
  if (int error = ensure_init()) return error;
  if (out == nullptr || ptr == nullptr)
    return fail(HKRT_ERROR_INVALID_HANDLE, "ipc memory handle: NULL %s",
                out == nullptr ? "handle" : "pointer");
  SharedAllocation shared;
  if (int error = share_allocation(ptr, &shared)) return error;
  struct stat st;
  if (fstat(shared.fd, &st) != 0) return fail(HKRT_ERROR_MAP_FAILED, "fstat: %s", strerror(errno));
  MemHandle h = {};
  memcpy(h.magic, kMagic, sizeof(kMagic));
  h.pid = int32_t(getpid());
  h.fd = shared.fd;
  h.file_device = uint64_t(st.st_dev);
  h.inode = uint64_t(st.st_ino);
  h.size = shared.size;
  h.offset = uintptr_t(ptr) - shared.base;
  memset(out, 0, HKRT_IPC_HANDLE_SIZE);
  memcpy(out, &h, sizeof(h));
  return HKRT_SUCCESS;
}

int hkrt_ipc_open_mem_handle(int index, void** ptr, const void* handle, unsigned int flags) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (ptr == nullptr || handle == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open: NULL %s", ptr == nullptr ? "output" : "handle");
  if ((flags & ~HKRT_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open: unknown flags 0x%x", flags);
  MemHandle h;
  memcpy(&h, handle, sizeof(h));
  if (memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 || h.pid <= 0 || h.fd < 0 ||
      h.offset >= h.size)
    return fail(HKRT_ERROR_INVALID_VALUE, "not a memory handle of hipIpcGetMemHandle");
  if (h.pid == int32_t(getpid()))
    return fail(HKRT_ERROR_INVALID_CONTEXT, "ipc open: the handle is this process's own memory");
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/fd/%d", int(h.pid), int(h.fd));
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open: cannot open %s (%s): the exporting process "
                "or its allocation is gone", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || uint64_t(st.st_dev) != h.file_device ||
      uint64_t(st.st_ino) != h.inode || uint64_t(st.st_size) < h.size) {
    close(fd);
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open: the allocation of this handle was freed");
  }
  void* base = nullptr;
  int error = import_mapping(device, fd, size_t(h.size), &base);
  close(fd);  // the mapping keeps the memory
  if (error != 0) return error;
  *ptr = static_cast<char*>(base) + h.offset;
  return HKRT_SUCCESS;
}

int hkrt_ipc_close_mem_handle(void* ptr) {
  if (int error = ensure_init()) return error;
  if (ptr == nullptr) return fail(HKRT_ERROR_INVALID_HANDLE, "ipc close: NULL pointer");
  return close_import(ptr);
}

}  // extern "C"

// Device memory and events shared between processes (hkrt_ipc_*):
// hipIpcGetMemHandle, hipIpcOpenMemHandle, hipIpcCloseMemHandle,
// hipIpcGetEventHandle, hipIpcOpenEventHandle.
//
// No daemon and no name in the file system: exporting an allocation moves its
// pages, in place, to a memfd (memory.cpp, share_allocation) that stays open
// in the exporting process as long as the allocation lives.  The 64-byte
// handle names that descriptor by process id and number, with the file's
// device and inode to tell a reused number; another process of the same user
// opens it through /proc/<pid>/fd/<fd> and maps it shared.  When the exporter
// exits or frees the allocation, the descriptor closes with it; mappings
// already open keep the pages until they are closed, and nothing is left behind.
//
// An interprocess event is a page of such memory with two counters: the
// records made (by any process) and the greatest one done.  A record bumps
// the first and enqueues, after its Record op, a small host function that
// raises the second; a query compares them, a synchronize sleeps on the page
// (a shared futex), and a stream waits for the second to reach the first as
// hipStreamWaitValue64 does.
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstring>
#include <new>

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

constexpr char kEventMagic[8] = {'h', 'k', 'i', 'p', 'c', 'e', 'v', 't'};

struct EventHandle {
  char magic[8];
  int32_t pid;
  int32_t fd;
  uint64_t file_device, inode;
};

// The exported descriptor `fd` of process `pid`, opened here if it is still the
// file (`file_device`, `inode`) it was; -1 with the error through fail() if not.
int open_exported(int32_t pid, int32_t fd, uint64_t file_device, uint64_t inode, uint64_t size,
                  int* out) {
  if (pid == int32_t(getpid()))
    return fail(HKRT_ERROR_INVALID_CONTEXT, "ipc open: the handle is this process's own");
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/fd/%d", int(pid), int(fd));
  int opened = open(path, O_RDWR | O_CLOEXEC);
  if (opened < 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open: cannot open %s (%s): the exporting process "
                "or what it exported is gone", path, strerror(errno));
  struct stat st;
  if (fstat(opened, &st) != 0 || uint64_t(st.st_dev) != file_device ||
      uint64_t(st.st_ino) != inode || uint64_t(st.st_size) < size) {
    close(opened);
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open: what this handle exported was freed");
  }
  *out = opened;
  return HKRT_SUCCESS;
}

int file_identity(int fd, uint64_t* file_device, uint64_t* inode) {
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(HKRT_ERROR_MAP_FAILED, "fstat: %s", strerror(errno));
  *file_device = uint64_t(st.st_dev);
  *inode = uint64_t(st.st_ino);
  return HKRT_SUCCESS;
}

}  // namespace

// The page an interprocess event's processes share.
struct IpcEventPage {
  std::atomic<uint64_t> recorded;   // records made, by every process
  std::atomic<uint64_t> completed;  // the greatest record done
  std::atomic<uint32_t> wake;       // bumped when a record is done: a shared futex
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared atomics must be address-free");

struct IpcEvent {
  IpcEventPage* page;
  int fd;  // the memfd in the process that made the event, -1 in those that opened it
  std::atomic<int> refs{1};  // the event's, and one per record not yet done
};

namespace {

constexpr size_t kEventPage = 4096;

struct EventRecord {
  IpcEvent* ipc;
  uint64_t sequence;
};

void ipc_event_unref(IpcEvent* ipc) {
  if (ipc->refs.fetch_sub(1) != 1) return;
  munmap(ipc->page, kEventPage);
  if (ipc->fd >= 0) close(ipc->fd);
  delete ipc;
}

// Runs after the record's Record op, even if the device's work is dropped
// (a waiter in another process must not wait forever).
void record_done(void* data) {
  auto* r = static_cast<EventRecord*>(data);
  IpcEventPage* page = r->ipc->page;
  uint64_t seen = page->completed.load();
  while (seen < r->sequence && !page->completed.compare_exchange_weak(seen, r->sequence)) {
  }
  page->wake.fetch_add(1);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&page->wake), FUTEX_WAKE, INT_MAX, nullptr,
          nullptr, 0);
  ipc_event_unref(r->ipc);
  delete r;
}

}  // namespace

int ipc_event_create(unsigned flags, IpcEvent** out) {
  if ((flags & HKRT_EVENT_DISABLE_TIMING) == 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "an interprocess event must disable timing");
  int fd = int(syscall(SYS_memfd_create, "hipkit-ipc-event", 1u /* MFD_CLOEXEC */));
  if (fd < 0) return fail(HKRT_ERROR_OUT_OF_MEMORY, "memfd_create: %s", strerror(errno));
  void* page = ftruncate(fd, off_t(kEventPage)) == 0
                   ? mmap(nullptr, kEventPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                   : MAP_FAILED;
  if (page == MAP_FAILED) {
    close(fd);
    return fail(HKRT_ERROR_OUT_OF_MEMORY, "interprocess event: %s", strerror(errno));
  }
  *out = new IpcEvent{new (page) IpcEventPage{}, fd};
  return HKRT_SUCCESS;
}

// Its records still queued keep the page until they are done.
void ipc_event_destroy(IpcEvent* ipc) {
  if (ipc != nullptr) ipc_event_unref(ipc);
}

void ipc_event_record(IpcEvent* ipc, Stream* stream) {
  const uint64_t sequence = ipc->page->recorded.fetch_add(1) + 1;
  ipc->refs.fetch_add(1);
  enqueue(stream, small_host_op(record_done, new EventRecord{ipc, sequence}), nullptr, false);
}

int ipc_event_query(IpcEvent* ipc) {
  if (ipc->page->completed.load() < ipc->page->recorded.load())
    return fail(HKRT_ERROR_NOT_READY, "the event has not completed yet");
  return HKRT_SUCCESS;
}

void ipc_event_wait(IpcEvent* ipc) {
  IpcEventPage* page = ipc->page;
  const uint64_t target = page->recorded.load();
  for (;;) {
    const uint32_t seen = page->wake.load();
    if (page->completed.load() >= target) return;
    // Woken by the record's process; a millisecond's timeout in case it exits first.
    timespec timeout = {0, 1000000};
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&page->wake), FUTEX_WAIT, seen, &timeout,
            nullptr, 0);
  }
}

int ipc_event_stream_wait(IpcEvent* ipc, Stream* stream) {
  const uint64_t target = ipc->page->recorded.load();
  if (ipc->page->completed.load() >= target) return HKRT_SUCCESS;
  return enqueue_value_wait(stream, &ipc->page->completed, target, ~0ull, HKRT_WAIT_GEQ, 8);
}

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
  MemHandle h = {};
  if (int error = file_identity(shared.fd, &h.file_device, &h.inode)) return error;
  memcpy(h.magic, kMagic, sizeof(kMagic));
  h.pid = int32_t(getpid());
  h.fd = shared.fd;
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
  int fd = -1;
  if (int error = open_exported(h.pid, h.fd, h.file_device, h.inode, h.size, &fd)) return error;
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

int hkrt_ipc_get_event_handle(void* out, hkrt_event* event) {
  if (int error = ensure_init()) return error;
  if (out == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "ipc event handle: NULL handle");
  IpcEvent* ipc = nullptr;
  if (int error = event_ipc(event, &ipc, nullptr)) return error;
  if (ipc == nullptr || ipc->fd < 0)
    return fail(HKRT_ERROR_INVALID_CONFIGURATION, "the event was not created with "
                "hipEventInterprocess (or was opened from another process's handle)");
  EventHandle h = {};
  if (int error = file_identity(ipc->fd, &h.file_device, &h.inode)) return error;
  memcpy(h.magic, kEventMagic, sizeof(kEventMagic));
  h.pid = int32_t(getpid());
  h.fd = ipc->fd;
  memset(out, 0, HKRT_IPC_HANDLE_SIZE);
  memcpy(out, &h, sizeof(h));
  return HKRT_SUCCESS;
}

int hkrt_ipc_open_event_handle(int index, hkrt_event** out, const void* handle) {
  Device* device = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (out == nullptr || handle == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "ipc open event: NULL %s", out == nullptr ? "output" : "handle");
  EventHandle h;
  memcpy(&h, handle, sizeof(h));
  if (memcmp(h.magic, kEventMagic, sizeof(kEventMagic)) != 0 || h.pid <= 0 || h.fd < 0)
    return fail(HKRT_ERROR_INVALID_VALUE, "not an event handle of hipIpcGetEventHandle");
  int fd = -1;
  if (int error = open_exported(h.pid, h.fd, h.file_device, h.inode, kEventPage, &fd)) return error;
  void* page = mmap(nullptr, kEventPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (page == MAP_FAILED) return fail(HKRT_ERROR_MAP_FAILED, "mmap: %s", strerror(errno));
  auto* ipc = new IpcEvent{static_cast<IpcEventPage*>(page), -1};
  if (int error = hkrt_event_create(index, out, HKRT_EVENT_DISABLE_TIMING)) {
    ipc_event_destroy(ipc);
    return error;
  }
  IpcEvent* attached = nullptr;
  return event_ipc(*out, &attached, ipc);
}

}  // extern "C"

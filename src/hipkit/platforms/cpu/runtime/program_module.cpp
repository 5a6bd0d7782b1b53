// Kernel modules loaded from memory, as hipModuleLoadData gives them to whole
// programs: the bytes go to an anonymous in-memory file, which dlopen reads
// through /proc/self/fd (no file system, no directory to clean up).
//
// The file stays open while its module is loaded: dlopen knows a loaded
// library by its path, and a closed descriptor's number (so its path) would
// be handed to the next module, which dlopen would then take for this one.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <hipkit_cpu/runtime_module.h>
#include <new>
#include <unordered_map>
#include <vector>

#include <cstdio>

#include "internal.h"

namespace hk {

namespace {

Mutex files_mutex;
std::unordered_map<hkrt_module*, int> files;  // module -> its file, under files_mutex

template <class T>
T read_at(const unsigned char* p, uint64_t offset) {
  T value;
  memcpy(&value, p + offset, sizeof(value));
  return value;
}

// The size of the ELF64 file of this machine's byte order at `p`: where the
// last of its parts ends (headers, segments, sections); 0 if it is not one.
uint64_t elf_size(const unsigned char* p) {
  static const unsigned char kMagic[4] = {0x7f, 'E', 'L', 'F'};
  const unsigned char native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 1 : 2;
  if (memcmp(p, kMagic, 4) != 0 || p[4] != 2 /* ELFCLASS64 */ || p[5] != native) return 0;
  const uint64_t phoff = read_at<uint64_t>(p, 0x20), shoff = read_at<uint64_t>(p, 0x28);
  const uint16_t phentsize = read_at<uint16_t>(p, 0x36), phnum = read_at<uint16_t>(p, 0x38);
  const uint16_t shentsize = read_at<uint16_t>(p, 0x3a), shnum = read_at<uint16_t>(p, 0x3c);
  if ((phnum != 0 && phentsize != 56) || (shnum != 0 && shentsize != 64)) return 0;
  uint64_t end = 64;  // the ELF header
  end = std::max(end, phoff + uint64_t(phnum) * phentsize);
  end = std::max(end, shoff + uint64_t(shnum) * shentsize);
  for (uint16_t i = 0; i < phnum; ++i) {  // p_offset + p_filesz
    const uint64_t at = phoff + uint64_t(i) * phentsize;
    end = std::max(end, read_at<uint64_t>(p, at + 0x08) + read_at<uint64_t>(p, at + 0x20));
  }
  for (uint16_t i = 0; i < shnum; ++i) {  // sh_offset + sh_size, unless SHT_NOBITS
    const uint64_t at = shoff + uint64_t(i) * shentsize;
    if (read_at<uint32_t>(p, at + 0x04) != 8)
      end = std::max(end, read_at<uint64_t>(p, at + 0x18) + read_at<uint64_t>(p, at + 0x20));
  }
  return end;
}

bool write_all(int fd, const unsigned char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

}  // namespace

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_module_load_image(int device, const void* image, size_t size, hkrt_module** out) {
  if (int error = ensure_init()) return error;
  if (image == nullptr || out == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "module load: NULL image or output");
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (size == 0) {
    // The headers of memory that may not be an ELF file at all: a fault
    // while reading them is an invalid image, not the program's end.
    uint64_t found = 0;
    ExecContext exec;
    exec.what = "hipModuleLoadData reading the image";
    if (run_guarded(exec, [&] { found = elf_size(bytes); }) != 0)
      return fail(HKRT_ERROR_INVALID_IMAGE, "the module image is not readable: %s", exec.detail);
    if (found == 0)
      return fail(HKRT_ERROR_INVALID_IMAGE,
                  "the module image is not a kernel module (a 64-bit ELF shared object of "
                  "this machine, as hiprtcGetCode gives)");
    size = size_t(found);
  }
  int fd = memfd_create("hipkit-module", MFD_CLOEXEC);
  if (fd < 0) return fail(HKRT_ERROR_OUT_OF_MEMORY, "memfd_create: %s", strerror(errno));
  if (!write_all(fd, bytes, size)) {
    int error = errno;
    close(fd);
    return fail(error == EFAULT ? HKRT_ERROR_INVALID_IMAGE : HKRT_ERROR_OUT_OF_MEMORY,
                "copying the module image (%zu bytes): %s", size, strerror(error));
  }
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  hkrt_module* module = nullptr;
  if (int error = hkrt_module_load(device, path, &module)) {
    close(fd);
    return error;
  }
  Lock lock(files_mutex);
  // A module at the same address that was unloaded by hkrt_device_reset.
  auto it = files.find(module);
  if (it != files.end()) close(it->second);
  files[module] = fd;
  *out = module;
  return HKRT_SUCCESS;
}

int hkrt_module_load_file(int device, const char* path, hkrt_module** out) {
  if (int error = ensure_init()) return error;
  if (path == nullptr || out == nullptr)
    return fail(HKRT_ERROR_INVALID_VALUE, "module load: NULL path or output");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(HKRT_ERROR_FILE_NOT_FOUND, "cannot open %s: %s", path, strerror(errno));
  std::vector<unsigned char> bytes;
  int error = 0;
  try {
    unsigned char buffer[1 << 16];
    for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = fail(HKRT_ERROR_FILE_NOT_FOUND, "cannot read %s: %s", path, strerror(errno));
        break;
      }
      bytes.insert(bytes.end(), buffer, buffer + n);
    }
  } catch (const std::bad_alloc&) {
    error = fail(HKRT_ERROR_OUT_OF_MEMORY, "reading %s: out of memory", path);
  }
  close(fd);
  if (error != 0) return error;
  if (bytes.empty()) return fail(HKRT_ERROR_INVALID_IMAGE, "%s is empty", path);
  return hkrt_module_load_image(device, bytes.data(), bytes.size(), out);
}

int hkrt_module_unload_image(hkrt_module* module) {
  int error = hkrt_module_unload(module);
  if (error != HKRT_SUCCESS && error != HKRT_ERROR_INVALID_HANDLE) return error;
  // Unloaded now, or earlier by hkrt_device_reset: either way its file can go.
  Lock lock(files_mutex);
  auto it = files.find(module);
  if (it != files.end()) {
    close(it->second);
    files.erase(it);
  }
  return error;
}

}  // extern "C"

// Virtual memory management (tests/test_cc_vmm.py): two physical allocations mapped
// side by side into one reserved range, filled from in.bin, scaled by a kernel across
// the seam, and, through an exported file descriptor, doubled by a second process
// that maps the second allocation into its own range.  Then the errors users can
// provoke.  Prints "name|value" lines; writes out.bin.
#include <hip/hip_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

#define CHECK(call)                                                              \
  do {                                                                           \
    hipError_t e_ = (call);                                                      \
    if (e_ != hipSuccess) {                                                      \
      fprintf(stderr, "line %d: %s: %s\n", __LINE__, #call, hipGetErrorName(e_)); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

__global__ void scale(float* x, float a, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= a;
}

static hipMemAllocationProp properties(hipMemAllocationHandleType type) {
  hipMemAllocationProp prop = {};
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = type;
  prop.location = {hipMemLocationTypeDevice, 0};
  return prop;
}

static void* map(hipMemGenericAllocationHandle_t handle, size_t size) {
  void* at = nullptr;
  CHECK(hipMemAddressReserve(&at, size, 0, nullptr, 0));
  CHECK(hipMemMap(at, size, 0, handle, 0));
  hipMemAccessDesc access = {{hipMemLocationTypeDevice, 0}, hipMemAccessFlagsProtReadWrite};
  CHECK(hipMemSetAccess(at, size, &access, 1));
  return at;
}

static void launch_scale(float* x, float a, size_t n) {
  hipLaunchKernelGGL(scale, dim3((n + 255) / 256), dim3(256), 0, 0, x, a, n);
  CHECK(hipDeviceSynchronize());
}

// The second process: import the allocation, map it, double what it holds.
static int importer(int fd, size_t size) {
  hipMemGenericAllocationHandle_t handle;
  CHECK(hipMemImportFromShareableHandle(&handle, reinterpret_cast<void*>(intptr_t(fd)),
                                        hipMemHandleTypePosixFileDescriptor));
  void* at = map(handle, size);
  launch_scale(static_cast<float*>(at), 2.0f, size / sizeof(float));
  CHECK(hipMemUnmap(at, size));
  CHECK(hipMemRelease(handle));
  CHECK(hipMemAddressFree(at, size));
  return 0;
}

static const char* name(hipError_t e) { return hipGetErrorName(e); }

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "import") return importer(atoi(argv[2]), strtoull(argv[3], 0, 10));
  setvbuf(stdout, nullptr, _IONBF, 0);  // what was said survives a crash
  hipMemAllocationProp plain = properties(hipMemHandleTypeNone);
  hipMemAllocationProp shared = properties(hipMemHandleTypePosixFileDescriptor);
  size_t minimum = 0, recommended = 0;
  CHECK(hipMemGetAllocationGranularity(&minimum, &plain, hipMemAllocationGranularityMinimum));
  CHECK(hipMemGetAllocationGranularity(&recommended, &plain, hipMemAllocationGranularityRecommended));
  printf("granularity|%zu|%zu\n", minimum, recommended);

  const size_t half = 2 * minimum, whole = 2 * half, n = whole / sizeof(float);
  hipMemGenericAllocationHandle_t first, second;
  CHECK(hipMemCreate(&first, half, &plain, 0));
  CHECK(hipMemCreate(&second, half, &shared, 0));
  void* base = nullptr;
  CHECK(hipMemAddressReserve(&base, whole, recommended, nullptr, 0));
  printf("aligned|%d\n", int(reinterpret_cast<uintptr_t>(base) % recommended == 0));
  char* bytes = static_cast<char*>(base);
  CHECK(hipMemMap(bytes, half, 0, first, 0));
  CHECK(hipMemMap(bytes + half, half, 0, second, 0));
  unsigned long long flags = 7;
  hipMemLocation device0 = {hipMemLocationTypeDevice, 0};
  CHECK(hipMemGetAccess(&flags, &device0, bytes));
  printf("access before|%llu\n", flags);
  hipMemAccessDesc access = {device0, hipMemAccessFlagsProtReadWrite};
  CHECK(hipMemSetAccess(base, whole, &access, 1));
  CHECK(hipMemGetAccess(&flags, &device0, bytes + half + 8));
  printf("access after|%llu\n", flags);

  std::vector<float> data(n);
  FILE* in = fopen("in.bin", "rb");
  if (!in || fread(data.data(), sizeof(float), n, in) != n) return 2;
  fclose(in);
  CHECK(hipMemcpy(base, data.data(), whole, hipMemcpyHostToDevice));
  launch_scale(static_cast<float*>(base), 3.0f, n);  // across both allocations

  hipMemGenericAllocationHandle_t found;
  CHECK(hipMemRetainAllocationHandle(&found, bytes + half + 100));
  printf("retained|%d\n", int(found == second));
  CHECK(hipMemRelease(found));
  hipMemAllocationProp got;
  CHECK(hipMemGetAllocationPropertiesFromHandle(&got, second));
  printf("properties|%d|%d|%d|%d\n", int(got.type), int(got.requestedHandleType), int(got.location.type),
         got.location.id);

  // The second process doubles the second allocation through its file descriptor.
  int fd = -1;
  CHECK(hipMemExportToShareableHandle(&fd, second, hipMemHandleTypePosixFileDescriptor, 0));
  std::string fd_text = std::to_string(fd), size_text = std::to_string(half);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, fd);  // clears close-on-exec in the child
  char* child_argv[] = {argv[0], const_cast<char*>("import"), fd_text.data(), size_text.data(), nullptr};
  pid_t child = 0;
  if (posix_spawn(&child, argv[0], &actions, nullptr, child_argv, environ) != 0) return 3;
  int status = 0;
  waitpid(child, &status, 0);
  close(fd);
  printf("child|%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  CHECK(hipMemcpy(data.data(), base, whole, hipMemcpyDeviceToHost));
  FILE* out = fopen("out.bin", "wb");
  fwrite(data.data(), sizeof(float), n, out);
  fclose(out);

  // Errors users can provoke.
  void* other = nullptr;
  printf("error odd size|%s\n", name(hipMemAddressReserve(&other, minimum + 1, 0, nullptr, 0)));
  printf("error flags|%s\n", name(hipMemAddressReserve(&other, minimum, 0, nullptr, 1)));
  printf("error map over|%s\n", name(hipMemMap(bytes, half, 0, second, 0)));
  printf("error map outside|%s\n", name(hipMemMap(&data[0], half, 0, second, 0)));
  printf("error map past end|%s\n", name(hipMemMap(bytes, half, minimum, second, 0)));
  printf("error partial access|%s\n", name(hipMemSetAccess(bytes, minimum, &access, 1)));
  hipMemAccessDesc bad_device = {{hipMemLocationTypeDevice, 99}, hipMemAccessFlagsProtRead};
  printf("error bad device|%s\n", name(hipMemSetAccess(base, whole, &bad_device, 1)));
  hipMemAllocationProp win32 = properties(hipMemHandleTypeWin32);
  hipMemGenericAllocationHandle_t unused;
  printf("error win32|%s\n", name(hipMemCreate(&unused, half, &win32, 0)));
  printf("error not exportable|%s\n",
         name(hipMemExportToShareableHandle(&fd, first, hipMemHandleTypePosixFileDescriptor, 0)));
  printf("error import junk|%s\n", name(hipMemImportFromShareableHandle(&unused, reinterpret_cast<void*>(intptr_t(0)),
                                                                         hipMemHandleTypePosixFileDescriptor)));
#ifdef __HIPKIT_CPU__
  printf("error arrays|%s\n", name(hipMemMapArrayAsync(nullptr, 0, nullptr)));  // the CPU's arrays are not sparse
#endif

  // Released handles live on in their mappings; a second release is refused.
  CHECK(hipMemRelease(first));
  CHECK(hipMemRelease(second));
#ifdef __HIPKIT_CPU__  // CUDA's handles are not checked: a released one is undefined there
  printf("error release twice|%s\n", name(hipMemRelease(second)));
#endif
  printf("error unmap part|%s\n", name(hipMemUnmap(bytes, minimum)));
  CHECK(hipMemUnmap(bytes, whole));  // both mappings: the allocations go with them
#ifdef __HIPKIT_CPU__
  printf("error stale handle|%s\n", name(hipMemMap(bytes, half, 0, first, 0)));
#endif
  printf("error free part|%s\n", name(hipMemAddressFree(bytes, half)));
  CHECK(hipMemAddressFree(base, whole));
  hipGetLastError();

  // A kernel touching a mapping without access faults, as on a GPU.
  hipMemGenericAllocationHandle_t closed;
  CHECK(hipMemCreate(&closed, minimum, &plain, 0));
  void* sealed = nullptr;
  CHECK(hipMemAddressReserve(&sealed, minimum, 0, nullptr, 0));
  CHECK(hipMemMap(sealed, minimum, 0, closed, 0));
  hipLaunchKernelGGL(scale, dim3(1), dim3(32), 0, 0, static_cast<float*>(sealed), 2.0f, size_t(32));
  printf("no access|%s\n", name(hipDeviceSynchronize()));
  return 0;
}

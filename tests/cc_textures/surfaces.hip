// Surface objects over arrays: reads and writes in 1-D, 2-D, 3-D and layered
// arrays against the same arithmetic on the host, and the boundary modes
// (zero, clamp, trap: a sticky hipErrorIllegalAddress).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t e_ = (call);                                                           \
    if (e_ != hipSuccess) {                                                           \
      fprintf(stderr, "line %d: %s gave %s\n", __LINE__, #call, hipGetErrorName(e_)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

std::mt19937 gen(std::random_device{}());

// element (x, y, z) <- 3 * element (x, y, z) + 1 + x, read and written in place.
__global__ void update_1d(hipSurfaceObject_t s, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) surf1Dwrite(surf1Dread<int>(s, x * 4) * 3 + 1 + x, s, x * 4);
}
__global__ void update_2d(hipSurfaceObject_t s, int w, int h) {
  const int x = threadIdx.x, y = blockIdx.x;
  if (x >= w || y >= h) return;
  uchar4 v;
  surf2Dread(&v, s, x * 4, y);
  surf2Dwrite(make_uchar4(v.w, v.z + 1, v.y, v.x ^ y), s, x * 4, y);
}
__global__ void update_3d(hipSurfaceObject_t s, int w, int h, int d) {
  const int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) surf3Dwrite(surf3Dread<float>(s, x * 4, y, z) * 2.0f + z, s, x * 4, y, z);
}
__global__ void update_layered(hipSurfaceObject_t s2, hipSurfaceObject_t s1, int w, int h) {
  const int x = threadIdx.x, y = blockIdx.x, layer = blockIdx.y;
  if (x >= w || y >= h) return;
  float2 v = surf2DLayeredread<float2>(s2, x * 8, y, layer);
  surf2DLayeredwrite(make_float2(v.y, v.x + layer), s2, x * 8, y, layer);
  if (y == 0) surf1DLayeredwrite(short(surf1DLayeredread<short>(s1, x * 2, layer) + 1), s1, x * 2, layer);
}
// Reads at (byte x, row y) and writes of value + i there, in `mode`, one after another.
__global__ void outside(hipSurfaceObject_t s, const int* xs, int* got, int n, int value, int mode) {
  for (int i = 0; i < n; ++i) {
    got[i] = surf2Dread<int>(s, xs[2 * i], xs[2 * i + 1], hipSurfaceBoundaryMode(mode));
    surf2Dwrite(value + i, s, xs[2 * i], xs[2 * i + 1], hipSurfaceBoundaryMode(mode));
  }
}

template <class T>
hipSurfaceObject_t surface_of(hipArray_t a) {
  hipResourceDesc res = {};
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipSurfaceObject_t s = {};
  if (hipCreateSurfaceObject(&s, &res) != hipSuccess) return {};
  return s;
}

// The whole of an array from or to the host: on NVIDIA a 3-D copy (CUDA's
// linear array copies are for 1-D arrays), elsewhere a linear one.
template <class T>
hipError_t whole(hipArray_t a, std::vector<T>& host, bool upload) {
#ifdef __HIP_PLATFORM_NVIDIA__
  hipChannelFormatDesc desc;
  hipExtent e;
  unsigned flags;
  hipError_t code = hipArrayGetInfo(&desc, &e, &flags, a);
  if (code != hipSuccess) return code;
  const size_t h = e.height ? e.height : 1, d = e.depth ? e.depth : 1;
  hipMemcpy3DParms p = {};
  hipPitchedPtr ptr = make_hipPitchedPtr(host.data(), e.width * sizeof(T), e.width, h);
  if (upload) {
    p.srcPtr = ptr;
    p.dstArray = a;
  } else {
    p.srcArray = a;
    p.dstPtr = ptr;
  }
  p.extent = make_hipExtent(e.width, h, d);
  p.kind = upload ? hipMemcpyHostToDevice : hipMemcpyDeviceToHost;
  return hipMemcpy3D(&p);
#else
  return upload ? hipMemcpyHtoA(a, 0, host.data(), host.size() * sizeof(T))
                : hipMemcpyAtoH(host.data(), a, 0, host.size() * sizeof(T));
#endif
}

template <class T>
int with_array(const hipChannelFormatDesc& desc, hipExtent extent, unsigned flags, std::vector<T>& host,
               hipArray_t* out) {
  CHECK(hipMalloc3DArray(out, &desc, extent, flags | hipArraySurfaceLoadStore));
  for (auto& v : host) {
    unsigned char* b = reinterpret_cast<unsigned char*>(&v);
    for (size_t k = 0; k < sizeof(T); ++k) b[k] = (unsigned char)(gen() % 7);
  }
  CHECK(whole(*out, host, true));
  return 0;
}

#define SAME_AS(array, want)                                                        \
  do {                                                                              \
    auto got_ = want;                                                               \
    CHECK(whole(array, got_, false));                                               \
    if (memcmp(got_.data(), want.data(), got_.size() * sizeof(got_[0])) != 0) {     \
      fprintf(stderr, "line %d: the array differs from the host's\n", __LINE__);   \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

int one_d() {
  const int W = 37;
  std::vector<int> host(W);
  hipArray_t a;
  if (with_array(hipCreateChannelDesc<int>(), make_hipExtent(W, 0, 0), 0, host, &a)) return 1;
  hipSurfaceObject_t s = surface_of<int>(a);
  update_1d<<<2, 32>>>(s, W);
  CHECK(hipDeviceSynchronize());
  for (int x = 0; x < W; ++x) host[x] = host[x] * 3 + 1 + x;
  SAME_AS(a, host);
  CHECK(hipDestroySurfaceObject(s));
  return hipFreeArray(a);
}

int two_d() {
  const int W = 13, H = 7;
  std::vector<uchar4> host(W * H);
  hipArray_t a;
  if (with_array(hipCreateChannelDesc<uchar4>(), make_hipExtent(W, H, 0), 0, host, &a)) return 1;
  hipSurfaceObject_t s = surface_of<uchar4>(a);
  update_2d<<<H, 16>>>(s, W, H);
  CHECK(hipDeviceSynchronize());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      uchar4 v = host[y * W + x];
      host[y * W + x] = make_uchar4(v.w, v.z + 1, v.y, v.x ^ y);
    }
  SAME_AS(a, host);
  CHECK(hipDestroySurfaceObject(s));
  return hipFreeArray(a);
}

int three_d() {
  const int W = 5, H = 4, D = 3;
  std::vector<float> host(W * H * D);
  hipArray_t a;
  if (with_array(hipCreateChannelDesc<float>(), make_hipExtent(W, H, D), 0, host, &a)) return 1;
  for (auto& v : host) v = float(gen() % 1000) / 8.0f;
  CHECK(whole(a, host, true));
  hipSurfaceObject_t s = surface_of<float>(a);
  update_3d<<<dim3(H, D), 8>>>(s, W, H, D);
  CHECK(hipDeviceSynchronize());
  for (int z = 0; z < D; ++z)
    for (int i = 0; i < W * H; ++i) host[z * W * H + i] = host[z * W * H + i] * 2.0f + z;
  SAME_AS(a, host);
  CHECK(hipDestroySurfaceObject(s));
  return hipFreeArray(a);
}

int layered() {
  const int W = 6, H = 5, L = 3;
  std::vector<float2> host2(W * H * L);
  std::vector<short> host1(W * L);
  hipArray_t a2, a1;
  if (with_array(hipCreateChannelDesc<float2>(), make_hipExtent(W, H, L), hipArrayLayered, host2, &a2)) return 1;
  if (with_array(hipCreateChannelDesc<short>(), make_hipExtent(W, 0, L), hipArrayLayered, host1, &a1)) return 1;
  for (auto& v : host2) v = make_float2(float(gen() % 100), float(gen() % 100));
  CHECK(whole(a2, host2, true));
  hipSurfaceObject_t s2 = surface_of<float2>(a2), s1 = surface_of<short>(a1);
  update_layered<<<dim3(H, L), 8>>>(s2, s1, W, H);
  CHECK(hipDeviceSynchronize());
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < W * H; ++i) {
      float2 v = host2[l * W * H + i];
      host2[l * W * H + i] = make_float2(v.y, v.x + l);
    }
  for (auto& v : host1) v = short(v + 1);
  SAME_AS(a2, host2);
  SAME_AS(a1, host1);
  CHECK(hipDestroySurfaceObject(s2));
  CHECK(hipDestroySurfaceObject(s1));
  CHECK(hipFreeArray(a1));
  return hipFreeArray(a2);
}

// Reads and writes at (-4, 1), (W * 4, 2), (8, -1), (4, H), inside (4, 1).
int bounds(int mode) {
  const int W = 5, H = 3, n = 5;
  std::vector<int> host(W * H);
  hipArray_t a;
  if (with_array(hipCreateChannelDesc<int>(), make_hipExtent(W, H, 0), 0, host, &a)) return 1;
  const int xs[2 * n] = {-4, 1, W * 4, 2, 8, -1, 4, H, 4, 1};
  int *dxs, *dgot;
  CHECK(hipMalloc(&dxs, sizeof(xs)));
  CHECK(hipMalloc(&dgot, n * 4));
  CHECK(hipMemcpy(dxs, xs, sizeof(xs), hipMemcpyHostToDevice));
  hipSurfaceObject_t s = surface_of<int>(a);
  const std::vector<int> before = host;
  outside<<<1, 1>>>(s, dxs, dgot, n, 1000, mode);
  CHECK(hipDeviceSynchronize());
  int got[n];
  CHECK(hipMemcpy(got, dgot, sizeof(got), hipMemcpyDeviceToHost));
  // Clamped positions: (0, 1), (W-1, 2), (2, 0), (1, H-1).
  const int clamped[n] = {1 * W + 0, 2 * W + W - 1, 0 * W + 2, (H - 1) * W + 1, 1 * W + 1};
  for (int i = 0; i < n; ++i) {
    const bool inside = i == n - 1;
    const int want = mode == hipBoundaryModeClamp || inside ? host[clamped[i]] : 0;
    if (got[i] != want) {
      fprintf(stderr, "read %d gave %d, not %d\n", i, got[i], want);
      return 1;
    }
    if (mode == hipBoundaryModeClamp || inside) host[clamped[i]] = 1000 + i;
  }
  SAME_AS(a, host);
  CHECK(hipDestroySurfaceObject(s));
  CHECK(hipFree(dxs));
  CHECK(hipFree(dgot));
  return hipFreeArray(a);
}

int trap() {
  hipArray_t a;
  std::vector<int> host(4 * 4);
  if (with_array(hipCreateChannelDesc<int>(), make_hipExtent(4, 4, 0), 0, host, &a)) return 1;
  int* dxs;
  const int xs[2] = {16, 0};
  CHECK(hipMalloc(&dxs, 16));
  CHECK(hipMemcpy(dxs, xs, sizeof(xs), hipMemcpyHostToDevice));
  int* dgot;
  CHECK(hipMalloc(&dgot, 16));
  hipSurfaceObject_t s = surface_of<int>(a);
  outside<<<1, 1>>>(s, dxs, dgot, 1, 0, hipBoundaryModeTrap);
  const hipError_t first = hipDeviceSynchronize();
  const hipError_t later = hipMemcpy(host.data(), dgot, 4, hipMemcpyDeviceToHost);
  printf("%s %s\n", hipGetErrorName(first), hipGetErrorName(later));
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int failed = mode == "1d"        ? one_d()
                     : mode == "2d"      ? two_d()
                     : mode == "3d"      ? three_d()
                     : mode == "layered" ? layered()
                     : mode == "zero"    ? bounds(hipBoundaryModeZero)
                     : mode == "clamp"   ? bounds(hipBoundaryModeClamp)
                     : mode == "trap"    ? trap()
                                         : 2;
  if (!failed) printf("ok\n");
  return failed;
}

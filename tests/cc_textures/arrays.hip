// HIP arrays: copies that round trip with odd sizes and offsets (copies),
// 3-D and hipMemcpyParam2D copies (copies3d, param2d), queries and the driver forms (queries), every bad
// descriptor's error (errors).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CHECK(call) EXPECT(call, hipSuccess)
#define EXPECT(call, code)                                                                    \
  do {                                                                                        \
    hipError_t e_ = (call);                                                                   \
    if (e_ != (code)) {                                                                       \
      fprintf(stderr, "line %d: %s gave %s, not %s\n", __LINE__, #call, hipGetErrorName(e_), \
              #code);                                                                         \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define SAME(a, b, bytes)                                         \
  do {                                                            \
    if (memcmp((a), (b), (bytes)) != 0) {                         \
      fprintf(stderr, "line %d: %s differs from %s\n", __LINE__, #a, #b); \
      return 1;                                                   \
    }                                                             \
  } while (0)

std::vector<unsigned char> random_bytes(size_t n) {
  static std::mt19937 gen(std::random_device{}());
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = (unsigned char)gen();
  return v;
}

// A 7 x 5 array of uchar2 (14-byte rows): 2-D copies with offsets, linear
// copies across rows, array to array, device and host forms, async on a stream.
int copies() {
  const size_t W = 7, H = 5, E = 2, row = W * E;
  hipChannelFormatDesc desc = hipCreateChannelDesc<uchar2>();
  hipArray_t a = nullptr, b = nullptr;
  CHECK(hipMallocArray(&a, &desc, W, H));
  CHECK(hipMallocArray(&b, &desc, W, H));
  const size_t spitch = 19;  // odd, wider than a row
  std::vector<unsigned char> src = random_bytes(spitch * H), back(row * H, 0);
  CHECK(hipMemcpy2DToArray(a, 0, 0, src.data(), spitch, row, H, hipMemcpyHostToDevice));
  CHECK(hipMemcpy2DFromArray(back.data(), row, a, 0, 0, row, H, hipMemcpyDeviceToHost));
  for (size_t y = 0; y < H; ++y) SAME(&back[y * row], &src[y * spitch], row);

  // A 3 x 2 element window at (2, 1): the rest stays.
  std::vector<unsigned char> patch = random_bytes(3 * E * 2), window(3 * E * 2);
  CHECK(hipMemcpy2DToArray(a, 2 * E, 1, patch.data(), 3 * E, 3 * E, 2, hipMemcpyHostToDevice));
  CHECK(hipMemcpy2DFromArray(window.data(), 3 * E, a, 2 * E, 1, 3 * E, 2, hipMemcpyDeviceToHost));
  SAME(window.data(), patch.data(), patch.size());
  std::vector<unsigned char> all(row * H);
  CHECK(hipMemcpyAtoH(all.data(), a, 0, all.size()));
  SAME(&all[0], &back[0], row);  // row 0 untouched
  SAME(&all[1 * row], &back[1 * row], 2 * E);
  SAME(&all[1 * row + 2 * E], &patch[0], 3 * E);

  // Array to array (2-D and linear), device memory both ways.
  CHECK(hipMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, row, H, hipMemcpyDeviceToDevice));
  std::vector<unsigned char> got(row * H);
  CHECK(hipMemcpyFromArray(got.data(), b, 0, 0, got.size(), hipMemcpyDeviceToHost));
  SAME(got.data(), all.data(), all.size());
  void* dev = nullptr;
  CHECK(hipMalloc(&dev, row * H));
  CHECK(hipMemcpyAtoD(dev, b, 3, row * H - 3));
  std::vector<unsigned char> from_dev(row * H - 3);
  CHECK(hipMemcpy(from_dev.data(), dev, from_dev.size(), hipMemcpyDeviceToHost));
  SAME(from_dev.data(), &all[3], from_dev.size());
  std::vector<unsigned char> fresh = random_bytes(row * H);
  CHECK(hipMemcpy(dev, fresh.data(), fresh.size(), hipMemcpyHostToDevice));
  CHECK(hipMemcpyDtoA(b, 0, dev, fresh.size()));
  CHECK(hipMemcpyAtoA(a, 5, b, 1, 11));
  CHECK(hipMemcpyAtoH(got.data(), a, 0, got.size()));
  SAME(&got[5], &fresh[1], 11);
  SAME(&got[0], &all[0], 5);

  // hipMemcpyToArray at (wOffset, hOffset) runs on across rows.
  std::vector<unsigned char> run = random_bytes(row + 5);
  CHECK(hipMemcpyToArray(a, 4, 2, run.data(), run.size(), hipMemcpyHostToDevice));
  CHECK(hipMemcpyAtoH(got.data(), a, 0, got.size()));
  SAME(&got[2 * row + 4], run.data(), run.size());

  // The async forms, ordered on a stream.
  hipStream_t stream;
  CHECK(hipStreamCreate(&stream));
  std::vector<unsigned char> one = random_bytes(row * H), two(row * H), three(row * H);
  CHECK(hipMemcpyHtoAAsync(a, 0, one.data(), one.size(), stream));
  CHECK(hipMemcpy2DFromArrayAsync(dev, row, a, 0, 0, row, H, hipMemcpyDeviceToDevice, stream));
  CHECK(hipMemcpy2DToArrayAsync(b, 0, 0, dev, row, row, H, hipMemcpyDeviceToDevice, stream));
  CHECK(hipMemcpyAtoHAsync(two.data(), b, 0, two.size(), stream));
  CHECK(hipStreamSynchronize(stream));
  SAME(two.data(), one.data(), one.size());
  CHECK(hipStreamDestroy(stream));

  // A 3-D array of float (5 x 3 x 4) and a layered one: linear copies over every slice.
  hipChannelFormatDesc f = hipCreateChannelDesc<float>();
  hipArray_t volume = nullptr, layers = nullptr;
  CHECK(hipMalloc3DArray(&volume, &f, make_hipExtent(5, 3, 4), hipArrayDefault));
  CHECK(hipMalloc3DArray(&layers, &f, make_hipExtent(5, 3, 4), hipArrayLayered));
  std::vector<unsigned char> vol = random_bytes(5 * 3 * 4 * 4), vol_back(vol.size());
  CHECK(hipMemcpyHtoA(volume, 0, vol.data(), vol.size()));
  CHECK(hipMemcpyAtoA(layers, 0, volume, 0, vol.size()));
  CHECK(hipMemcpyAtoH(vol_back.data(), layers, 0, vol_back.size()));
  SAME(vol_back.data(), vol.data(), vol.size());

  CHECK(hipFree(dev));
  for (hipArray_t x : {a, b, volume, layers}) CHECK(hipFreeArray(x));
  return 0;
}

int queries() {
  hipChannelFormatDesc desc = hipCreateChannelDesc<short4>(), got;
  if (desc.x != 16 || desc.w != 16 || desc.f != hipChannelFormatKindSigned) return 1;
  hipChannelFormatDesc h = hipCreateChannelDesc<float2>();
  if (h.x != 32 || h.y != 32 || h.z != 0 || h.f != hipChannelFormatKindFloat) return 1;
  hipChannelFormatDesc u = hipCreateChannelDesc(8, 0, 0, 0, hipChannelFormatKindUnsigned);
  if (u.x != 8 || u.f != hipChannelFormatKindUnsigned) return 1;

  hipArray_t a = nullptr;
  CHECK(hipMalloc3DArray(&a, &desc, make_hipExtent(9, 4, 3), hipArrayLayered | hipArraySurfaceLoadStore));
  hipExtent extent;
  unsigned flags = 0;
  CHECK(hipArrayGetInfo(&got, &extent, &flags, a));
  if (got.x != 16 || got.f != hipChannelFormatKindSigned || extent.width != 9 ||
      extent.height != 4 || extent.depth != 3 || flags != (hipArrayLayered | hipArraySurfaceLoadStore))
    return 1;
  HIP_ARRAY3D_DESCRIPTOR d3;
  CHECK(hipArray3DGetDescriptor(&d3, a));
  if (d3.Width != 9 || d3.Height != 4 || d3.Depth != 3 || d3.Format != HIP_AD_FORMAT_SIGNED_INT16 ||
      d3.NumChannels != 4 || d3.Flags != (hipArrayLayered | hipArraySurfaceLoadStore))
    return 1;
  CHECK(hipFreeArray(a));

  HIP_ARRAY_DESCRIPTOR d2 = {};
  d2.Width = 11;
  d2.Height = 3;
  d2.Format = HIP_AD_FORMAT_HALF;
  d2.NumChannels = 2;
  CHECK(hipArrayCreate(&a, &d2));
  HIP_ARRAY_DESCRIPTOR back;
  CHECK(hipArrayGetDescriptor(&back, a));
  if (back.Width != 11 || back.Height != 3 || back.Format != HIP_AD_FORMAT_HALF || back.NumChannels != 2)
    return 1;
  // A texture over it through the driver API; its descriptors come back.
  HIP_RESOURCE_DESC res = {};
  res.resType = HIP_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = a;
  HIP_TEXTURE_DESC tex = {};
  tex.addressMode[0] = HIP_TR_ADDRESS_MODE_MIRROR;
  tex.filterMode = HIP_TR_FILTER_MODE_LINEAR;
  tex.flags = HIP_TRSF_NORMALIZED_COORDINATES;
  tex.borderColor[2] = 0.5f;
  hipTextureObject_t t = {};
  CHECK(hipTexObjectCreate(&t, &res, &tex, nullptr));
  HIP_RESOURCE_DESC res_back;
  HIP_TEXTURE_DESC tex_back;
  CHECK(hipTexObjectGetResourceDesc(&res_back, t));
  CHECK(hipTexObjectGetTextureDesc(&tex_back, t));
  if (res_back.resType != HIP_RESOURCE_TYPE_ARRAY || res_back.res.array.hArray != a ||
      tex_back.addressMode[0] != HIP_TR_ADDRESS_MODE_MIRROR ||
      tex_back.filterMode != HIP_TR_FILTER_MODE_LINEAR ||
      tex_back.flags != HIP_TRSF_NORMALIZED_COORDINATES || tex_back.borderColor[2] != 0.5f)
    return 1;
  hipResourceDesc r;
  hipTextureDesc td;
  CHECK(hipGetTextureObjectResourceDesc(&r, t));
  CHECK(hipGetTextureObjectTextureDesc(&td, t));
  if (r.res.array.array != a || td.readMode != hipReadModeNormalizedFloat || !td.normalizedCoords)
    return 1;
  CHECK(hipTexObjectDestroy(t));

  // A linear texture from the driver API keeps its format.
  void* dev = nullptr;
  CHECK(hipMalloc(&dev, 4096));
  res = {};
  res.resType = HIP_RESOURCE_TYPE_LINEAR;
  res.res.linear.devPtr = dev;
  res.res.linear.format = HIP_AD_FORMAT_UNSIGNED_INT8;
  res.res.linear.numChannels = 4;
  res.res.linear.sizeInBytes = 4096;
  tex = {};
  tex.flags = HIP_TRSF_READ_AS_INTEGER;
  CHECK(hipTexObjectCreate(&t, &res, &tex, nullptr));
  CHECK(hipTexObjectGetResourceDesc(&res_back, t));
  if (res_back.res.linear.format != HIP_AD_FORMAT_UNSIGNED_INT8 || res_back.res.linear.numChannels != 4 ||
      res_back.res.linear.sizeInBytes != 4096 || res_back.res.linear.devPtr != dev)
    return 1;
  CHECK(hipGetTextureObjectResourceDesc(&r, t));
  if (r.res.linear.desc.x != 8 || r.res.linear.desc.w != 8 || r.res.linear.desc.f != hipChannelFormatKindUnsigned)
    return 1;
  CHECK(hipTexObjectDestroy(t));
  CHECK(hipFree(dev));
  CHECK(hipArrayDestroy(a));

  // Mipmapped arrays: level l halves each extent, down to one.
  hipMipmappedArray_t mip = nullptr;
  hipChannelFormatDesc f = hipCreateChannelDesc<float>();
  CHECK(hipMallocMipmappedArray(&mip, &f, make_hipExtent(13, 6, 0), 9));  // clamped to 4
  const unsigned widths[] = {13, 6, 3, 1}, heights[] = {6, 3, 1, 1};
  for (unsigned level = 0; level < 4; ++level) {
    hipArray_t each = nullptr;
    CHECK(hipGetMipmappedArrayLevel(&each, mip, level));
    CHECK(hipArrayGetInfo(nullptr, &extent, nullptr, each));
    if (extent.width != widths[level] || extent.height != heights[level]) return 1;
  }
  hipArray_t none = nullptr;
  EXPECT(hipGetMipmappedArrayLevel(&none, mip, 4), hipErrorInvalidValue);
  CHECK(hipFreeMipmappedArray(mip));
  HIP_ARRAY3D_DESCRIPTOR md = {};
  md.Width = 8;
  md.Format = HIP_AD_FORMAT_UNSIGNED_INT8;
  md.NumChannels = 1;
  CHECK(hipMipmappedArrayCreate(&mip, &md, 2));
  CHECK(hipMipmappedArrayGetLevel(&none, mip, 1));
  CHECK(hipArrayGetInfo(nullptr, &extent, nullptr, none));
  if (extent.width != 4) return 1;
  CHECK(hipMipmappedArrayDestroy(mip));
  return 0;
}

#include "arrays_errors.h"
#include "arrays_3d.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int failed = mode == "copies"     ? copies()
               : mode == "copies3d" ? copies3d()
               : mode == "queries"  ? queries()
               : mode == "errors"   ? errors()
#ifdef __HIPKIT_CPU__
               : mode == "param2d" ? param2d()
#endif
                                    : 2;
  if (!failed) printf("ok\n");
  return failed;
}

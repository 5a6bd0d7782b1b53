#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#define CHECK(call) EXPECT(call, hipSuccess)
// A width over a pitch: HIP's hipErrorInvalidPitchValue; CUDA answers hipErrorInvalidValue.
#ifdef __HIP_PLATFORM_NVIDIA__
#define OVER_PITCH hipErrorInvalidValue
#else
#define OVER_PITCH hipErrorInvalidPitchValue
#endif
#define EXPECT(call, code)                                                                    \
  do {                                                                                        \
    hipError_t e_ = (call);                                                                   \
    if (e_ != (code)) {                                                                       \
      fprintf(stderr, "line %d: %s gave %s, not %s\n", __LINE__, #call, hipGetErrorName(e_), \
              #code);                                                                         \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define TRUE(cond)                                               \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "line %d: %s is false\n", __LINE__, #cond); \
      return 1;                                                  \
    }                                                            \
  } while (0)

// argv: input file of W*H*D bytes, output file; W H D, the box (x y z w h d) copied, set value.
int main(int argc, char** argv) {
  if (argc != 12) return 2;
  const size_t W = atoi(argv[3]), H = atoi(argv[4]), D = atoi(argv[5]);
  const size_t x = atoi(argv[6]), y = atoi(argv[7]), z = atoi(argv[8]);
  const size_t w = atoi(argv[9]), h = atoi(argv[10]), d = atoi(argv[11]);
  std::vector<unsigned char> in(W * H * D), out(3 * W * H * D, 0);
  FILE* f = fopen(argv[1], "rb");
  if (fread(in.data(), 1, in.size(), f) != in.size()) return 3;
  fclose(f);
  hipStream_t s;
  CHECK(hipStreamCreate(&s));

  // 2-D: host (pitch W) -> pitched device -> host, the box's rows of slice 0.
  void* dev = nullptr;
  size_t pitch = 0;
  CHECK(hipMallocPitch(&dev, &pitch, W, H));
  TRUE(pitch >= W && pitch % 256 == 0);
  CHECK(hipMemset2D(dev, pitch, 0, W, H));
  CHECK(hipMemcpy2DAsync(static_cast<char*>(dev) + y * pitch + x, pitch, in.data() + y * W + x, W,
                         w, h, hipMemcpyHostToDevice, s));
  CHECK(hipMemcpy2DAsync(out.data(), W, dev, pitch, W, H, hipMemcpyDeviceToHost, s));
  CHECK(hipStreamSynchronize(s));

  // 3-D: the box from the input volume into a zeroed pitched volume.
  hipPitchedPtr vol;
  CHECK(hipMalloc3D(&vol, make_hipExtent(W, H, D)));
  TRUE(vol.pitch >= W && vol.xsize == W && vol.ysize == H);
  CHECK(hipMemset3DAsync(vol, 0, make_hipExtent(W, H, D), s));
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(in.data(), W, W, H);
  p.srcPos = make_hipPos(x, y, z);
  p.dstPtr = vol;
  p.dstPos = make_hipPos(x, y, z);
  p.extent = make_hipExtent(w, h, d);
  p.kind = hipMemcpyHostToDevice;
  CHECK(hipMemcpy3DAsync(&p, s));
  hipMemcpy3DParms back = {};
  back.srcPtr = vol;
  back.dstPtr = make_hipPitchedPtr(out.data() + W * H * D, W, W, H);
  back.extent = make_hipExtent(W, H, D);
  back.kind = hipMemcpyDeviceToHost;
  CHECK(hipMemcpy3D(&back));
  // Set: the box to 0x5a, then all of it back.
  CHECK(hipMemset3D(make_hipPitchedPtr(static_cast<char*>(vol.ptr) + (z * H + y) * vol.pitch + x,
                                       vol.pitch, W, H), 0x5a, make_hipExtent(w, h, d)));
  back.dstPtr = make_hipPitchedPtr(out.data() + 2 * W * H * D, W, W, H);
  CHECK(hipMemcpy3DAsync(&back, s));
  CHECK(hipStreamSynchronize(s));
  // hipMemcpyParam2D: slice 0 of the volume equals the 2-D result's copy.
  std::vector<unsigned char> param(W * H);
  hip_Memcpy2D m = {};
  m.srcMemoryType = hipMemoryTypeDevice;
  m.srcDevice = dev;
  m.srcPitch = pitch;
  m.dstMemoryType = hipMemoryTypeHost;
  m.dstHost = param.data();
  m.dstPitch = W;
  m.WidthInBytes = W;
  m.Height = H;
  CHECK(hipMemcpyParam2D(&m));
  for (size_t i = 0; i < W * H; ++i) TRUE(param[i] == out[i]);

  // Errors: widths over pitches, null pointers, arrays.
  EXPECT(hipMemcpy2D(out.data(), W, dev, pitch, pitch + 1, 1, hipMemcpyDeviceToHost), OVER_PITCH);
  EXPECT(hipMemcpy2D(nullptr, W, dev, pitch, W, 1, hipMemcpyDeviceToHost), hipErrorInvalidValue);
#ifndef __HIP_PLATFORM_NVIDIA__  // CUDA does not check a memset's width against its pitch
  EXPECT(hipMemset2D(dev, pitch, 0, pitch + 1, 1), OVER_PITCH);
#endif
  EXPECT(hipMallocPitch(nullptr, &pitch, W, H), hipErrorInvalidValue);
  EXPECT(hipMemAllocPitch(&dev, &pitch, W, H, 3), hipErrorInvalidValue);
  EXPECT(hipMemcpy3D(nullptr), hipErrorInvalidValue);
  hipMemcpy3DParms wide = p;
  wide.dstPos.x = vol.pitch;
  EXPECT(hipMemcpy3D(&wide), OVER_PITCH);
#ifndef __HIP_PLATFORM_NVIDIA__  // CUDA does not check array handles
  hipMemcpy3DParms arr = p;
  arr.dstArray = reinterpret_cast<hipArray_t>(&arr);  // not an array the program made
  EXPECT(hipMemcpy3D(&arr), hipErrorInvalidValue);
#endif
  CHECK(hipFree(dev));
  CHECK(hipFree(vol.ptr));
  f = fopen(argv[2], "wb");
  fwrite(out.data(), 1, out.size(), f);
  fclose(f);
  return 0;
}

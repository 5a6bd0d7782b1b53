// arrays.hip's "copies3d": 3-D copies between arrays and pitched host memory
// (hipMemcpy3D's array forms), boxes at offsets, with odd sizes and pitches.
#if defined(__HIPKIT_CPU__) && !defined(HIPKIT_CPU_MEMORY_TYPES_H)
// Without the pitched-memory family's hipMemcpy3D, its hook for arrays, called
// with a struct of hipMemcpy3DParms' fields.
struct Pitched {
  void* ptr;
  size_t pitch, xsize, ysize;
};
struct Parms3D {
  hipArray_t srcArray;
  hipPos srcPos;
  Pitched srcPtr;
  hipArray_t dstArray;
  hipPos dstPos;
  Pitched dstPtr;
  hipExtent extent;
  hipMemcpyKind kind;
};
static Pitched pitched(void* p, size_t pitch, size_t xsize, size_t ysize) { return {p, pitch, xsize, ysize}; }
#define COPY3D(p) __hk::copy_3d_array(&(p), nullptr, 0)
#else
typedef hipMemcpy3DParms Parms3D;
#define pitched make_hipPitchedPtr
#define COPY3D(p) hipMemcpy3D(&(p))
#endif

int copies3d() {
  const size_t W = 7, H = 5, D = 3, E = sizeof(float2);
  const size_t pitch = 72, ysize = 6;  // rows of 56 bytes, slices of 5 rows, padded
  hipChannelFormatDesc desc = hipCreateChannelDesc<float2>();
  hipArray_t a = nullptr, b = nullptr;
  CHECK(hipMalloc3DArray(&a, &desc, make_hipExtent(W, H, D), hipArrayDefault));
  CHECK(hipMalloc3DArray(&b, &desc, make_hipExtent(W, H, D), hipArrayDefault));
  std::vector<unsigned char> host = random_bytes(pitch * ysize * D), back(pitch * ysize * D, 0);
  Parms3D in = {};
  in.srcPtr = pitched(host.data(), pitch, W, ysize);
  in.dstArray = a;
  in.extent = make_hipExtent(W, H, D);
  in.kind = hipMemcpyHostToDevice;
  CHECK(COPY3D(in));
  Parms3D out = {};
  out.srcArray = a;
  out.dstPtr = pitched(back.data(), pitch, W, ysize);
  out.extent = make_hipExtent(W, H, D);
  out.kind = hipMemcpyDeviceToHost;
  CHECK(COPY3D(out));
  for (size_t z = 0; z < D; ++z)
    for (size_t y = 0; y < H; ++y) SAME(&back[(z * ysize + y) * pitch], &host[(z * ysize + y) * pitch], W * E);

  // A 4 x 2 x 2 box from (1, 2, 1) of a to (3, 0, 0) of b, and b back.
  Parms3D box = {};
  box.srcArray = a;
  box.srcPos = make_hipPos(1, 2, 1);
  box.dstArray = b;
  box.dstPos = make_hipPos(3, 0, 0);
  box.extent = make_hipExtent(4, 2, 2);
  box.kind = hipMemcpyDeviceToDevice;
  CHECK(COPY3D(box));
  std::vector<unsigned char> got(pitch * ysize * D, 0);
  out.srcArray = b;
  out.dstPtr = pitched(got.data(), pitch, W, ysize);
  CHECK(COPY3D(out));
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 2; ++y)
      SAME(&got[(z * ysize + y) * pitch + 3 * E], &host[((z + 1) * ysize + y + 2) * pitch + 1 * E], 4 * E);

  // Outside the array, or a pitch narrower than the rows.
  box.srcPos = make_hipPos(4, 0, 0);
  if (COPY3D(box) != hipErrorInvalidValue) return 1;
  in.srcPtr = pitched(host.data(), 40, W, ysize);
  if (COPY3D(in) == hipSuccess) return 1;
  CHECK(hipFreeArray(a));
  CHECK(hipFreeArray(b));
  return 0;
}

// arrays.hip's "param2d" (the CPU's): hipMemcpyParam2D between an array and
// pitched host memory, at offsets in bytes and rows.
#ifdef __HIPKIT_CPU__
#ifndef HIPKIT_CPU_MEMORY_TYPES_H
// Without the pitched-memory family's hipMemcpyParam2D, its hook for arrays,
// called with a struct of hip_Memcpy2D's fields.
struct Param2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void* srcHost;
  void* srcDevice;
  hipArray_t srcArray;
  size_t srcPitch, dstXInBytes, dstY;
  int dstMemoryType;
  void* dstHost;
  void* dstDevice;
  hipArray_t dstArray;
  size_t dstPitch, WidthInBytes, Height;
};
constexpr int kArray = 10, kHost = 1;
#define COPY2D(p) __hk::copy_param_2d_array(&(p), nullptr, 0)
#else
typedef hip_Memcpy2D Param2D;
constexpr hipMemoryType kArray = hipMemoryTypeArray, kHost = hipMemoryTypeHost;
#define COPY2D(p) hipMemcpyParam2D(&(p))
#endif

int param2d() {
  const size_t W = 9, H = 4, E = 2, pitch = 23;
  hipChannelFormatDesc desc = hipCreateChannelDesc<ushort1>();
  hipArray_t a = nullptr;
  CHECK(hipMallocArray(&a, &desc, W, H));
  std::vector<unsigned char> host = random_bytes(pitch * H), all(W * E * H, 0), back(pitch * H, 0);
  Param2D in = {};
  in.srcMemoryType = kHost;
  in.srcHost = host.data();
  in.srcPitch = pitch;
  in.dstMemoryType = kArray;
  in.dstArray = a;
  in.WidthInBytes = W * E;
  in.Height = H;
  CHECK(COPY2D(in));
  CHECK(hipMemcpyAtoH(all.data(), a, 0, all.size()));
  for (size_t y = 0; y < H; ++y) SAME(&all[y * W * E], &host[y * pitch], W * E);
  // 3 elements x 2 rows from (2, 1) of the array to byte 5 of row 1 of the host's.
  Param2D out = {};
  out.srcMemoryType = kArray;
  out.srcArray = a;
  out.srcXInBytes = 2 * E;
  out.srcY = 1;
  out.dstMemoryType = kHost;
  out.dstHost = back.data();
  out.dstXInBytes = 5;
  out.dstY = 1;
  out.dstPitch = pitch;
  out.WidthInBytes = 3 * E;
  out.Height = 2;
  CHECK(COPY2D(out));
  for (size_t y = 0; y < 2; ++y) SAME(&back[(y + 1) * pitch + 5], &host[(y + 1) * pitch + 2 * E], 3 * E);
  out.srcY = 3;  // rows 3 and 4: outside
  if (COPY2D(out) != hipErrorInvalidValue) return 1;
  CHECK(hipFreeArray(a));
  return 0;
}
#endif

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

// arrays.hip's "errors": every bad array, copy, texture and surface descriptor
// gives HIP's error (ROCm's checks).
// Memory that is no array: a made-up handle points here.
static void* host_word() {
  static unsigned long long word[8] = {};
  return word;
}

int errors() {
  hipChannelFormatDesc f = hipCreateChannelDesc<float>();
  hipArray_t a = nullptr;
  EXPECT(hipMallocArray(nullptr, &f, 4), hipErrorInvalidValue);
  EXPECT(hipMallocArray(&a, nullptr, 4), hipErrorInvalidValue);
  EXPECT(hipMallocArray(&a, &f, 0), hipErrorInvalidValue);
  const hipChannelFormatDesc bad[] = {
      hipCreateChannelDesc(8, 8, 8, 0, hipChannelFormatKindUnsigned),   // three channels
      hipCreateChannelDesc(8, 16, 0, 0, hipChannelFormatKindUnsigned),  // mixed sizes
      hipCreateChannelDesc(8, 0, 0, 0, hipChannelFormatKindFloat),      // 8-bit float
      hipCreateChannelDesc(12, 0, 0, 0, hipChannelFormatKindSigned),    // 12 bits
      hipCreateChannelDesc(0, 8, 0, 0, hipChannelFormatKindSigned),     // a gap
      hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindNone),
  };
  for (const hipChannelFormatDesc& d : bad) EXPECT(hipMallocArray(&a, &d, 4, 4), hipErrorInvalidValue);
  EXPECT(hipMallocArray(&a, &f, 4, 4, 0x100), hipErrorInvalidValue);
  EXPECT(hipMalloc3DArray(&a, &f, make_hipExtent(4, 4, 0), hipArrayLayered), hipErrorInvalidValue);
  EXPECT(hipMalloc3DArray(&a, &f, make_hipExtent(4, 0, 3), hipArrayDefault), hipErrorInvalidValue);
  HIP_ARRAY_DESCRIPTOR dd = {4, 4, hipArray_Format(0x7), 1};
  EXPECT(hipArrayCreate(&a, &dd), hipErrorInvalidValue);
  dd.Format = HIP_AD_FORMAT_FLOAT;
  dd.NumChannels = 3;
  EXPECT(hipArrayCreate(&a, &dd), hipErrorInvalidValue);
  EXPECT(hipArrayCreate(&a, nullptr), hipErrorInvalidValue);
  EXPECT(hipFreeArray(nullptr), hipErrorInvalidValue);
  EXPECT(hipArrayGetInfo(nullptr, nullptr, nullptr, nullptr), hipErrorInvalidValue);
  EXPECT(hipArrayGetDescriptor(nullptr, nullptr), hipErrorInvalidValue);
  // Handles the program did not make, or freed: refused, never followed.
  hipArray_t made_up = reinterpret_cast<hipArray_t>(host_word());
  EXPECT(hipFreeArray(made_up), hipErrorInvalidValue);
  hipChannelFormatDesc got;
  EXPECT(hipGetChannelDesc(&got, made_up), hipErrorInvalidValue);
  CHECK(hipMallocArray(&a, &f, 4));
  CHECK(hipFreeArray(a));
  EXPECT(hipFreeArray(a), hipErrorInvalidValue);
  EXPECT(hipArrayGetInfo(&got, nullptr, nullptr, a), hipErrorInvalidValue);
  hipMipmappedArray_t freed = nullptr;
  CHECK(hipMallocMipmappedArray(&freed, &f, make_hipExtent(8, 8, 0), 2));
  CHECK(hipFreeMipmappedArray(freed));
  EXPECT(hipFreeMipmappedArray(freed), hipErrorInvalidValue);
  EXPECT(hipGetMipmappedArrayLevel(&a, freed, 0), hipErrorInvalidValue);

  // Copies outside the array, or with a pitch below the width.
  CHECK(hipMallocArray(&a, &f, 5, 3));
  std::vector<float> host(64);
  EXPECT(hipMemcpy2DToArray(a, 0, 0, host.data(), 24, 24, 3, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT(hipMemcpy2DToArray(a, 4, 0, host.data(), 20, 20, 3, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT(hipMemcpy2DToArray(a, 0, 1, host.data(), 20, 20, 3, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT(hipMemcpy2DToArray(a, 0, 0, host.data(), 16, 20, 3, hipMemcpyHostToDevice), hipErrorInvalidPitchValue);
  EXPECT(hipMemcpy2DFromArray(host.data(), 20, a, 0, 0, 20, 4, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT(hipMemcpy2DToArray(nullptr, 0, 0, host.data(), 20, 20, 3, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT(hipMemcpyAtoH(host.data(), a, 4, 60), hipErrorInvalidValue);
  EXPECT(hipMemcpyHtoA(a, 61, host.data(), 0), hipErrorInvalidValue);
  EXPECT(hipMemcpyToArray(a, 0, 2, host.data(), 21, hipMemcpyHostToDevice), hipErrorInvalidValue);
  EXPECT(hipMemcpyAtoA(a, 0, a, 40, 21), hipErrorInvalidValue);

  // Texture objects.
  hipResourceDesc res = {};
  res.resType = hipResourceTypeArray;
  res.res.array.array = a;
  hipTextureDesc tex = {};
  hipTextureObject_t t = {};
  EXPECT(hipCreateTextureObject(nullptr, &res, &tex, nullptr), hipErrorInvalidValue);
  EXPECT(hipCreateTextureObject(&t, nullptr, &tex, nullptr), hipErrorInvalidValue);
  EXPECT(hipCreateTextureObject(&t, &res, nullptr, nullptr), hipErrorInvalidValue);
  res.res.array.array = nullptr;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.array.array = a;
  tex.addressMode[1] = hipTextureAddressMode(7);
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  tex.addressMode[1] = hipAddressModeClamp;
  tex.filterMode = hipTextureFilterMode(5);
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  tex.filterMode = hipFilterModePoint;
  hipResourceViewDesc view = {};
  view.format = hipResViewFormatFloat1;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, &view), hipErrorNotSupported);

  // Linear filtering of integers read as integers.
  hipChannelFormatDesc i8 = hipCreateChannelDesc<char>();
  hipArray_t ints = nullptr;
  CHECK(hipMallocArray(&ints, &i8, 8));
  res.res.array.array = ints;
  tex.filterMode = hipFilterModeLinear;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  tex.readMode = hipReadModeNormalizedFloat;
  CHECK(hipCreateTextureObject(&t, &res, &tex, nullptr));
  CHECK(hipDestroyTextureObject(t));
  CHECK(hipFreeArray(ints));
  tex = {};

  // Linear memory: a missing or misaligned pointer, no elements, a bad format, a view.
  char* dev = nullptr;
  CHECK(hipMalloc(&dev, 1 << 16));
  res = {};
  res.resType = hipResourceTypeLinear;
  res.res.linear.desc = f;
  res.res.linear.sizeInBytes = 1024;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.linear.devPtr = dev + 4;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.linear.devPtr = dev;
  res.res.linear.sizeInBytes = 0;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.linear.sizeInBytes = 1024;
  res.res.linear.desc = bad[0];
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.linear.desc = f;
  view.format = hipResViewFormatNone;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, &view), hipErrorInvalidValue);
  CHECK(hipCreateTextureObject(&t, &res, &tex, nullptr));
  CHECK(hipDestroyTextureObject(t));

  // Pitched memory: the pitch's alignment, zero extents, rows wider than the pitch.
  res = {};
  res.resType = hipResourceTypePitch2D;
  res.res.pitch2D.devPtr = dev;
  res.res.pitch2D.desc = f;
  res.res.pitch2D.width = 16;
  res.res.pitch2D.height = 4;
  res.res.pitch2D.pitchInBytes = 100;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.pitch2D.pitchInBytes = 512;
  res.res.pitch2D.width = 0;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.pitch2D.width = 16;
  res.res.pitch2D.height = 0;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.pitch2D.height = 4;
  res.res.pitch2D.width = 200;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  res.res.pitch2D.width = 16;
  res.res.pitch2D.devPtr = nullptr;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);

  // Mipmapped arrays need normalized coordinates; they are not sampled here.
  hipMipmappedArray_t mip = nullptr;
  CHECK(hipMallocMipmappedArray(&mip, &f, make_hipExtent(8, 8, 0), 2));
  res = {};
  res.resType = hipResourceTypeMipmappedArray;
  res.res.mipmap.mipmap = mip;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorInvalidValue);
  tex.normalizedCoords = 1;
  EXPECT(hipCreateTextureObject(&t, &res, &tex, nullptr), hipErrorNotSupported);
  CHECK(hipFreeMipmappedArray(mip));
  EXPECT(hipFreeMipmappedArray(nullptr), hipErrorInvalidValue);
  EXPECT(hipMallocMipmappedArray(&mip, &f, make_hipExtent(0, 8, 0), 2), hipErrorInvalidValue);

  // The driver forms: resource flags must be zero, formats HIP's.
  HIP_RESOURCE_DESC dres = {};
  dres.resType = HIP_RESOURCE_TYPE_ARRAY;
  dres.res.array.hArray = a;
  dres.flags = 1;
  HIP_TEXTURE_DESC dtex = {};
  EXPECT(hipTexObjectCreate(&t, &dres, &dtex, nullptr), hipErrorInvalidValue);
  EXPECT(hipTexObjectCreate(&t, nullptr, &dtex, nullptr), hipErrorInvalidValue);
  dres = {};
  dres.resType = HIP_RESOURCE_TYPE_LINEAR;
  dres.res.linear.devPtr = dev;
  dres.res.linear.format = hipArray_Format(0x11);
  dres.res.linear.numChannels = 1;
  dres.res.linear.sizeInBytes = 256;
  EXPECT(hipTexObjectCreate(&t, &dres, &dtex, nullptr), hipErrorInvalidValue);

  // Queries of nothing; destroying nothing is nothing.
  hipResourceDesc r;
  hipTextureDesc td;
  hipResourceViewDesc rv;
  EXPECT(hipGetTextureObjectResourceDesc(&r, 0), hipErrorInvalidValue);
  EXPECT(hipGetTextureObjectTextureDesc(&td, 0), hipErrorInvalidValue);
  EXPECT(hipGetTextureObjectResourceViewDesc(&rv, 0), hipErrorInvalidValue);
  EXPECT(hipTexObjectGetResourceDesc(nullptr, 0), hipErrorInvalidValue);
  CHECK(hipDestroyTextureObject(0));

  // Surfaces are over arrays.
  hipSurfaceObject_t s = {};
  res = {};
  res.resType = hipResourceTypeArray;
  EXPECT(hipCreateSurfaceObject(&s, &res), hipErrorInvalidValue);
  res.res.array.array = a;
  EXPECT(hipCreateSurfaceObject(nullptr, &res), hipErrorInvalidValue);
  EXPECT(hipCreateSurfaceObject(&s, nullptr), hipErrorInvalidValue);
  res.resType = hipResourceTypeLinear;
  EXPECT(hipCreateSurfaceObject(&s, &res), hipErrorInvalidValue);
  CHECK(hipDestroySurfaceObject(0));

  CHECK(hipFree(dev));
  CHECK(hipFreeArray(a));
  return 0;
}

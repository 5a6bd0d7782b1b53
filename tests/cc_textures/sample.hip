// Texture fetches of every kind, configured from a directory's files (written
// by test_cc_textures.py): cfg.txt, texels.bin (packed W x H x D|layers
// elements), coords.bin (x, y, z, layer as float4 per query); writes out.bin.
#include <hip/hip_runtime.h>
#include <hip/texture_types.h>

#include <cstdio>
#include <fstream>
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

std::vector<char> load(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  std::vector<char> v(size_t(f.tellg()));
  f.seekg(0);
  f.read(v.data(), v.size());
  return v;
}

enum Op { FETCH, TEX1D, TEX2D, TEX3D, TEX1D_LAYERED, TEX2D_LAYERED, GATHER, TEX2D_LOD };

template <class T>
__global__ void sample(hipTextureObject_t t, const float4* coords, T* out, int n, int op) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 c = coords[i];
  switch (op) {
    case FETCH: out[i] = tex1Dfetch<T>(t, int(c.x)); break;
    case TEX1D: out[i] = tex1D<T>(t, c.x); break;
    case TEX2D: out[i] = tex2D<T>(t, c.x, c.y); break;
    case TEX3D: out[i] = tex3D<T>(t, c.x, c.y, c.z); break;
    case TEX1D_LAYERED: out[i] = tex1DLayered<T>(t, c.x, int(c.w)); break;
    case TEX2D_LAYERED: out[i] = tex2DLayered<T>(t, c.x, c.y, int(c.w)); break;
    case TEX2D_LOD: out[i] = tex2DLod<T>(t, c.x, c.y, 0.0f); break;
  }
}

__global__ void gather(hipTextureObject_t t, const float4* coords, float4* out, int n, int comp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float4>(t, coords[i].x, coords[i].y, comp);
}

struct Config {
  int op, resource, kind, bits, channels, width, height, depth, layered;
  int filter, normalized, address[3], read_mode, srgb, returns, comp;
  float border[4];
};

template <class T>
int run(hipTextureObject_t t, const float4* coords, int n, const Config& c, std::vector<char>* out) {
  T* result = nullptr;
  CHECK(hipMalloc(&result, n * sizeof(T)));
  if (c.op == GATHER)
    gather<<<(n + 63) / 64, 64>>>(t, coords, reinterpret_cast<float4*>(result), n, c.comp);
  else
    sample<T><<<(n + 63) / 64, 64>>>(t, coords, result, n, c.op);
  CHECK(hipGetLastError());
  out->resize(n * sizeof(T));
  CHECK(hipMemcpy(out->data(), result, out->size(), hipMemcpyDeviceToHost));
  CHECK(hipFree(result));
  return 0;
}

// The result type: floats, or (read as elements) signed or unsigned integers, of the channels' count.
int dispatch(hipTextureObject_t t, const float4* coords, int n, const Config& c,
             std::vector<char>* out) {
  if (c.op == GATHER) return run<float4>(t, coords, n, c, out);
  const int key = c.returns * 10 + c.channels;
  switch (key) {
    case 1: return run<float>(t, coords, n, c, out);
    case 2: return run<float2>(t, coords, n, c, out);
    case 4: return run<float4>(t, coords, n, c, out);
    case 11: return run<int>(t, coords, n, c, out);
    case 12: return run<int2>(t, coords, n, c, out);
    case 14: return run<int4>(t, coords, n, c, out);
    case 21: return run<unsigned>(t, coords, n, c, out);
    case 22: return run<uint2>(t, coords, n, c, out);
    case 24: return run<uint4>(t, coords, n, c, out);
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  Config c;
  FILE* f = fopen((dir + "/cfg.txt").c_str(), "r");
  if (f == nullptr) return 2;
  int* fields[] = {&c.op, &c.resource, &c.kind, &c.bits, &c.channels, &c.width, &c.height,
                   &c.depth, &c.layered, &c.filter, &c.normalized, &c.address[0], &c.address[1],
                   &c.address[2], &c.read_mode, &c.srgb, &c.returns, &c.comp};
  for (int* field : fields)
    if (fscanf(f, "%d", field) != 1) return 2;
  for (float& b : c.border)
    if (fscanf(f, "%f", &b) != 1) return 2;
  fclose(f);
  const std::vector<char> texels = load(dir + "/texels.bin");
  const std::vector<char> coords_host = load(dir + "/coords.bin");
  const int n = int(coords_host.size() / sizeof(float4));

  const int b = c.bits;
  hipChannelFormatDesc desc = hipCreateChannelDesc(b, c.channels > 1 ? b : 0, c.channels > 2 ? b : 0,
                                                   c.channels > 3 ? b : 0, hipChannelFormatKind(c.kind));
  const size_t row = size_t(c.width) * c.channels * b / 8;
  hipResourceDesc res = {};
  hipArray_t array = nullptr;
  void* linear = nullptr;
  if (c.resource == hipResourceTypeArray) {
    CHECK(hipMalloc3DArray(&array, &desc, make_hipExtent(c.width, c.height, c.depth),
                           c.layered ? hipArrayLayered : hipArrayDefault));
    if (c.depth == 0) {
      CHECK(hipMemcpy2DToArray(array, 0, 0, texels.data(), row, row, c.height ? c.height : 1,
                               hipMemcpyHostToDevice));
    } else {
#ifdef __HIP_PLATFORM_NVIDIA__
      hipMemcpy3DParms p = {};
      p.srcPtr = make_hipPitchedPtr(const_cast<char*>(texels.data()), row, c.width, c.height ? c.height : 1);
      p.dstArray = array;
      p.extent = make_hipExtent(c.width, c.height ? c.height : 1, c.depth);
      p.kind = hipMemcpyHostToDevice;
      CHECK(hipMemcpy3D(&p));
#else
      CHECK(hipMemcpyHtoA(array, 0, texels.data(), texels.size()));
#endif
    }
    res.resType = hipResourceTypeArray;
    res.res.array.array = array;
  } else if (c.resource == hipResourceTypePitch2D) {
    const size_t pitch = (row + 255) / 256 * 256;
    CHECK(hipMalloc(&linear, pitch * c.height));
    CHECK(hipMemcpy2D(linear, pitch, texels.data(), row, row, c.height, hipMemcpyHostToDevice));
    res.resType = hipResourceTypePitch2D;
    res.res.pitch2D.devPtr = linear;
    res.res.pitch2D.desc = desc;
    res.res.pitch2D.width = c.width;
    res.res.pitch2D.height = c.height;
    res.res.pitch2D.pitchInBytes = pitch;
  } else {
    CHECK(hipMalloc(&linear, texels.size()));
    CHECK(hipMemcpy(linear, texels.data(), texels.size(), hipMemcpyHostToDevice));
    res.resType = hipResourceTypeLinear;
    res.res.linear.devPtr = linear;
    res.res.linear.desc = desc;
    res.res.linear.sizeInBytes = texels.size();
  }
  hipTextureDesc tex = {};
  for (int d = 0; d < 3; ++d) tex.addressMode[d] = hipTextureAddressMode(c.address[d]);
  tex.filterMode = hipTextureFilterMode(c.filter);
  tex.readMode = hipTextureReadMode(c.read_mode);
  tex.normalizedCoords = c.normalized;
  tex.sRGB = c.srgb;
  for (int k = 0; k < 4; ++k) tex.borderColor[k] = c.border[k];
  hipTextureObject_t t = {};
  CHECK(hipCreateTextureObject(&t, &res, &tex, nullptr));

  float4* coords = nullptr;
  CHECK(hipMalloc(&coords, coords_host.size()));
  CHECK(hipMemcpy(coords, coords_host.data(), coords_host.size(), hipMemcpyHostToDevice));
  std::vector<char> out;
  if (dispatch(t, coords, n, c, &out)) return 1;
  std::ofstream(dir + "/out.bin", std::ios::binary).write(out.data(), out.size());

  CHECK(hipDestroyTextureObject(t));
  CHECK(hipFree(coords));
  if (array) CHECK(hipFreeArray(array));
  if (linear) CHECK(hipFree(linear));
  return 0;
}

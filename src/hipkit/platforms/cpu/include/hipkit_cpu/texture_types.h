// hipkit CPU platform: the types of HIP's arrays, texture objects and surface
// objects (part of device.h: kernels name hipTextureObject_t, programs make
// the objects), with HIP's names and numbers (ROCm's driver_types.h,
// texture_types.h, surface_types.h, channel_descriptor.h).
//
// A texture or surface object is a pointer to a __hip_texture or
// __hip_surface in host memory: on the CPU, kernels share the host's address
// space, so the object carries what the sampler needs (the texels' address,
// their layout and format, the sampler state) beside the descriptors it was
// made from, which hipGetTextureObject*Desc return.
#ifndef HIPKIT_CPU_TEXTURE_TYPES_H
#define HIPKIT_CPU_TEXTURE_TYPES_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

typedef void* hipDeviceptr_t;
typedef struct hipArray* hipArray_t;
typedef struct hipMipmappedArray* hipMipmappedArray_t;

typedef enum hipChannelFormatKind {
  hipChannelFormatKindSigned = 0,
  hipChannelFormatKindUnsigned = 1,
  hipChannelFormatKindFloat = 2,
  hipChannelFormatKindNone = 3
} hipChannelFormatKind;

typedef struct hipChannelFormatDesc {
  int x, y, z, w;  // bits per channel; 0: no such channel
  enum hipChannelFormatKind f;
} hipChannelFormatDesc;

#include "hipkit_portable/texture_driver_types.h"

// hipMallocArray's and hipMalloc3DArray's flags (hipArrayDefault is 0).
#define hipArrayLayered 0x01
#define hipArraySurfaceLoadStore 0x02
#define hipArrayCubemap 0x04
#define hipArrayTextureGather 0x08

// HIP's fields first, in HIP's order; the texels are packed rows of
// width elements, height rows (1 for 1-D), depth slices or layers (1 for 2-D).
typedef struct hipArray {
  void* data;
  struct hipChannelFormatDesc desc;
  unsigned int type;  // the flags it was made with
  unsigned int width;
  unsigned int height;  // 0 for 1-D, as made
  unsigned int depth;   // 0 for 1-D and 2-D, as made; layers of a layered array
  enum hipArray_Format Format;
  unsigned int NumChannels;
  bool isDrv;
  unsigned int textureType;
} hipArray;
typedef hipArray_t hiparray;
typedef const struct hipArray* hipArray_const_t;

// A mipmapped array: its levels are arrays, level l of size max(1, extent >> l).
typedef struct hipMipmappedArray {
  void* data;  // the hipArray_t of each level
  struct hipChannelFormatDesc desc;
  unsigned int type;
  unsigned int width;
  unsigned int height;
  unsigned int depth;
  unsigned int min_mipmap_level;
  unsigned int max_mipmap_level;
  unsigned int flags;
  enum hipArray_Format format;
} hipMipmappedArray;
typedef hipMipmappedArray_t hipmipmappedArray;
typedef const struct hipMipmappedArray* hipMipmappedArray_const_t;

typedef enum hipResourceType {
  hipResourceTypeArray = 0x00,
  hipResourceTypeMipmappedArray = 0x01,
  hipResourceTypeLinear = 0x02,
  hipResourceTypePitch2D = 0x03
} hipResourceType;

#include "texture_view_format.h"

typedef struct hipResourceDesc {
  enum hipResourceType resType;
  union {
    struct {
      hipArray_t array;
    } array;
    struct {
      hipMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
  } res;
} hipResourceDesc;

typedef struct hipResourceViewDesc {
  enum hipResourceViewFormat format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel;
  unsigned int firstLayer, lastLayer;
} hipResourceViewDesc;

#define hipTextureType1D 0x01
#define hipTextureType2D 0x02
#define hipTextureType3D 0x03
#define hipTextureTypeCubemap 0x0C
#define hipTextureType1DLayered 0xF1
#define hipTextureType2DLayered 0xF2
#define hipTextureTypeCubemapLayered 0xFC

enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
};
enum hipTextureFilterMode { hipFilterModePoint = 0, hipFilterModeLinear = 1 };
enum hipTextureReadMode { hipReadModeElementType = 0, hipReadModeNormalizedFloat = 1 };

typedef struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
} hipTextureDesc;

enum hipSurfaceBoundaryMode {
  hipBoundaryModeZero = 0,
  hipBoundaryModeTrap = 1,
  hipBoundaryModeClamp = 2
};

namespace __hk {
// Where a texture's or surface's texels are and how they are laid out.
struct texels {
  const char* data;
  size_t pitch;  // bytes from a row to the next
  size_t slice;  // bytes from a slice (or layer) to the next
  int width, height, depth;  // in elements; 1 where the dimension is absent
  int layers;                // 0: not layered
  int channels;              // 1, 2 or 4
  int bits;                  // per channel: 8, 16 or 32
  int kind;                  // hipChannelFormatKind
  int element;               // bytes per element
};
}  // namespace __hk

struct __hip_texture {
  __hk::texels texels;
  int address[3];  // as sampled: wrap and mirror are clamp without normalized coordinates
  int linear;      // linear filtering
  int normalized;  // normalized coordinates
  int read_float;  // 8- and 16-bit integers read as normalized floats
  int srgb;
  float border[4];
  hipResourceDesc resource;
  hipTextureDesc texture;
  hipResourceViewDesc view;
};
typedef struct __hip_texture* hipTextureObject_t;

struct __hip_surface {
  __hk::texels texels;
  hipResourceDesc resource;
};
typedef struct __hip_surface* hipSurfaceObject_t;

// ---- Channel descriptors (channel_descriptor.h) --------------------------------

inline hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
                                                 hipChannelFormatKind f) {
  hipChannelFormatDesc desc = {x, y, z, w, f};
  return desc;
}

#include "hipkit_portable/channel_desc.h"

#endif  // HIPKIT_CPU_TEXTURE_TYPES_H

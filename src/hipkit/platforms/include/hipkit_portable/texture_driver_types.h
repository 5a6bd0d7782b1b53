// hipkit: the driver API's descriptors of arrays, textures and resource views
// (HIP_ARRAY_DESCRIPTOR, HIP_RESOURCE_DESC, HIP_TEXTURE_DESC, ...), with HIP's
// names, numbers and shapes (ROCm's driver_types.h), for the platforms whose
// programs have them as HIP's own: the CPU, and NVIDIA, which converts them to
// CUDA's (same numbers; pointers where CUDA has integers).  hipArray_t,
// hipMipmappedArray_t and hipDeviceptr_t are declared before.
#ifndef HIPKIT_PORTABLE_TEXTURE_DRIVER_TYPES_H
#define HIPKIT_PORTABLE_TEXTURE_DRIVER_TYPES_H

typedef enum hipArray_Format {
  HIP_AD_FORMAT_UNSIGNED_INT8 = 0x01,
  HIP_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  HIP_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  HIP_AD_FORMAT_SIGNED_INT8 = 0x08,
  HIP_AD_FORMAT_SIGNED_INT16 = 0x09,
  HIP_AD_FORMAT_SIGNED_INT32 = 0x0a,
  HIP_AD_FORMAT_HALF = 0x10,
  HIP_AD_FORMAT_FLOAT = 0x20
} hipArray_Format;

typedef struct HIP_ARRAY_DESCRIPTOR {
  size_t Width;
  size_t Height;
  enum hipArray_Format Format;
  unsigned int NumChannels;
} HIP_ARRAY_DESCRIPTOR;

typedef struct HIP_ARRAY3D_DESCRIPTOR {
  size_t Width;
  size_t Height;
  size_t Depth;
  enum hipArray_Format Format;
  unsigned int NumChannels;
  unsigned int Flags;
} HIP_ARRAY3D_DESCRIPTOR;

typedef enum HIPresourcetype_enum {
  HIP_RESOURCE_TYPE_ARRAY = 0x00,
  HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY = 0x01,
  HIP_RESOURCE_TYPE_LINEAR = 0x02,
  HIP_RESOURCE_TYPE_PITCH2D = 0x03
} HIPresourcetype;

typedef enum HIPaddress_mode_enum {
  HIP_TR_ADDRESS_MODE_WRAP = 0,
  HIP_TR_ADDRESS_MODE_CLAMP = 1,
  HIP_TR_ADDRESS_MODE_MIRROR = 2,
  HIP_TR_ADDRESS_MODE_BORDER = 3
} HIPaddress_mode;

typedef enum HIPfilter_mode_enum {
  HIP_TR_FILTER_MODE_POINT = 0,
  HIP_TR_FILTER_MODE_LINEAR = 1
} HIPfilter_mode;

// HIP_TEXTURE_DESC's flags.
#define HIP_TRSA_OVERRIDE_FORMAT 0x01
#define HIP_TRSF_READ_AS_INTEGER 0x01
#define HIP_TRSF_NORMALIZED_COORDINATES 0x02
#define HIP_TRSF_SRGB 0x10

typedef struct HIP_TEXTURE_DESC_st {
  HIPaddress_mode addressMode[3];
  HIPfilter_mode filterMode;
  unsigned int flags;
  unsigned int maxAnisotropy;
  HIPfilter_mode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
} HIP_TEXTURE_DESC;

typedef enum HIPresourceViewFormat_enum {
  HIP_RES_VIEW_FORMAT_NONE = 0x00,
  HIP_RES_VIEW_FORMAT_UINT_1X8 = 0x01,
  HIP_RES_VIEW_FORMAT_UINT_2X8 = 0x02,
  HIP_RES_VIEW_FORMAT_UINT_4X8 = 0x03,
  HIP_RES_VIEW_FORMAT_SINT_1X8 = 0x04,
  HIP_RES_VIEW_FORMAT_SINT_2X8 = 0x05,
  HIP_RES_VIEW_FORMAT_SINT_4X8 = 0x06,
  HIP_RES_VIEW_FORMAT_UINT_1X16 = 0x07,
  HIP_RES_VIEW_FORMAT_UINT_2X16 = 0x08,
  HIP_RES_VIEW_FORMAT_UINT_4X16 = 0x09,
  HIP_RES_VIEW_FORMAT_SINT_1X16 = 0x0a,
  HIP_RES_VIEW_FORMAT_SINT_2X16 = 0x0b,
  HIP_RES_VIEW_FORMAT_SINT_4X16 = 0x0c,
  HIP_RES_VIEW_FORMAT_UINT_1X32 = 0x0d,
  HIP_RES_VIEW_FORMAT_UINT_2X32 = 0x0e,
  HIP_RES_VIEW_FORMAT_UINT_4X32 = 0x0f,
  HIP_RES_VIEW_FORMAT_SINT_1X32 = 0x10,
  HIP_RES_VIEW_FORMAT_SINT_2X32 = 0x11,
  HIP_RES_VIEW_FORMAT_SINT_4X32 = 0x12,
  HIP_RES_VIEW_FORMAT_FLOAT_1X16 = 0x13,
  HIP_RES_VIEW_FORMAT_FLOAT_2X16 = 0x14,
  HIP_RES_VIEW_FORMAT_FLOAT_4X16 = 0x15,
  HIP_RES_VIEW_FORMAT_FLOAT_1X32 = 0x16,
  HIP_RES_VIEW_FORMAT_FLOAT_2X32 = 0x17,
  HIP_RES_VIEW_FORMAT_FLOAT_4X32 = 0x18,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC1 = 0x19,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC2 = 0x1a,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC3 = 0x1b,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC4 = 0x1c,
  HIP_RES_VIEW_FORMAT_SIGNED_BC4 = 0x1d,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC5 = 0x1e,
  HIP_RES_VIEW_FORMAT_SIGNED_BC5 = 0x1f,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC6H = 0x20,
  HIP_RES_VIEW_FORMAT_SIGNED_BC6H = 0x21,
  HIP_RES_VIEW_FORMAT_UNSIGNED_BC7 = 0x22
} HIPresourceViewFormat;

typedef struct HIP_RESOURCE_DESC_st {
  HIPresourcetype resType;
  union {
    struct {
      hipArray_t hArray;
    } array;
    struct {
      hipMipmappedArray_t hMipmappedArray;
    } mipmap;
    struct {
      hipDeviceptr_t devPtr;
      hipArray_Format format;
      unsigned int numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      hipDeviceptr_t devPtr;
      hipArray_Format format;
      unsigned int numChannels;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
} HIP_RESOURCE_DESC;

typedef struct HIP_RESOURCE_VIEW_DESC_st {
  HIPresourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
  unsigned int reserved[16];
} HIP_RESOURCE_VIEW_DESC;

#endif  // HIPKIT_PORTABLE_TEXTURE_DRIVER_TYPES_H

// hipkit CPU platform: the formats of a texture's resource view (the runtime's),
// with HIP's names and numbers (part of texture_types.h).
#ifndef HIPKIT_CPU_TEXTURE_VIEW_FORMAT_H
#define HIPKIT_CPU_TEXTURE_VIEW_FORMAT_H

typedef enum hipResourceViewFormat {
  hipResViewFormatNone = 0x00,
  hipResViewFormatUnsignedChar1 = 0x01,
  hipResViewFormatUnsignedChar2 = 0x02,
  hipResViewFormatUnsignedChar4 = 0x03,
  hipResViewFormatSignedChar1 = 0x04,
  hipResViewFormatSignedChar2 = 0x05,
  hipResViewFormatSignedChar4 = 0x06,
  hipResViewFormatUnsignedShort1 = 0x07,
  hipResViewFormatUnsignedShort2 = 0x08,
  hipResViewFormatUnsignedShort4 = 0x09,
  hipResViewFormatSignedShort1 = 0x0a,
  hipResViewFormatSignedShort2 = 0x0b,
  hipResViewFormatSignedShort4 = 0x0c,
  hipResViewFormatUnsignedInt1 = 0x0d,
  hipResViewFormatUnsignedInt2 = 0x0e,
  hipResViewFormatUnsignedInt4 = 0x0f,
  hipResViewFormatSignedInt1 = 0x10,
  hipResViewFormatSignedInt2 = 0x11,
  hipResViewFormatSignedInt4 = 0x12,
  hipResViewFormatHalf1 = 0x13,
  hipResViewFormatHalf2 = 0x14,
  hipResViewFormatHalf4 = 0x15,
  hipResViewFormatFloat1 = 0x16,
  hipResViewFormatFloat2 = 0x17,
  hipResViewFormatFloat4 = 0x18,
  hipResViewFormatUnsignedBlockCompressed1 = 0x19,
  hipResViewFormatUnsignedBlockCompressed2 = 0x1a,
  hipResViewFormatUnsignedBlockCompressed3 = 0x1b,
  hipResViewFormatUnsignedBlockCompressed4 = 0x1c,
  hipResViewFormatSignedBlockCompressed4 = 0x1d,
  hipResViewFormatUnsignedBlockCompressed5 = 0x1e,
  hipResViewFormatSignedBlockCompressed5 = 0x1f,
  hipResViewFormatUnsignedBlockCompressed6H = 0x20,
  hipResViewFormatSignedBlockCompressed6H = 0x21,
  hipResViewFormatUnsignedBlockCompressed7 = 0x22
} hipResourceViewFormat;

#endif  // HIPKIT_CPU_TEXTURE_VIEW_FORMAT_H

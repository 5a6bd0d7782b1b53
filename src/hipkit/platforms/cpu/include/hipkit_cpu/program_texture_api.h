// hipkit CPU platform: HIP's texture-object and surface-object functions,
// runtime and driver forms (part of program_texture.h).
#ifndef HIPKIT_CPU_PROGRAM_TEXTURE_API_H
#define HIPKIT_CPU_PROGRAM_TEXTURE_API_H

inline hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject,
                                         const hipResourceDesc* pResDesc,
                                         const hipTextureDesc* pTexDesc,
                                         const hipResourceViewDesc* pResViewDesc) {
  __HK_API_CALL();
  return __hk::create_texture(pTexObject, pResDesc, pTexDesc, pResViewDesc);
}
inline hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject) {
  __HK_API_CALL();
  return __hk::delete_object(textureObject);  // null: nothing, as HIP
}
inline hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* pResDesc,
                                                  hipTextureObject_t textureObject) {
  __HK_API_CALL();
  if (pResDesc == nullptr || textureObject == nullptr) return __hk::result(hipErrorInvalidValue);
  *pResDesc = textureObject->resource;
  return hipSuccess;
}
inline hipError_t hipGetTextureObjectResourceViewDesc(hipResourceViewDesc* pResViewDesc,
                                                      hipTextureObject_t textureObject) {
  __HK_API_CALL();
  if (pResViewDesc == nullptr || textureObject == nullptr)
    return __hk::result(hipErrorInvalidValue);
  *pResViewDesc = textureObject->view;
  return hipSuccess;
}
inline hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* pTexDesc,
                                                 hipTextureObject_t textureObject) {
  __HK_API_CALL();
  if (pTexDesc == nullptr || textureObject == nullptr) return __hk::result(hipErrorInvalidValue);
  *pTexDesc = textureObject->texture;
  return hipSuccess;
}

// ---- The driver forms ------------------------------------------------------------

inline hipError_t hipTexObjectCreate(hipTextureObject_t* pTexObject,
                                     const HIP_RESOURCE_DESC* pResDesc,
                                     const HIP_TEXTURE_DESC* pTexDesc,
                                     const HIP_RESOURCE_VIEW_DESC* pResViewDesc) {
  __HK_API_CALL();
  if (pTexObject == nullptr || pResDesc == nullptr || pTexDesc == nullptr)
    return __hk::result(hipErrorInvalidValue);
  hipResourceDesc res;
  if (hipError_t code = __hk::runtime_resource(*pResDesc, &res)) return code;
  const hipTextureDesc tex = __hk::runtime_texture(*pTexDesc);
  hipResourceViewDesc view = {};
  if (pResViewDesc != nullptr) {
    view.format = hipResourceViewFormat(pResViewDesc->format);
    view.width = pResViewDesc->width;
    view.height = pResViewDesc->height;
    view.depth = pResViewDesc->depth;
    view.firstMipmapLevel = pResViewDesc->firstMipmapLevel;
    view.lastMipmapLevel = pResViewDesc->lastMipmapLevel;
    view.firstLayer = pResViewDesc->firstLayer;
    view.lastLayer = pResViewDesc->lastLayer;
  }
  return __hk::create_texture(pTexObject, &res, &tex, pResViewDesc ? &view : nullptr);
}
inline hipError_t hipTexObjectDestroy(hipTextureObject_t texObject) {
  __HK_API_CALL();
  return __hk::delete_object(texObject);
}
inline hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC* pResDesc,
                                              hipTextureObject_t texObject) {
  __HK_API_CALL();
  if (pResDesc == nullptr || texObject == nullptr) return __hk::result(hipErrorInvalidValue);
  const hipResourceDesc& in = texObject->resource;
  *pResDesc = HIP_RESOURCE_DESC{};
  pResDesc->resType = HIPresourcetype(in.resType);
  switch (in.resType) {
    case hipResourceTypeArray:
      pResDesc->res.array.hArray = in.res.array.array;
      break;
    case hipResourceTypeMipmappedArray:
      pResDesc->res.mipmap.hMipmappedArray = in.res.mipmap.mipmap;
      break;
    case hipResourceTypeLinear:
      pResDesc->res.linear.devPtr = in.res.linear.devPtr;
      pResDesc->res.linear.sizeInBytes = in.res.linear.sizeInBytes;
      __hk::driver_format(in.res.linear.desc, &pResDesc->res.linear.format,
                          &pResDesc->res.linear.numChannels);
      break;
    case hipResourceTypePitch2D:
      pResDesc->res.pitch2D.devPtr = in.res.pitch2D.devPtr;
      pResDesc->res.pitch2D.width = in.res.pitch2D.width;
      pResDesc->res.pitch2D.height = in.res.pitch2D.height;
      pResDesc->res.pitch2D.pitchInBytes = in.res.pitch2D.pitchInBytes;
      __hk::driver_format(in.res.pitch2D.desc, &pResDesc->res.pitch2D.format,
                          &pResDesc->res.pitch2D.numChannels);
      break;
  }
  return hipSuccess;
}
inline hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC* pResViewDesc,
                                                  hipTextureObject_t texObject) {
  __HK_API_CALL();
  if (pResViewDesc == nullptr || texObject == nullptr) return __hk::result(hipErrorInvalidValue);
  const hipResourceViewDesc& in = texObject->view;
  *pResViewDesc = HIP_RESOURCE_VIEW_DESC{};
  pResViewDesc->format = HIPresourceViewFormat(in.format);
  pResViewDesc->width = in.width;
  pResViewDesc->height = in.height;
  pResViewDesc->depth = in.depth;
  pResViewDesc->firstMipmapLevel = in.firstMipmapLevel;
  pResViewDesc->lastMipmapLevel = in.lastMipmapLevel;
  pResViewDesc->firstLayer = in.firstLayer;
  pResViewDesc->lastLayer = in.lastLayer;
  return hipSuccess;
}
inline hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC* pTexDesc,
                                             hipTextureObject_t texObject) {
  __HK_API_CALL();
  if (pTexDesc == nullptr || texObject == nullptr) return __hk::result(hipErrorInvalidValue);
  const hipTextureDesc& in = texObject->texture;
  *pTexDesc = HIP_TEXTURE_DESC{};
  for (int d = 0; d < 3; ++d) pTexDesc->addressMode[d] = HIPaddress_mode(in.addressMode[d]);
  pTexDesc->filterMode = HIPfilter_mode(in.filterMode);
  pTexDesc->flags = (in.readMode == hipReadModeElementType ? HIP_TRSF_READ_AS_INTEGER : 0) |
                    (in.normalizedCoords ? HIP_TRSF_NORMALIZED_COORDINATES : 0) |
                    (in.sRGB ? HIP_TRSF_SRGB : 0);
  pTexDesc->maxAnisotropy = in.maxAnisotropy;
  pTexDesc->mipmapFilterMode = HIPfilter_mode(in.mipmapFilterMode);
  pTexDesc->mipmapLevelBias = in.mipmapLevelBias;
  pTexDesc->minMipmapLevelClamp = in.minMipmapLevelClamp;
  pTexDesc->maxMipmapLevelClamp = in.maxMipmapLevelClamp;
  for (int c = 0; c < 4; ++c) pTexDesc->borderColor[c] = in.borderColor[c];
  return hipSuccess;
}

// ---- Surface objects: over arrays ------------------------------------------------

inline hipError_t hipCreateSurfaceObject(hipSurfaceObject_t* pSurfObject,
                                         const hipResourceDesc* pResDesc) {
  __HK_API_CALL();
  if (pSurfObject == nullptr || pResDesc == nullptr ||
      pResDesc->resType != hipResourceTypeArray || !__hk::array_live(pResDesc->res.array.array))
    return __hk::result(hipErrorInvalidValue);
  __hip_surface s = {};
  s.texels = __hk::array_texels(pResDesc->res.array.array);
  s.resource = *pResDesc;
  return __hk::new_object(s, pSurfObject);
}
inline hipError_t hipDestroySurfaceObject(hipSurfaceObject_t surfaceObject) {
  __HK_API_CALL();
  return __hk::delete_object(surfaceObject);
}

#endif  // HIPKIT_CPU_PROGRAM_TEXTURE_API_H

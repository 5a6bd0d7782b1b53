// hipkit CPU platform: HIP's texture fetch functions (part of
// device_texture.h): tex1Dfetch, tex1D, tex2D, tex3D, the layered forms,
// tex2DLod / tex2DGrad (arrays have one level: the level and gradients
// choose nothing) and tex2Dgather; each as the template returning T and as
// HIP's form writing *ptr.
#ifndef HIPKIT_CPU_DEVICE_TEXTURE_FETCH_H
#define HIPKIT_CPU_DEVICE_TEXTURE_FETCH_H

// Element x of a linear texture, unfiltered; zero outside.
template <class T>
__HK_INLINE T tex1Dfetch(hipTextureObject_t t, int x) {
  const __hk::texels& s = t->texels;
  if (x < 0 || x >= s.width) return __hk::from_float<T>(__hk::texel_f{{0.0f, 0.0f, 0.0f, 0.0f}});
  return __hk::texel_as<T>(t, __hk::texel_at(s, x, 0, 0));
}
template <class T>
__HK_INLINE T tex1D(hipTextureObject_t t, float x) {
  return __hk::tex_sample<T>(t, 1, x, 0.0f, 0.0f, 0);
}
template <class T>
__HK_INLINE T tex2D(hipTextureObject_t t, float x, float y) {
  return __hk::tex_sample<T>(t, 2, x, y, 0.0f, 0);
}
template <class T>
__HK_INLINE T tex3D(hipTextureObject_t t, float x, float y, float z) {
  return __hk::tex_sample<T>(t, 3, x, y, z, 0);
}
template <class T>
__HK_INLINE T tex1DLayered(hipTextureObject_t t, float x, int layer) {
  return __hk::tex_sample<T>(t, 1, x, 0.0f, 0.0f, layer);
}
template <class T>
__HK_INLINE T tex2DLayered(hipTextureObject_t t, float x, float y, int layer) {
  return __hk::tex_sample<T>(t, 2, x, y, 0.0f, layer);
}
template <class T>
__HK_INLINE T tex1DLod(hipTextureObject_t t, float x, float) {
  return tex1D<T>(t, x);
}
template <class T>
__HK_INLINE T tex2DLod(hipTextureObject_t t, float x, float y, float) {
  return tex2D<T>(t, x, y);
}
template <class T>
__HK_INLINE T tex3DLod(hipTextureObject_t t, float x, float y, float z, float) {
  return tex3D<T>(t, x, y, z);
}
template <class T>
__HK_INLINE T tex2DGrad(hipTextureObject_t t, float x, float y, float2, float2) {
  return tex2D<T>(t, x, y);
}
template <class T>
__HK_INLINE T tex2DLayeredLod(hipTextureObject_t t, float x, float y, int layer, float) {
  return tex2DLayered<T>(t, x, y, layer);
}

// Channel `comp` of the four texels bilinear filtering at (x, y) weighs, in
// CUDA's order: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
template <class T>
__HK_INLINE T tex2Dgather(hipTextureObject_t t, float x, float y, int comp = 0) {
  const __hk::texels& s = t->texels;
  const int i = __hk::tex_cell_of(__hk::tex_coord(t, 0, x, s.width)).low;
  const int j = __hk::tex_cell_of(__hk::tex_coord(t, 1, y, s.height)).low;
  const int dx[4] = {0, 1, 1, 0}, dy[4] = {1, 1, 0, 0};
  __hk::texel_f out;
  for (int n = 0; n < 4; ++n) {
    const int xi = __hk::tex_index(t->address[0], i + dx[n], s.width);
    const int yi = __hk::tex_index(t->address[1], j + dy[n], s.height);
    const __hk::texel_f texel = xi < 0 || yi < 0
                                    ? __hk::border_texel(t)
                                    : __hk::texel_float(t, __hk::texel_at(s, xi, yi, 0));
    out.v[n] = texel.v[comp & 3];
  }
  return __hk::from_float<T>(out);
}

template <class T>
__HK_INLINE void tex1Dfetch(T* ptr, hipTextureObject_t t, int x) {
  *ptr = tex1Dfetch<T>(t, x);
}
template <class T>
__HK_INLINE void tex1D(T* ptr, hipTextureObject_t t, float x) {
  *ptr = tex1D<T>(t, x);
}
template <class T>
__HK_INLINE void tex2D(T* ptr, hipTextureObject_t t, float x, float y) {
  *ptr = tex2D<T>(t, x, y);
}
template <class T>
__HK_INLINE void tex3D(T* ptr, hipTextureObject_t t, float x, float y, float z) {
  *ptr = tex3D<T>(t, x, y, z);
}
template <class T>
__HK_INLINE void tex1DLayered(T* ptr, hipTextureObject_t t, float x, int layer) {
  *ptr = tex1DLayered<T>(t, x, layer);
}
template <class T>
__HK_INLINE void tex2DLayered(T* ptr, hipTextureObject_t t, float x, float y, int layer) {
  *ptr = tex2DLayered<T>(t, x, y, layer);
}
template <class T>
__HK_INLINE void tex2DLod(T* ptr, hipTextureObject_t t, float x, float y, float level) {
  *ptr = tex2DLod<T>(t, x, y, level);
}
template <class T>
__HK_INLINE void tex2Dgather(T* ptr, hipTextureObject_t t, float x, float y, int comp = 0) {
  *ptr = tex2Dgather<T>(t, x, y, comp);
}

#endif  // HIPKIT_CPU_DEVICE_TEXTURE_FETCH_H

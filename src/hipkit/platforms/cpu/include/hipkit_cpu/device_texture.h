// hipkit CPU platform: texture fetches in kernel code (part of device.h),
// with the GPU's sampling arithmetic (CUDA's programming guide, "Texture
// Fetching"):
// - point sampling reads texel floor(x) of the unnormalized coordinate x;
// - linear filtering reads the texels around x - 0.5 and weighs them by
//   the fraction's 9-bit fixed-point value (8 fractional bits), as NVIDIA's
//   and AMD's samplers do;
// - normalized coordinates are multiplied by the size; wrap and mirror
//   act on them before (their texel indices wrap or mirror after), clamp
//   and border on the texel indices;
// - 8- and 16-bit integers read as normalized floats are v / (2^n - 1),
//   signed ones v / (2^(n-1) - 1) clamped to -1; sRGB texels are made linear
//   before filtering.
// The public functions are in device_texture_fetch.h.
#ifndef HIPKIT_CPU_DEVICE_TEXTURE_H
#define HIPKIT_CPU_DEVICE_TEXTURE_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

#include "texture_types.h"

namespace __hk {

// A texel's channels as floats: normalized or float formats.
struct texel_f {
  float v[4];
};

__HK_FN int tex_floor(float u) {
  // NaN and huge coordinates land far outside, where addressing takes over.
  if (!(u > -1.0e9f)) return -1000000000;
  if (!(u < 1.0e9f)) return 1000000000;
  return int(floorf(u));
}

// The texel index i along a dimension of n texels, or -1 outside a border.
__HK_FN int tex_index(int mode, int i, int n) {
  switch (mode) {
    case hipAddressModeWrap:
      i %= n;
      return i < 0 ? i + n : i;
    case hipAddressModeMirror:
      if (i < 0) i = -1 - i;
      if (i >= n) i = 2 * n - 1 - i;
      return i < 0 ? 0 : i >= n ? n - 1 : i;
    case hipAddressModeBorder:
      return i < 0 || i >= n ? -1 : i;
    default:
      return i < 0 ? 0 : i >= n ? n - 1 : i;
  }
}

// The unnormalized coordinate along dimension d of n texels.
__HK_FN float tex_coord(const __hip_texture* t, int d, float x, int n) {
  if (!t->normalized) return x;
  if (t->address[d] == hipAddressModeWrap) {
    x = x - floorf(x);
  } else if (t->address[d] == hipAddressModeMirror) {
    const float f = floorf(x);
    x = (tex_floor(f) & 1) ? 1.0f - (x - f) : x - f;
  }
  return x * float(n);
}

__HK_FN const char* texel_at(const texels& s, int x, int y, int z) {
  return s.data + size_t(z) * s.slice + size_t(y) * s.pitch + size_t(x) * s.element;
}

// Channel c of the texel at p as an integer (integer formats).
__HK_FN long long channel_int(const texels& s, const char* p, int c) {
  p += c * (s.bits / 8);
  const bool sign = s.kind == hipChannelFormatKindSigned;
  switch (s.bits) {
    case 8:
      return sign ? (long long)*reinterpret_cast<const int8_t*>(p) : *reinterpret_cast<const uint8_t*>(p);
    case 16:
      return sign ? (long long)*reinterpret_cast<const int16_t*>(p) : *reinterpret_cast<const uint16_t*>(p);
    default:
      return sign ? (long long)*reinterpret_cast<const int32_t*>(p) : *reinterpret_cast<const uint32_t*>(p);
  }
}

__HK_FN float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

// The texel at p as floats: float and half formats as they are, integers
// normalized (read as normalized floats) or converted.
__HK_FN texel_f texel_float(const __hip_texture* t, const char* p) {
  const texels& s = t->texels;
  texel_f out = {{0.0f, 0.0f, 0.0f, 0.0f}};
  for (int c = 0; c < s.channels; ++c) {
    if (s.kind == hipChannelFormatKindFloat) {
      out.v[c] = s.bits == 16 ? __half2float(*reinterpret_cast<const __half*>(p + 2 * c))
                              : *reinterpret_cast<const float*>(p + 4 * c);
      continue;
    }
    const long long v = channel_int(s, p, c);
    if (!t->read_float) {
      out.v[c] = float(v);
      continue;
    }
    const bool sign = s.kind == hipChannelFormatKindSigned;
    const float scale = float((1ll << (s.bits - (sign ? 1 : 0))) - 1);
    const float f = float(v) / scale;
    out.v[c] = f < -1.0f ? -1.0f : f;
    if (t->srgb && c < 3) out.v[c] = srgb_to_linear(out.v[c]);
  }
  return out;
}

template <class T>
__HK_INLINE void set_channel(T& out, int c, typename channel_traits<T>::type v) {
  reinterpret_cast<typename channel_traits<T>::type*>(&out)[c] = v;
}

// A T from floats (filtered, normalized or float formats, borders).
template <class T>
__HK_INLINE T from_float(const texel_f& f) {
  using E = typename channel_traits<T>::type;
  T out;
  for (int c = 0; c < channel_traits<T>::rank; ++c) set_channel(out, c, static_cast<E>(f.v[c]));
  return out;
}

// The texel at p as T: integers read as their element type keep every bit.
template <class T>
__HK_INLINE T texel_as(const __hip_texture* t, const char* p) {
  using E = typename channel_traits<T>::type;
  const texels& s = t->texels;
  if (s.kind == hipChannelFormatKindFloat || t->read_float) return from_float<T>(texel_float(t, p));
  T out;
  for (int c = 0; c < channel_traits<T>::rank; ++c)
    set_channel(out, c, c < s.channels ? static_cast<E>(channel_int(s, p, c)) : E(0));
  return out;
}

__HK_FN texel_f border_texel(const __hip_texture* t) {
  texel_f out;
  for (int c = 0; c < 4; ++c) out.v[c] = t->border[c];
  return out;
}

// The weight of the upper texel: the fraction in 1.8 fixed point.
__HK_FN float tex_weight(float u, int i) { return rintf((u - float(i)) * 256.0f) / 256.0f; }

// A fetch at (x, y, z) in `dims` dimensions; `layer` the slice of a layered texture.
template <class T>
__HK_INLINE T tex_sample(hipTextureObject_t t, int dims, float x, float y, float z, int layer) {
  const texels& s = t->texels;
  if (s.layers > 0) layer = layer < 0 ? 0 : layer >= s.layers ? s.layers - 1 : layer;
  const float u = tex_coord(t, 0, x, s.width);
  const float v = dims > 1 ? tex_coord(t, 1, y, s.height) : 0.0f;
  const float w = dims > 2 ? tex_coord(t, 2, z, s.depth) : 0.0f;
  if (!t->linear) {
    int i = tex_index(t->address[0], tex_floor(u), s.width);
    int j = dims > 1 ? tex_index(t->address[1], tex_floor(v), s.height) : 0;
    int k = dims > 2 ? tex_index(t->address[2], tex_floor(w), s.depth) : s.layers > 0 ? layer : 0;
    if (i < 0 || j < 0 || k < 0) return from_float<T>(border_texel(t));
    return texel_as<T>(t, texel_at(s, i, j, k));
  }
  const float ub = u - 0.5f, vb = v - 0.5f, wb = w - 0.5f;
  const int i = tex_floor(ub), j = dims > 1 ? tex_floor(vb) : 0, k = dims > 2 ? tex_floor(wb) : 0;
  const float a = tex_weight(ub, i), b = dims > 1 ? tex_weight(vb, j) : 0.0f,
              g = dims > 2 ? tex_weight(wb, k) : 0.0f;
  texel_f out = {{0.0f, 0.0f, 0.0f, 0.0f}};
  // Corners in CUDA's order (x fastest), each weighed by the product of its
  // dimensions' weights; a layered texture's layer is not filtered.
  for (int corner = 0; corner < (1 << dims); ++corner) {
    const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
    float weight = dx ? a : 1.0f - a;
    if (dims > 1) weight *= dy ? b : 1.0f - b;
    if (dims > 2) weight *= dz ? g : 1.0f - g;
    const int xi = tex_index(t->address[0], i + dx, s.width);
    const int yi = dims > 1 ? tex_index(t->address[1], j + dy, s.height) : 0;
    const int zi = dims > 2 ? tex_index(t->address[2], k + dz, s.depth) : s.layers > 0 ? layer : 0;
    const texel_f texel =
        xi < 0 || yi < 0 || zi < 0 ? border_texel(t) : texel_float(t, texel_at(s, xi, yi, zi));
    for (int c = 0; c < 4; ++c) out.v[c] += weight * texel.v[c];
  }
  return from_float<T>(out);
}

}  // namespace __hk

#include "device_texture_fetch.h"

#endif  // HIPKIT_CPU_DEVICE_TEXTURE_H

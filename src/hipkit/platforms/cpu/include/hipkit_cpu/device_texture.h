// hipkit CPU platform: texture fetches in kernel code (part of device.h),
// with the GPU's sampling arithmetic (CUDA's programming guide, "Texture
// Fetching"):
// - point sampling reads texel floor(x) of the unnormalized coordinate x;
// - linear filtering reads the texels around x - 0.5 and weighs them by
//   the fraction in 1.8 fixed point, as NVIDIA's and AMD's samplers do;
// - normalized coordinates are multiplied by the size; wrap and mirror
//   act on them before (their texel indices wrap or mirror after), clamp
//   and border on the texel indices;
// - 8- and 16-bit integers read as normalized floats are v / (2^n - 1),
//   signed ones v / (2^(n-1) - 1) clamped to -1; sRGB texels are made linear
//   before filtering.
// Where the guide is silent, the rules are the H200's, measured there
// (benchmarks/RESULTS.md; tests/texture_model.py is the same in NumPy): a
// normalized coordinate keeps 21 fraction bits; the weight rounds half up,
// and up to a whole texel moves to the next one; bilinear's corner weights
// are whole 256ths, the far corner's A*B/256 rounded half up and the others
// what is left; a layer is an unsigned index clamped to the last; a border
// colour is clamped to what a normalized format can hold.
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

__HK_FN int tex_floor(double u) {
  // NaN and huge coordinates land far outside, where addressing takes over.
  if (!(u > -1.0e9)) return -1000000000;
  if (!(u < 1.0e9)) return 1000000000;
  return int(floor(u));
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

// The unnormalized coordinate along dimension d of n texels (exact in a double).
__HK_FN double tex_coord(const __hip_texture* t, int d, float x, int n) {
  if (!t->normalized) return x;
  if (t->address[d] == hipAddressModeWrap) {
    x = x - floorf(x);
  } else if (t->address[d] == hipAddressModeMirror) {
    const float f = floorf(x);
    x = (tex_floor(f) & 1) ? 1.0f - (x - f) : x - f;
  }
  constexpr double fraction = 2097152.0;  // 2^21: the bits a normalized coordinate keeps
  return floor(double(x) * fraction) / fraction * double(n);
}

// The lower texel around u - 0.5 and the upper one's weight in 256ths.
struct tex_cell {
  int low, weight;
};
__HK_FN tex_cell tex_cell_of(double u) {
  const double base = u - 0.5;
  const int low = tex_floor(base);
  if (low <= -1000000000 || low >= 1000000000) return {low, 0};
  const int q = int(floor((base - double(low)) * 256.0 + 0.5));
  return {low + (q >> 8), q & 255};
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
  const float low = t->texels.kind == hipChannelFormatKindSigned ? -1.0f : 0.0f;
  for (int c = 0; c < 4; ++c) {
    const float v = t->border[c];
    out.v[c] = !t->read_float ? v : v < low ? low : v > 1.0f ? 1.0f : v;
  }
  return out;
}

// The weights in 256ths of the 2^dims corners (corner k steps along dimension
// d where bit d of k is set) for the upper texels' weights q.
__HK_FN void tex_corner_weights(int dims, const int* q, int* w) {
  if (dims == 1) {
    w[0] = 256 - q[0], w[1] = q[0];
    return;
  }
  const int far = (q[0] * q[1] + 128) >> 8;
  w[0] = 256 - q[0] - q[1] + far, w[1] = q[0] - far, w[2] = q[1] - far, w[3] = far;
  if (dims == 3)
    for (int k = 0; k < 4; ++k) {
      w[k + 4] = (w[k] * q[2] + 128) >> 8;
      w[k] -= w[k + 4];
    }
}

// A fetch at (x, y, z) in `dims` dimensions; `layer` the slice of a layered texture.
template <class T>
__HK_INLINE T tex_sample(hipTextureObject_t t, int dims, float x, float y, float z, int layer) {
  const texels& s = t->texels;
  if (s.layers > 0 && unsigned(layer) >= unsigned(s.layers)) layer = s.layers - 1;
  const double u = tex_coord(t, 0, x, s.width);
  const double v = dims > 1 ? tex_coord(t, 1, y, s.height) : 0.0;
  const double w = dims > 2 ? tex_coord(t, 2, z, s.depth) : 0.0;
  if (!t->linear) {
    int i = tex_index(t->address[0], tex_floor(u), s.width);
    int j = dims > 1 ? tex_index(t->address[1], tex_floor(v), s.height) : 0;
    int k = dims > 2 ? tex_index(t->address[2], tex_floor(w), s.depth) : s.layers > 0 ? layer : 0;
    if (i < 0 || j < 0 || k < 0) return from_float<T>(border_texel(t));
    return texel_as<T>(t, texel_at(s, i, j, k));
  }
  const tex_cell cells[3] = {tex_cell_of(u), tex_cell_of(v), tex_cell_of(w)};
  const int q[3] = {cells[0].weight, cells[1].weight, cells[2].weight};
  int weights[8];
  tex_corner_weights(dims, q, weights);
  // Summed in a double, where each product is exact: the result rounds once.
  double sum[4] = {0.0, 0.0, 0.0, 0.0};
  for (int corner = 0; corner < (1 << dims); ++corner) {
    const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
    const int xi = tex_index(t->address[0], cells[0].low + dx, s.width);
    const int yi = dims > 1 ? tex_index(t->address[1], cells[1].low + dy, s.height) : 0;
    const int zi =
        dims > 2 ? tex_index(t->address[2], cells[2].low + dz, s.depth) : s.layers > 0 ? layer : 0;
    const texel_f texel =
        xi < 0 || yi < 0 || zi < 0 ? border_texel(t) : texel_float(t, texel_at(s, xi, yi, zi));
    for (int c = 0; c < 4; ++c) sum[c] += weights[corner] / 256.0 * texel.v[c];
  }
  texel_f out;
  for (int c = 0; c < 4; ++c) out.v[c] = float(sum[c]);
  return from_float<T>(out);
}

}  // namespace __hk

#include "device_texture_fetch.h"

#endif  // HIPKIT_CPU_DEVICE_TEXTURE_H

// hipkit CPU platform: surface reads and writes in kernel code (part of
// device.h).  x is in bytes, y and z in rows and slices (or a layer), as in
// CUDA and HIP; the element is sizeof(T) bytes at that address.  Out of
// bounds: hipBoundaryModeZero (HIP's default) reads zero and drops writes,
// hipBoundaryModeClamp moves to the nearest element, hipBoundaryModeTrap
// stops the kernel with a sticky hipErrorIllegalAddress, as a GPU's fault.
#ifndef HIPKIT_CPU_DEVICE_SURFACE_H
#define HIPKIT_CPU_DEVICE_SURFACE_H

#ifndef HIPKIT_CPU_DEVICE_H
#error "include hipkit_cpu/device.h, not its parts"
#endif

namespace __hk {

__HK_FN bool surf_axis(int* at, int limit, int mode) {
  if (*at >= 0 && *at < limit) return true;
  if (mode == hipBoundaryModeTrap) __hk_trap(700, "surface access out of bounds (hipBoundaryModeTrap)");
  if (mode != hipBoundaryModeClamp) return false;
  *at = *at < 0 ? 0 : limit - 1;
  return true;
}

// The address of the sizeof(T) bytes at byte x, row y, slice z; null when
// they are out of bounds and dropped.
template <class T>
__HK_INLINE char* surf_at(hipSurfaceObject_t s, int x, int y, int z, int mode) {
  const texels& t = s->texels;
  const int row_bytes = t.width * t.element - int(sizeof(T)) + 1;
  const int slices = t.layers > 0 ? t.layers : t.depth;
  if (!surf_axis(&x, row_bytes, mode) || !surf_axis(&y, t.height, mode) ||
      !surf_axis(&z, slices, mode))
    return nullptr;
  return const_cast<char*>(t.data) + size_t(z) * t.slice + size_t(y) * t.pitch + size_t(x);
}

template <class T>
__HK_INLINE T surf_read(hipSurfaceObject_t s, int x, int y, int z, int mode) {
  T value;
  if (const char* p = surf_at<T>(s, x, y, z, mode))
    memcpy(&value, p, sizeof(T));
  else
    memset(&value, 0, sizeof(T));
  return value;
}

template <class T>
__HK_INLINE void surf_write(const T& value, hipSurfaceObject_t s, int x, int y, int z, int mode) {
  if (char* p = surf_at<T>(s, x, y, z, mode)) memcpy(p, &value, sizeof(T));
}

}  // namespace __hk

#define __HK_SURF_MODE int mode = hipBoundaryModeZero

template <class T>
__HK_INLINE T surf1Dread(hipSurfaceObject_t s, int x, __HK_SURF_MODE) {
  return __hk::surf_read<T>(s, x, 0, 0, mode);
}
template <class T>
__HK_INLINE T surf2Dread(hipSurfaceObject_t s, int x, int y, __HK_SURF_MODE) {
  return __hk::surf_read<T>(s, x, y, 0, mode);
}
template <class T>
__HK_INLINE T surf3Dread(hipSurfaceObject_t s, int x, int y, int z, __HK_SURF_MODE) {
  return __hk::surf_read<T>(s, x, y, z, mode);
}
template <class T>
__HK_INLINE T surf1DLayeredread(hipSurfaceObject_t s, int x, int layer, __HK_SURF_MODE) {
  return __hk::surf_read<T>(s, x, 0, layer, mode);
}
template <class T>
__HK_INLINE T surf2DLayeredread(hipSurfaceObject_t s, int x, int y, int layer, __HK_SURF_MODE) {
  return __hk::surf_read<T>(s, x, y, layer, mode);
}
template <class T>
__HK_INLINE void surf1Dread(T* data, hipSurfaceObject_t s, int x, __HK_SURF_MODE) {
  *data = __hk::surf_read<T>(s, x, 0, 0, mode);
}
template <class T>
__HK_INLINE void surf2Dread(T* data, hipSurfaceObject_t s, int x, int y, __HK_SURF_MODE) {
  *data = __hk::surf_read<T>(s, x, y, 0, mode);
}
template <class T>
__HK_INLINE void surf3Dread(T* data, hipSurfaceObject_t s, int x, int y, int z, __HK_SURF_MODE) {
  *data = __hk::surf_read<T>(s, x, y, z, mode);
}
template <class T>
__HK_INLINE void surf1DLayeredread(T* data, hipSurfaceObject_t s, int x, int layer,
                                   __HK_SURF_MODE) {
  *data = __hk::surf_read<T>(s, x, 0, layer, mode);
}
template <class T>
__HK_INLINE void surf2DLayeredread(T* data, hipSurfaceObject_t s, int x, int y, int layer,
                                   __HK_SURF_MODE) {
  *data = __hk::surf_read<T>(s, x, y, layer, mode);
}
template <class T>
__HK_INLINE void surf1Dwrite(T data, hipSurfaceObject_t s, int x, __HK_SURF_MODE) {
  __hk::surf_write(data, s, x, 0, 0, mode);
}
template <class T>
__HK_INLINE void surf2Dwrite(T data, hipSurfaceObject_t s, int x, int y, __HK_SURF_MODE) {
  __hk::surf_write(data, s, x, y, 0, mode);
}
template <class T>
__HK_INLINE void surf3Dwrite(T data, hipSurfaceObject_t s, int x, int y, int z, __HK_SURF_MODE) {
  __hk::surf_write(data, s, x, y, z, mode);
}
template <class T>
__HK_INLINE void surf1DLayeredwrite(T data, hipSurfaceObject_t s, int x, int layer,
                                    __HK_SURF_MODE) {
  __hk::surf_write(data, s, x, 0, layer, mode);
}
template <class T>
__HK_INLINE void surf2DLayeredwrite(T data, hipSurfaceObject_t s, int x, int y, int layer,
                                    __HK_SURF_MODE) {
  __hk::surf_write(data, s, x, y, layer, mode);
}

#undef __HK_SURF_MODE

#endif  // HIPKIT_CPU_DEVICE_SURFACE_H

// hipkit CPU platform: which CPU devices a whole program sees, in which order
// (part of program.h; the runtime's trace writer names devices by it too).
//
// HIP_VISIBLE_DEVICES, HIP's own variable, applies to every platform, each
// numbering its own devices; the vendors' CUDA_VISIBLE_DEVICES and
// ROCR_VISIBLE_DEVICES choose among their own GPUs and leave the CPU alone.
// Unset, every CPU device is visible in its own order.  Set, it lists the
// devices the program numbers 0, 1, ... ("1,0" swaps two), read as CUDA and
// ROCm read a list: it ends at its first entry that names no device (not a
// decimal index of one, or one listed before), so that "" or "-1" hides every
// device.  Hidden, a device is not there for hipGetDeviceCount, hipInit,
// hipSetDevice & co. (hipErrorNoDevice when none is left), as a GPU the
// variable hides.  The Python API reads the variable by the same rule
// (hipkit/runtime/device.py).
#ifndef HIPKIT_CPU_PROGRAM_VISIBLE_H
#define HIPKIT_CPU_PROGRAM_VISIBLE_H

#include <stdlib.h>
#include <string.h>

#include "runtime.h"

namespace __hk {

// The runtime's indices of the devices a program sees, in its order.
struct visible_devices {
  int count = 0;
  int native[64] = {};  // HIPKIT_CPU_DEVICES is at most 64
};

// The devices the list `value` (NULL: unset) shows of `count` devices.
inline visible_devices parse_visible(const char* value, int count) {
  visible_devices out;
  if (count > 64) count = 64;
  if (value == nullptr) {
    for (out.count = 0; out.count < count; ++out.count) out.native[out.count] = out.count;
    return out;
  }
  for (const char* entry = value;; ++entry) {
    entry += strspn(entry, " \t");
    const size_t digits = strspn(entry, "0123456789");
    const char* rest = entry + digits + strspn(entry + digits, " \t");
    if (digits == 0 || digits > 9 || (*rest != '\0' && *rest != ',')) return out;
    const int index = atoi(entry);
    if (index >= count) return out;
    for (int i = 0; i < out.count; ++i)
      if (out.native[i] == index) return out;
    out.native[out.count++] = index;
    if (*rest == '\0') return out;
    entry = rest;
  }
}

// This process's devices, read once (the runtime starts if it has not).
inline const visible_devices& visible() {
  static const visible_devices devices = [] {
    int count = 0;
    if (hkrt_device_count(&count) != 0) count = 0;
    return parse_visible(getenv("HIP_VISIBLE_DEVICES"), count);
  }();
  return devices;
}

// The program's number of the runtime's device `native`, or -1 if hidden.
inline int ordinal_of(int native) {
  const visible_devices& v = visible();
  for (int i = 0; i < v.count; ++i)
    if (v.native[i] == native) return i;
  return -1;
}

}  // namespace __hk

#endif  // HIPKIT_CPU_PROGRAM_VISIBLE_H

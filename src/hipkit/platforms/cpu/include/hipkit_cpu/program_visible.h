// hipkit CPU platform: whether a whole program sees the CPU (part of program.h).
//
// HIP_VISIBLE_DEVICES, HIP's own variable, applies to every platform, each
// numbering its own devices; the vendors' CUDA_VISIBLE_DEVICES and
// ROCR_VISIBLE_DEVICES choose among their own GPUs and leave the CPU alone.
// As CUDA and ROCm read a list, it ends at the first entry that names no
// device, so that "" or "-1" hides every device.  The CPU is device 0: it stays
// visible when HIP_VISIBLE_DEVICES is unset or starts with 0.  Hidden, it is
// not there for hipGetDeviceCount, hipInit, hipSetDevice & co.
// (hipErrorNoDevice), as a GPU the variable hides.
#ifndef HIPKIT_CPU_PROGRAM_VISIBLE_H
#define HIPKIT_CPU_PROGRAM_VISIBLE_H

#include <stdlib.h>
#include <string.h>

namespace __hk {

// Whether the list `value` (NULL: unset) leaves device 0 visible.
inline bool lists_device_0(const char* value) {
  if (value == nullptr) return true;
  const char* first = value + strspn(value, " \t");
  const size_t digits = strspn(first, "0123456789");
  if (digits == 0) return false;
  for (size_t i = 0; i < digits; ++i)
    if (first[i] != '0') return false;
  const char* rest = first + digits + strspn(first + digits, " \t");
  return *rest == '\0' || *rest == ',';
}

inline bool device_visible() {
  static const bool visible = lists_device_0(getenv("HIP_VISIBLE_DEVICES"));
  return visible;
}

}  // namespace __hk

#endif  // HIPKIT_CPU_PROGRAM_VISIBLE_H

// hipkit CPU platform: the copies of arrays that the pitched copies hand on
// (hipMemcpy3D's and hipMemcpyParam2D's array sides), declared for the
// functions before program_array.h, which defines them.
#ifndef HIPKIT_CPU_PROGRAM_ARRAY_HOOKS_H
#define HIPKIT_CPU_PROGRAM_ARRAY_HOOKS_H

namespace __hk {
template <class Parms>
hipError_t copy_3d_array(const Parms* p, hipStream_t stream, int async);
template <class Parms>
hipError_t copy_param_2d_array(const Parms* p, hipStream_t stream, int async);
}  // namespace __hk

#endif  // HIPKIT_CPU_PROGRAM_ARRAY_HOOKS_H

// hipkit NVIDIA platform: assert() for kernel code, through NVRTC's built-in
// __assertfail (a failed assert stops the kernel: hipErrorAssert).
//
// No include guard, as <assert.h>: each inclusion defines assert() anew for
// the NDEBUG in force at that point.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) \
  ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif

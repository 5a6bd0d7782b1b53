// hipkit AMD platform: assert() for kernel code, through HIP's __assert_fail
// (which prints the failed condition and traps).
//
// No include guard, as <assert.h>: each inclusion defines assert() anew for
// the NDEBUG in force at that point.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif

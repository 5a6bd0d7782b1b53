// Faults and traps in kernel code become sticky errors, as on a GPU.
//
// SIGSEGV/SIGBUS (hipErrorIllegalAddress) and SIGFPE/SIGILL/SIGTRAP
// (hipErrorLaunchFailure) raised while a thread runs kernel code (tls_exec
// set) jump back to that thread's ExecContext; any other fault goes to the
// handler that was installed before ours (Python's faulthandler, say), or to
// the default action.  Handlers run on an alternate stack, so that a fiber
// that overflows its stack into the guard page is caught too.

// siglongjmp leaves a fiber's stack for the worker's: the fortified
// longjmp would take that for jumping into a dead frame and abort.
#undef _FORTIFY_SOURCE

#include <signal.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#include "internal.h"

namespace hk {

__thread ExecContext* tls_exec = nullptr;

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP};
struct sigaction previous[NSIG];

constexpr size_t kAltStackBytes = 64 << 10;

[[noreturn]] void jump_out(ExecContext* exec, int code) {
  exec->code = code;
  siglongjmp(exec->jump, 1);
}

// " in kernel NAME" or " in memcpy".
void append_where(const ExecContext* exec, char* buffer, size_t size, size_t used) {
  if (used >= size) return;
  if (exec->kernel != nullptr)
    snprintf(buffer + used, size - used, " in kernel %s", exec->kernel->name);
  else
    snprintf(buffer + used, size - used, " in %s", exec->what);
}

// Hands a fault that is not ours to whoever had the signal before.
void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& old = previous[sig];
  if ((old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction != nullptr) {
    old.sa_sigaction(sig, info, context);
    return;
  }
  if ((old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler != SIG_DFL &&
      old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
    return;
  }
  // The default action: a fault recurs when the instruction is retried;
  // a signal sent by kill() must be raised again.
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigaction(sig, &fallback, nullptr);
  if (info->si_code <= 0) raise(sig);
}

void on_signal(int sig, siginfo_t* info, void* context) {
  ExecContext* exec = tls_exec;
  if (exec == nullptr) return chain(sig, info, context);
  char* detail = exec->detail;
  const size_t size = sizeof(exec->detail);
  int used = 0;
  int code = HKRT_ERROR_LAUNCH_FAILURE;
  switch (sig) {
    case SIGSEGV:
    case SIGBUS:
      code = HKRT_ERROR_ILLEGAL_ADDRESS;
      if (exec->worker != nullptr && fiber_pool_is_guard(exec->worker->fibers, info->si_addr))
        used = snprintf(detail, size, "stack overflow of a GPU thread (fiber stacks are 256 KiB), "
                        "illegal address %p", info->si_addr);
      else
        used = snprintf(detail, size, "illegal address %p", info->si_addr);
      break;
    case SIGFPE:
      used = snprintf(detail, size, "%s",
                      info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF
                          ? "integer division by zero or overflow"
                          : "arithmetic exception");
      break;
    case SIGILL:
      used = snprintf(detail, size, "illegal instruction (__builtin_trap or unreachable code)");
      break;
    default:
      used = snprintf(detail, size, "trap instruction");
      break;
  }
  append_where(exec, detail, size, size_t(used));
  jump_out(exec, code);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction action = {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) sigaction(sig, &action, &previous[sig]);
}

void install_alt_stack() {
  const size_t guard = size_t(sysconf(_SC_PAGESIZE));
  void* base = mmap(nullptr, kAltStackBytes + guard, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) return;  // faults are still caught, stack overflows are not
  mprotect(base, guard, PROT_NONE);
  stack_t stack = {};
  stack.ss_sp = static_cast<char*>(base) + guard;
  stack.ss_size = kAltStackBytes;
  sigaltstack(&stack, nullptr);
}

}  // namespace hk

using namespace hk;

extern "C" {

void __hk_trap(int hip_error, const char* message) {
  ExecContext* exec = tls_exec;
  if (exec == nullptr) {
    fprintf(stderr, "hipkit: trap outside kernel code: %s\n", message);
    abort();
  }
  int used = snprintf(exec->detail, sizeof(exec->detail), "%s", message);
  append_where(exec, exec->detail, sizeof(exec->detail), size_t(used));
  jump_out(exec, hip_error != HKRT_SUCCESS ? hip_error : HKRT_ERROR_LAUNCH_FAILURE);
}

void __hk_assert_fail(const char* expr, const char* file, unsigned int line,
                      const char* function) {
  // The message of CUDA's device-side assert, printed as it is.
  char message[512];
  snprintf(message, sizeof(message),
           "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.", file, line,
           function, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
           expr);
  fprintf(stderr, "%s\n", message);
  __hk_trap(HKRT_ERROR_ASSERT, message);
}

}  // extern "C"

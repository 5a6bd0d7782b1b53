// GPU threads as fibers: one user-space context per thread of a block, run by
// the worker that runs the block, switched in assembly (fiber_switch.S).
//
// Scheduling is cooperative and FIFO: a fiber runs until it waits (at a
// barrier or warp operation) or finishes; the last thread to arrive releases
// the others and carries on.  Finished threads count as arrived, so an early
// return never blocks the others.  If every live fiber waits and none can be
// released (threads wait at different barriers), the block is deadlocked and
// traps.
//
// Warp operations follow SIMT divergence: lanes meet by call site.  Once every
// live lane of a warp is blocked (at a warp operation or at __syncthreads),
// the lanes waiting at one site go on together, and they alone take part (as
// the active lanes of a divergent branch).  Sites are source positions; the
// earliest goes first, so the lanes inside a branch finish it before the
// others, waiting after it, rejoin them.
#include <sys/mman.h>

#include <cstdio>

#include "internal.h"

extern "C" {
void* hk_fiber_make(void* stack_top, void (*entry)(void*), void* arg);
void hk_fiber_switch(void** save_sp, void* to_sp);
}

namespace hk {

namespace {

constexpr size_t kStackBytes = 256 << 10;
// Stacks are page-aligned and 256 KiB apart, so their tops would all fall
// into the same cache sets; each fiber's top is moved down by a different
// multiple of a cache line within this slack (mapped in addition).
constexpr size_t kStaggerBytes = 16 << 10;

enum class Wait : uint8_t { None, Barrier, Warp };

struct Fiber {
  void* sp = nullptr;
  unsigned char* stack_lo = nullptr;  // lowest usable byte; the guard page lies below
  unsigned char* stack_top = nullptr;
  uint32_t tid = 0;
  uint32_t warp = 0;  // tid / warp size
  uint32_t lane = 0;  // tid % warp size
  Wait wait = Wait::None;
  uint32_t round = 0;  // the warp buffer holding this lane's last warp operation
};

// Warp operations: lanes deposit a value and a predicate with their call
// site; a release publishes one site's group (its lanes, their values and
// predicates) into a buffer the group's lanes read when they resume.  A
// further release needs every live lane blocked again, so the group has read
// it by then; two buffers alternate all the same, for clarity of ownership.
struct WarpState {
  uint64_t live = 0;        // lanes not finished
  uint64_t arrived = 0;     // lanes waiting at a warp operation
  uint64_t at_barrier = 0;  // lanes waiting at __syncthreads
  uint64_t pending_predicates = 0;
  uint32_t phase = 0;       // the buffer of the next release
  uint64_t site[64];
  uint64_t pending[64];
  uint64_t participants[2] = {0, 0};
  uint64_t predicates[2] = {0, 0};
  uint64_t values[2][64];
};

size_t page_bytes() {
  static const size_t size = size_t(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

class FiberPool {
 public:
  static constexpr uint32_t kRing = Worker::kMaxThreads;  // a power of two

  void* scheduler_sp = nullptr;  // the worker's own context
  Fiber* current = nullptr;
  void (*fn)(void*, unsigned int) = nullptr;
  void* closure = nullptr;
  hk_index3* thread_idx = nullptr;  // the worker's threadIdx
  const hk_index3* thread_ids = nullptr;
  uint32_t nthreads = 0;
  uint32_t warp_size = 64;

  // Fibers and their stacks: grown to the largest block seen, then reused.
  std::vector<Fiber> fibers;
  std::vector<WarpState> warps;

  // Runnable fibers (a ring; each fiber is in it at most once).
  uint32_t ring[kRing];
  uint32_t ring_head = 0, ring_count = 0;

  // Block barrier.
  uint32_t live = 0;     // fibers not finished
  uint32_t arrived = 0;  // fibers that reached the barrier (waiting or releasing)
  uint32_t waiters[Worker::kMaxThreads];
  uint32_t waiting = 0;
  uint32_t barrier_phase = 0;
  int reduce_count = 0, reduce_and = 1, reduce_or = 0;
  int reduce_result[2][3] = {};  // per phase: count, and, or

  void push(uint32_t index) { ring[(ring_head + ring_count++) & (kRing - 1)] = index; }
  Fiber* pop() {
    if (ring_count == 0) return nullptr;
    uint32_t index = ring[ring_head];
    ring_head = (ring_head + 1) & (kRing - 1);
    --ring_count;
    return &fibers[index];
  }
};

namespace {

// The pool whose fibers this thread is running, or null (outside fibers).
__thread FiberPool* running_pool __attribute__((tls_model("initial-exec"))) = nullptr;

void fiber_entry(void* arg);

void grow(FiberPool* pool, uint32_t count) {
  const size_t guard = page_bytes();
  pool->fibers.reserve(count);
  while (pool->fibers.size() < count) {
    const size_t bytes = guard + kStackBytes + kStaggerBytes;
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
      __hk_trap(HKRT_ERROR_LAUNCH_OUT_OF_RESOURCES, "cannot map a fiber stack");
    if (mprotect(base, guard, PROT_NONE) != 0) {
      munmap(base, bytes);
      __hk_trap(HKRT_ERROR_LAUNCH_OUT_OF_RESOURCES, "cannot protect a fiber stack");
    }
    Fiber fiber;
    fiber.stack_lo = static_cast<unsigned char*>(base) + guard;
    // 17 lines apart modulo 256 lines: consecutive fibers use different sets.
    size_t stagger = (pool->fibers.size() * 17 % (kStaggerBytes / 64)) * 64;
    fiber.stack_top = fiber.stack_lo + kStackBytes + kStaggerBytes - stagger;
    pool->fibers.push_back(fiber);
  }
}

void prepare(FiberPool* pool, Worker* w, uint32_t n) {
  grow(pool, n);
  const uint32_t ws = w->block.warp_size;
  pool->thread_idx = w->thread_idx;
  pool->thread_ids = w->block.thread_ids;
  pool->nthreads = n;
  pool->warp_size = ws;
  pool->ring_head = 0;
  pool->ring_count = 0;
  for (uint32_t t = 0; t < n; ++t) {
    Fiber& fiber = pool->fibers[t];
    fiber.tid = t;
    fiber.warp = t / ws;
    fiber.lane = t % ws;
    fiber.wait = Wait::None;
    fiber.sp = hk_fiber_make(fiber.stack_top, fiber_entry, &fiber);
    pool->push(t);
  }
  pool->live = n;
  pool->arrived = 0;
  pool->waiting = 0;
  pool->barrier_phase = 0;
  pool->reduce_count = 0, pool->reduce_and = 1, pool->reduce_or = 0;
  pool->warps.resize((n + ws - 1) / ws);
  for (uint32_t i = 0; i < pool->warps.size(); ++i) {
    WarpState& warp = pool->warps[i];
    uint32_t lanes = std::min(ws, n - i * ws);
    warp.live = lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
    warp.arrived = warp.at_barrier = warp.pending_predicates = 0;
    warp.phase = 0;
  }
}

// Switches from the context saved into `save` to `next`.
inline void resume(FiberPool* pool, void** save, Fiber* next) {
  *pool->thread_idx = pool->thread_ids[next->tid];
  pool->current = next;
  hk_fiber_switch(save, next->sp);
}

[[noreturn]] void deadlock(FiberPool* pool) {
  uint32_t at_warp = 0;
  for (const WarpState& warp : pool->warps) at_warp += uint32_t(__builtin_popcountll(warp.arrived));
  char message[256];
  snprintf(message, sizeof(message),
           "deadlock: %u threads wait at __syncthreads and %u at warp operations "
           "(%u finished), and none can go on",
           pool->waiting, at_warp, pool->nthreads - pool->live);
  __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, message);
}

// The current fiber waits: run the next runnable one.
inline void wait_here(FiberPool* pool) {
  Fiber* self = pool->current;
  Fiber* next = pool->pop();
  if (next == nullptr) deadlock(pool);
  resume(pool, &self->sp, next);
}

void release_barrier(FiberPool* pool) {
  int* result = pool->reduce_result[pool->barrier_phase];
  result[0] = pool->reduce_count;
  result[1] = pool->reduce_and;
  result[2] = pool->reduce_or;
  pool->reduce_count = 0, pool->reduce_and = 1, pool->reduce_or = 0;
  pool->arrived = 0;
  pool->barrier_phase ^= 1;
  for (WarpState& warp : pool->warps) warp.at_barrier = 0;
  for (uint32_t i = 0; i < pool->waiting; ++i) {
    pool->fibers[pool->waiters[i]].wait = Wait::None;
    pool->push(pool->waiters[i]);
  }
  pool->waiting = 0;
}

// If every live lane of the warp is blocked, lets the lanes at the lowest
// waiting site go on with the results of their operation.
void release_warp(FiberPool* pool, uint32_t warp_index) {
  WarpState& warp = pool->warps[warp_index];
  if (warp.arrived == 0 || (warp.arrived | warp.at_barrier) != warp.live) return;
  uint64_t first = ~uint64_t(0);
  for (uint64_t bits = warp.arrived; bits != 0; bits &= bits - 1)
    first = std::min(first, warp.site[__builtin_ctzll(bits)]);
  uint64_t group = 0;
  for (uint64_t bits = warp.arrived; bits != 0; bits &= bits - 1) {
    int lane = __builtin_ctzll(bits);
    if (warp.site[lane] == first) group |= uint64_t(1) << lane;
  }
  const uint32_t phase = warp.phase;
  warp.participants[phase] = group;
  warp.predicates[phase] = warp.pending_predicates & group;
  Fiber* lanes = &pool->fibers[warp_index * pool->warp_size];
  for (uint64_t bits = group; bits != 0; bits &= bits - 1) {
    int lane = __builtin_ctzll(bits);
    warp.values[phase][lane] = warp.pending[lane];
    Fiber& fiber = lanes[lane];
    fiber.round = phase;
    fiber.wait = Wait::None;
    if (&fiber != pool->current) pool->push(fiber.tid);  // the caller just goes on
  }
  warp.arrived &= ~group;
  warp.pending_predicates &= ~group;
  warp.phase ^= 1;
}

void fiber_entry(void* arg) {
  auto* self = static_cast<Fiber*>(arg);
  FiberPool* pool = running_pool;
  pool->fn(pool->closure, self->tid);
  // Finished: the thread no longer holds back its block or its warp.
  --pool->live;
  pool->warps[self->warp].live &= ~(uint64_t(1) << self->lane);
  release_warp(pool, self->warp);
  if (pool->arrived != 0 && pool->arrived == pool->live) release_barrier(pool);
  Fiber* next = pool->pop();
  if (next != nullptr) resume(pool, &self->sp, next);
  if (pool->live != 0) deadlock(pool);
  hk_fiber_switch(&self->sp, pool->scheduler_sp);  // the block is done; never resumed
}

[[noreturn]] __attribute__((noinline, cold)) void not_in_fiber(const char* function) {
  char message[160];
  snprintf(message, sizeof(message), "%s called in a kernel not compiled for fibers", function);
  __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, message);
}

// The pool of the calling fiber; traps outside one.
inline FiberPool* current_pool(const char* function) {
  FiberPool* pool = running_pool;
  if (__builtin_expect(pool == nullptr, 0)) not_in_fiber(function);
  return pool;
}

int barrier(int predicate, int op) {
  FiberPool* pool = current_pool("__syncthreads");
  int p = predicate != 0;
  pool->reduce_count += p;
  pool->reduce_and &= p;
  pool->reduce_or |= p;
  uint32_t phase = pool->barrier_phase;
  if (++pool->arrived == pool->live) {
    release_barrier(pool);
  } else {
    Fiber* self = pool->current;
    self->wait = Wait::Barrier;
    pool->waiters[pool->waiting++] = self->tid;
    pool->warps[self->warp].at_barrier |= uint64_t(1) << self->lane;
    release_warp(pool, self->warp);  // its other lanes may wait at a warp operation
    wait_here(pool);
  }
  return pool->reduce_result[phase][op];
}

// A warp rendezvous at call site `site`: deposits (value, predicate), waits
// until this lane's group is released and returns the buffer holding it.
uint32_t warp_exchange(FiberPool* pool, uint64_t value, int predicate, uint64_t site) {
  Fiber* self = pool->current;
  WarpState& warp = pool->warps[self->warp];
  const uint64_t bit = uint64_t(1) << self->lane;
  warp.pending[self->lane] = value;
  warp.site[self->lane] = site;
  if (predicate != 0) warp.pending_predicates |= bit;
  warp.arrived |= bit;
  self->wait = Wait::Warp;
  release_warp(pool, self->warp);
  if (self->wait == Wait::Warp) wait_here(pool);
  return self->round;
}

}  // namespace

FiberPool* fiber_pool_create() { return new FiberPool; }

void fibers_abandon() { running_pool = nullptr; }

bool fiber_pool_is_guard(const FiberPool* pool, const void* address) {
  auto* a = static_cast<const unsigned char*>(address);
  for (const Fiber& fiber : pool->fibers)
    if (a < fiber.stack_lo && a >= fiber.stack_lo - page_bytes()) return true;
  return false;
}

}  // namespace hk

using namespace hk;

extern "C" {

void __hk_run_fibers(void (*fn)(void* closure, unsigned int tid), void* closure) {
  hk_block_context* block = __hk_block;
  if (block != nullptr && block->nthreads == 0) return;  // query mode
  ExecContext* exec = tls_exec;
  if (exec == nullptr || exec->worker == nullptr || block != &exec->worker->block)
    __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, "__hk_run_fibers called outside a kernel block");
  if (running_pool != nullptr)
    __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, "__hk_run_fibers called in a fiber");
  FiberPool* pool = exec->worker->fibers;
  prepare(pool, exec->worker, block->nthreads);
  pool->fn = fn;
  pool->closure = closure;
  running_pool = pool;
  resume(pool, &pool->scheduler_sp, pool->pop());
  running_pool = nullptr;
}

int __hk_fiber_barrier_reduce(int predicate, int op) {
  if (op < 0 || op > 2) __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, "invalid barrier reduction");
  return barrier(predicate, op);
}

void __hk_fiber_barrier(void) { barrier(0, 0); }

uint64_t __hk_fiber_shfl(uint64_t value, int src_lane, uint64_t site) {
  FiberPool* pool = current_pool("__shfl");
  uint32_t phase = warp_exchange(pool, value, 0, site);
  const uint32_t src = uint32_t(src_lane) & (pool->warp_size - 1);
  const WarpState& warp = pool->warps[pool->current->warp];
  return (warp.participants[phase] >> src & 1) != 0 ? warp.values[phase][src] : value;
}

uint64_t __hk_fiber_ballot(int predicate, uint64_t site) {
  FiberPool* pool = current_pool("__ballot");
  uint32_t phase = warp_exchange(pool, 0, predicate, site);
  const WarpState& warp = pool->warps[pool->current->warp];
  return warp.predicates[phase] & warp.participants[phase];
}

uint64_t __hk_fiber_activemask(uint64_t site) {
  FiberPool* pool = current_pool("__activemask");
  uint32_t phase = warp_exchange(pool, 0, 0, site);
  return pool->warps[pool->current->warp].participants[phase];
}

void __hk_fiber_syncwarp(uint64_t site) { warp_exchange(current_pool("__syncwarp"), 0, 0, site); }

}  // extern "C"

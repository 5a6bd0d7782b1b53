// The grid executor: each device's pool of worker threads, which claim the
// units of the device's ready jobs (blocks of a kernel, pieces of a large
// copy, a host function) a chunk at a time.
//
// Per block, a worker sets blockIdx and the scratch arena and calls the
// block function: no system call, no allocation, no setjmp.  Faults and traps
// jump back to one sigsetjmp per worker per job.
//
// Idle workers: a few spin for a while, the others sleep on a futex.  A
// spinning worker picks up the next job without a system call on the
// launching thread, and wakes sleepers itself if the job (or the backlog)
// has work for more than one.  Spinning every idle worker would crowd out
// the host threads when workers and cores are as many.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "internal.h"

// The built-in variables of kernel code (abi.h).
__thread hk_index3 threadIdx;
__thread hk_index3 blockIdx;
__thread hk_index3 blockDim;
__thread hk_index3 gridDim;
__thread hk_block_context* __hk_block;

namespace hk {

// One device's workers and the jobs they run.
struct Pool {
  std::vector<Op*> active_jobs;              // ready, unfinished jobs (scheduler lock)
  std::atomic<uint32_t> active_count{0};     // active_jobs.size(), read without the lock
  std::atomic<uint32_t> job_generation{0};   // bumped on publish; workers sleep on it
  std::atomic<uint32_t> sleeping_workers{0};
  std::atomic<uint32_t> spinning_workers{0};
  uint32_t max_spinning_workers = 1;
  // The cooperative launch whose blocks workers run (scheduler lock): one at a
  // time, so that each has every worker it may need at its grid barrier.
  Op* cooperative = nullptr;
};

namespace {

// This thread's Worker, null on host threads.
__thread Worker* this_worker __attribute__((tls_model("initial-exec"))) = nullptr;

constexpr int64_t kWorkerSpinNs = 50000;
constexpr size_t kFirstScratchChunk = 256 << 10;
constexpr size_t kWorkerStackBytes = 8 << 20;

// Blocks claimed at once: large chunks while much is left, single blocks at
// the end so that the last workers finish together (guided scheduling).
uint64_t chunk_for(const Op* op, uint64_t remaining) {
  if (op->kind != OpKind::Kernel || op->kernel.grid_barrier) return 1;
  uint64_t chunk = remaining / (2 * uint64_t(op->device->num_workers));
  return chunk < 1 ? 1 : chunk > 64 ? 64 : chunk;
}

void finish_units(Op* op, uint64_t count) {
  if (count == 0) return;
  if (op->finished.fetch_add(count, std::memory_order_acq_rel) + count != op->total) return;
  // Completing may run small ops inline; they install their own guard.
  ExecContext* saved = tls_exec;
  tls_exec = nullptr;
  ReadyList ready;
  complete(op, ready);
  run_ready(ready);
  tls_exec = saved;
}

// Drops the unclaimed units of a job (after a sticky error or during reset).
void abort_remaining(Op* op) {
  uint64_t old = op->next.exchange(op->total, std::memory_order_acq_rel);
  if (old < op->total) finish_units(op, op->total - old);
}

void prepare_kernel(Worker* w, const KernelLaunch& k) {
  const hk_index3 b = k.block;
  if (b.x != w->ids_shape.x || b.y != w->ids_shape.y || b.z != w->ids_shape.z) {
    uint32_t t = 0;
    for (uint32_t z = 0; z < b.z; ++z)
      for (uint32_t y = 0; y < b.y; ++y)
        for (uint32_t x = 0; x < b.x; ++x) w->thread_ids[t++] = hk_index3{x, y, z};
    w->ids_shape = b;
  }
  hk_block_context& block = w->block;
  block.nthreads = b.x * b.y * b.z;
  block.warp_size = config.warp_size;
  block.thread_ids = w->thread_ids.get();
  block.dynamic_shared = w->dynamic_shared;
  block.dynamic_shared_bytes = k.dynamic_shared_bytes;
  blockDim = b;
  gridDim = k.grid;
  __hk_block = &block;
}

void run_blocks(Worker* w, const KernelLaunch& k, uint64_t begin, uint64_t end) {
  const hk_entry_fn entry = k.desc->entry;
  void** const args = k.args;
  const uint64_t gx = k.grid.x, gy = k.grid.y;
  hk_index3 index;
  index.x = uint32_t(begin % gx);
  index.y = uint32_t(begin / gx % gy);
  index.z = uint32_t(begin / gx / gy);
  hk_index3* const block_idx = w->block_idx;
  hk_block_context* const block = &w->block;
  unsigned char* const scratch_begin = w->scratch[0].begin;
  unsigned char* const scratch_end = w->scratch[0].end;
  const Device* const device = w->device;
  GridBarrier* const grid = k.grid_barrier.get();
  for (uint64_t i = begin; i < end && !device->halted(); ++i) {
    *block_idx = index;
    block->scratch_cur = scratch_begin;
    block->scratch_end = scratch_end;
    w->scratch_chunk = 0;
    entry(args);
    if (__builtin_expect(sanitize_active(), 0)) sanitize_block_end();
    if (grid != nullptr) grid_block_finished(grid);
    if (++index.x == gx) {
      index.x = 0;
      if (++index.y == gy) {
        index.y = 0;
        ++index.z;
      }
    }
  }
}

void claim_and_run(Worker* w, Op* op) {
  for (;;) {
    if (w->device->halted() && !op->host_always) return abort_remaining(op);
    uint64_t begin = op->next.load(std::memory_order_relaxed), end;
    do {
      if (begin >= op->total) return;
      end = begin + chunk_for(op, op->total - begin);
    } while (!op->next.compare_exchange_weak(begin, end, std::memory_order_relaxed));
    // The op's start: its first unit's.  The worker that finishes the op reads
    // it after the finished counter's acquire, which orders it after this.
    if (begin == 0 && op->activity != 0) op->start_ns = now_ns();
    w->range_begin = begin;
    w->range_end = end;
    if (op->kind == OpKind::Kernel) {
      run_blocks(w, op->kernel, begin, end);
    } else if (op->kind == OpKind::HostFunc) {
      op->host_fn(op->host_data);
    } else {
      for (uint64_t piece = begin; piece < end; ++piece) {
        size_t offset = piece * kCopyPiece;
        copy_or_set(op, offset, std::min(kCopyPiece, op->bytes - offset));
      }
    }
    w->range_end = begin;
    finish_units(op, end - begin);
  }
}

void describe(ExecContext* exec, const Op* op) {
  exec->what = op->kind == OpKind::Copy       ? "memcpy"
               : op->kind == OpKind::Set      ? "memset"
               : op->kind == OpKind::HostFunc ? "host function"
                                              : "kernel";
  exec->kernel = op->kind == OpKind::Kernel ? op->kernel.desc : nullptr;
  exec->grid = op->kind == OpKind::Kernel ? op->kernel.grid_barrier.get() : nullptr;
}

void run_job(Worker* w, ExecContext* exec, Op* op) {
  if (op->kind == OpKind::Kernel) prepare_kernel(w, op->kernel);
  describe(exec, op);
  w->range_begin = w->range_end = 0;
  tls_exec = exec;
  if (sigsetjmp(exec->jump, 0) != 0) {
    // A fault or trap ended the block being run: the error is sticky, the
    // interrupted chunk counts as finished and claim_and_run drops the rest.
    fibers_abandon();
    sticky_set(w->device, exec->code, exec->detail);
    uint64_t interrupted = w->range_end - w->range_begin;
    w->range_end = w->range_begin;
    finish_units(op, interrupted);
  }
  claim_and_run(w, op);
  tls_exec = nullptr;
}

// A job with unclaimed units (a reference taken), or null; `backlog` is set
// to the unclaimed units of all jobs.
Op* take_job(Pool* pool, uint64_t* backlog) {
  *backlog = 0;
  if (pool->active_count.load(std::memory_order_seq_cst) == 0) return nullptr;
  auto lock = scheduler_lock();
  Op* job = nullptr;
  for (Op* op : pool->active_jobs) {
    uint64_t next = op->next.load(std::memory_order_relaxed);
    if (next >= op->total) continue;
    const bool cooperative = op->kind == OpKind::Kernel && op->kernel.grid_barrier;
    if (cooperative && pool->cooperative != nullptr && pool->cooperative != op) continue;
    *backlog += op->total - next;
    // The first job of the greatest priority (lowest number) present.
    if (job == nullptr || op->priority < job->priority) job = op;
  }
  if (job != nullptr) {
    op_ref(job);
    // One cooperative launch at a time per device: its blocks must all be co-resident.
    if (job->kind == OpKind::Kernel && job->kernel.grid_barrier) pool->cooperative = job;
  }
  return job;
}

void wake_sleepers(Pool* pool, uint64_t wanted) {
  uint32_t sleeping = pool->sleeping_workers.load(std::memory_order_seq_cst);
  if (sleeping != 0 && wanted != 0)
    futex_wake(&pool->job_generation, int(std::min<uint64_t>(wanted, sleeping)));
}

// Waits for the pool's job_generation to move on from `seen`.
void idle(Pool* pool, uint32_t seen) {
  auto published = [pool, seen] {
    return pool->job_generation.load(std::memory_order_seq_cst) != seen;
  };
  uint32_t spinners = pool->spinning_workers.load(std::memory_order_relaxed);
  while (spinners < pool->max_spinning_workers) {
    if (pool->spinning_workers.compare_exchange_weak(spinners, spinners + 1)) {
      bool woken = spin_until(published, kWorkerSpinNs);
      pool->spinning_workers.fetch_sub(1, std::memory_order_seq_cst);
      if (woken) return;
      break;
    }
  }
  pool->sleeping_workers.fetch_add(1, std::memory_order_seq_cst);
  futex_wait(&pool->job_generation, seen);
  pool->sleeping_workers.fetch_sub(1, std::memory_order_relaxed);
}

void* worker_main(void* arg) {
  auto* w = static_cast<Worker*>(arg);
  // Asynchronous signals belong to the host threads (Python handles them in
  // its main thread); faults in kernel code must reach our handlers.
  sigset_t mask;
  sigfillset(&mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP}) sigdelset(&mask, sig);
  pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  install_alt_stack();
  this_worker = w;
  w->thread_idx = &threadIdx;
  w->block_idx = &blockIdx;
  ExecContext exec;
  exec.worker = w;
  Pool* const pool = w->device->pool;
  for (;;) {
    uint32_t seen = pool->job_generation.load(std::memory_order_seq_cst);
    uint64_t backlog = 0;
    if (Op* op = take_job(pool, &backlog)) {
      wake_sleepers(pool, backlog - 1);
      run_job(w, &exec, op);
      op_unref(op);
      continue;
    }
    idle(pool, seen);
  }
  return nullptr;
}

}  // namespace

int start_workers(Device* device) {
  device->pool = new Pool;
  device->pool->max_spinning_workers = std::max(1u, device->num_workers / 8);
  for (uint32_t i = 0; i < device->num_workers; ++i) {
    const uint32_t number = device->first_worker + i;
    auto* w = new Worker;
    w->device = device;
    auto* chunk = static_cast<unsigned char*>(malloc(kFirstScratchChunk));
    if (chunk == nullptr || posix_memalign(&w->dynamic_shared, 64, Worker::kSharedBytes) != 0)
      return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot allocate worker %u's buffers", number);
    w->scratch.push_back({chunk, chunk + kFirstScratchChunk});
    w->fibers = fiber_pool_create();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kWorkerStackBytes);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int error = pthread_create(&thread, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (error != 0)
      return fail(HKRT_ERROR_OUT_OF_MEMORY, "cannot start worker thread %u of %u: %s", number,
                  config.num_workers, strerror(error));
    // hipkit-cpuW with one device; hipkit-cpuD.W (its device, its number there) with more.
    char name[16];
    if (config.num_devices == 1)
      snprintf(name, sizeof(name), "hipkit-cpu%hu", static_cast<unsigned short>(i));
    else
      snprintf(name, sizeof(name), "hipkit-cpu%hhu.%hu", static_cast<unsigned char>(device->index),
               static_cast<unsigned short>(i));
    pthread_setname_np(thread, name);
  }
  return HKRT_SUCCESS;
}

uint64_t publish_job_locked(Op* op) {
  Pool* pool = op->device->pool;
  pool->active_jobs.push_back(op);
  pool->active_count.fetch_add(1, std::memory_order_seq_cst);
  return uint64_t(1) << op->device->index;
}

void wake_workers(uint64_t mask) {
  for (uint32_t d = 0; mask != 0; ++d, mask >>= 1) {
    if ((mask & 1) == 0) continue;
    Pool* pool = devices[d].pool;
    pool->job_generation.fetch_add(1, std::memory_order_seq_cst);
    // A worker of the device that published a job (completing the op before
    // it) looks for jobs next, and wakes others if there is work for more
    // than itself.
    if (this_worker != nullptr && this_worker->device == &devices[d]) continue;
    if (pool->spinning_workers.load(std::memory_order_seq_cst) == 0) wake_sleepers(pool, 1);
  }
}

void retire_job_locked(Op* op) {
  Pool* pool = op->device->pool;
  if (pool->cooperative == op) {
    // Workers that passed over the next cooperative launch look again.
    pool->cooperative = nullptr;
    pool->job_generation.fetch_add(1, std::memory_order_seq_cst);
    wake_sleepers(pool, pool->active_count.load(std::memory_order_relaxed));
  }
  for (size_t i = 0; i < pool->active_jobs.size(); ++i) {
    if (pool->active_jobs[i] == op) {
      pool->active_jobs.erase(pool->active_jobs.begin() + long(i));
      pool->active_count.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
  }
}

void copy_or_set(Op* op, size_t offset, size_t bytes) {
  auto* dst = static_cast<unsigned char*>(op->dst) + offset;
  if (op->kind == OpKind::Copy) {
    memmove(dst, static_cast<const unsigned char*>(op->src) + offset, bytes);
  } else if (op->elem_size == 1) {
    memset(dst, int(op->value & 0xff), bytes);
  } else if (op->elem_size == 2) {
    auto* p = reinterpret_cast<uint16_t*>(dst);
    for (size_t i = 0, n = bytes / 2; i < n; ++i) p[i] = uint16_t(op->value);
  } else {
    auto* p = reinterpret_cast<uint32_t*>(dst);
    for (size_t i = 0, n = bytes / 4; i < n; ++i) p[i] = op->value;
  }
}

void run_small(Op* op) {
  switch (op->kind) {
    case OpKind::Record:
      op->timestamp_ns = now_ns();
      break;
    case OpKind::Copy:
    case OpKind::Set:
    case OpKind::HostFunc: {
      if (op->activity != 0) op->start_ns = now_ns();
      ExecContext ctx;
      describe(&ctx, op);
      int code = run_guarded(ctx, [op] {
        if (op->kind == OpKind::HostFunc)
          op->host_fn(op->host_data);
        else
          copy_or_set(op, 0, op->bytes);
      });
      if (code != 0) sticky_set(op->device, code, ctx.detail);
      break;
    }
    default:
      break;
  }
}

}  // namespace hk

using namespace hk;

extern "C" void* __hk_scratch_alloc_slow(size_t bytes, size_t align) {
  ExecContext* exec = tls_exec;
  if (exec == nullptr || exec->worker == nullptr)
    __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, "scratch allocation outside a kernel block");
  Worker* w = exec->worker;
  if (align == 0) align = 1;
  size_t need = bytes + align;
  size_t index = w->scratch_chunk + 1;
  while (index < w->scratch.size() &&
         size_t(w->scratch[index].end - w->scratch[index].begin) < need)
    ++index;
  if (index == w->scratch.size()) {
    const Worker::Chunk& last = w->scratch.back();
    size_t size = std::max(need, 2 * size_t(last.end - last.begin));
    auto* chunk = static_cast<unsigned char*>(malloc(size));
    if (chunk == nullptr)
      __hk_trap(HKRT_ERROR_LAUNCH_OUT_OF_RESOURCES, "out of memory for kernel scratch space");
    w->scratch.push_back({chunk, chunk + size});
  }
  w->scratch_chunk = index;
  uintptr_t p = (uintptr_t(w->scratch[index].begin) + align - 1) / align * align;
  w->block.scratch_cur = reinterpret_cast<unsigned char*>(p + bytes);
  w->block.scratch_end = w->scratch[index].end;
  return reinterpret_cast<void*>(p);
}

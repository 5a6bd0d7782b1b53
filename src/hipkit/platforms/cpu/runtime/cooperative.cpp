// Cooperative launches (hipLaunchCooperativeKernel): the grid barrier that
// grid.sync() waits at, and what may be launched so.
//
// A worker is a multiprocessor that holds one block (hipOccupancyMax-
// ActiveBlocksPerMultiprocessor is 1), so a grid is co-resident when it has no
// more blocks than the device has workers.  Each worker then claims one block
// at a time, and one cooperative launch runs at a time per device (the
// executor's take_job), so that every block of the grid finds a worker while
// the others wait.  A block's first thread waits for the grid on its worker
// thread (its block's other threads wait at the block barrier around it); it
// spins a little, then sleeps, and gives up with the launch when the device
// halts (a fault in another block).
#include <climits>

#include "internal.h"

namespace hk {

namespace {

constexpr int64_t kGridSpinNs = 20000;
constexpr int64_t kGridSleepNs = 1000000;  // between checks that the device still runs

void release_locked(GridBarrier* grid) {
  grid->arrived = 0;
  grid->generation.fetch_add(1, std::memory_order_release);
  futex_wake(&grid->generation, INT_MAX);
}

void sleep_on(std::atomic<uint32_t>* word, uint32_t seen) {
  timespec timeout = {0, kGridSleepNs};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, seen, &timeout,
          nullptr, 0);
}

}  // namespace

void grid_block_finished(GridBarrier* grid) {
  std::lock_guard<Mutex> lock(grid->mutex);
  --grid->live;
  if (grid->arrived != 0 && grid->arrived == grid->live) release_locked(grid);
}

int cooperative_check(const KernelLaunch& k, const Device* device) {
  const uint64_t blocks = uint64_t(k.grid.x) * k.grid.y * k.grid.z;
  if (blocks > device->num_workers)
    return fail(HKRT_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                "cooperative launch of %s with %llu blocks: CPU device %d runs at most %u at "
                "once (one per worker thread, HIPKIT_CPU_THREADS)",
                k.desc->name, static_cast<unsigned long long>(blocks), device->index,
                device->num_workers);
  return HKRT_SUCCESS;
}

}  // namespace hk

using namespace hk;

extern "C" {

int __hk_grid_cooperative(void) {
  ExecContext* exec = tls_exec;
  return exec != nullptr && exec->grid != nullptr;
}

void __hk_grid_sync(void) {
  ExecContext* exec = tls_exec;
  GridBarrier* grid = exec != nullptr ? exec->grid : nullptr;
  if (grid == nullptr)
    __hk_trap(HKRT_ERROR_LAUNCH_FAILURE,
              "grid.sync() in a kernel not launched with hipLaunchCooperativeKernel");
  uint32_t seen;
  {
    std::lock_guard<Mutex> lock(grid->mutex);
    seen = grid->generation.load(std::memory_order_relaxed);
    if (++grid->arrived == grid->live) {
      release_locked(grid);
      return;
    }
  }
  const Device* device = exec->worker->device;
  auto released = [grid, seen] {
    return grid->generation.load(std::memory_order_acquire) != seen;
  };
  if (spin_until(released, kGridSpinNs)) return;
  while (!released()) {
    if (device->halted())
      __hk_trap(HKRT_ERROR_LAUNCH_FAILURE, "grid.sync(): another block of the grid failed");
    sleep_on(&grid->generation, seen);
  }
}

}  // extern "C"

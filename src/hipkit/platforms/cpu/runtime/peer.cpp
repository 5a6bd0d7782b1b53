// Peer access between CPU devices (hipDeviceCanAccessPeer & co.).
//
// The devices share one address space, so every device can reach every
// other's memory whatever is enabled: the state kept here is HIP's
// bookkeeping (enabled once, disabled once, ended by a reset), so that
// programs see the answers a multi-GPU machine gives.  Whether kernels use
// another device's memory without it is the caller's choice to refuse: the
// runtime does not check pointers.
#include "internal.h"

namespace hk {

namespace {

// The pair (device, peer), or the error through fail(): an index that is no
// device, or a device that is its own peer.
int pair_get(int index, int peer_index, Device** device, Device** peer) {
  if (int error = device_get(index, device)) return error;
  if (int error = device_get(peer_index, peer)) return error;
  if (*device == *peer)
    return fail(HKRT_ERROR_INVALID_DEVICE, "CPU device %d cannot be its own peer", index);
  return HKRT_SUCCESS;
}

uint64_t bit(const Device* device) { return uint64_t(1) << device->index; }

}  // namespace

void peers_forget(Device* device) {
  device->peers.store(0);
  for (uint32_t d = 0; d < config.num_devices; ++d) devices[d].peers.fetch_and(~bit(device));
}

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_device_can_access_peer(int* can_access, int index, int peer_index) {
  if (can_access == nullptr) return fail(HKRT_ERROR_INVALID_VALUE, "can access peer: NULL output");
  Device *device = nullptr, *peer = nullptr;
  if (int error = device_get(index, &device)) return error;
  if (int error = device_get(peer_index, &peer)) return error;
  *can_access = device != peer;
  return HKRT_SUCCESS;
}

int hkrt_device_enable_peer_access(int index, int peer_index, unsigned int flags) {
  if (flags != 0) return fail(HKRT_ERROR_INVALID_VALUE, "enable peer access: flags must be 0");
  Device *device = nullptr, *peer = nullptr;
  if (int error = pair_get(index, peer_index, &device, &peer)) return error;
  if ((device->peers.fetch_or(bit(peer)) & bit(peer)) != 0)
    return fail(HKRT_ERROR_PEER_ACCESS_ALREADY_ENABLED,
                "peer access from CPU device %d to %d is already enabled", index, peer_index);
  return HKRT_SUCCESS;
}

int hkrt_device_disable_peer_access(int index, int peer_index) {
  Device *device = nullptr, *peer = nullptr;
  if (int error = pair_get(index, peer_index, &device, &peer)) return error;
  if ((device->peers.fetch_and(~bit(peer)) & bit(peer)) == 0)
    return fail(HKRT_ERROR_PEER_ACCESS_NOT_ENABLED,
                "peer access from CPU device %d to %d was not enabled", index, peer_index);
  return HKRT_SUCCESS;
}

}  // extern "C"

"""Device management and error reporting, HIP-named."""

from __future__ import annotations

from .. import _errors
from .._errors import HipError, hipError_t
from ..platforms.base.platform import DeviceProperties
from ..runtime.device import Device, devices, get_device, set_device
from . import _state
from ._state import hip_api
from ._types import hipDeviceAttribute_t

A = hipDeviceAttribute_t

# Which hipDeviceProp_t field answers each attribute (and which element of a triple).
_ATTRIBUTE_FIELDS: dict[int, tuple[str, int | None]] = {
    A.hipDeviceAttributeClockRate: ("clockRate", None),
    A.hipDeviceAttributeL2CacheSize: ("l2CacheSize", None),
    A.hipDeviceAttributeComputeCapabilityMajor: ("major", None),
    A.hipDeviceAttributeComputeCapabilityMinor: ("minor", None),
    A.hipDeviceAttributeMaxBlockDimX: ("maxThreadsDim", 0),
    A.hipDeviceAttributeMaxBlockDimY: ("maxThreadsDim", 1),
    A.hipDeviceAttributeMaxBlockDimZ: ("maxThreadsDim", 2),
    A.hipDeviceAttributeMaxGridDimX: ("maxGridSize", 0),
    A.hipDeviceAttributeMaxGridDimY: ("maxGridSize", 1),
    A.hipDeviceAttributeMaxGridDimZ: ("maxGridSize", 2),
    A.hipDeviceAttributeMaxThreadsPerBlock: ("maxThreadsPerBlock", None),
    A.hipDeviceAttributeMultiprocessorCount: ("multiProcessorCount", None),
    A.hipDeviceAttributeMaxRegistersPerBlock: ("regsPerBlock", None),
    A.hipDeviceAttributeMaxSharedMemoryPerBlock: ("sharedMemPerBlock", None),
    A.hipDeviceAttributeTotalConstantMemory: ("totalConstMem", None),
    A.hipDeviceAttributeTotalGlobalMem: ("totalGlobalMem", None),
    A.hipDeviceAttributeWarpSize: ("warpSize", None),
}


def device_by_id(device_id: int) -> Device:
    """Device ``device_id`` of the current device's platform."""
    current = get_device()
    if isinstance(device_id, bool) or not isinstance(device_id, int):
        raise HipError(hipError_t.hipErrorInvalidDevice, f"device id {device_id!r} is not an int")
    if device_id == current.index:
        return current
    return Device(device_id, current.platform)


@hip_api
def hipGetDeviceCount() -> int:  # HIP's names
    """hipGetDeviceCount: the number of devices of the current platform; hipErrorNoDevice if none."""
    count = len(devices(get_device().platform.name))
    if count == 0:
        raise HipError(hipError_t.hipErrorNoDevice)
    return count


@hip_api
def hipSetDevice(deviceId: int) -> None:
    """hipSetDevice: make device ``deviceId`` current for this thread."""
    set_device(device_by_id(deviceId))


@hip_api
def hipGetDevice() -> int:
    """hipGetDevice: this thread's current device id."""
    return get_device().index


@hip_api
def hipGetDeviceProperties(deviceId: int) -> DeviceProperties:
    """hipGetDeviceProperties: the device's hipDeviceProp_t fields (hipkit.DeviceProperties)."""
    return device_by_id(deviceId).properties


@hip_api
def hipDeviceGetAttribute(attr: int, deviceId: int) -> int:
    """hipDeviceGetAttribute: one attribute (hipDeviceAttribute_t) of device ``deviceId``."""
    try:
        name, index = _ATTRIBUTE_FIELDS[attr]
    except (KeyError, TypeError):
        raise HipError(
            hipError_t.hipErrorInvalidValue, f"device attribute {attr!r} is not one hipkit answers"
        ) from None
    value = getattr(device_by_id(deviceId).properties, name)
    return int(value if index is None else value[index])


@hip_api
def hipDeviceSynchronize() -> None:
    """hipDeviceSynchronize: wait for all work on the current device."""
    device = get_device()
    device.synchronize()
    _state.release(device, everything=True)


@hip_api
def hipDeviceReset() -> None:
    """hipDeviceReset: destroy all memory, streams, events and modules of the
    current device and clear its sticky error; old handles become invalid."""
    device = get_device()
    device.reset()
    for table in _state.TABLES:
        table.discard(lambda entry: entry.device == device)
    _state.release(device, everything=True)


def hipGetLastError() -> hipError_t:
    """hipGetLastError: the last error a HIP call raised in this thread; resets it to hipSuccess."""
    code = _state.last_error()
    _state.set_last_error(0)
    return _as_error(code)


def hipPeekAtLastError() -> hipError_t:
    """hipPeekAtLastError: the last error a HIP call raised in this thread, not reset."""
    return _as_error(_state.last_error())


def hipGetErrorName(hip_error: int) -> str:
    """hipGetErrorName: the enumerator's name ("hipErrorOutOfMemory"), "hipErrorUnknown" if none."""
    return _errors.error_name(hip_error)


def hipGetErrorString(hip_error: int) -> str:
    """hipGetErrorString: the error's description ("out of memory")."""
    return _errors.error_string(hip_error)


def _as_error(code: int):
    try:
        return hipError_t(code)
    except ValueError:
        return code


@hip_api
def hipDeviceCanAccessPeer(deviceId: int, peerDeviceId: int) -> int:
    """hipDeviceCanAccessPeer: 1 if device ``deviceId`` can use ``peerDeviceId``'s memory, else 0."""
    return int(device_by_id(deviceId).can_access_peer(device_by_id(peerDeviceId)))


@hip_api
def hipDeviceEnablePeerAccess(peerDeviceId: int, flags: int = 0) -> None:
    """hipDeviceEnablePeerAccess: let the current device use ``peerDeviceId``'s memory."""
    if flags:
        raise HipError(hipError_t.hipErrorInvalidValue, f"flags must be 0, got {flags!r}")
    get_device().enable_peer_access(device_by_id(peerDeviceId))


@hip_api
def hipDeviceDisablePeerAccess(peerDeviceId: int) -> None:
    """hipDeviceDisablePeerAccess."""
    get_device().disable_peer_access(device_by_id(peerDeviceId))

"""Devices: enumeration, properties, the current device.

Example
-------
>>> import hipkit
>>> dev = hipkit.Device(0)
>>> dev.properties.warpSize
64
"""

from __future__ import annotations

import threading
from functools import cached_property

from .. import platforms
from .._errors import HipError, hipError_t
from ..platforms.base.platform import DeviceProperties, Platform, Target
from . import hooks


class Device:
    """One device of a platform (by default the default platform).

    ``index`` counts the devices visible to hipkit (after HIP_VISIBLE_DEVICES).
    ``with device:`` makes it the current device of this thread.
    """

    def __init__(self, index: int = 0, platform: str | Platform | None = None):
        if isinstance(platform, Platform):
            self.platform = platform
        elif platform is None:
            self.platform = platforms.default()
        else:
            self.platform = platforms.get(platform)
        hooks.platform_used(self.platform)
        visible = self.platform.visible_devices()
        if not 0 <= index < len(visible):
            if not visible:  # as HIP: no device at all is hipErrorNoDevice, a wrong index InvalidDevice
                raise HipError(
                    hipError_t.hipErrorNoDevice,
                    f"{self.platform.name}: no device visible (HIP_VISIBLE_DEVICES hides them)",
                )
            raise HipError(
                hipError_t.hipErrorInvalidDevice,
                f"device {index} of {self.platform.name}: {len(visible)} device(s) visible",
            )
        self.index = index
        self._native = visible[index]
        self._previous: list[Device] = []

    @cached_property
    def properties(self) -> DeviceProperties:
        """hipGetDeviceProperties."""
        return self.platform.properties(self._native)

    @property
    def name(self) -> str:
        return self.properties.name

    @property
    def warp_size(self) -> int:
        return self.properties.warpSize

    @property
    def target(self) -> Target:
        """What to compile for to run here."""
        return self.platform.target(self._native)

    def set_current(self) -> None:
        """Make this device current for the calling thread: hipkit's current device
        (``hipSetDevice``; ``with device:`` does it for a block) and its platform's own
        runtime's, so that a vendor library called next (cuBLAS, rocBLAS, NCCL) works
        on it.

        Example
        -------
        >>> dev = hipkit.Device(0)
        >>> dev.set_current()
        >>> cublas_handle = create_handle()  # doctest: +SKIP  (made on dev's context)
        """
        set_device(self)
        self.platform.make_current(self._native)

    @property
    def native_context(self) -> int:
        """The handle of the platform's context for this device (CUDA's ``CUcontext``,
        the primary context, which the CUDA runtime, PyTorch and CuPy share); 0 where
        the platform has none (ROCm, the CPU)."""
        return self.platform.native_context(self._native)

    def synchronize(self) -> None:
        """Wait for all work on the device (hipDeviceSynchronize)."""
        self.platform.synchronize(self._native)

    def mem_info(self) -> tuple[int, int]:
        """(free, total) bytes of device memory (hipMemGetInfo)."""
        return self.platform.mem_info(self._native)

    def can_access_peer(self, peer: Device) -> bool:
        """Whether kernels here can use ``peer``'s memory once peer access is
        enabled (hipDeviceCanAccessPeer); False for itself and across platforms."""
        if peer.platform is not self.platform:
            return False
        return self.platform.can_access_peer(self._native, peer._native)

    def enable_peer_access(self, peer: Device) -> None:
        """Let kernels on this device use ``peer``'s memory (hipDeviceEnablePeerAccess)."""
        self._same_platform(peer)
        self.platform.enable_peer_access(self._native, peer._native)

    def disable_peer_access(self, peer: Device) -> None:
        """hipDeviceDisablePeerAccess."""
        self._same_platform(peer)
        self.platform.disable_peer_access(self._native, peer._native)

    def _same_platform(self, peer: Device) -> None:
        if peer.platform is not self.platform:
            raise HipError(
                hipError_t.hipErrorInvalidDevice,
                f"{peer!r} is not a device of the {self.platform.name} platform",
            )

    def reset(self) -> None:
        """hipDeviceReset: wait, free everything, clear a sticky error.  Every
        array, stream, event and module of the device becomes unusable."""
        self.platform.reset(self._native)

    def __enter__(self) -> Device:
        self._previous.append(get_device())
        set_device(self)
        return self

    def __exit__(self, *exc) -> None:
        set_device(self._previous.pop())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (self.platform, self.index) == (other.platform, other.index)

    def __hash__(self) -> int:
        return hash((self.platform.name, self.index))

    def __repr__(self) -> str:
        return f"<hipkit.Device {self.index} ({self.platform.name}): {self.name}>"


def devices(platform: str | None = None) -> list[Device]:
    """All visible devices of a platform (default: the default platform)."""
    p = platforms.get(platform) if platform else platforms.default()
    return [Device(i, p) for i in range(len(p.visible_devices()))]


_current = threading.local()


def get_device() -> Device:
    """This thread's current device (hipGetDevice); device 0 of the default platform at first."""
    dev = getattr(_current, "device", None)
    if dev is None:
        dev = Device(0)
        _current.device = dev
    return dev


def current_device() -> Device | None:
    """This thread's current device if it has one (never makes one)."""
    return getattr(_current, "device", None)


def set_device(device: Device | int) -> None:
    """Make ``device`` (or index ``device`` of the current platform) current (hipSetDevice)."""
    if isinstance(device, int):
        device = Device(device, get_device().platform)
    _current.device = device


def synchronize() -> None:
    """Wait for all work on the current device (hipDeviceSynchronize)."""
    get_device().synchronize()

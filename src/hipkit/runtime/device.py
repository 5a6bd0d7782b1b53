"""Devices: enumeration, properties, the current device.

Example
-------
>>> import hipkit
>>> dev = hipkit.Device(0)
>>> dev.properties.warpSize
64
"""

from __future__ import annotations

import os
import re
import threading
from functools import cached_property

from .. import config, platforms
from .._errors import HipError
from ..platforms.base import DeviceProperties, Platform, Target
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
        visible = _visible(self.platform)
        if not 0 <= index < len(visible):
            if not visible:  # as HIP: no device at all is hipErrorNoDevice, a wrong index InvalidDevice
                raise HipError(
                    100, f"{self.platform.name}: no device visible (HIP_VISIBLE_DEVICES hides them)"
                )
            raise HipError(101, f"device {index} of {self.platform.name}: {len(visible)} device(s) visible")
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
            raise HipError(101, f"{peer!r} is not a device of the {self.platform.name} platform")

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


_ENTRY = re.compile(r"[ \t]*([0-9]{1,9})[ \t]*")


def visible_indices(value: str | None, count: int) -> list[int]:
    """The native indices of the devices that the device list ``value``
    (HIP_VISIBLE_DEVICES; None: unset) shows of ``count``, in its order.

    As CUDA and ROCm read a list, it ends at its first entry that names no
    device (not a decimal index below ``count``, or one listed before): ""
    and "-1" hide every device, "1,0" swaps two, "0,7,1" with two devices is
    device 0 alone.  The rule of programs built by hipkit cc
    (hipkit_cpu/program_visible.h).

    >>> visible_indices("1,0", 2), visible_indices("", 2), visible_indices(None, 2)
    ([1, 0], [], [0, 1])
    """
    if value is None:
        return list(range(count))
    shown: list[int] = []
    for entry in value.split(","):
        match = _ENTRY.fullmatch(entry)
        index = int(match.group(1)) if match else count
        if index >= count or index in shown:
            break
        shown.append(index)
    return shown


def _visible(platform: Platform) -> list[int]:
    """Native indices of the platform's devices that the *_VISIBLE_DEVICES
    variables leave, in hipkit's order.  The CPU's devices are chosen by
    HIP_VISIBLE_DEVICES with :func:`visible_indices` (read raw: the registry
    takes a blank value for unset, and an empty list hides them); the vendors'
    variables leave them alone.  On AMD GPUs, ROCm's HIP runtime has applied
    them already; on NVIDIA, the driver applies CUDA_VISIBLE_DEVICES and
    HIP_VISIBLE_DEVICES picks among the GPUs it leaves."""
    count = platform.device_count()
    if platform.name == "cpu":
        return visible_indices(os.environ.get("HIP_VISIBLE_DEVICES"), count)
    chosen = config.get("HIP_VISIBLE_DEVICES")
    if platform.name == "amd" or not chosen:
        return list(range(count))
    return [i for i in chosen if 0 <= i < count]


def devices(platform: str | None = None) -> list[Device]:
    """All visible devices of a platform (default: the default platform)."""
    p = platforms.get(platform) if platform else platforms.default()
    return [Device(i, p) for i in range(len(_visible(p)))]


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

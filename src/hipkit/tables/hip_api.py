"""HIP's API as data, in two halves.

- The host half: the functions of ROCm's ``hip_runtime_api.h`` (``hip_runtime_api.tsv``,
  made by ``python -m hipkit.tables.make_hip_api_table``), each with its Doxygen group
  and whether it is deprecated or graphics interop.
- The device half: the functions ROCm's device headers declare for kernels
  (``hip_device_api.tsv``, made by ``python -m hipkit.tables.make_hip_device_table``),
  each with its group (math-float, half, warp, ...) and where else its overloads are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).with_name("hip_runtime_api.tsv")
DEVICE_TABLE = Path(__file__).with_name("hip_device_api.tsv")
# The device half's groups, in the document's order.
DEVICE_GROUPS = (
    "math-float",
    "math-double",
    "half",
    "half2",
    "bf16",
    "integer",
    "warp",
    "atomic",
    "sync",
    "other",
)


@dataclass(frozen=True)
class Function:
    name: str
    group: str
    deprecated: bool
    interop: bool

    @property
    def counted(self) -> bool:
        """In the coverage: neither deprecated nor graphics interop."""
        return not (self.deprecated or self.interop)


@dataclass(frozen=True)
class DeviceFunction:
    """One name of HIP's device API.  A name overloaded across groups (``__hadd`` for
    int, ``__half`` and ``__hip_bfloat16``) is one function, in the first group that
    declares it, with the others in ``also``."""

    name: str
    group: str
    also: tuple[str, ...]
    header: str  # what a program includes for it (for the overload that comes first)
    optional: bool  # ROCm declares it only under a macro it leaves undefined


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines() if line and not line.startswith("#")]


def load() -> list[Function]:
    """The host half, in the header's order."""
    return [
        Function(name, group, "deprecated" in flags, "interop" in flags)
        for name, group, flags in _rows(TABLE)
    ]


def load_device() -> list[DeviceFunction]:
    """The device half, in the headers' order."""
    return [
        DeviceFunction(
            name,
            groups.split(",")[0],
            tuple(groups.split(",")[1:]),
            header,
            flag == "optional",
        )
        for name, groups, header, flag in _rows(DEVICE_TABLE)
    ]

"""AMDGPU code objects: what hipkit reads from them without a GPU.

A code object is an ELF64 shared object (``e_machine`` EM_AMDGPU) whose
``e_flags`` name the target, whose symbol table has each kernel and its
descriptor (``name.kd``), and whose NT_AMDGPU_METADATA note holds the code
object's metadata in MessagePack: the target, and for each kernel its
arguments (size, offset, kind), LDS size, registers and wavefront size
(AMDGPUUsage, "Code Object V3 and later Metadata").  ``hipcc --genco``
wraps code objects in a clang offload bundle, one per target.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from ..._errors import HipError, hipError_t
from .._gpu.elf import SHT_NOTE, SHT_RELA, Elf
from ..base.platform import PARAM_OTHER, PARAM_POINTER, Param

EM_AMDGPU = 224
_NT_AMDGPU_METADATA = 32
_R_AMDGPU_RELATIVE64 = 13
_BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


class CodeObject(Elf):
    """The parts of an AMDGPU ELF that hipkit uses.  Raises HipError
    (hipErrorInvalidImage) for data that is not one."""

    def __init__(self, image: bytes):
        super().__init__(image, "ELF64 code object")
        if self.machine != EM_AMDGPU:
            raise HipError(
                hipError_t.hipErrorInvalidImage,
                f"an ELF for machine {self.machine}, not an AMD GPU code object",
            )

    @property
    def mach(self) -> int:
        """EF_AMDGPU_MACH: the processor (e.g. 0x3f for gfx90a)."""
        return self.flags & 0xFF

    def pointers(self) -> dict[int, int]:
        """Address -> the address it holds, for each pointer the loader
        relocates: a variable initialized with the address of a function or
        variable of the code object (R_AMDGPU_RELATIVE64, the one relocation
        such a pointer gets: the code object's symbols are not preemptible)."""
        found = {}
        for section in self.sections:
            if section.type != SHT_RELA:
                continue
            for pos in range(section.offset, section.offset + section.size, section.entsize):
                where, info, addend = struct.unpack_from("<QQq", self.image, pos)
                if info & 0xFFFFFFFF == _R_AMDGPU_RELATIVE64:
                    found[where] = addend
        return found

    def kernel_symbols(self) -> dict[int, str]:
        """Address -> symbol of each kernel (a function with a kernel descriptor, ``name.kd``)."""
        table = self.symbols()
        return {s.value: name for name, s in table.items() if f"{name}.kd" in table}

    def metadata(self) -> dict[str, Any]:
        """The NT_AMDGPU_METADATA note, decoded ({} if there is none)."""
        for section in self.sections:
            pos, end = section.offset, section.offset + section.size
            while section.type == SHT_NOTE and pos + 12 <= end:
                namesz, descsz, note_type = struct.unpack_from("<III", self.image, pos)
                name = self.image[pos + 12 : pos + 12 + namesz].rstrip(b"\0")
                desc = pos + 12 + (namesz + 3) // 4 * 4
                if note_type == _NT_AMDGPU_METADATA and name == b"AMDGPU":
                    value, _ = _unpack(self.image, desc)
                    return value if isinstance(value, dict) else {}
                pos = desc + (descsz + 3) // 4 * 4
        return {}

    def target(self) -> str:
        """The target as the metadata names it ("gfx90a", "gfx90a:xnack+"), or ""."""
        return str(self.metadata().get("amdhsa.target", "")).rsplit("--", 1)[-1]

    def kernel_params(self) -> dict[str, tuple[Param, ...]]:
        """Each kernel's explicit parameters by its symbol, from the metadata
        (the hidden ones the runtime appends are left out).  Only sizes and
        pointer-ness are known: 8-byte pointers take arrays and ints, the
        rest raw bytes or NumPy scalars (see hipkit's argument packing)."""
        kernels = {}
        for kernel in self.metadata().get("amdhsa.kernels", []):
            params = []
            for arg in kernel.get(".args", []):
                kind = arg.get(".value_kind", "")
                if kind.startswith("hidden_"):
                    continue
                size = int(arg[".size"])
                align = next(a for a in (8, 4, 2, 1) if size % a == 0)
                params.append(Param(size, align, PARAM_POINTER if kind == "global_buffer" else PARAM_OTHER))
            kernels[kernel[".name"]] = tuple(params)
        return kernels


@dataclass(frozen=True)
class BundleEntry:
    triple: str  # e.g. "hipv4-amdgcn-amd-amdhsa--gfx90a"
    data: bytes


def bundle_entries(data: bytes) -> list[BundleEntry]:
    """The entries of a clang offload bundle ([] if ``data`` is not one)."""
    if not data.startswith(_BUNDLE_MAGIC):
        return []
    try:
        (count,) = struct.unpack_from("<Q", data, len(_BUNDLE_MAGIC))
        pos, entries = len(_BUNDLE_MAGIC) + 8, []
        for _ in range(count):
            offset, size, triple_size = struct.unpack_from("<QQQ", data, pos)
            triple = data[pos + 24 : pos + 24 + triple_size].decode()
            entries.append(BundleEntry(triple, data[offset : offset + size]))
            pos += 24 + triple_size
        return entries
    except (struct.error, UnicodeDecodeError):
        raise HipError(hipError_t.hipErrorInvalidImage, "a damaged offload bundle") from None


# ---------------------------------------------------------------- MessagePack

_FIXED = {0xC0: None, 0xC2: False, 0xC3: True}
_NUMBERS = {
    0xCA: ">f",
    0xCB: ">d",
    0xCC: ">B",
    0xCD: ">H",
    0xCE: ">I",
    0xCF: ">Q",
    0xD0: ">b",
    0xD1: ">h",
    0xD2: ">i",
    0xD3: ">q",
}
_LENGTHS = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}  # str8-32, bin8-32
_CONTAINERS = {
    0xDC: (">H", False),
    0xDD: (">I", False),
    0xDE: (">H", True),
    0xDF: (">I", True),
}  # array16/32, map16/32


def _unpack(data: bytes, pos: int) -> tuple[Any, int]:
    """The MessagePack value at ``pos`` and the position after it (the types
    the metadata uses: maps, arrays, strings, integers, booleans, floats)."""
    tag = data[pos]
    pos += 1
    if tag <= 0x7F:
        return tag, pos
    if tag >= 0xE0:
        return tag - 0x100, pos
    if tag in _FIXED:
        return _FIXED[tag], pos
    if tag in _NUMBERS:
        fmt = _NUMBERS[tag]
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)
    if 0xA0 <= tag <= 0xBF or tag in _LENGTHS:
        if tag in _LENGTHS:
            (length,) = struct.unpack_from(_LENGTHS[tag], data, pos)
            pos += struct.calcsize(_LENGTHS[tag])
        else:
            length = tag & 0x1F
        raw = data[pos : pos + length]
        return (raw if tag in (0xC4, 0xC5, 0xC6) else raw.decode()), pos + length
    if 0x80 <= tag <= 0x9F:
        count, is_map = tag & 0x0F, tag < 0x90
    elif tag in _CONTAINERS:
        fmt, is_map = _CONTAINERS[tag]
        (count,) = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
    else:
        raise HipError(
            hipError_t.hipErrorInvalidImage, f"unreadable code object metadata (MessagePack type 0x{tag:02x})"
        )
    items = []
    for _ in range(count * (2 if is_map else 1)):
        item, pos = _unpack(data, pos)
        items.append(item)
    if is_map:
        return dict(zip(items[::2], items[1::2], strict=True)), pos
    return items, pos

"""ELF64 images as the GPU compilers write them: cubins (NVRTC) and AMDGPU
code objects (hiprtc).  What hipkit reads of them without a GPU: the
section headers and the static symbol table, with a variable's initial
contents (kernel parameter descriptors)."""

from __future__ import annotations

import struct
from typing import NamedTuple

from ..._errors import HipError, hipError_t

SHT_SYMTAB, SHT_RELA, SHT_NOTE, SHT_NOBITS = 2, 4, 7, 8


class Section(NamedTuple):
    name: int  # offset of its name in the section name table
    type: int  # SHT_*
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int


class Symbol(NamedTuple):
    value: int  # its address (a cubin, relocatable: its offset in its section)
    size: int
    section: int


class Elf:
    """A little-endian ELF64 image's sections and symbols.  Raises HipError
    (hipErrorInvalidImage) for data that is not one, naming it ``what``."""

    def __init__(self, image: bytes, what: str = "ELF64 image"):
        if image[:4] != b"\x7fELF" or len(image) < 64 or image[4] != 2:
            raise HipError(hipError_t.hipErrorInvalidImage, f"not an {what}")
        self.image = image
        self.machine, _, _, _, shoff, self.flags = struct.unpack_from("<HIQQQI", image, 0x12)
        shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
        try:
            self.sections = [
                Section(*struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize))
                for i in range(shnum)
            ]
        except struct.error:
            raise HipError(hipError_t.hipErrorInvalidImage, f"a truncated {what}") from None

    def symbols(self) -> dict[str, Symbol]:
        """The static symbol table, by name."""
        found = {}
        for section in self.sections:
            if section.type != SHT_SYMTAB:
                continue
            strtab = self.sections[section.link].offset
            for pos in range(section.offset, section.offset + section.size, section.entsize):
                st_name, _, _, shndx, value, size = struct.unpack_from("<IBBHQQ", self.image, pos)
                end = self.image.index(b"\0", strtab + st_name)
                found[self.image[strtab + st_name : end].decode()] = Symbol(value, size, shndx)
        return found

    def symbol_data(self, symbol: Symbol) -> bytes:
        """The initial contents of a variable (zeros where it is in .bss)."""
        section = self.sections[symbol.section]
        if section.type == SHT_NOBITS:
            return bytes(symbol.size)
        # A symbol holds an address: its section maps that to an offset in the file.
        start = section.offset + symbol.value - section.addr
        return self.image[start : start + symbol.size]

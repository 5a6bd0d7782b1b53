"""The instruction set CPU code is compiled for, and what this machine executes.

``HIPKIT_CPU_ISA`` names the target: ``native`` (the default: this machine's
CPU) or any value the C++ compiler takes for ``-march``, such as the x86-64
levels ``x86-64-v2``, ``x86-64-v3`` (AVX2, FMA) and ``x86-64-v4`` (AVX-512),
a CPU (``znver3``) or, on AArch64, ``armv8.2-a``.  Kernels, ``hipkit cc``
programs and their preprocessing use it (libhipkit_cpu itself is built for the
architecture's baseline, so it runs wherever Python does).

The architecture is the compiler's target (:func:`machine`), which is the host's
but for a cross compiler: with ``HIPKIT_CXX=aarch64-linux-gnu-g++`` and
``HIPKIT_CPU_ISA=armv8-a``, ``hipkit cc`` builds AArch64 programs on an x86-64
machine (a cross compiler knows no ``native``), which then run on AArch64 or
under ``qemu-aarch64``.

What a target needs is asked of the compiler, one way on every architecture:
the instruction-set macros it defines for ``-march=X`` (``__AVX2__``,
``__ARM_FEATURE_SVE``) beyond those of the architecture's baseline.  The host
executes a target when that set is within the one of ``-march=native``, which
the compiler derives from the CPU (cpuid, and the operating system's support of
the registers).  Each kernel module records its set in a section of its own
(:data:`SECTION`), which :func:`check_module` reads before the module is
loaded, so that code for a CPU newer than this one raises
``hipErrorNoBinaryForGpu`` (as a GPU binary for another arch does) instead of
dying of SIGILL, whether it was compiled here or came as bytes.

Example
-------
>>> from hipkit.platforms.cpu import isa
>>> isa.executable_levels()  # on an AVX2 machine
('x86-64', 'x86-64-v2', 'x86-64-v3')
"""

from __future__ import annotations

import platform
import re
import struct
import subprocess
from functools import cache
from pathlib import Path

from ... import _cache, config
from ..._errors import CompileOptionError, HipError, hipError_t

__all__ = [
    "CROSS_COMPILERS",
    "CROSS_PACKAGES",
    "LEVELS",
    "SECTION",
    "check_module",
    "executable_levels",
    "features",
    "machine",
    "march_flag",
    "marker_define",
    "missing",
    "target",
]

# The named levels of each architecture, lowest (its baseline) first.
LEVELS: dict[str, tuple[str, ...]] = {
    "x86_64": ("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"),
    "aarch64": ("armv8-a", "armv8.2-a", "armv8.4-a", "armv9-a"),
}
# The cross compiler of each architecture (Debian's and Ubuntu's names), and the
# packages that build and run its programs on another machine: the compiler with
# its sysroot, and qemu's user mode (qemu-aarch64 -L /usr/aarch64-linux-gnu).
CROSS_COMPILERS: dict[str, str] = {"aarch64": "aarch64-linux-gnu-g++"}
CROSS_PACKAGES = ("g++-aarch64-linux-gnu", "qemu-user")
# The section of a kernel module that holds "<-march value> <feature> ...".
SECTION = ".hipkit_isa"
_MARKER_MACRO = "__HK_ISA"
# Instruction-set macros are upper case; a CPU's name and tuning are not
# (__znver3__, __tune_znver3__), and must not make code for one CPU look
# unrunnable on another with the same instructions.
_MACRO = re.compile(r"^#define __([A-Z][A-Z0-9_]*?)(?:__)? ", re.M)


def machine() -> str:
    """The architecture the C++ compiler (``HIPKIT_CXX``) generates code for, as
    ``uname -m`` names it (``x86_64``, ``aarch64``): the first part of its
    ``-dumpmachine``, and this machine's where the compiler cannot say."""
    return _target_machine(config.get("HIPKIT_CXX"))


@cache
def _target_machine(cxx: str) -> str:
    try:
        done = subprocess.run([cxx, "-dumpmachine"], capture_output=True, text=True)
    except OSError:
        return platform.machine()
    triple = done.stdout.strip()
    return triple.split("-", 1)[0] if done.returncode == 0 and triple else platform.machine()


def target() -> str:
    """The ``-march`` value of CPU code: HIPKIT_CPU_ISA, default ``native``."""
    return config.get("HIPKIT_CPU_ISA")


def march_flag() -> str:
    """``-march=<target()>``, checked with the compiler.

    Raises
    ------
    CompileOptionError
        Naming HIPKIT_CPU_ISA, with the compiler's message, for a value it rejects.
    """
    value = target()
    try:
        features(value)
    except ValueError as exc:
        raise CompileOptionError(f"HIPKIT_CPU_ISA={value!r}: {exc}") from None
    return f"-march={value}"


@cache
def features(march: str, options: tuple[str, ...] = ()) -> frozenset[str]:
    """The instruction sets code for ``-march=march`` (with the compiler
    ``options``, such as ``-mavx512f``) may use beyond the architecture's
    baseline, by the names of the compiler's macros less underscores
    (``AVX2``, ``ARM_FEATURE_SVE``).  Kept on disk per compiler and host CPU.

    Raises
    ------
    ValueError
        With the compiler's message, where it rejects ``march`` or an option.
    """
    from .compiler import compiler_identity  # which imports this module

    key = _cache.digest(["isa", compiler_identity(), march, *options])

    def build(tmp: Path) -> None:
        (tmp / "features").write_text(" ".join(sorted(_macros(march, options) - _baseline())))

    return frozenset((_cache.entry("isa", key, build) / "features").read_text().split())


def missing(needed: frozenset[str]) -> frozenset[str]:
    """Which of the instruction sets ``needed`` this machine's CPU lacks."""
    return needed - features("native")


def executable_levels() -> tuple[str, ...]:
    """The named levels of this architecture (:data:`LEVELS`) that the compiler
    knows and this machine executes, lowest first."""
    known = []
    if machine() != platform.machine():  # a cross compiler's code runs elsewhere
        return ()
    for level in LEVELS.get(machine(), ()):
        try:
            if not missing(features(level)):
                known.append(level)
        except ValueError:  # an older compiler that does not know the level
            continue
    return tuple(known)


def marker_define(options: tuple[str, ...] | list[str]) -> str:
    """The ``-D`` that makes ``hipkit_cpu/kernel.h`` record the target and the
    instruction sets it needs in the module's :data:`SECTION`; ``options`` are
    the user's, whose ``-m`` options may ask for more."""
    from ..base.toolchain import string_define

    value = target()
    machine = tuple(o for o in options if o.startswith("-m"))
    try:
        needed = features(value, machine)
    except ValueError as exc:
        raise CompileOptionError(f"-march={value} {' '.join(machine)}: {exc}") from None
    return string_define(_MARKER_MACRO, " ".join([value, *sorted(needed)]))


def check_module(path: Path, what: str = "module") -> None:
    """Raise unless this machine executes the kernel module (or, ``what``, the
    program) at ``path``: its architecture and the instruction sets recorded in
    it.  A file without hipkit's section, from elsewhere, is left to the loader.

    Raises
    ------
    HipError
        ``hipErrorNoBinaryForGpu``, naming the target, what the CPU lacks and
        the levels it executes; or the file's architecture and this machine's.
    """
    text = _section(path, SECTION)
    if not text:
        return
    march, *needed = text.split()
    built_for = _architecture(path)
    if built_for != platform.machine():
        raise HipError(
            hipError_t.hipErrorNoBinaryForGpu,
            f"the {what} is compiled for {built_for} (-march={march}), and this machine is "
            f"{platform.machine()}: run it on {built_for}, or under qemu-{built_for}",
        )
    lacking = missing(frozenset(needed))
    if lacking:
        raise HipError(
            hipError_t.hipErrorNoBinaryForGpu,
            f"the {what} is compiled for -march={march}, which this CPU cannot execute: it lacks "
            f"{' '.join(sorted(lacking))}; it executes {', '.join(executable_levels()) or 'native'} "
            "(set HIPKIT_CPU_ISA to one of them, or native, and compile again)",
        )


# ELF's e_machine numbers of the architectures of LEVELS.
_ELF_MACHINES = {62: "x86_64", 183: "aarch64"}


def _architecture(path: Path) -> str:
    """The architecture of the ELF file at ``path`` (e_machine), by uname's name."""
    with open(path, "rb") as f:
        header = f.read(20)
    (number,) = struct.unpack_from("<H", header, 0x12)
    return _ELF_MACHINES.get(number, f"ELF machine {number}")


def _macros(march: str, options: tuple[str, ...]) -> frozenset[str]:
    cxx = config.get("HIPKIT_CXX")
    command = [cxx, f"-march={march}", *options, "-dM", "-E", "-x", "c++", "/dev/null"]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        raise ValueError(f"cannot run the C++ compiler {cxx!r}: {exc}") from None
    if done.returncode != 0:
        raise ValueError(f"{cxx} rejects it:\n{done.stderr.strip() or f'exit status {done.returncode}'}")
    return frozenset(_MACRO.findall(done.stdout))


def _baseline() -> frozenset[str]:
    return _baseline_of(machine())


@cache
def _baseline_of(architecture: str) -> frozenset[str]:
    levels = LEVELS.get(architecture)
    return _macros(levels[0], ()) if levels else frozenset()


def _section(path: Path, name: str) -> str:
    """The contents of section ``name`` of a 64-bit little-endian ELF file
    (x86-64's and AArch64's), up to its first NUL; empty where it has none or
    is no such file (the loader then says what is wrong with it)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x7fELF\x02\x01":
        return ""
    try:
        (table,) = struct.unpack_from("<Q", data, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
        # name, type, flags, address, offset, size of each section
        sections = [struct.unpack_from("<IIQQQQ", data, table + i * entry_size) for i in range(count)]
        names = sections[names_index][4]
    except (struct.error, IndexError):
        return ""
    wanted = name.encode() + b"\0"
    for name_offset, _, _, _, offset, size in sections:
        if data[names + name_offset : names + name_offset + len(wanted)] == wanted:
            return data[offset : offset + size].split(b"\0", 1)[0].decode(errors="replace")
    return ""

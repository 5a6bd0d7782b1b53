"""Building whole programs for a platform (the seam's side of ``hipkit cc``).

A platform that builds programs implements :class:`Toolchain`: ``compile`` turns
one source file into a :class:`Unit`, ``link`` makes an executable, and the class
methods describe the machine without building anything (the :class:`Tool` each
uses, found or not; what is missing; whether a device to run on is present).
The helpers below serve every toolchain: finding and asking a compiler, linking
atomically, reading a compiler's dependency list and include search path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from ..._errors import CompileError
from .options import Options, is_source

__all__ = [
    "BLAS_LIBRARIES",
    "FFT_LIBRARIES",
    "RAND_LIBRARIES",
    "HIP_RUNTIME_LIBRARIES",
    "ROCTX_LIBRARIES",
    "Tool",
    "Toolchain",
    "Unit",
    "link_atomically",
    "read_dependencies",
    "rocm_library_dirs",
    "search_path",
    "string_define",
    "version_line",
    "which",
]

# ROCm's ROCTx libraries, which programs name on the link line: a platform whose
# roctx.h needs no library (hipkit's own, or NVTX3's header-only one) drops them.
ROCTX_LIBRARIES = ("-lroctx64", "-lroctracer64")
# ROCm's BLAS libraries, which programs name on the link line: a platform that serves
# hipBLAS itself links its own provider in their place.
BLAS_LIBRARIES = ("-lhipblas", "-lrocblas")
# The link flags of hipFFT (ROCm's library names): where a platform serves it itself,
# its provider instead.
FFT_LIBRARIES = ("-lhipfft",)
# ROCm's hipRAND, likewise.
RAND_LIBRARIES = ("-lhiprand",)
# ROCm's HIP runtime and hiprtc, which ROCm's Makefiles name on the link line: a
# platform that is its own HIP runtime drops them.
HIP_RUNTIME_LIBRARIES = ("-lamdhip64", "-lhiprtc", "-lhiprtc-builtins")


def rocm_library_dirs(rocm_path: str) -> tuple[str, ...]:
    """The -L options that name a ROCm install's libraries ($ROCM_PATH/lib and
    /opt/rocm/lib, lib64 too, as written and resolved): where a platform is its own
    HIP runtime they would find ROCm's libraries in place of its own."""
    roots = {"/opt/rocm", *([rocm_path] if rocm_path else [])}
    dirs = {os.path.join(root, sub) for root in roots for sub in ("lib", "lib64")}
    dirs |= {os.path.realpath(d) for d in dirs}
    return tuple(sorted(f"-L{d}" for d in dirs | {d + "/" for d in dirs}))


@dataclass(frozen=True)
class Unit:
    """A compiled source file: its object, the compiler's warnings, and every file
    the compiler read to make it (absolute paths; empty where the toolchain
    cannot tell, and then hipkit run finds the program by the full path only)."""

    source: str
    object: Path
    log: str
    dependencies: tuple[str, ...] = ()


@dataclass(frozen=True)
class Tool:
    """A compiler (or library) a platform uses: where it is and its version line."""

    role: str  # "C++ compiler", "nvcc", "hipcc", "amdclang++", ...
    platform: str
    path: str | None
    version: str  # first informative line of --version, or why it is missing
    required: bool = True  # False: reported, but the platform builds without it


class Toolchain(ABC):
    """Builds whole HIP programs for one platform.

    The class methods describe the machine without building anything: what the
    toolchain lacks here, the tools it found, and whether a GPU it builds for is
    present (the default platform is the first whose programs can run here)."""

    name: str
    # hipkit's own files and folders (relative to the package) that a build
    # runs or reads besides the compiler: its transform, headers, runtime.
    hipkit_parts: tuple[str, ...] = ()
    # Whether programs get HIP's API from the vendor's headers (ROCm's), not hipkit's:
    # docs/HIP_API.md tables hipkit's own (hipkit.cc.api_table).
    vendor_headers = False

    @classmethod
    @abstractmethod
    def tools(cls) -> list[Tool]:
        """The compilers (and libraries) this toolchain uses, found or not."""

    @classmethod
    def missing(cls) -> str:
        """Why this toolchain cannot build programs here; "" when it can."""
        absent = [t for t in cls.tools() if t.path is None and t.required]
        return "; ".join(f"{t.role}: {t.version}" for t in absent)

    @classmethod
    def device_present(cls) -> bool:
        """Whether this machine has a device the programs can run on."""
        return False

    @classmethod
    def device_note(cls) -> str:
        """What ``hipkit cc --version`` says of the devices to run on, once the
        toolchain is ready ("" for nothing)."""
        return "a GPU is present" if cls.device_present() else "no GPU here to run on (compile only)"

    @classmethod
    def settings(cls) -> list[str]:
        """Lines ``hipkit cc --version`` adds under the tools: hipkit's own parts
        and the settings that shape the programs."""
        return []

    @abstractmethod
    def compile(self, source: str, options: Options) -> Unit:
        """Compile ``source`` (a path relative to the working directory);
        raises CompileError with the diagnostics."""

    @abstractmethod
    def link(self, units: list[Unit], options: Options, output: Path) -> None:
        """Link the units and the other inputs of ``options`` into ``output``
        (written whole or not at all); raises CompileError."""

    @abstractmethod
    def program_key(self, units: list[Unit], options: Options) -> str:
        """What determines the executable linked from ``units`` (for caching it)."""

    # hipkit run's direct lookup (hipkit.cc.manifest): what a build depends on
    # besides the files its units read.  A toolchain that cannot tell keeps
    # these defaults, and its programs are found by the full path only.

    def direct_mode(self, options: Options) -> bool:
        """Whether hipkit run may find this build's program without a compiler."""
        return False

    def search_dirs(self, options: Options) -> list[str]:
        """The include search path of ``options``' compiles, directories that do
        not exist included (a header created in one could be found instead of
        one the build read)."""
        return []

    def identity_files(self) -> list[str]:
        """The compiler's own files (its executables): another compiler, or this
        one upgraded, makes another program."""
        return []

    def run_time_files(self) -> list[Path]:
        """Files of the cache a program needs to start (the CPU's runtime library)."""
        return []

    def check_runnable(self, program: Path) -> None:
        """Raise CompileError where ``program`` cannot run on this machine (code for
        another CPU, as a GPU binary for another arch): hipkit run asks before it
        records the program in its manifest and runs it.  Default: it can."""
        return None

    @staticmethod
    def objects(units: list[Unit], options: Options) -> list[str]:
        """The link's inputs in command-line order: each source's object, the rest as given."""
        by_source = {u.source: u for u in units}
        return [str(by_source[i].object) if is_source(i) else i for i in options.inputs]

    def link_inputs(self, units: list[Unit], options: Options) -> list[str | bytes]:
        """The contents of the link's inputs (a name where it is not a file), for program_key."""
        return [Path(i).read_bytes() if os.path.isfile(i) else i for i in self.objects(units, options)]


def version_line(command: list[str], pick: str = "", env: dict[str, str] | None = None) -> str:
    """The first line of ``command --version`` (the first containing ``pick``)."""
    try:
        done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=30, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run: {exc}"
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        return f"--version failed (exit status {done.returncode})"
    chosen = [line for line in lines if pick in line] if pick else lines
    return (chosen or lines)[0]


def which(name: str, *dirs: str) -> str | None:
    """``name`` on PATH, else in the first of ``dirs`` that has it."""
    found = shutil.which(name)
    if found:
        return found
    for d in dirs:
        candidate = Path(d) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def link_atomically(
    command: list[str], units: list[Unit], output: Path, missing: str, env: dict[str, str] | None = None
) -> None:
    """Run the linker ``command`` with ``-o`` a file beside ``output``, then rename
    it over ``output``: a failed link leaves no file and an old one as it was.
    The diagnostics name the units' sources rather than their cached objects;
    ``missing`` is the error when the command cannot be found."""
    output = Path(output)
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    except OSError as exc:
        raise CompileError(f"cannot write {output}: {exc.strerror}") from None
    try:
        try:
            done = subprocess.run(
                [*command, "-o", str(work / output.name)], capture_output=True, text=True, env=env
            )
        except FileNotFoundError:
            raise CompileError(missing) from None
        if done.returncode != 0:
            log = done.stdout + done.stderr
            for unit in units:
                log = log.replace(str(unit.object), f"{unit.source} (object)")
            raise CompileError(f"linking {output} failed", log)
        try:
            os.replace(work / output.name, output)
        except OSError as exc:
            raise CompileError(f"cannot write {output}: {exc.strerror}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_dependencies(depfile: Path, cwd: str) -> tuple[str, ...]:
    """The files a compiler's ``-MD -MF depfile`` lists (make's syntax: the rule's
    target first, escaped spaces, ``$$``, lines continued by a backslash), as
    absolute paths (relative ones are the compiler's working directory's, ``cwd``)."""
    text = depfile.read_text()
    words: list[str] = []
    word: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        following = text[i + 1] if i + 1 < len(text) else ""
        if c == "\\" and following in (" ", "\t", "#"):
            word.append(following)
            i += 2
            continue
        if c == "$" and following == "$":
            word.append("$")
            i += 2
            continue
        if c == "\\" and following in ("\n", "\r"):
            c = " "  # a continued line
        if c in " \t\r\n":
            if word:
                words.append("".join(word))
                word = []
        else:
            word.append(c)
        i += 1
    if word:
        words.append("".join(word))
    targets = next((n for n, w in enumerate(words) if w.endswith(":")), None)
    if targets is None:
        raise ValueError(f"{depfile}: not a dependency rule")
    return tuple(os.path.join(cwd, w) for w in words[targets + 1 :])


def search_path(command: list[str], env: dict[str, str] | None = None) -> list[str]:
    """The include search path a compiler prints for ``command`` (which has ``-v``),
    run in the working directory: the directories of ``#include "..."`` and
    ``<...>`` in order, then those it ignores because they do not exist, as
    absolute paths; empty when it cannot be run."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    found: list[str] = []
    absent: list[str] = []
    listing = False
    for line in done.stderr.splitlines():
        if line.startswith("ignoring nonexistent directory "):
            absent.append(line.split(" ", 3)[3].strip('"'))
        elif line.startswith("#include ") and line.endswith("search starts here:"):
            listing = True
        elif line.startswith("End of search list."):
            listing = False
        elif listing and line.startswith(" "):
            found.append(line.strip().removesuffix(" (framework directory)"))
    cwd = os.getcwd()
    return [os.path.join(cwd, d) for d in found + absent] if found else []


def string_define(name: str, text: str) -> str:
    """``-DNAME="text"``: a macro that is ``text`` as a C string literal (how a
    program is told at build time where things are)."""
    return f"-D{name}=" + '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

"""Whole programs for the CPU: the system C++ compiler and libhipkit_cpu.

Each source file is preprocessed with hip/hip_runtime.h (HIP's host API on
the CPU runtime) included first, transformed as kernels compiled from Python
are (:mod:`hipkit.platforms.cpu.transform`, program mode: kernels become block
functions, launches become runtime calls) and compiled to an object.  Objects
are cached by the hash of the preprocessed text and the flags, so an unchanged
file (and everything it includes) is not compiled again.

hiprtc in a program runs hipkit's compiler, which is Python: each unit is
compiled with this interpreter and hipkit's location as macros, so that the
program finds them at run time (:mod:`hipkit.cc.rtc`).

The preprocessor also lists every file it read (``-MD``): hipkit run's direct
lookup (:mod:`hipkit.cc.manifest`) checks those files instead of preprocessing
again, and finds the program without running the compiler.

Executables link against the same ``libhipkit_cpu.so`` the Python API loads,
found at run time through two rpath entries: hipkit's cache directory, where
the library is built (:func:`hipkit.platforms.cpu._lib.lib_dir`), then
``$ORIGIN``, so that a program copied to another machine runs with a copy of
the library beside it.  ``-lhipblas`` and ``-lrocblas`` link the CPU's hipBLAS
instead (``libhipkit_cpu_blas.so`` on OpenBLAS, :mod:`.blas`), by the same rule, and
``-lhiprand`` the CPU's hipRAND (``libhipkit_cpu_rand.so``, :mod:`.rand`).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ... import __version__, _cache, config
from ..._errors import CompileError, HipError
from ..base.blas import BlasUnavailable
from ..base.options import Options
from ..base.rand import RandUnavailable
from ..base.toolchain import (
    BLAS_LIBRARIES,
    FFT_LIBRARIES,
    HIP_RUNTIME_LIBRARIES,
    RAND_LIBRARIES,
    ROCTX_LIBRARIES,
    Tool,
    Toolchain,
    Unit,
    link_atomically,
    read_dependencies,
    rocm_library_dirs,
    search_path,
    string_define,
    version_line,
    which,
)
from . import _lib, blas, compiler, fft_engine, isa, rand

__all__ = ["CpuToolchain"]

T = TypeVar("T")


def _own_link_flags(flags: tuple[str, ...]) -> list[str]:
    """The program's link flags less those that name ROCm's libraries: hipkit's
    runtime is the program's HIP runtime and hiprtc (-lamdhip64, -lhiprtc,
    -L$ROCM_PATH/lib), and its providers are hipBLAS, hipRAND and ROCTx."""
    rocm_dirs = rocm_library_dirs(config.get("ROCM_PATH"))
    dropped = ROCTX_LIBRARIES + BLAS_LIBRARIES + FFT_LIBRARIES + RAND_LIBRARIES + HIP_RUNTIME_LIBRARIES
    return [flag for flag in flags if flag not in dropped and flag not in rocm_dirs]


class CpuToolchain(Toolchain):
    """hipkit cc's CPU platform (``--platform cpu``)."""

    name = "cpu"
    # The driver (hipkit.cc) and the seam's options and toolchain, the keys
    # (config, _cache, the version), the transform and the C++ parsing it uses,
    # the headers and the runtime's sources.
    hipkit_parts = (
        "__init__.py",
        "config.py",
        "_cache.py",
        "cxx",
        "cc",
        "platforms/base",
        "platforms/cpu",
        "platforms/include",
        "tables/include",
    )

    def __init__(self) -> None:
        self.warp_size: int = config.get("HIPKIT_CPU_WARP_SIZE")
        self.cxx: str = config.get("HIPKIT_CXX")
        # The library providers (hipBLAS, hipRAND) of the last program keyed or
        # linked, each (folder, library file name) (run_time_files: hipkit run's
        # manifest needs them too).
        self._provider_dirs: list[tuple[Path, str]] = []

    @classmethod
    def tools(cls) -> list[Tool]:
        cxx = shlex.split(config.get("HIPKIT_CXX"))
        path = which(cxx[0]) if cxx else None
        version = version_line([path, *cxx[1:]]) if path else "not found"
        return [Tool(f"C++ compiler (HIPKIT_CXX={' '.join(cxx)})", "cpu", path, version)]

    @classmethod
    def missing(cls) -> str:
        cxx = shlex.split(config.get("HIPKIT_CXX"))
        return "" if cxx and which(cxx[0]) else f"C++ compiler {' '.join(cxx)!r} not found (set HIPKIT_CXX)"

    @classmethod
    def device_present(cls) -> bool:
        return True

    @classmethod
    def device_note(cls) -> str:
        return ""

    @classmethod
    def settings(cls) -> list[str]:
        return [
            f"hipkit CPU runtime: {__version__} (libhipkit_cpu.so, built on first use)",
            f"warp size: {config.get('HIPKIT_CPU_WARP_SIZE')} (HIPKIT_CPU_WARP_SIZE)",
        ]

    def compile(self, source: str, options: Options) -> Unit:
        if not os.path.isfile(source):
            raise CompileError(f"{source}: no such file")
        flags = [*options.compile_flags, *rtc_defines()]
        with tempfile.TemporaryDirectory(prefix="hipkit-cc-") as work:
            preprocessed = Path(work) / "unit.ii"
            depfile = Path(work) / "unit.d"
            compiler.preprocess_program_unit(source, preprocessed, flags, self.warp_size, depfile)
            key = compiler.program_unit_key(preprocessed.read_bytes(), flags, self.warp_size)
            try:
                dependencies = read_dependencies(depfile, os.getcwd())
            except (OSError, ValueError):  # no direct lookup for this program, nothing worse
                dependencies = ()

            def build(tmp: Path) -> None:
                log = compiler.compile_program_unit(preprocessed, source, tmp, flags, self.warp_size)
                (tmp / "kernel.ii").unlink()  # large, and not needed again
                (tmp / "log.txt").write_text(log)

            entry = _cache.entry("program-units", key, build)
        return Unit(source, entry / "unit.o", (entry / "log.txt").read_text(), dependencies)

    def link(self, units: list[Unit], options: Options, output: Path) -> None:
        lib_dir = _runtime(_lib.lib_dir)
        provider_flags = [
            flag
            for folder, name in self._providers(options)
            for flag in (f"-L{folder}", f"-l{name[3:-3]}", f"-Wl,-rpath,{folder}")
        ]
        command = [
            self.cxx,
            *self.objects(units, options),
            *_own_link_flags(options.link_flags),
            *provider_flags,
            f"-L{lib_dir}",
            "-lhipkit_cpu",
            f"-Wl,-rpath,{lib_dir}",
            "-Wl,-rpath,$ORIGIN",
        ]
        link_atomically(command, units, output, f"C++ compiler {self.cxx!r} not found (set HIPKIT_CXX)")

    def program_key(self, units: list[Unit], options: Options) -> str:
        parts: list[str | bytes] = [self.cxx, compiler.compiler_identity(), _runtime(_lib.build_key)]
        parts += [folder.name for folder, _ in self._providers(options)]  # their build keys
        parts += self.link_inputs(units, options)
        parts += options.link_flags
        return _cache.digest(parts)

    def direct_mode(self, options: Options) -> bool:
        # The unit's preprocessed text is what is compiled: the files it read
        # are all the sources a program depends on.
        return True

    def search_dirs(self, options: Options) -> list[str]:
        flags = [*options.compile_flags, *rtc_defines()]
        command = [self.cxx, "-E", "-v", "-x", "c++", *compiler.program_flags(flags, self.warp_size), *flags]
        return search_path([*command, os.devnull, "-o", os.devnull])

    def identity_files(self) -> list[str]:
        # The driver and, for GCC, the compiler proper it runs (clang answers
        # a bare name: it is one program).
        driver = which(self.cxx)
        if driver is None:
            return []
        files = [os.path.realpath(driver)]
        try:
            done = subprocess.run([driver, "-print-prog-name=cc1plus"], capture_output=True, text=True)
        except OSError:
            return files
        proper = done.stdout.strip()
        if done.returncode == 0 and os.path.isabs(proper) and os.path.isfile(proper):
            files.append(os.path.realpath(proper))
        return files

    def run_time_files(self) -> list[Path]:
        files = [_runtime(_lib.lib_dir) / _lib.LIBRARY_NAME]
        return files + [folder / name for folder, name in self._provider_dirs]

    def check_runnable(self, program: Path) -> None:
        try:
            isa.check_module(program, "program")
        except HipError as exc:
            raise CompileError(str(exc)) from None

    def _providers(self, options: Options) -> list[tuple[Path, str]]:
        """The (folder, library file) of each library provider the program links
        (hipBLAS for -lhipblas or -lrocblas, the FFT engine for -lhipfft, hipRAND for
        -lhiprand), built if needed."""
        self._provider_dirs = []
        for names, library, module, unavailable in (
            (BLAS_LIBRARIES, "hipBLAS", blas, BlasUnavailable),
            (FFT_LIBRARIES, "FFT engine", fft_engine, ()),  # hipkit's own: nothing to install
            (RAND_LIBRARIES, "hipRAND", rand, RandUnavailable),
        ):
            named = [flag for flag in options.link_flags if flag in names]
            if not named:
                continue
            try:
                self._provider_dirs.append((module.lib_dir(), module.LIBRARY_NAME))
            except unavailable as exc:
                raise CompileError(f"{named[0]}: {exc}") from None
            except (OSError, RuntimeError) as exc:
                raise CompileError(
                    f"{named[0]}: the CPU platform's {library} could not be built: {exc}"
                ) from None
        return self._provider_dirs


def _runtime(step: Callable[[], T]) -> T:
    """A step that builds or identifies libhipkit_cpu, its failure as a CompileError."""
    try:
        return step()
    except (OSError, RuntimeError) as exc:
        raise CompileError(f"the CPU runtime (libhipkit_cpu.so) could not be built: {exc}") from None


def rtc_defines() -> list[str]:
    """The macros a program unit is compiled with so that its hiprtc finds hipkit's
    compiler (:mod:`hipkit.cc.rtc`): this interpreter and the folder hipkit is
    imported from."""
    package = Path(__file__).resolve().parents[3]
    return [
        string_define("__HIPKIT_PYTHON", sys.executable),
        string_define("__HIPKIT_PYTHONPATH", str(package)),
    ]

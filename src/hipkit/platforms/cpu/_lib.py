"""Build and load ``libhipkit_cpu.so``, the CPU platform's runtime library.

The library is compiled from ``runtime/`` with the system C++ compiler
(``HIPKIT_CXX``) into the build cache, keyed by its sources, flags and the
compiler's version.  Kernel modules link against it (see :func:`lib_dir`);
Python calls it through ctypes (see :func:`load`).

Example
-------
>>> from hipkit.platforms.cpu import _lib
>>> lib = _lib.load()
>>> lib.hkrt_init(0, 0, 0)
0
"""

from __future__ import annotations

import ctypes
import platform
import shlex
import threading
from ctypes import POINTER, c_char_p, c_float, c_int, c_size_t, c_uint32, c_uint64, c_void_p
from pathlib import Path

from ... import _cache, config
from ..base.platform import PORTABLE_INCLUDE_DIR
from . import isa
from .library_build import build_shared

__all__ = [
    "DeviceInfo",
    "FunctionAttributes",
    "INCLUDE_DIR",
    "KernelDesc",
    "ParamDesc",
    "LIBRARY_NAME",
    "build_key",
    "lib_dir",
    "load",
]

_HERE = Path(__file__).parent
INCLUDE_DIR = _HERE / "include"
_SOURCE_DIR = _HERE / "runtime"
LIBRARY_NAME = "libhipkit_cpu.so"
_COMPILE_FLAGS = ("-O2", "-g", "-std=c++17", "-fPIC", "-pthread")
_LINK_FLAGS = ("-shared", "-pthread", f"-Wl,-soname,{LIBRARY_NAME}")
_LIBS = ("-ldl",)  # dlopen lives in libdl before glibc 2.34


_u32_array = POINTER(c_uint32)
_out_handle = POINTER(c_void_p)

# Every hkrt_* function of runtime.h and hk_activity_* of runtime/activity.h:
# name -> (restype, argtypes).  Handles (streams, events, modules, functions)
# are plain pointers, and so are the output structs, so that callers may pass
# ctypes.byref() of their own Structure with the layout of hkrt_device_info /
# hkrt_function_attributes.
_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "hkrt_init": (c_int, [c_uint32, c_uint32, c_uint32]),
    "hkrt_device_count": (c_int, [POINTER(c_int)]),
    "hkrt_get_device_info": (c_int, [c_int, c_void_p]),
    "hkrt_last_error_detail": (c_char_p, []),
    "hkrt_sticky_error": (c_int, [c_int]),
    "hkrt_sanitize_start": (c_int, [c_char_p, c_uint32]),
    "hkrt_sanitize_stop": (c_int, [POINTER(c_uint64)]),
    "hkrt_malloc": (c_int, [c_int, _out_handle, c_size_t]),
    "hkrt_free": (c_int, [c_void_p]),
    "hkrt_host_malloc": (c_int, [c_int, _out_handle, c_size_t]),
    "hkrt_host_free": (c_int, [c_void_p]),
    "hkrt_pointer_info": (c_int, [c_void_p, POINTER(c_int), POINTER(c_int)]),
    "hkrt_mem_get_info": (c_int, [c_int, POINTER(c_size_t), POINTER(c_size_t)]),
    "hkrt_memcpy": (c_int, [c_int, c_void_p, c_void_p, c_size_t, c_int, c_void_p, c_int]),
    "hkrt_memcpy_peer": (
        c_int,
        [c_void_p, c_int, c_void_p, c_int, c_size_t, c_int, c_void_p, c_int],
    ),
    "hkrt_memset": (c_int, [c_int, c_void_p, c_uint32, c_size_t, c_uint32, c_void_p, c_int]),
    "hkrt_stream_create": (c_int, [c_int, _out_handle, ctypes.c_uint]),
    "hkrt_stream_destroy": (c_int, [c_void_p]),
    "hkrt_stream_synchronize": (c_int, [c_int, c_void_p]),
    "hkrt_stream_query": (c_int, [c_int, c_void_p]),
    "hkrt_stream_get_device": (c_int, [c_int, c_void_p, POINTER(c_int)]),
    "hkrt_stream_wait_event": (c_int, [c_int, c_void_p, c_void_p, ctypes.c_uint]),
    "hkrt_stream_create_with_priority": (c_int, [c_int, _out_handle, ctypes.c_uint, c_int]),
    "hkrt_stream_get_info": (c_int, [c_int, c_void_p, POINTER(ctypes.c_uint), POINTER(c_int)]),
    "hkrt_stream_wait_value": (
        c_int,
        [c_int, c_void_p, c_void_p, c_uint64, c_uint64, ctypes.c_uint, ctypes.c_uint],
    ),
    "hkrt_stream_write_value": (c_int, [c_int, c_void_p, c_void_p, c_uint64, ctypes.c_uint]),
    "hkrt_event_create": (c_int, [c_int, _out_handle, ctypes.c_uint]),
    "hkrt_event_destroy": (c_int, [c_void_p]),
    "hkrt_event_record": (c_int, [c_int, c_void_p, c_void_p]),
    "hkrt_event_synchronize": (c_int, [c_void_p]),
    "hkrt_event_query": (c_int, [c_void_p]),
    "hkrt_event_elapsed_time": (c_int, [POINTER(c_float), c_void_p, c_void_p]),
    "hkrt_device_synchronize": (c_int, [c_int]),
    "hkrt_device_reset": (c_int, [c_int]),
    "hkrt_reset_generation": (c_uint64, [c_int]),
    "hkrt_device_can_access_peer": (c_int, [POINTER(c_int), c_int, c_int]),
    "hkrt_device_enable_peer_access": (c_int, [c_int, c_int, ctypes.c_uint]),
    "hkrt_device_disable_peer_access": (c_int, [c_int, c_int]),
    # Handles are 64-byte buffers (HKRT_IPC_HANDLE_SIZE).
    "hkrt_ipc_get_mem_handle": (c_int, [c_void_p, c_void_p]),
    "hkrt_ipc_open_mem_handle": (c_int, [c_int, _out_handle, c_void_p, ctypes.c_uint]),
    "hkrt_ipc_close_mem_handle": (c_int, [c_void_p]),
    "hkrt_ipc_get_event_handle": (c_int, [c_void_p, c_void_p]),
    "hkrt_ipc_open_event_handle": (c_int, [c_int, _out_handle, c_void_p]),
    "hkrt_module_load": (c_int, [c_int, c_char_p, _out_handle]),
    "hkrt_module_unload": (c_int, [c_void_p]),
    "hkrt_module_get_function": (c_int, [c_void_p, c_char_p, _out_handle]),
    "hkrt_function_get_attributes": (c_int, [c_void_p, c_void_p]),
    "hkrt_module_get_global": (c_int, [c_void_p, c_char_p, _out_handle, POINTER(c_size_t)]),
    "hkrt_launch": (
        c_int,
        [c_int, c_void_p, _u32_array, _u32_array, c_uint32, c_void_p, POINTER(c_void_p)],
    ),
    "hkrt_launch_packed": (
        c_int,
        [c_int, c_void_p, _u32_array, _u32_array, c_uint32, c_void_p, c_void_p, c_size_t],
    ),
    "hkrt_launch_cooperative": (
        c_int,
        [c_int, c_void_p, _u32_array, _u32_array, c_uint32, c_void_p, c_void_p, c_void_p, c_size_t],
    ),
    # fn is a C function pointer (a ctypes CFUNCTYPE object that the caller keeps alive).
    "hkrt_launch_host_func": (c_int, [c_int, c_void_p, c_void_p, c_void_p, c_char_p, ctypes.c_uint]),
    "hkrt_stream_begin_capture": (c_int, [c_int, c_void_p, c_int]),
    "hkrt_stream_end_capture": (c_int, [c_int, c_void_p, _out_handle]),
    "hkrt_graph_instantiate": (c_int, [_out_handle, c_void_p, ctypes.c_ulonglong]),
    "hkrt_graph_launch": (c_int, [c_int, c_void_p, c_void_p]),
    "hkrt_graph_exec_destroy": (c_int, [c_void_p]),
    "hkrt_graph_destroy": (c_int, [c_void_p]),
    # Whole programs (hipkit cc) call these from C++; declared for completeness.
    "hkrt_program_register": (c_int, [c_void_p]),
    "hkrt_program_function": (c_int, [c_void_p, c_void_p, c_char_p, _out_handle]),
    "hkrt_program_global": (c_int, [c_void_p, POINTER(c_size_t)]),
    # Activity records (runtime/activity.h); records are read into a buffer
    # with hk_activity_record's layout.
    "hk_activity_enable": (c_int, [c_size_t]),
    "hk_activity_read": (c_size_t, [c_void_p, c_size_t]),
    "hk_activity_dropped": (c_uint64, []),
    "hk_activity_waiting": (c_size_t, []),
    "hk_activity_notify": (c_int, [c_size_t]),
    "hk_activity_set_correlation": (c_uint64, [c_uint64]),
}


# The runtime's output structs (hipkit_cpu/runtime.h, abi.h), which callers pass
# by ctypes.byref (the functions above take them as plain pointers).


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 256),
        ("arch", ctypes.c_char * 64),
        ("total_global_mem", ctypes.c_uint64),
        ("warp_size", ctypes.c_uint32),
        ("max_threads_per_block", ctypes.c_uint32),
        ("max_threads_dim", ctypes.c_uint32 * 3),
        ("max_grid_size", ctypes.c_uint32 * 3),
        ("shared_mem_per_block", ctypes.c_uint32),
        ("multiprocessor_count", ctypes.c_uint32),
        ("clock_rate_khz", ctypes.c_uint32),
        ("l2_cache_size", ctypes.c_uint32),
        ("total_const_mem", ctypes.c_uint32),
        ("regs_per_block", ctypes.c_uint32),
        ("compute_capability", ctypes.c_uint32 * 2),
    ]


class ParamDesc(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("align", ctypes.c_uint32), ("kind", ctypes.c_uint32)]


class KernelDesc(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("symbol", ctypes.c_void_p),
        ("entry", ctypes.c_void_p),
        ("mode", ctypes.c_uint32),
        ("num_params", ctypes.c_uint32),
        ("params", ctypes.POINTER(ParamDesc)),
    ]


class FunctionAttributes(ctypes.Structure):
    _fields_ = [
        ("mode", ctypes.c_uint32),
        ("num_params", ctypes.c_uint32),
        ("static_shared_bytes", ctypes.c_uint32),
        ("max_threads_per_block", ctypes.c_uint32),
        ("activity_name", ctypes.c_void_p),
    ]


def _compiler() -> list[str]:
    return shlex.split(config.get("HIPKIT_CXX"))


def compiler_version() -> str:
    """``--version`` of the C++ compiler that builds the runtime and kernels."""
    return _cache.compiler_version(tuple(_compiler()))


# The headers of include/ that the runtime includes (the others are for kernels).
_CONTRACT_HEADERS = (
    "hipkit_cpu/abi.h",
    "hipkit_cpu/runtime.h",
    "hipkit_cpu/runtime_module.h",
    "hipkit_cpu/runtime_memory.h",
    "hipkit_cpu/runtime_vmm.h",
    "hipkit_cpu/runtime_graph.h",
    "hipkit_cpu/program_visible.h",  # the trace writer names devices as programs number them
)
# The shared headers it includes: the trace file the CUPTI library writes too.
_SHARED_HEADERS = ("hipkit_trace/native_trace.h",)


def _sources() -> list[Path]:
    """Every file the library is built from: the runtime's sources and headers."""
    runtime = [p for p in _SOURCE_DIR.iterdir() if p.suffix in (".cpp", ".S", ".h")]
    shared = [PORTABLE_INCLUDE_DIR / header for header in _SHARED_HEADERS]
    return sorted(runtime) + [INCLUDE_DIR / header for header in _CONTRACT_HEADERS] + shared


def build_key() -> str:
    """The hash identifying the library built from these sources with this compiler."""
    compiler = tuple(_compiler())
    parts: list[str | bytes] = []
    for path in _sources():
        parts += [path.name, path.read_bytes()]
    parts += [*_COMPILE_FLAGS, *_LINK_FLAGS, *_LIBS, _cache.compiler_version(compiler)]
    return _cache.digest(parts)


def _build(out: Path) -> None:
    sources = [p for p in _sources() if p.suffix in (".cpp", ".S")]
    flags = [*_COMPILE_FLAGS, f"-I{INCLUDE_DIR}", f"-I{PORTABLE_INCLUDE_DIR}"]
    build_shared(out, LIBRARY_NAME, _compiler(), sources, flags, _LINK_FLAGS, _LIBS)


def lib_dir() -> Path:
    """The directory holding ``libhipkit_cpu.so``, built on first use.

    Kernel modules link with ``-L<dir> -lhipkit_cpu -Wl,-rpath,<dir>``.
    """
    return _cache.entry("runtime", build_key(), _build)


_lock = threading.Lock()
_library: ctypes.CDLL | None = None


def load() -> ctypes.CDLL:
    """The runtime library, built if needed and loaded once per process.

    Every ``hkrt_*`` function has its ``argtypes`` and ``restype`` declared.

    Raises
    ------
    RuntimeError
        Where it cannot be built, or ``HIPKIT_CXX`` is a cross compiler.
    """
    global _library
    with _lock:
        if _library is None:
            try:
                library = ctypes.CDLL(str(lib_dir() / LIBRARY_NAME))
            except OSError:
                built_for = isa.machine()  # asked only now: it runs the compiler
                if built_for != platform.machine():  # a cross compiler: for hipkit cc only
                    raise RuntimeError(
                        f"HIPKIT_CXX={config.get('HIPKIT_CXX')!r} compiles for {built_for}, and this "
                        f"machine is {platform.machine()}: hipkit cc builds programs with it, the CPU "
                        "platform runs with a compiler for this machine"
                    ) from None
                raise
            for name, (restype, argtypes) in _SIGNATURES.items():
                function = getattr(library, name)
                function.restype = restype
                function.argtypes = argtypes
            _library = library
        return _library

"""Kernel names as rocprofv3 shows them: demangled (its default), mangled
(``-M``) or truncated to the bare function name (``-T``).

Demangling is the C++ runtime's own ``__cxa_demangle`` (libstdc++, there
wherever a C++ compiler is); a name it does not take is kept as it is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable

STYLES = ("demangled", "mangled", "truncated")


@functools.cache
def _demangler() -> Callable[[bytes], bytes | None] | None:
    try:
        cxx = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6")
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    demangle = cxx.__cxa_demangle
    demangle.restype = ctypes.c_void_p
    demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    free = libc.free
    free.argtypes = [ctypes.c_void_p]

    def call(mangled: bytes) -> bytes | None:
        status = ctypes.c_int(0)
        text = demangle(mangled, None, None, ctypes.byref(status))
        if status.value != 0 or not text:
            return None
        try:
            return ctypes.string_at(text)
        finally:
            free(text)

    return call


@functools.lru_cache(maxsize=4096)
def demangle(name: str) -> str:
    """``_Z9vectorAddPKfS0_Pfi`` -> ``vectorAdd(float const*, float const*, float*, int)``;
    a name that is not an Itanium C++ ABI name comes back as it is."""
    if not name.startswith("_Z"):
        return name
    demangler = _demangler()
    text = demangler(name.encode()) if demangler else None
    return text.decode(errors="replace") if text is not None else name


def _matching_open(text: str, close: int, pair: str) -> int:
    """The index of the bracket that opens the one at ``close`` (-1 if none)."""
    opening, closing = pair[0], pair[1]
    depth = 0
    for i in range(close, -1, -1):
        if text[i] == closing:
            depth += 1
        elif text[i] == opening:
            depth -= 1
            if depth == 0:
                return i
    return -1


def truncate(name: str) -> str:
    """The function's own name: ``void ns::Foo<int>::bar<2>(float*, int)`` -> ``bar``."""
    text = demangle(name).strip()
    for pair in ("()", "<>"):  # the parameters, then the function's template arguments
        if text.endswith(pair[1]) and not text.endswith("operator" + pair):
            start = _matching_open(text, len(text) - 1, pair)
            if start > 0:
                text = text[:start].rstrip()
    depth, cut = 0, 0
    for i, ch in enumerate(text):  # after the last '::' or space outside template arguments
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0 and (ch == " " or text.startswith("::", i)):
            cut = i + (2 if ch == ":" else 1)
    return text[cut:] or name


def namer(style: str) -> Callable[[str], str]:
    """The function that shows kernel names in ``style`` (one of :data:`STYLES`)."""
    if style not in STYLES:
        raise ValueError(f"kernel names: {style!r}; one of {', '.join(STYLES)}")
    styles: dict[str, Callable[[str], str]] = {"demangled": demangle, "mangled": str, "truncated": truncate}
    return styles[style]

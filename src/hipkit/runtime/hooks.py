"""The one place every runtime call passes (DESIGN.md, seam 7).

Everything the runtime does on a device — allocations, copies, memsets,
launches, streams, events, synchronization, modules — is a call of the
platform interface (``platforms/base.py``), made on the platform object.  A
*tool* (the profiler now; error checking later) sees those calls by being
installed here: for each platform in use, each method in :data:`INTERCEPTED`
is shadowed by an instance attribute the tool made, which calls the original.
The HIP-named API (``hipkit.hip``) also reports each of its calls, through
:data:`api`, so a tool sees HIP's own function names.

When no tool is installed nothing is shadowed: a launch looks up
``platform.launch`` as an attribute (the only cost of the hook on the hot path)
and finds the platform's own method.

Example
-------
>>> class Counter:
...     calls = 0
...     def wrap(self, platform, name, original):
...         def counted(*args):
...             Counter.calls += 1
...             return original(*args)
...         return counted
...     def api_call(self, name, fn, args, kwargs):
...         return fn(*args, **kwargs)
>>> tool = Counter(); hooks.install(tool); ...; hooks.uninstall(tool)
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from ..platforms.base.platform import Platform

# The runtime calls of the platform interface (not the queries made on every
# launch, such as reset_generation, nor the static compile-side methods).
INTERCEPTED = (
    "malloc",
    "free",
    "host_malloc",
    "host_free",
    "mem_info",
    "memcpy",
    "memset",
    "memcpy_peer",
    "stream_create",
    "stream_destroy",
    "stream_synchronize",
    "stream_query",
    "stream_wait_event",
    "event_create",
    "event_destroy",
    "event_record",
    "event_synchronize",
    "event_query",
    "event_elapsed",
    "synchronize",
    "can_access_peer",
    "enable_peer_access",
    "disable_peer_access",
    "reset",
    "load_module",
    "unload_module",
    "get_function",
    "get_global",
    "set_max_dynamic_shared",
    "launch",
)


class Tool(Protocol):
    """What :func:`install` takes."""

    def wrap(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        """The function to call instead of ``platform.<name>`` (it calls
        ``original``), or None to leave that method alone."""

    def api_call(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """Run the HIP-named API function ``fn`` (called ``name``) with its arguments."""


# The HIP-named API's hook: hip_api calls it instead of the function when set.
api: Callable[[str, Callable[..., Any], tuple, dict], Any] | None = None

_tool: Tool | None = None
_lock = threading.RLock()
_platforms: weakref.WeakSet[Platform] = weakref.WeakSet()
# Instance attributes a tool shadowed (a platform's own, or a test's fake), put back on uninstall.
_shadowed: weakref.WeakKeyDictionary[Platform, dict[str, Any]] = weakref.WeakKeyDictionary()


def installed() -> Tool | None:
    """The tool installed now, if any."""
    return _tool


def install(tool: Tool) -> None:
    """Route every runtime call of every platform in use (and of those used
    later) through ``tool``.  One tool at a time: a second raises RuntimeError."""
    global _tool, api
    with _lock:
        if _tool is not None:
            raise RuntimeError(f"a tool is already installed at hipkit's hook point: {_tool!r}")
        _tool = tool
        api = tool.api_call
        for platform in list(_platforms):
            _attach(platform, tool)


def uninstall(tool: Tool) -> None:
    """Remove ``tool``: platforms call their own methods again."""
    global _tool, api
    with _lock:
        if _tool is not tool:
            raise RuntimeError(f"{tool!r} is not the installed tool")
        for platform in list(_platforms):
            for name in INTERCEPTED:
                platform.__dict__.pop(name, None)
            platform.__dict__.update(_shadowed.pop(platform, {}))
        api = None
        _tool = None


def forget(tool: Tool) -> None:
    """Like :func:`uninstall`, without the lock: in a process just forked, where
    the lock may be held by a thread that did not survive the fork."""
    global _lock
    _lock = threading.RLock()
    uninstall(tool)


def platform_used(platform: Platform) -> None:
    """Called for every platform a Device is made on: an installed tool sees it too."""
    if platform in _platforms:
        return
    with _lock:
        _platforms.add(platform)
        if _tool is not None:
            _attach(platform, _tool)


def _attach(platform: Platform, tool: Tool) -> None:
    _shadowed[platform] = {n: platform.__dict__[n] for n in INTERCEPTED if n in platform.__dict__}
    for name in INTERCEPTED:
        wrapper = tool.wrap(platform, name, getattr(platform, name))
        if wrapper is not None:
            setattr(platform, name, wrapper)

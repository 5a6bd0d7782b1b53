"""The one place every runtime call passes (DESIGN.md, seam 7).

Everything the runtime does on a device — allocations, copies, memsets,
launches, streams, events, synchronization, modules — is a call of the
platform interface (``platforms/base/platform.py``), made on the platform
object.  A *tool* (the profiler, a sanitizer, an analyzer) sees those calls by
being installed here: for each platform in use, each method in
:data:`INTERCEPTED` that the tool wants is shadowed by an instance attribute the
tool made, which calls the original.  The HIP-named API (``hipkit.hip``) also
reports each of its calls, through :data:`api`, so a tool sees HIP's own
function names.

Several tools can be installed at once.  Each wraps what is there when it is
installed: the platform's own methods, or the wrappers of the tools installed
before it.  So the tool installed last sees a call first, and the API hook
runs the tools in the same order.  Installing a tool this way never changes
what the tools already installed see, nor what they cost: a profiler installed
first times the platform's work without the checks of a sanitizer installed
after it.  A tool's own calls (the profiler's timing events) go to the
platform's own methods (:func:`own_methods`), so no other tool sees them.
Uninstalling a tool in the middle has the tools above it wrap again what is
below it now (:meth:`Tool.wrap` is called again for those methods).

When no tool is installed nothing is shadowed: a launch looks up
``platform.launch`` as an attribute (the only cost of the hook on the hot path)
and finds the platform's own method.  With one tool, its wrappers call the
platform's methods directly.

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
from collections.abc import Callable, Mapping
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

ApiHook = Callable[[str, Callable[..., Any], tuple, dict], Any]


class Tool(Protocol):
    """What :func:`install` takes."""

    def wrap(self, platform: Platform, name: str, original: Callable[..., Any]) -> Callable[..., Any] | None:
        """The function to call instead of ``platform.<name>`` (it calls
        ``original``: the platform's method or the tools' below), or None to
        leave that method alone.  Called again, with a new ``original``, when a
        tool below leaves; the new function replaces the old one."""

    def api_call(self, name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """Run the HIP-named API function ``fn`` (called ``name``) with its
        arguments; with tools installed before this one, ``fn`` runs them first."""


# The HIP-named API's hook: hip_api calls it instead of the function when set.
api: ApiHook | None = None

_tools: tuple[Tool, ...] = ()  # in installation order
_lock = threading.RLock()
_platforms: weakref.WeakSet[Platform] = weakref.WeakSet()


class _Stack:
    """One platform's methods under the tools: its own, and each tool's wrappers."""

    def __init__(self, platform: Platform):
        self.platform = platform
        # Instance attributes the tools shadow (a test's fake), put back when the last leaves.
        self.shadowed = {n: platform.__dict__[n] for n in INTERCEPTED if n in platform.__dict__}
        self.own = {n: getattr(platform, n) for n in INTERCEPTED}
        self.layers: list[dict[str, Callable[..., Any]]] = []  # one per tool, as _tools

    def below(self, index: int, name: str) -> Callable[..., Any]:
        """What the tool at ``index`` wraps: the nearest wrapper below it, or the platform's own."""
        for layer in reversed(self.layers[:index]):
            if name in layer:
                return layer[name]
        return self.own[name]

    def wrap(self, tool: Tool, index: int, names: tuple[str, ...]) -> dict[str, Callable[..., Any]]:
        layer = {}
        for name in names:
            wrapper = tool.wrap(self.platform, name, self.below(index, name))
            if wrapper is not None:
                layer[name] = wrapper
        return layer

    def push(self, tool: Tool) -> None:
        layer = self.wrap(tool, len(self.layers), INTERCEPTED)
        self.layers.append(layer)
        self.apply(tuple(layer))

    def remove(self, index: int, above: tuple[Tool, ...]) -> None:
        """Take out the tool at ``index``; ``above`` (the tools above it) wrap what is below now."""
        names = tuple(self.layers.pop(index))
        for offset, tool in enumerate(above):
            layer = self.layers[index + offset]
            for name in names:
                layer.pop(name, None)
            layer.update(self.wrap(tool, index + offset, names))
        # With the last tool gone, so is any attribute set while tools were here, as ever.
        self.apply(names if self.layers else INTERCEPTED)

    def apply(self, names: tuple[str, ...]) -> None:
        """Make each method the top of its stack."""
        attributes = self.platform.__dict__
        for name in names:
            top = self.below(len(self.layers), name)
            if name in self.shadowed:
                attributes[name] = self.shadowed[name] if top is self.own[name] else top
            elif top is self.own[name]:
                attributes.pop(name, None)
            else:
                attributes[name] = top


# Every platform in use while a tool is installed (none when none is: then nothing is held).
_stacks: dict[Platform, _Stack] = {}


def installed() -> tuple[Tool, ...]:
    """The tools installed now, in installation order (the last sees each call first)."""
    return _tools


def install(tool: Tool) -> None:
    """Route every runtime call of every platform in use (and of those used
    later) through ``tool``, over the tools installed before it.  Installing a
    tool that is installed raises RuntimeError."""
    global _tools, api
    with _lock:
        if any(t is tool for t in _tools):
            raise RuntimeError(f"{tool!r} is already installed at hipkit's hook point")
        pushed = []
        try:
            for platform in list(_platforms):
                _stack(platform).push(tool)
                pushed.append(platform)
        except BaseException:  # a tool that cannot wrap leaves the hook point as it found it
            for platform in pushed:
                _remove(platform, len(_tools), ())
            for platform in [p for p, stack in _stacks.items() if not stack.layers]:
                del _stacks[platform]
            raise
        _tools += (tool,)
        api = _chain(_tools)


def uninstall(tool: Tool) -> None:
    """Remove ``tool``, in any order: the others keep seeing every call, and
    with none left platforms call their own methods again.  Uninstalling a
    tool that is not installed raises RuntimeError."""
    global _tools, api
    with _lock:
        index = next((i for i, t in enumerate(_tools) if t is tool), None)
        if index is None:
            raise RuntimeError(f"{tool!r} is not installed at hipkit's hook point")
        _tools = _tools[:index] + _tools[index + 1 :]
        api = _chain(_tools)
        for platform in list(_stacks):
            _remove(platform, index, _tools[index:])


def forget(tool: Tool) -> None:
    """Like :func:`uninstall`, without the lock: in a process just forked, where
    the lock may be held by a thread that did not survive the fork."""
    global _lock
    _lock = threading.RLock()
    uninstall(tool)


def own_methods(platform: Platform) -> Mapping[str, Callable[..., Any]]:
    """The platform's own methods, below every tool: for the calls a tool makes
    itself (the profiler's timing events), which the other tools should not see."""
    stack = _stacks.get(platform)
    if stack is None:
        return {n: getattr(platform, n) for n in INTERCEPTED}
    return stack.own


def platform_used(platform: Platform) -> None:
    """Called for every platform a Device is made on: the installed tools see it too."""
    if platform in _platforms:
        return
    with _lock:
        _platforms.add(platform)
        try:
            for tool in _tools:
                _stack(platform).push(tool)
        except BaseException:  # as install: the platform is left as found, and tried again next time
            stack = _stacks.pop(platform, None)
            if stack is not None:
                stack.layers.clear()
                stack.apply(INTERCEPTED)
            _platforms.discard(platform)
            raise


def _stack(platform: Platform) -> _Stack:
    stack = _stacks.get(platform)
    if stack is None:
        stack = _stacks[platform] = _Stack(platform)
    return stack


def _remove(platform: Platform, index: int, above: tuple[Tool, ...]) -> None:
    stack = _stacks[platform]
    stack.remove(index, above)
    if not stack.layers:
        del _stacks[platform]


def _chain(tools: tuple[Tool, ...]) -> ApiHook | None:
    """The API hook through every tool, the last installed outermost; one
    tool's own api_call when it is alone, so that it costs what it did."""
    call: ApiHook | None = None
    for tool in tools:
        call = tool.api_call if call is None else _through(tool.api_call, call)
    return call


def _through(outer: ApiHook, inner: ApiHook) -> ApiHook:
    def api_call(name: str, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        return outer(name, lambda *a, **k: inner(name, fn, a, k), args, kwargs)

    return api_call

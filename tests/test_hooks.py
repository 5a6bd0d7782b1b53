"""Several tools at the hook point at once (runtime/hooks.py): the profiler and a
tool of this file's that counts what it sees, on every platform; the order in
which tools see a call; uninstalling in any order; a forked child; the errors."""

from __future__ import annotations

import collections
import gc
import itertools
import os

import numpy as np
import pytest

import hipkit
from hipkit import hip
from hipkit.platforms.base.platform import Platform
from hipkit.runtime import hooks

# These tests count the runtime's calls: every array's memory is one malloc and one free.
pytestmark = pytest.mark.usefixtures("memory_uncached")

SOURCE = r"""
extern "C" __global__ void vectorAdd(const float* A, const float* B, float* C, int N) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) C[idx] = A[idx] + B[idx];
}
"""
LAUNCHES = 5


class Counter:
    """A tool that counts the platform calls and HIP-named calls it sees, and
    notes them, by its label, in ``seen`` (which tools may share)."""

    def __init__(self, label: str = "counter", seen: list | None = None):
        self.label = label
        self.calls: collections.Counter[str] = collections.Counter()
        self.api: collections.Counter[str] = collections.Counter()
        self.seen = [] if seen is None else seen
        self.originals: dict[tuple[int, str], object] = {}  # (id(platform), name) -> what it wrapped

    def wrap(self, platform, name, original):
        self.originals[id(platform), name] = original
        calls, seen, label = self.calls, self.seen, self.label

        def counted(*args):
            calls[name] += 1
            seen.append((label, name))
            return original(*args)

        return counted

    def api_call(self, name, fn, args, kwargs):
        self.api[name] += 1
        self.seen.append((self.label, name))
        return fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<Counter {self.label}>"


@pytest.fixture(autouse=True)
def hook_point_left_as_found():
    """Each test starts with no tool installed, even after another's failure, and with
    earlier tests' garbage collected (a module the collector unloads during a test would
    be a call its tools see)."""
    assert hooks.installed() == ()
    gc.collect()
    yield
    for tool in reversed(hooks.installed()):
        hooks.uninstall(tool)


def assert_nothing_shadowed(platform: Platform) -> None:
    assert hooks.installed() == () and hooks.api is None
    assert not set(hooks.INTERCEPTED) & platform.__dict__.keys()


def without_timestamps(monkeypatch, platform: Platform) -> None:
    """The profiler times device work with events, as on a platform without timestamps."""
    monkeypatch.setattr(type(platform), "activity_start", lambda self: False)


def program(device, module, n: int = 256) -> np.ndarray:
    """Allocations, copies, launches, a stream and event, HIP-named calls."""
    x = np.arange(n, dtype=np.float32)
    a = hipkit.to_device(x)
    c = hipkit.empty(n, np.float32)
    add = module.get_function("vectorAdd")
    for _ in range(LAUNCHES):
        add[(n + 63) // 64, 64](a, a, c, n)
    stream = hipkit.Stream()
    stream.record().synchronize()
    ptr = hip.hipMalloc(64)
    hip.hipFree(ptr)
    hip.hipDeviceSynchronize()
    result = c.get()
    del a, c
    return result


@pytest.mark.parametrize("timestamps", ["platform", "events"])
@pytest.mark.parametrize(
    "first, leaves_first",
    [("profiler", "profiler"), ("profiler", "counter"), ("counter", "profiler"), ("counter", "counter")],
)
def test_the_profiler_and_another_tool_both_see_every_call(
    device, monkeypatch, timestamps, first, leaves_first
):
    if timestamps == "events":
        without_timestamps(monkeypatch, device.platform)
    module = hipkit.compile(SOURCE)
    counter = Counter()
    p = hipkit.profile()
    install = {"profiler": p.start, "counter": lambda: hooks.install(counter)}
    leave = {"profiler": p.stop, "counter": lambda: hooks.uninstall(counter)}
    second = {"profiler": "counter", "counter": "profiler"}

    try:
        install[first]()
        install[second[first]]()
        assert len(hooks.installed()) == 2
        result = program(device, module)
        np.testing.assert_array_equal(result, 2 * np.arange(256, dtype=np.float32))

        # the counter sees the program's calls only: the profiler's own (its timing events,
        # its synchronizes) go to the platform below every tool, whichever came first
        assert counter.calls["launch"] == LAUNCHES
        assert counter.calls["malloc"] == 3 and counter.calls["free"] == 3 and counter.calls["memcpy"] == 2
        assert counter.calls["event_record"] == 1 and counter.calls["event_create"] == 1
        assert counter.api == {"hipMalloc": 1, "hipFree": 1, "hipDeviceSynchronize": 1}
        # and the profiler sees them all too
        kernels, api = len(p.kernels), collections.Counter(call.function for call in p.api_calls)
        assert kernels == LAUNCHES and all(k.name == "vectorAdd" for k in p.kernels)
        assert api["hipModuleLaunchKernel"] == LAUNCHES
        assert api["hipMalloc"] == 3 and api["hipFree"] == 3 and api["hipDeviceSynchronize"] == 1
        assert api["hipEventRecord"] == 1 and api["hipEventCreateWithFlags"] == 1
        assert len(p.copies) == 2
        assert collections.Counter(a.operation for a in p.allocations) == {"ALLOCATE": 3, "FREE": 3}

        # the one left keeps seeing every call, the one gone sees none
        leave[leaves_first]()
        assert len(hooks.installed()) == 1
        program(device, module)
        leave[second[leaves_first]]()
        if leaves_first == "profiler":
            assert len(p.kernels) == LAUNCHES and counter.calls["launch"] == 2 * LAUNCHES
            assert counter.api["hipMalloc"] == 2
        else:
            assert len(p.kernels) == 2 * LAUNCHES and counter.calls["launch"] == LAUNCHES
            assert collections.Counter(call.function for call in p.api_calls)["hipMalloc"] == 6
    finally:  # after a failure too: the next test starts with no profile running
        if p.running:
            p.stop()
        if counter in hooks.installed():
            hooks.uninstall(counter)
    assert_nothing_shadowed(device.platform)


def test_the_tool_installed_last_sees_each_call_first(device):
    seen: list[tuple[str, str]] = []
    first, last = Counter("first", seen), Counter("last", seen)
    hooks.install(first)
    hooks.install(last)
    hip.hipDeviceSynchronize()
    hooks.uninstall(first)
    hooks.uninstall(last)
    assert seen == [
        ("last", "hipDeviceSynchronize"),
        ("first", "hipDeviceSynchronize"),
        ("last", "synchronize"),
        ("first", "synchronize"),
    ]
    assert_nothing_shadowed(device.platform)


def test_one_tool_wraps_the_platforms_own_methods_and_two_stack(device):
    """With one tool nothing stands between it and the platform (its cost is what it
    was with one tool only); a second wraps the first's wrappers."""
    platform = device.platform
    assert "launch" not in platform.__dict__ and hooks.api is None
    own = type(platform).launch.__get__(platform)
    first, second = Counter("first"), Counter("second")
    hooks.install(first)
    assert first.originals[id(platform), "launch"] == own
    assert hooks.api == first.api_call
    firsts = platform.__dict__["launch"]
    hooks.install(second)
    assert second.originals[id(platform), "launch"] is firsts
    hooks.uninstall(second)
    hooks.uninstall(first)
    assert_nothing_shadowed(platform)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_tools_uninstalled_in_any_order_leave_the_others_seeing_every_call(device, order):
    seen: list[tuple[str, str]] = []
    tools = [Counter(str(i), seen) for i in range(3)]
    for tool in tools:
        hooks.install(tool)
    left = list(tools)
    for index in order:
        hooks.uninstall(tools[index])
        left.remove(tools[index])
        assert hooks.installed() == tuple(left)
        seen.clear()
        hip.hipDeviceSynchronize()
        expected = [t.label for t in reversed(left)]
        assert [label for label, name in seen if name == "hipDeviceSynchronize"] == expected
        assert [label for label, name in seen if name == "synchronize"] == expected
    assert_nothing_shadowed(device.platform)


def late_platform() -> Platform:
    """A platform no Device was made on yet, whose methods do nothing."""
    stub = {name: (lambda self, *args: None) for name in Platform.__abstractmethods__}
    return type("LatePlatform", (Platform,), {"name": "late", **stub})()


def test_a_platform_first_used_after_installation_is_wrapped_by_every_tool():
    late = late_platform()
    seen: list[tuple[str, str]] = []
    first, last = Counter("first", seen), Counter("last", seen)
    hooks.install(first)
    hooks.install(last)
    hooks.platform_used(late)
    late.malloc(0, 64)
    hooks.uninstall(last)
    late.free(0, 64)
    hooks.uninstall(first)
    late.synchronize(0)
    assert seen == [("last", "malloc"), ("first", "malloc"), ("first", "free")]
    assert not set(hooks.INTERCEPTED) & late.__dict__.keys()


def test_a_method_shadowed_before_the_tools_is_wrapped_and_put_back(device, monkeypatch):
    platform = device.platform
    own, calls = platform.synchronize, []

    def synchronize(native):
        calls.append(native)
        own(native)

    # Set and taken away by hand: some pytest versions' monkeypatch would leave the bound
    # method behind as an instance attribute, a shadowing of its own for later tests.
    platform.synchronize = synchronize
    try:
        seen: list[tuple[str, str]] = []
        first, last = Counter("first", seen), Counter("last", seen)
        hooks.install(first)
        hooks.install(last)
        assert first.originals[id(platform), "synchronize"] is synchronize
        hooks.uninstall(first)  # the bottom one: the other now wraps the shadowing function
        assert last.originals[id(platform), "synchronize"] is synchronize
        device.synchronize()
        hooks.uninstall(last)
        assert platform.__dict__["synchronize"] is synchronize
        device.synchronize()
        assert seen == [("last", "synchronize")] and calls == [device._native] * 2
    finally:
        vars(platform).pop("synchronize", None)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this system")
def test_a_forked_child_forgets_the_profiler_and_keeps_the_other_tool(device):
    counter = Counter()
    with hipkit.profile() as p:
        hooks.install(counter)
        child = os.fork()
        if child == 0:  # no device work here: a GPU's context is the parent's
            ok = hooks.installed() == (counter,) and hooks.api == counter.api_call
            ok = ok and p._spool.path is None
            hip.hipGetDevice()
            ok = ok and counter.api == {"hipGetDevice": 1}
            os._exit(0 if ok else 1)
        _, status = os.waitpid(child, 0)
        hooks.uninstall(counter)
    assert os.waitstatus_to_exitcode(status) == 0
    assert_nothing_shadowed(device.platform)


# ------------------------------------------------------------------ errors


def test_installing_a_tool_twice_is_an_error(device):
    tool = Counter()
    hooks.install(tool)
    with pytest.raises(RuntimeError, match=r"<Counter counter> is already installed at hipkit's hook point"):
        hooks.install(tool)
    assert hooks.installed() == (tool,)
    hooks.uninstall(tool)
    assert_nothing_shadowed(device.platform)


def test_uninstalling_a_tool_not_installed_is_an_error(device):
    tool, other = Counter("tool"), Counter("other")
    with pytest.raises(RuntimeError, match=r"<Counter tool> is not installed at hipkit's hook point"):
        hooks.uninstall(tool)
    hooks.install(other)
    with pytest.raises(RuntimeError, match="is not installed"):
        hooks.uninstall(tool)
    hooks.uninstall(other)
    with pytest.raises(RuntimeError, match="is not installed"):
        hooks.uninstall(other)
    assert_nothing_shadowed(device.platform)


def test_two_profiles_at_once_are_an_error_beside_another_tool(device):
    counter = Counter()
    hooks.install(counter)
    with hipkit.profile():
        with pytest.raises(RuntimeError, match="one at a time"):
            hipkit.profile().start()
        assert len(hooks.installed()) == 2
    hooks.uninstall(counter)
    assert_nothing_shadowed(device.platform)


def test_a_tool_that_cannot_wrap_leaves_the_hook_point_as_it_was(device):
    platform = device.platform

    class Broken(Counter):
        def wrap(self, platform, name, original):
            if name == "launch":
                raise ValueError("cannot wrap launch")
            return super().wrap(platform, name, original)

    working = Counter("working")
    hooks.install(working)
    before = dict(platform.__dict__)
    with pytest.raises(ValueError, match="cannot wrap launch"):
        hooks.install(Broken("broken"))
    assert hooks.installed() == (working,) and platform.__dict__ == before
    device.synchronize()
    assert working.calls["synchronize"] == 1
    hooks.uninstall(working)
    assert_nothing_shadowed(platform)


def test_a_tool_that_cannot_wrap_a_platform_used_later_leaves_it_as_it_was():
    class Picky(Counter):
        def wrap(self, platform, name, original):
            if platform.name == "late" and name == "free":
                raise ValueError("cannot wrap free")
            return super().wrap(platform, name, original)

    late, working, picky = late_platform(), Counter("working"), Picky("picky")
    hooks.install(working)
    hooks.install(picky)
    with pytest.raises(ValueError, match="cannot wrap free"):
        hooks.platform_used(late)
    assert not set(hooks.INTERCEPTED) & late.__dict__.keys()
    hooks.uninstall(picky)
    hooks.platform_used(late)  # tried again: now every tool wraps it
    late.free(0, 64)
    assert working.calls["free"] == 1 and picky.calls["free"] == 0
    hooks.uninstall(working)
    assert not set(hooks.INTERCEPTED) & late.__dict__.keys()

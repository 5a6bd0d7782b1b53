"""numpy.fft's transforms by their names, over :func:`._transforms.transform`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..runtime.memory import DeviceArray
from ._transforms import NORMS, as_array, keep, transform

Shape = Sequence[int] | None
Axes = Sequence[int] | None

_MAX_AXES = 3  # the axes one hipFFT plan transforms


def _check_norm(norm: str | None) -> None:
    if norm not in NORMS:
        raise ValueError(f'norm: {norm!r}; expected None, "backward", "ortho" or "forward"')


def _axes_and_lengths(
    a: DeviceArray, s: Shape, axes: Axes, function: str, real_inverse: bool = False
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """NumPy's rules: axes default to the last ``len(s)`` (or all); ``s`` to the
    array's lengths (-1: the array's; for irfftn the last is 2 * (m - 1))."""
    ndim = a.ndim
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = list(axes)
    normalized = []
    for axis in axes:
        if not -ndim <= axis < ndim:
            raise ValueError(f"{function}: axis {axis} is out of bounds for an array of {ndim} dimensions")
        normalized.append(axis % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"{function}: repeated axes {axes}")
    if not normalized:
        raise ValueError(f"{function}: no axes to transform")
    if s is None:
        lengths = [a.shape[x] for x in normalized]
        if real_inverse:
            lengths[-1] = 2 * (lengths[-1] - 1)
    else:
        s = list(s)
        if len(s) != len(normalized):
            raise ValueError(f"{function}: s has {len(s)} lengths and axes {len(normalized)}")
        lengths = [a.shape[x] if n == -1 else int(n) for n, x in zip(s, normalized, strict=True)]
        if real_inverse and s[-1] == -1:
            lengths[-1] = 2 * (a.shape[normalized[-1]] - 1)
    for n in lengths:
        if n < 1:
            raise ValueError(f"{function}: invalid number of data points ({n}) specified")
    return tuple(normalized), tuple(lengths)


def _groups(axes: tuple[int, ...], lengths: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The axes in plans of at most three, the last axes' first."""
    groups = []
    end = len(axes)
    while end > 0:
        start = max(0, end - _MAX_AXES)
        groups.append((axes[start:end], lengths[start:end]))
        end = start
    return groups


Step = tuple[str, tuple[int, ...], tuple[int, ...], bool]  # (kind, axes, lengths, forward) of a plan
_steps: dict[tuple[Any, ...], list[Step]] = {}
_MAX_STEPS = 1024  # calls' shapes kept; past it the memo starts again


def _plan_steps(kind: str, a: DeviceArray, s: Shape, axes: Axes, forward: bool, name: str) -> list[Step]:
    """The plans of a call, in order: NumPy's rules applied once per (kind, shape, s,
    axes, direction, function), kept for the calls that repeat them."""
    try:
        memo = (kind, a.shape, s, axes, forward, name)
        steps = _steps.get(memo)
    except TypeError:  # s or axes a list: not kept
        memo, steps = None, None
    if steps is not None:
        return steps
    axes_, lengths = _axes_and_lengths(a, s, axes, name, real_inverse=kind == "c2r")
    groups = _groups(axes_, lengths)
    if kind == "c2c":
        steps = [("c2c", g, n, forward) for g, n in groups]
    elif kind == "r2c":
        steps = [("r2c", *groups[0], True)] + [("c2c", g, n, True) for g, n in groups[1:]]
    else:
        steps = [("c2c", g, n, False) for g, n in groups[1:]] + [("c2r", *groups[0], False)]
    if memo is not None:
        if len(_steps) >= _MAX_STEPS:
            _steps.clear()
        _steps[memo] = steps
    return steps


def _run(
    kind: str,
    value: Any,
    s: Shape,
    axes: Axes,
    norm: str | None,
    forward: bool,
    stream: Any,
    name: str,
    out: Any = None,
) -> DeviceArray:
    _check_norm(norm)
    a = as_array(value)
    steps = _plan_steps(kind, a, s, axes, forward, name)
    target = None if out is None else as_array(out, "out")
    x = a
    last = len(steps) - 1
    for i, (step, group_axes, group_lengths, direction) in enumerate(steps):
        x = transform(
            step, x, group_axes, group_lengths, direction, norm, stream, target if i == last else None
        )
    if a is not value or target is not out:  # foreign tensors: kept until the work is done
        keep(a.device, (value, out), stream)
    return x if out is None else out


def _one(n: int | None, axis: int) -> tuple[tuple[int] | None, tuple[int]]:
    return (None if n is None else (n,)), (axis,)


def fft(
    a: Any,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The 1-D discrete Fourier transform, as ``numpy.fft.fft`` (``n``: crop or pad
    with zeros to ``n`` points)."""
    return _run("c2c", a, *_one(n, axis), norm, True, stream, "fft", out)


def ifft(
    a: Any,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The 1-D inverse transform, as ``numpy.fft.ifft``."""
    return _run("c2c", a, *_one(n, axis), norm, False, stream, "ifft", out)


def rfft(
    a: Any,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The 1-D transform of real input (``n // 2 + 1`` outputs), as ``numpy.fft.rfft``."""
    return _run("r2c", a, *_one(n, axis), norm, True, stream, "rfft", out)


def irfft(
    a: Any,
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The inverse of :func:`rfft` (``n`` real outputs, by default ``2 * (m - 1)``)."""
    return _run("c2r", a, *_one(n, axis), norm, False, stream, "irfft", out)


def fftn(
    a: Any,
    s: Shape = None,
    axes: Axes = None,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The N-D transform, as ``numpy.fft.fftn``."""
    return _run("c2c", a, s, axes, norm, True, stream, "fftn", out)


def ifftn(
    a: Any,
    s: Shape = None,
    axes: Axes = None,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The N-D inverse transform, as ``numpy.fft.ifftn``."""
    return _run("c2c", a, s, axes, norm, False, stream, "ifftn", out)


def rfftn(
    a: Any,
    s: Shape = None,
    axes: Axes = None,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The N-D transform of real input, as ``numpy.fft.rfftn``."""
    return _run("r2c", a, s, axes, norm, True, stream, "rfftn", out)


def irfftn(
    a: Any,
    s: Shape = None,
    axes: Axes = None,
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The inverse of :func:`rfftn`, as ``numpy.fft.irfftn``."""
    return _run("c2r", a, s, axes, norm, False, stream, "irfftn", out)


def fft2(
    a: Any,
    s: Shape = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The 2-D transform, as ``numpy.fft.fft2``."""
    return _run("c2c", a, s, axes, norm, True, stream, "fft2", out)


def ifft2(
    a: Any,
    s: Shape = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The 2-D inverse transform, as ``numpy.fft.ifft2``."""
    return _run("c2c", a, s, axes, norm, False, stream, "ifft2", out)


def rfft2(
    a: Any,
    s: Shape = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The 2-D transform of real input, as ``numpy.fft.rfft2``."""
    return _run("r2c", a, s, axes, norm, True, stream, "rfft2", out)


def irfft2(
    a: Any,
    s: Shape = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
    *,
    out: Any = None,
    stream: Any = None,
) -> DeviceArray:
    """The inverse of :func:`rfft2`, as ``numpy.fft.irfft2``."""
    return _run("c2r", a, s, axes, norm, False, stream, "irfft2", out)

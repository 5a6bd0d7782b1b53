"""A hipFFT plan's parameters, checked by hipFFT's rules, and its arrays' geometry.

What hipfftMakePlan* is told (rank, lengths, embeddings, strides, distances, type,
batch), as the providers written in Python keep it: the CPU's (scipy.fft) executes
from it, NVIDIA's checks with it what cuFFT would let through differently from ROCm's
hipFFT.  The rules are :mod:`hipkit.platforms.base.fft`'s.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass

import numpy as np

from .fft import HIPFFT_BACKWARD, HIPFFT_FORWARD, hipfftResult, hipfftType

__all__ = [
    "EXEC_TYPES",
    "Geometry",
    "PlanDescription",
    "TypeInfo",
    "describe",
    "direction_ok",
    "ints_at",
    "many",
    "type_info",
    "write_handle",
    "write_size",
]

R = hipfftResult


@dataclass(frozen=True)
class TypeInfo:
    """A transform type: its kind ("c2c", "r2c", "c2r"), input and output dtypes."""

    kind: str
    input: np.dtype
    output: np.dtype
    exec_name: str  # the hipfftExec function of the type


_TYPES = {
    hipfftType.HIPFFT_C2C: TypeInfo("c2c", np.dtype(np.complex64), np.dtype(np.complex64), "hipfftExecC2C"),
    hipfftType.HIPFFT_R2C: TypeInfo("r2c", np.dtype(np.float32), np.dtype(np.complex64), "hipfftExecR2C"),
    hipfftType.HIPFFT_C2R: TypeInfo("c2r", np.dtype(np.complex64), np.dtype(np.float32), "hipfftExecC2R"),
    hipfftType.HIPFFT_Z2Z: TypeInfo("c2c", np.dtype(np.complex128), np.dtype(np.complex128), "hipfftExecZ2Z"),
    hipfftType.HIPFFT_D2Z: TypeInfo("r2c", np.dtype(np.float64), np.dtype(np.complex128), "hipfftExecD2Z"),
    hipfftType.HIPFFT_Z2D: TypeInfo("c2r", np.dtype(np.complex128), np.dtype(np.float64), "hipfftExecZ2D"),
}
# Each exec function's type.
EXEC_TYPES = {info.exec_name: kind for kind, info in _TYPES.items()}


def type_info(kind: int) -> TypeInfo | None:
    """The type ``kind`` (a hipfftType number), None where hipFFT has no such type."""
    try:
        return _TYPES[hipfftType(kind)]
    except ValueError:
        return None


@dataclass(frozen=True)
class Geometry:
    """One side of a plan (input or output) as an array: ``shape`` (batch first) and
    ``strides`` in elements, and ``span``, the elements from the first to one past
    the last it touches."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    span: int


def _geometry(
    batch: int, dist: int, lengths: tuple[int, ...], stride: int, embed: tuple[int, ...]
) -> Geometry:
    strides = [0] * len(lengths)
    step = stride
    for k in range(len(lengths) - 1, -1, -1):
        strides[k] = step
        step *= embed[k]
    shape = (batch, *lengths)
    all_strides = (dist, *strides)
    span = 1 + sum((n - 1) * s for n, s in zip(shape, all_strides, strict=True))
    return Geometry(shape, all_strides, span)


@dataclass(frozen=True)
class PlanDescription:
    """A plan as made: what hipfftMakePlanMany was given (``inembed``/``onembed`` None:
    the basic layout), its type's :class:`TypeInfo`, and its arrays' geometries, out
    of place and in place."""

    rank: int
    n: tuple[int, ...]
    type: int
    batch: int
    info: TypeInfo
    input: Geometry
    output: Geometry
    input_in_place: Geometry
    output_in_place: Geometry
    in_place_ok: bool  # whether the in-place layouts overlay element for element
    basic: bool  # the basic layout (no embeddings given)

    @property
    def size(self) -> int:
        """The points of one transform (the product of ``n``)."""
        return math.prod(self.n)

    def geometries(self, in_place: bool) -> tuple[Geometry, Geometry]:
        return (self.input_in_place, self.output_in_place) if in_place else (self.input, self.output)


def describe(
    rank: int,
    n: tuple[int, ...],
    inembed: tuple[int, ...] | None,
    istride: int,
    idist: int,
    onembed: tuple[int, ...] | None,
    ostride: int,
    odist: int,
    kind: int,
    batch: int,
) -> PlanDescription | int:
    """The plan's description, or the hipfftResult that hipfftMakePlanMany answers."""
    info = type_info(kind)
    if info is None:
        return R.HIPFFT_NOT_IMPLEMENTED
    if rank not in (1, 2, 3) or len(n) != rank or min(n) < 1 or batch < 1:
        return R.HIPFFT_INVALID_SIZE
    half = (*n[:-1], n[-1] // 2 + 1)
    in_lengths = half if info.kind == "c2r" else n
    out_lengths = half if info.kind == "r2c" else n
    if inembed is None or onembed is None:
        ip_in, ip_out = in_lengths, out_lengths
        padded = (*n[:-1], 2 * (n[-1] // 2 + 1))  # in place, the real side's rows
        if info.kind == "r2c":
            ip_in = padded
        elif info.kind == "c2r":
            ip_out = padded
        geo_in = _geometry(batch, math.prod(in_lengths), in_lengths, 1, in_lengths)
        geo_out = _geometry(batch, math.prod(out_lengths), out_lengths, 1, out_lengths)
        ip_geo_in = _geometry(batch, math.prod(ip_in), in_lengths, 1, ip_in)
        ip_geo_out = _geometry(batch, math.prod(ip_out), out_lengths, 1, ip_out)
        return PlanDescription(
            rank,
            n,
            kind,
            batch,
            info,
            geo_in,
            geo_out,
            ip_geo_in,
            ip_geo_out,
            _overlay(info, ip_geo_in, ip_geo_out),
            True,
        )
    if len(inembed) != rank or len(onembed) != rank:
        return R.HIPFFT_INVALID_SIZE
    if any(e < m for e, m in zip(inembed[1:], in_lengths[1:], strict=True)) or any(
        e < m for e, m in zip(onembed[1:], out_lengths[1:], strict=True)
    ):
        return R.HIPFFT_INVALID_SIZE
    if istride < 1 or ostride < 1 or idist < 0 or odist < 0:
        return R.HIPFFT_INVALID_VALUE
    geo_in = _geometry(batch, idist, in_lengths, istride, inembed)
    geo_out = _geometry(batch, odist, out_lengths, ostride, onembed)
    return PlanDescription(
        rank, n, kind, batch, info, geo_in, geo_out, geo_in, geo_out, _overlay(info, geo_in, geo_out), False
    )


def _overlay(info: TypeInfo, inp: Geometry, out: Geometry) -> bool:
    """Whether output element i sits where input element i does (complex to complex),
    or, for real transforms, where real elements 2j and 2j+1 of the row do: the
    in-place layouts hipFFT accepts."""
    if info.kind == "c2c":
        return inp.strides == out.strides
    real, cplx = (inp, out) if info.kind == "r2c" else (out, inp)
    outer = all(r == 2 * c for r, c in zip(real.strides[:-1], cplx.strides[:-1], strict=True))
    return outer and real.strides[-1] == 1 and cplx.strides[-1] == 1


def direction_ok(direction: int) -> bool:
    """Whether ``direction`` is HIPFFT_FORWARD or HIPFFT_BACKWARD."""
    return direction in (HIPFFT_FORWARD, HIPFFT_BACKWARD)


def ints_at(address: int, count: int) -> tuple[int, ...] | None:
    """The ``count`` C ints at ``address`` (an ``int*`` argument), None for NULL."""
    if not address:
        return None
    return tuple((ctypes.c_int * count).from_address(address))


def write_size(address: int, value: int) -> None:
    """``*workSize = value`` where ``address`` is not NULL."""
    if address:
        ctypes.c_size_t.from_address(address).value = value


def write_handle(address: int, value: int) -> None:
    """``*plan = value`` (a ``hipfftHandle*``, pointer-sized: its low bytes hold cuFFT's
    int handle, as the front end reads it)."""
    ctypes.c_uint64.from_address(address).value = value


def many(
    plan_args: tuple[int, ...],
) -> tuple[int, tuple[int, ...] | None, tuple[int, ...] | None, int, int, tuple[int, ...] | None, int, int]:
    """hipfftMakePlanMany's (rank, n, inembed, istride, idist, onembed, ostride, odist)
    read from its C arguments (the arrays' addresses); n None where it is NULL or the
    rank is not 1 to 3."""
    rank, n, inembed, istride, idist, onembed, ostride, odist = plan_args
    if rank not in (1, 2, 3):
        return rank, None, None, istride, idist, None, ostride, odist
    return (
        rank,
        ints_at(n, rank),
        ints_at(inembed, rank),
        istride,
        idist,
        ints_at(onembed, rank),
        ostride,
        odist,
    )

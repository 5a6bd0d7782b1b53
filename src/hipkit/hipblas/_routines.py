"""hipBLAS's compute routines as Python functions, made from blas_api once, at import.

Each wrapper takes hipBLAS's arguments in hipBLAS's order (``_routines.wrapper``'s
docstring says how Python values become C's).  Everything that depends only on the
routine (which parameters are arrays, the C type of its scalars, the reader of its
result) is worked out here, once; a call costs a lookup of its handle, a type test
per array, a C value per host scalar, and the provider's function.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from ..runtime import hooks
from ..runtime.memory import DeviceArray
from ..runtime.memory import device_pointer as foreign_pointer
from ..tables import blas_api
from ._args import RESULT_READERS, SCALAR_MAKERS, base_type, ex_scalar, host_pointer
from ._handles import ROUTINES, live, not_initialized, reset_took
from ._status import HipblasError

_POINTERS = (blas_api.ARRAY, blas_api.BATCH)


def _signature(routine: blas_api.Routine) -> str:
    names = [p.name for p in routine.params]
    if routine.params[-1].role == blas_api.RESULT:
        names[-1] += "=None"
    return f"{routine.name}({', '.join(names)})"


def _doc(routine: blas_api.Routine) -> str:
    c_params = ", ".join(p.declaration for p in routine.params)
    lines = [
        _signature(routine),
        "",
        f"hipBLAS's ``hipblasStatus_t {routine.name}({c_params})``.",
    ]
    if routine.params[-1].role == blas_api.RESULT:
        lines += [
            "",
            "In HIPBLAS_POINTER_MODE_HOST, leave out ``result``: the value is returned "
            "(a NumPy scalar; amax/amin: a 1-based int).  In HIPBLAS_POINTER_MODE_DEVICE, "
            "``result`` is device memory and the call returns None.",
        ]
    if routine.aliases:
        lines += ["", f"Also named {', '.join(routine.aliases)}."]
    return "\n".join(lines)


def wrapper(index: int) -> Callable[..., Any]:
    """The Python function of ROUTINES[index].

    Arguments, as hipkit.hipblas's docstring says: arrays are device pointers (ints),
    DeviceArrays or DLPack/CUDA-array-interface tensors; scalars are numbers in host
    pointer mode (converted to the routine's C type) and device memory in device mode;
    the result is returned in host mode and written to ``result`` in device mode.
    """
    routine = ROUTINES[index]
    name = routine.name
    params = routine.params
    count = len(params)
    arrays = tuple(i for i, p in enumerate(params) if p.role in _POINTERS)
    scalar_at = tuple(i for i, p in enumerate(params) if p.role == blas_api.SCALAR)
    has_result = params[-1].role == blas_api.RESULT
    reader: Any = RESULT_READERS[params[-1].ctype] if has_result else None
    result_ctype: Any = getattr(reader, "ctype", None)
    if routine.element:  # the scalars' C types are the routine's
        makers = tuple(SCALAR_MAKERS[base_type(params[i])] for i in scalar_at)
        compute_at = ctype_at = -1
    else:  # an Ex form: the compute type and C's type decide at each call
        makers = ()
        compute_at = next(i for i, p in enumerate(params) if p.role == blas_api.COMPUTE)
        ctype_at = next(i for i, p in enumerate(params) if p.name == "cType")
    scalars = tuple(zip(scalar_at, makers or (None,) * len(scalar_at), strict=True))
    param_names = tuple(p.name for p in params)
    # In device pointer mode, the scalars and the result are device memory too.
    device_pointers = tuple(sorted((*arrays, *scalar_at, *((count - 1,) if has_result else ()))))
    addressof = ctypes.addressof

    def routine_call(*args: Any) -> Any:
        try:
            state = live.get(args[0])
        except (IndexError, TypeError):
            state = None
        if state is None:
            raise not_initialized(name, args[0] if args else None)
        if state.reset():
            raise reset_took(name, args[0])
        given = len(args)
        c = list(args)
        device_mode = state.device_mode
        slot = None
        if given != count:
            if not (has_result and given == count - 1 and not device_mode):
                raise _arity(name, routine, given, device_mode)
            slot = result_ctype()
            c.append(addressof(slot))
        elif has_result and not device_mode:  # a result in host mode, at a host address given
            c[-1] = host_pointer(c[-1], name, "result", writable=True)[0]
        for i in device_pointers if device_mode else arrays:
            value = c[i]
            if type(value) is not int:
                c[i] = (
                    value.ptr
                    if type(value) is DeviceArray
                    else foreign_pointer(value, state.device, name, param_names[i])
                )
        keep = None
        if scalars and not device_mode:
            keep = []
            for i, make in scalars:
                if make is None:
                    make = ex_scalar(c[compute_at], c[ctype_at])
                try:
                    value = make(c[i])
                except TypeError as exc:
                    raise TypeError(f"{name}: {param_names[i]}: {exc} (host pointer mode)") from None
                keep.append(value)
                c[i] = addressof(value)
        function = state.functions[index] or state.library.routine(index)
        tool = hooks.api
        status = function(*c) if tool is None else tool(name, function, tuple(c), {})
        if status:
            raise HipblasError(status, name)
        del keep
        if slot is not None:
            return reader(slot)
        return None

    routine_call.__name__ = routine_call.__qualname__ = name
    routine_call.__module__ = "hipkit.hipblas"
    routine_call.__doc__ = _doc(routine)
    return routine_call


def _arity(name: str, routine: blas_api.Routine, given: int, device_mode: bool) -> TypeError:
    mode = "device" if device_mode else "host"
    return TypeError(f"{_signature(routine)}: {given} arguments given ({mode} pointer mode)")


def routines() -> dict[str, Callable[..., Any]]:
    """Every routine's wrapper by each of its hipBLAS names (the _v2 aliases too)."""
    made = {}
    for index, routine in enumerate(ROUTINES):
        function = wrapper(index)
        for routine_name in routine.names:
            made[routine_name] = function
    return made

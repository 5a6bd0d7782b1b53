"""hiprtc, HIP's run-time compiler, HIP-named.

A program is compiled for the current device's target by its platform's
compiler.  hiprtc calls raise :class:`HiprtcError` carrying a hiprtcResult;
they do not touch hipGetLastError (hiprtc is a library of its own in HIP too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._errors import CompileError, CompileOptionError
from ..platforms.base.platform import Target
from ..runtime.device import get_device
from ._module import image_bytes
from ._types import hiprtcResult

R = hiprtcResult


class HiprtcError(RuntimeError):
    """A hiprtc call failed: ``code`` (hiprtcResult), ``name``, and for a failed
    compilation ``log``, the compiler's diagnostics (also hiprtcGetProgramLog)."""

    def __init__(self, code: hiprtcResult, detail: str = "", log: str = ""):
        self.code = code
        self.name = code.name
        self.log = log
        text = f"{code.name} ({int(code)})"
        if detail:
            text += f": {detail}"
        super().__init__(f"{text}\n{log}" if log else text)


class hiprtcProgram:  # HIP's own name
    """A program of hiprtcCreateProgram: source, headers, name expressions, and
    once compiled its code and log.  Opaque: use the hiprtc functions."""

    def __init__(self, source: str, name: str, headers: dict[str, str]):
        self._source = source
        self._name = name
        self._headers = headers
        self._name_expressions: list[str] = []
        self._compiled = False
        self._binary: Any = None
        self._target: Target | None = None
        self._code: bytes | None = None
        self._log = ""
        self._destroyed = False

    def __repr__(self) -> str:
        state = "destroyed" if self._destroyed else "compiled" if self._compiled else "new"
        return f"<hiprtcProgram {self._name} ({state})>"


def _text(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    raise HiprtcError(
        R.HIPRTC_ERROR_INVALID_INPUT, f"{what} must be str or bytes, got {type(value).__name__}"
    )


def _program(prog: Any) -> hiprtcProgram:
    if not isinstance(prog, hiprtcProgram) or prog._destroyed:
        raise HiprtcError(R.HIPRTC_ERROR_INVALID_PROGRAM, f"{prog!r} is not a live hiprtcProgram")
    return prog


def _compiled(prog: Any) -> hiprtcProgram:
    prog = _program(prog)
    if prog._binary is None:
        raise HiprtcError(R.HIPRTC_ERROR_INVALID_PROGRAM, "the program has not compiled successfully")
    return prog


def hiprtcCreateProgram(
    src,
    name=None,
    headers: Sequence = (),  # HIP's names
    includeNames: Sequence = (),
) -> hiprtcProgram:
    """hiprtcCreateProgram: a program from HIP C++ ``src``; ``name`` is the file name
    diagnostics show; ``headers[i]`` is the text ``#include "includeNames[i]"`` gives."""
    if src is None:
        raise HiprtcError(R.HIPRTC_ERROR_INVALID_INPUT, "src is NULL")
    headers, include_names = list(headers or ()), list(includeNames or ())
    if len(headers) != len(include_names):
        raise HiprtcError(
            R.HIPRTC_ERROR_INVALID_INPUT, f"{len(headers)} headers but {len(include_names)} include names"
        )
    pairs = zip(include_names, headers, strict=True)
    texts = {_text(include, "include name"): _text(text, "header") for include, text in pairs}
    return hiprtcProgram(_text(src, "src"), _text(name, "name") if name else "default_program", texts)


def hiprtcAddNameExpression(prog, name_expression) -> None:
    """hiprtcAddNameExpression: make a kernel instantiation (``"axpy<float>"``) part of
    the program, its lowered name given by hiprtcGetLoweredName after compiling."""
    prog = _program(prog)
    if prog._compiled:
        raise HiprtcError(R.HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION)
    expression = _text(name_expression, "name expression").strip()
    if not expression:
        raise HiprtcError(R.HIPRTC_ERROR_INVALID_INPUT, "empty name expression")
    if expression not in prog._name_expressions:
        prog._name_expressions.append(expression)


def hiprtcCompileProgram(prog, options: Sequence = ()) -> None:
    """hiprtcCompileProgram: compile for the current device; options as hipcc's
    (``-D``, ``-I``, ``-std=``, ``-O``, ...).  Raises HiprtcError(HIPRTC_ERROR_COMPILATION)
    with the log on failure."""
    prog = _program(prog)
    device = get_device()
    target = device.target
    prog._compiled = True
    prog._binary = prog._code = None
    try:
        binary = device.platform.compile(
            prog._source,
            target,
            name=prog._name,
            options=tuple(_text(o, "option") for o in options or ()),
            name_expressions=tuple(prog._name_expressions),
            headers=dict(prog._headers),
        )
    except CompileOptionError as exc:
        prog._log = str(exc)
        raise HiprtcError(R.HIPRTC_ERROR_INVALID_OPTION, str(exc), prog._log) from None
    except CompileError as exc:
        prog._log = exc.log or str(exc)
        raise HiprtcError(R.HIPRTC_ERROR_COMPILATION, f"compiling {prog._name} failed", prog._log) from None
    prog._binary, prog._target, prog._log = binary, target, getattr(binary, "log", "")


def hiprtcGetProgramLogSize(prog) -> int:
    """hiprtcGetProgramLogSize: the log's size in bytes, counting the terminating NUL as hiprtc does."""
    return len(_program(prog)._log.encode()) + 1


def hiprtcGetProgramLog(prog) -> str:
    """hiprtcGetProgramLog: the compiler's diagnostics (errors name the file and line)."""
    return _program(prog)._log


def hiprtcGetCode(prog) -> bytes:
    """hiprtcGetCode: the compiled module's bytes, which hipModuleLoadData loads."""
    prog = _compiled(prog)
    if prog._code is None:
        assert prog._target is not None
        prog._code = image_bytes(prog._binary, prog._target)
    return prog._code


def hiprtcGetCodeSize(prog) -> int:
    """hiprtcGetCodeSize: the size of hiprtcGetCode's bytes."""
    return len(hiprtcGetCode(prog))


def hiprtcGetLoweredName(prog, name_expression) -> str:
    """hiprtcGetLoweredName: the name hipModuleGetFunction finds a name expression's kernel by.

    hipkit's modules are looked up by name expression on every platform, so this
    is the expression itself once it has compiled."""
    prog = _program(prog)
    if not prog._compiled:
        raise HiprtcError(R.HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION)
    expression = _text(name_expression, "name expression").strip()
    if expression not in prog._name_expressions:
        raise HiprtcError(
            R.HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID,
            f"{expression!r} was not added with hiprtcAddNameExpression",
        )
    _compiled(prog)
    return expression


def hiprtcDestroyProgram(prog) -> None:
    """hiprtcDestroyProgram: release a program; using it afterwards is an error."""
    prog = _program(prog)
    prog._destroyed = True
    prog._binary = prog._code = None


def hiprtcGetErrorString(result: int) -> str:
    """hiprtcGetErrorString: the result's name ("HIPRTC_ERROR_COMPILATION"), as HIP's hiprtc gives it."""
    try:
        return hiprtcResult(result).name
    except ValueError:
        return f"invalid hiprtcResult {result!r}"

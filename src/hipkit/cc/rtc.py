"""hiprtc in programs built by ``hipkit cc`` for the CPU: the compiler they run.

hipkit's compiler is Python, so a program's ``hiprtcCompileProgram``
(``hipkit_cpu/program_rtc.h``, ``runtime/rtc.cpp``) runs this module's
:func:`main` in a child process: with the Python interpreter that built the
program and the hipkit it imported (:func:`build_defines` records both in the
program), or with the interpreter ``HIPKIT_RTC_PYTHON`` names.  The program is
compiled by :mod:`hipkit.hip`'s hiprtc on the CPU platform, so a program gets
what the Python API gets: the same code object (a kernel module, loaded by
``hipModuleLoadData``), log, hiprtcResult and compile cache.

The request is JSON on stdin: ``source``, ``name``, ``headers`` (pairs of
include name and text), ``options``, ``name_expressions``; the warp size comes
in ``HIPKIT_CPU_WARP_SIZE``.  The answer on stdout is a sequence of fields,
each ``NAME LENGTH\\n`` followed by LENGTH bytes: ``result`` (the hiprtcResult,
in decimal), ``log``, and after a successful compile ``code`` and one
``lowered`` per name expression, in order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["build_defines", "compile_request", "main", "string_define"]

Fields = list[tuple[str, bytes]]
# hiprtcResult's HIPRTC_ERROR_INTERNAL_ERROR, here as a number: the answer must
# go out even when hipkit.hip cannot be imported.
_INTERNAL_ERROR = 11


def string_define(name: str, text: str) -> str:
    """``-DNAME="text"``: a macro that is ``text`` as a C string literal (how a
    program is told at build time where things are)."""
    return f"-D{name}=" + '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_defines() -> list[str]:
    """The macros a CPU program unit is compiled with so that its hiprtc finds
    hipkit's compiler: this interpreter and the folder hipkit is imported from."""
    package = Path(__file__).resolve().parents[2]
    return [
        string_define("__HIPKIT_PYTHON", sys.executable),
        string_define("__HIPKIT_PYTHONPATH", str(package)),
    ]


def compile_request(request: dict[str, Any]) -> Fields:
    """Compile one request with hipkit.hip's hiprtc; the answer's fields."""
    from .. import hip

    headers = request["headers"]
    prog = hip.hiprtcCreateProgram(
        request["source"], request["name"], [text for _, text in headers], [name for name, _ in headers]
    )
    try:
        expressions = request["name_expressions"]
        for expression in expressions:
            hip.hiprtcAddNameExpression(prog, expression)
        try:
            hip.hiprtcCompileProgram(prog, request["options"])
        except hip.HiprtcError as exc:
            return [("result", b"%d" % exc.code), ("log", hip.hiprtcGetProgramLog(prog).encode())]
        fields = [
            ("result", b"0"),
            ("log", hip.hiprtcGetProgramLog(prog).encode()),
            ("code", hip.hiprtcGetCode(prog)),
        ]
        return fields + [("lowered", hip.hiprtcGetLoweredName(prog, e).encode()) for e in expressions]
    finally:
        hip.hiprtcDestroyProgram(prog)


def main() -> int:
    """Answer the request on stdin; anything but a hiprtc error (hipkit's CPU
    runtime cannot be built, say) is HIPRTC_ERROR_INTERNAL_ERROR with its message."""
    try:
        request = json.loads(sys.stdin.buffer.read().decode("utf-8", "replace"))
        fields = compile_request(request)
    except Exception as exc:  # noqa: BLE001 - whatever it is goes to the program's log
        message = f"hipkit's compiler failed: {type(exc).__name__}: {exc}\n"
        fields = [("result", b"%d" % _INTERNAL_ERROR), ("log", message.encode())]
    out = sys.stdout.buffer
    for name, value in fields:
        out.write(b"%s %d\n" % (name.encode(), len(value)) + value)
    out.flush()
    return 0

"""hiprtc for programs built by ``hipkit cc`` whose platform's compiler is
hipkit's own (the CPU's): the compiler they run.

hipkit's compiler is Python, so such a program's ``hiprtcCompileProgram``
(on the CPU: ``hipkit_cpu/program_rtc.h``, ``runtime/rtc.cpp``) runs this
module's :func:`main` in a child process: with the Python interpreter that
built the program and the hipkit it imported (recorded in the program by its
toolchain), or with the interpreter ``HIPKIT_RTC_PYTHON`` names.  The program
is compiled by :mod:`hipkit.hip`'s hiprtc, on the platform the child's
``HIPKIT_PLATFORM`` names, so a program gets what the Python API gets: the same
code object (a kernel module, loaded by ``hipModuleLoadData``), log,
hiprtcResult and compile cache.

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
from typing import Any

__all__ = ["compile_request", "main"]

Fields = list[tuple[str, bytes]]
# hiprtcResult's HIPRTC_ERROR_INTERNAL_ERROR, here as a number: the answer must
# go out even when hipkit.hip cannot be imported.
_INTERNAL_ERROR = 11


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
    except Exception as exc:  # whatever it is goes to the program's log
        message = f"hipkit's compiler failed: {type(exc).__name__}: {exc}\n"
        fields = [("result", b"%d" % _INTERNAL_ERROR), ("log", message.encode())]
    out = sys.stdout.buffer
    for name, value in fields:
        out.write(b"%s %d\n" % (name.encode(), len(value)) + value)
    out.flush()
    return 0

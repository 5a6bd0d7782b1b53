"""Generate the HIP -> CUDA headers of hipkit's NVIDIA programs (DESIGN.md, seams 3 and 4).

Programs built by ``hipkit cc --platform nvidia`` are compiled by nvcc with hipkit's
``hip/hip_runtime.h`` (``hipkit/platforms/nvidia/include/program``).  Some of its headers
are data, generated here and checked in beside this script, under ``include/`` (on the
include path of the programs that use them):

``names.h``
    HIP's host API names as CUDA's, read backwards from the table hipify reads forwards
    (``names.tsv``), so that the two cannot drift.  Types, enumerators and
    flags become object-like macros (``#define hipStream_t cudaStream_t``): a literal ``0``
    passed as a stream stays a null pointer constant, and a name this CUDA lacks costs
    nothing until a program uses it.  Functions become function-like macros around the CUDA
    call (``hipMalloc(...)`` -> ``__hk_hip_result(cudaMalloc(...))``), which keep CUDA's
    overloads, templates and default arguments, and turn a ``cudaError_t`` into HIP's
    ``hipError_t``.
``errors.h``
    ``hipGetErrorName``/``hipGetErrorString`` on ``hipkit_tables/hip_errors.h``, and
    ``hipCUDAErrorTohipError`` from the NVIDIA platform's own table
    (``hipkit.platforms.nvidia.driver.hip_code``): CUDA's number where HIP has the same one, else
    HIP's code for the same failure, else ``hipErrorUnknown``.
``hipkit_tables/hip_errors.h``
    ``hipError_t`` with HIP's numbers, and the names and words (``hipkit._errors``) that
    ``hipGetErrorName`` and ``hipGetErrorString`` answer, for the CPU platform's programs
    too (``hipkit_cpu/host_types.h``): one table for both.

``module_names.h``
    HIP's module API as the CUDA driver's (``hipModuleLoadData`` -> ``cuModuleLoadData``,
    ``hipModuleLaunchKernel`` -> ``cuLaunchKernel``, ``hipModule_t`` -> ``CUmodule``, the
    ``HIP_FUNC_ATTRIBUTE_*`` and ``HIP_LAUNCH_PARAM_*`` values): the driver's functions of
    the table's ``module`` and ``execution`` kinds whose HIP names the runtime's do not
    already give, and the values of :data:`DRIVER_VALUE_PREFIXES`.  A call goes through
    ``__hk_driver_call`` (``module.h``), which finds the driver's function through the CUDA
    runtime and returns HIP's ``hipError_t``.
``rtc_names.h``
    hiprtc as NVRTC (``hiprtcCreateProgram`` -> ``nvrtcCreateProgram``, ``hiprtcGetCode`` ->
    ``nvrtcGetPTX`` as in HIP for NVIDIA); their results are the same numbers.

What the table cannot say is written by hand in ``hipkit_nvidia_program/host.h``,
``module.h`` and ``rtc.h`` and left out here (:data:`HAND_WRITTEN`): ``hipDeviceProp_t``
(HIP's fields, ``gcnArchName``), the error functions, functions whose HIP arguments differ
from CUDA's (hipify's ``arguments.tsv`` adds, moves or removes arguments for them),
``hiprtcCompileProgram``, which gives kernels hipkit's device headers, and ``hipJitOption``'s
values (the table maps CUDA's to hiprtc's ``HIPRTC_JIT_*``).

Usage::

    python -m hipkit.tables.make_nvidia_headers            # rewrite the headers
    python -m hipkit.tables.make_nvidia_headers --check    # exit status 1 if they are stale
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

from hipkit import _errors
from hipkit.hipify import arguments
from hipkit.platforms.nvidia.driver import CUDA_TO_HIP
from hipkit.tables import INCLUDE_DIR, names

OUTPUT = INCLUDE_DIR / "hipkit_nvidia_program"
TABLES = INCLUDE_DIR / "hipkit_tables"
PACKAGE = Path(names.__file__).resolve().parents[1]  # hipkit's folder

# Kinds of names.tsv rows that are not functions (anything else in the runtime is one).
VALUE_KINDS = frozenset({"type", "numeric_literal", "define"})
STATUSES = frozenset({"supported", "deprecated", "experimental"})
# HIP names host.h defines itself (with the reason).
HAND_WRITTEN = {
    "hipDeviceProp_t": "HIP's fields, with gcnArchName",
    "hipGetDeviceProperties": "fills hipDeviceProp_t",
    "hipChooseDevice": "takes a hipDeviceProp_t",
    "hipGetErrorName": "HIP's names (errors.h)",
    "hipGetErrorString": "HIP's words (errors.h)",
    "hipModuleGetGlobal": "hipDeviceptr_t is a pointer, CUdeviceptr an integer (module.h)",
    "hiprtcCompileProgram": "adds hipkit's device headers and the device's architecture (rtc.h)",
    "hipStreamCallback_t": "told a hipError_t, not a cudaError_t",
    "hipStreamAddCallback": "takes a hipStreamCallback_t",
    "hipPointerAttribute_t": "HIP's fields, with isManaged (hipkit_program/memory_structs.h)",
    "hipPointerGetAttributes": "fills HIP's hipPointerAttribute_t (memory.h)",
    "hipMemAdvise": "a device number, where CUDA 13 takes a cudaMemLocation (memory.h)",
    "hipMemPrefetchAsync": "a device number, where CUDA 13 takes a cudaMemLocation (memory.h)",
    # CUDA 12 and 13 changed these graph calls; HIP keeps the older forms (graph.h).
    "hipGraphInstantiate": "HIP's error node and log, CUDA's flags (graph.h)",
    "hipGraphExecUpdate": "HIP's error node and result, CUDA's result info (graph.h)",
    "hipGraphGetEdges": "CUDA 13 adds edge data (graph.h)",
    "hipGraphNodeGetDependencies": "CUDA 13 adds edge data (graph.h)",
    "hipGraphNodeGetDependentNodes": "CUDA 13 adds edge data (graph.h)",
    "hipGraphAddDependencies": "CUDA 13 adds edge data (graph.h)",
    "hipGraphRemoveDependencies": "CUDA 13 adds edge data (graph.h)",
    "hipStreamGetCaptureInfo": "CUDA 13 adds the graph, dependencies and edge data (graph.h)",
    "hipStreamGetCaptureInfo_v2": "CUDA 13 folds it into cudaStreamGetCaptureInfo (graph.h)",
    "hipGraphAddNode": "CUDA 13 adds edge data (graph.h)",
    "hipStreamUpdateCaptureDependencies": "CUDA 13 adds edge data (graph.h)",
}
# The driver's values module_names.h maps: the types and constants of the module API.
DRIVER_VALUE_PREFIXES = ("hipModule", "hipFunction", "HIP_FUNC_ATTRIBUTE_", "HIP_LAUNCH_PARAM_", "hipJit")
# The driver's functions module_names.h maps, by the table's kind.
DRIVER_FUNCTION_KINDS = frozenset({"module", "execution"})


def _common_suffix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _choose(
    entries: list[names.Entry], skip: frozenset[str] | set[str] = frozenset()
) -> tuple[dict[str, str], dict[str, str]]:
    """HIP name -> CUDA name for values (types, enumerators, flags) and for functions,
    from table rows of usable HIP names (not hand-written, not in ``skip``).

    Where several CUDA names have one HIP name, the CUDA name that shares the longest
    ending with it is taken (cudaDeviceSynchronize, not cudaThreadSynchronize, for
    hipDeviceSynchronize); a tie means HIP merged names CUDA keeps apart
    (hipDeviceAttributeMaxTexture2DLayered), and the HIP name is left out."""
    candidates: dict[str, list[names.Entry]] = defaultdict(list)
    for entry in entries:
        if (
            entry.kind.startswith("include")
            or entry.hip_status.partition(":")[0] not in STATUSES
            or not entry.hip.isidentifier()
            or entry.hip == entry.cuda
            or entry.hip in HAND_WRITTEN
            or entry.hip in skip
        ):
            continue
        candidates[entry.hip].append(entry)
    values: dict[str, str] = {}
    functions: dict[str, str] = {}
    for hip, rows in candidates.items():
        best = max(_common_suffix(hip, e.cuda) for e in rows)
        chosen = [e for e in rows if _common_suffix(hip, e.cuda) == best]
        if len(chosen) != 1:
            continue
        (entry,) = chosen
        (values if entry.kind in VALUE_KINDS else functions)[hip] = entry.cuda
    return values, functions


def _library(name: str) -> list[names.Entry]:
    return [e for e in names.table().identifiers.values() if e.library == name]


def mapping() -> tuple[dict[str, str], dict[str, str]]:
    """The runtime's HIP names -> CUDA names, values and functions (names.h); errors
    are errors.h's and functions with other arguments host.h's."""
    changed_arguments = {
        function
        for (function, roc, miopen), rows in arguments.rewrites().items()
        if not roc and not miopen and any(r.action != "wrap" for r in rows)
    }
    entries = [
        e
        for e in _library("runtime")
        if not (e.hip == "hipError_t" or e.hip == "hipSuccess" or e.hip.startswith("hipError"))
        and e.cuda not in changed_arguments
    ]
    return _choose(entries)


def driver_mapping() -> tuple[dict[str, str], dict[str, str]]:
    """The module API's HIP names -> the CUDA driver's (module_names.h): what the
    runtime's names do not give already."""
    runtime = set().union(*mapping())
    entries = [
        e
        for e in _library("driver")
        if (e.kind in VALUE_KINDS and e.hip.startswith(DRIVER_VALUE_PREFIXES))
        or (e.kind in DRIVER_FUNCTION_KINDS and not e.hip.startswith("hiprtc"))
    ]
    return _choose(entries, runtime)


def rtc_mapping() -> tuple[dict[str, str], dict[str, str]]:
    """hiprtc's names -> NVRTC's (rtc_names.h)."""
    return _choose(_library("rtc"))


def _banner(what: str, source: str) -> list[str]:
    return [
        f"// hipkit NVIDIA platform, whole programs: {what}.",
        f"// Generated by hipkit/tables/make_nvidia_headers.py from {source}; do not edit.",
        "#pragma once",
        "",
    ]


def _source() -> str:
    return "hipkit/tables/names.tsv (" + names.table().source.split(",")[0] + ")"


def _render_mapping(
    what: str,
    mapping: tuple[dict[str, str], dict[str, str]],
    value_notes: list[str],
    call: str,
    notes: list[str],
) -> str:
    """A header of object-like macros for the values, then function-like ones whose
    expansion is ``call`` with ``{cuda}`` in it (both sorted by HIP name)."""
    values, functions = mapping
    lines = _banner(what, _source())
    lines += value_notes
    lines += [f"#define {hip} {cuda}" for hip, cuda in sorted(values.items())]
    lines += ["", *notes]
    lines += [f"#define {hip}(...) {call.format(cuda=cuda)}" for hip, cuda in sorted(functions.items())]
    return "\n".join(lines) + "\n"


def render_names() -> str:
    return _render_mapping(
        "HIP's host API names as CUDA's",
        mapping(),
        ["// Types, enumerators and flags: CUDA's, by HIP's names."],
        "__hk_hip_result({cuda}(__VA_ARGS__))",
        [
            "// Functions: the CUDA call; a cudaError_t comes back as HIP's hipError_t",
            "// (__hk_hip_result, host.h), any other result as it is.",
        ],
    )


def render_module_names() -> str:
    return _render_mapping(
        "HIP's module API names as the CUDA driver's",
        driver_mapping(),
        ["// Types and constants: the driver's, by HIP's names."],
        "__hk_driver_call({cuda})(__VA_ARGS__)",
        [
            "// Functions: the driver's function, found through the CUDA runtime; the",
            "// result is HIP's hipError_t (__hk_driver_call, module.h).",
        ],
    )


def render_rtc_names() -> str:
    return _render_mapping(
        "hiprtc's names as NVRTC's",
        rtc_mapping(),
        ["// Types and results: NVRTC's, by HIP's names (the same numbers)."],
        "{cuda}(__VA_ARGS__)",
        ["// Functions: NVRTC's."],
    )


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_portable_errors() -> str:
    codes = sorted(_errors.hipError_t, key=int)
    aliases = [(n, c) for n, c in _errors.hipError_t.__members__.items() if n != c.name]
    rows = [f"  X({e.name}, {int(e)}, {_c_string(_errors.error_string(int(e)))})" for e in codes]
    width = max(len(row) for row in rows) + 1
    lines = [
        "// hipkit: hipError_t with HIP's numbers, and the names and words hipGetErrorName and",
        "// hipGetErrorString answer, for whole programs on the CPU and NVIDIA platforms",
        "// (hipkit_cpu/host_types.h, hipkit_nvidia_program/errors.h).",
        "// Generated by hipkit/tables/make_nvidia_headers.py from hipkit/_errors.py; do not edit.",
        "#pragma once",
        "",
        "// X(name, number, text) for every hipError_t.",
        "#define __HK_HIP_ERRORS(X)".ljust(width) + "\\",
    ]
    lines += [row.ljust(width) + "\\" for row in rows[:-1]] + rows[-1:]
    lines += [
        "",
        "// HIP's older names of some codes follow the codes' own.",
        "#define __HK_ENUMERATOR(name, value, text) name = value,",
        "typedef enum hipError_t {",
        "  __HK_HIP_ERRORS(__HK_ENUMERATOR)",
        *(f"  {alias} = {code.name}," for alias, code in aliases),
        "} hipError_t;",
        "#undef __HK_ENUMERATOR",
        "",
        "// hipGetErrorName's answer: the enumerator's name; hipErrorUnknown for a number HIP does",
        "// not have.",
        "inline const char* __hk_error_name(hipError_t error) {",
        "#define __HK_NAME(name, value, text) \\",
        "  case value:                        \\",
        "    return #name;",
        "  switch (static_cast<int>(error)) { __HK_HIP_ERRORS(__HK_NAME) }",
        "#undef __HK_NAME",
        '  return "hipErrorUnknown";',
        "}",
        "",
        "// hipGetErrorString's: HIP's description of the error.",
        "inline const char* __hk_error_string(hipError_t error) {",
        "#define __HK_TEXT(name, value, text) \\",
        "  case value:                        \\",
        "    return text;",
        "  switch (static_cast<int>(error)) { __HK_HIP_ERRORS(__HK_TEXT) }",
        "#undef __HK_TEXT",
        '  return "unknown error";',
        "}",
    ]
    return "\n".join(lines) + "\n"


def render_errors() -> str:
    lines = _banner("HIP's error functions, on hipkit_tables/hip_errors.h", "hipkit/platforms/nvidia")
    lines += [
        '#include "hipkit_tables/hip_errors.h"',
        "",
        "inline const char* hipGetErrorName(hipError_t error) { return __hk_error_name(error); }",
        "inline const char* hipGetErrorString(hipError_t error) { return __hk_error_string(error); }",
        "",
    ]
    others = sorted(CUDA_TO_HIP.items())
    lines += [
        "// A CUDA error as HIP's: the same number where HIP has it with the same meaning",
        "// (HIP took CUDA's numbering), else HIP's code for the same failure, else",
        "// hipErrorUnknown.",
        "inline hipError_t __hk_hip_error(int error) {",
        "  switch (error) {",
    ]
    lines += [f"    case {int(e)}:" for e in sorted(_errors.hipError_t, key=int) if int(e) not in CUDA_TO_HIP]
    lines += ["      return static_cast<hipError_t>(error);"]
    lines += [f"    case {cuda}: return {_errors.hipError_t(hip).name};" for cuda, hip in others]
    lines += ["    default: return hipErrorUnknown;", "  }", "}", ""]
    lines += [
        "// The CUDA runtime's errors and the driver's (the module API's), as HIP's.",
        "inline hipError_t hipCUDAErrorTohipError(cudaError_t error) {",
        "  return __hk_hip_error(static_cast<int>(error));",
        "}",
        "inline hipError_t hipCUResultTohipError(CUresult error) {",
        "  return __hk_hip_error(static_cast<int>(error));",
        "}",
    ]
    return "\n".join(lines) + "\n"


def outputs() -> dict[Path, str]:
    """Each generated header and its text."""
    return {
        OUTPUT / "names.h": render_names(),
        OUTPUT / "errors.h": render_errors(),
        TABLES / "hip_errors.h": render_portable_errors(),
        OUTPUT / "module_names.h": render_module_names(),
        OUTPUT / "rtc_names.h": render_rtc_names(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether the headers are up to date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        if path.exists() and path.read_text() == text:
            continue
        stale.append(path)
        if not args.check:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(text)
            os.replace(tmp, path)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path.relative_to(PACKAGE.parent)}", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())

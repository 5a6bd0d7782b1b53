"""The module descriptor the CPU transform appends to a unit: its kernels and device globals.

The runtime reads it (hipkit_cpu/abi.h): each kernel's lookup name, entry,
execution mode and parameters, and each device global's address and size.  A
shared object exports it as ``__hk_module``; a program's unit registers it
when the program starts.
"""

from __future__ import annotations

import re
from pathlib import Path

from ....cxx.toplevel import Function, param_type
from .kernels import Kernel
from .unit import TransformError, Unit, c_string

INCLUDE_DIR = Path(__file__).parents[1] / "include"
# The descriptor's layout is abi.h's: its version goes into every descriptor.
_ABI = re.search(r"#define HK_ABI_VERSION (\d+)", (INCLUDE_DIR / "hipkit_cpu" / "abi.h").read_text())
assert _ABI is not None
ABI_VERSION = int(_ABI.group(1))
MODES = {"loop": "HK_EXEC_LOOP", "split": "HK_EXEC_SPLIT", "fiber": "HK_EXEC_FIBER"}


def module_descriptor(
    unit: Unit, top, kernels: list[Kernel], functions: list[Function], name_expressions, program: bool
):
    """The text appended to the unit, and the (lookup name, mode) of each kernel it registers."""
    toks = unit.toks
    entries: list[tuple[str, str, str]] = []  # (lookup name, C++ expression, mode)
    by_name: dict[str, Kernel] = {}
    overloaded = {k.name for k in kernels if sum(j.name == k.name for j in kernels) > 1}
    for kernel, fn in zip(kernels, functions, strict=True):
        by_name.setdefault(fn.name, kernel)
        if kernel.template:
            continue
        if kernel.name in overloaded:
            # Overloads are told apart by their parameter types (and found by
            # their mangled names, as in HIP).
            types = ", ".join(param_type(toks, p) for p in fn.params)
            entries.append(
                (f"{kernel.name}({types})", f"static_cast<void (*)({types})>(&::{kernel.name})", kernel.mode)
            )
        else:
            entries.append((kernel.name, "&::" + kernel.name, kernel.mode))
    for expr in name_expressions:
        base = expr.split("<", 1)[0].strip()
        short = base.split("::")[-1].strip()
        named = by_name.get(short)
        if named is None:
            raise TransformError(f"name expression {expr!r} does not name a __global__ function")
        entries.append((expr, "&" + expr, named.mode))
    lines = ["", "namespace {"]
    registered = []
    for i, (lookup, cxx, mode) in enumerate(entries):
        lines.append(
            f"const hk_kernel_desc __hk_kernel_{i} = ::__hk::kernel_entry<{cxx}>::describe("
            f"{c_string(lookup)}, {MODES[mode]});"
        )
        registered.append((lookup, mode))
    kernel_list = ", ".join(f"&__hk_kernel_{i}" for i in range(len(entries))) or "nullptr"
    lines.append(f"const hk_kernel_desc* const __hk_kernels[] = {{{kernel_list}}};")
    globals_ = []
    for v in top.variables:
        # A variable template has no one address: its instances are found by the
        # templates' forms of the symbol calls (HIP_SYMBOL(mask<T>)), which take the
        # variable itself.
        if "__hk_device" not in v.specifiers or "extern" in v.specifiers or v.template is not None:
            continue
        for i in v.names:
            qualified = "::".join([*filter(None, v.namespace), toks[i].text])
            globals_.append(f"{{{c_string(qualified)}, (void*)&::{qualified}, sizeof(::{qualified})}}")
    lines.append(
        "const hk_global_desc __hk_globals[] = {" + (", ".join(globals_) or "{nullptr, nullptr, 0}") + "};"
    )
    if program:
        lines.append(
            f"const hk_module_desc __hk_unit = {{{ABI_VERSION}u, warpSize, {len(entries)}u,"
            f" __hk_kernels, {len(globals_)}u, __hk_globals}};"
        )
        lines.append("const int __hk_unit_registered = ::__hk::register_unit(&__hk_unit);")
        lines.append("}\n")
        return "\n".join(lines), registered
    lines.append("}")
    lines.append(
        'extern "C" __attribute__((visibility("default"))) const hk_module_desc* __hk_module(void) {'
    )
    lines.append(
        f"  static const hk_module_desc module = {{{ABI_VERSION}u, warpSize, {len(entries)}u,"
        f" __hk_kernels, {len(globals_)}u, __hk_globals}};"
    )
    lines.append("  return &module;\n}\n")
    return "\n".join(lines), registered

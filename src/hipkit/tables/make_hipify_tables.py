"""Generate hipkit's CUDA -> HIP name table (DESIGN.md, seam 4) from a HIPIFY checkout.

The facts come from HIPIFY's name maps (``src/CUDA2HIP*.cpp``: each CUDA name, its HIP
and ROC names, its kind, its library and its support flags; the CUDA and HIP version maps
beside them), the same maps HIPIFY's published ``docs/tables/*.md`` are generated from,
plus the few facts HIPIFY does not carry (``EXTRA_ROWS`` below).  Only data is read; the
output is one tab-separated row per name, checked in as ``names.tsv`` beside this script.

Usage::

    python -m hipkit.tables.make_hipify_tables PATH_TO_HIPIFY [-o names.tsv]

It also writes ``arguments.tsv`` beside the name table: hipify-clang's argument rewrites
(``FuncArgCasts`` and ``FuncOverloads`` in ``src/HipifyAction.cpp``), one row per rewrite; see
:func:`argument_rows` for its columns.

``PATH_TO_HIPIFY`` is a work tree or a bare git directory (then ``HEAD`` is read).

Columns
-------
cuda, hip, roc
    The CUDA name, its HIP name and its ROC name (rocBLAS, rocSPARSE, MIOpen, ...; empty
    where HIPIFY gives none, and then ``--roc`` uses the HIP name).
library
    runtime, driver, device, complex, blas, fft, rand, sparse, solver, dnn, cub, rtc,
    caffe2, nccl, cooperative_groups.
kind
    HIPIFY's conversion type in lower case without ``CONV_`` (memory, stream, type,
    define, lib_func, device_func, include, include_cuda_main_header, ...), or namespace.
hip_status, roc_status
    supported, unsupported, experimental, deprecated[:version] or removed[:version], for
    the HIP and the ROC name; roc_status is empty for libraries ``--roc`` leaves alone.
cuda_status
    Empty, deprecated:version or removed:version (in CUDA).
notes
    v2-only (cuBLAS: only the ``_v2`` API, from ``cublas_v2.h``, has a HIP equivalent),
    miopen-only (the ROC name is used only with ``--miopen``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

# Libraries whose names ``--roc`` / ``--miopen`` translate to ROC names (HIPIFY's rule).
ROC_LIBRARIES = frozenset({"runtime", "device", "complex", "blas", "rand", "dnn", "sparse", "solver"})

# hipify-clang merges its maps in this order; the first map naming a CUDA name wins.
MAP_ORDER = [
    ("DRIVER_TYPE_NAME", "driver"),
    ("DRIVER_FUNCTION", "driver"),
    ("RUNTIME_TYPE_NAME", "runtime"),
    ("RUNTIME_FUNCTION", "runtime"),
    ("COMPLEX_TYPE_NAME", "complex"),
    ("COMPLEX_FUNCTION", "complex"),
    ("BLAS_TYPE_NAME", "blas"),
    ("BLAS_FUNCTION", "blas"),
    ("RAND_TYPE_NAME", "rand"),
    ("RAND_FUNCTION", "rand"),
    ("DNN_TYPE_NAME", "dnn"),
    ("DNN_FUNCTION", "dnn"),
    ("FFT_TYPE_NAME", "fft"),
    ("FFT_FUNCTION", "fft"),
    ("SPARSE_TYPE_NAME", "sparse"),
    ("SPARSE_FUNCTION", "sparse"),
    ("CAFFE2_TYPE_NAME", "caffe2"),
    ("CAFFE2_FUNCTION", "caffe2"),
    ("CUB_TYPE_NAME", "cub"),
    ("CUB_FUNCTION", "cub"),
    ("RTC_TYPE_NAME", "rtc"),
    ("RTC_FUNCTION", "rtc"),
    ("DEVICE_TYPE_NAME", "device"),
    ("SOLVER_TYPE_NAME", "solver"),
    ("SOLVER_FUNCTION", "solver"),
    # Not part of hipify-clang's identifier map: device functions are only checked where
    # they are called, and the cub namespace only where it qualifies a name.
    ("DEVICE_FUNCTION", "device"),
    ("CUB_NAMESPACE", "cub"),
]

API_LIBRARY = {
    "API_DRIVER": "driver",
    "API_RUNTIME": "runtime",
    "API_COMPLEX": "complex",
    "API_BLAS": "blas",
    "API_RAND": "rand",
    "API_DNN": "dnn",
    "API_FFT": "fft",
    "API_SPARSE": "sparse",
    "API_SOLVER": "solver",
    "API_CUB": "cub",
    "API_CAFFE2": "caffe2",
    "API_RTC": "rtc",
}

# Facts HIPIFY's maps do not hold.  RCCL implements NCCL's API under the same names and
# installs its header as <rccl/rccl.h>; HIP's cooperative groups keep CUDA's namespace and
# names (only the header differs, and HIPIFY's include map has it).
EXTRA_ROWS = [
    ("nccl.h", "rccl/rccl.h", "", "nccl", "include_cuda_main_h", "supported", "", "", ""),
]
# The library of an include row whose HIPIFY API is too coarse.
INCLUDE_LIBRARY = {"cooperative_groups.h": "cooperative_groups"}

_MAP_START = re.compile(r"const std::map\s*<\s*llvm::StringRef,\s*(\w+)>\s*(\w+)\s*\{")
_COUNTER = re.compile(
    r'\{\s*"([^"]+)",\s*\{\s*"([^"]*)",\s*"([^"]*)",\s*(CONV_\w+),\s*(API_\w+),\s*([^,}]+?)\s*(?:,\s*([^}]+?)\s*)?\}\s*\}'
)
_VERSIONS = re.compile(r'\{\s*"([^"]+)",\s*\{([^}]*)\}\s*\}')
_VERSION_CASE = re.compile(r'case\s+(\w+):\s*return\s+"([^"]*)";')

COLUMNS = ["cuda", "hip", "roc", "library", "kind", "hip_status", "roc_status", "cuda_status", "notes"]


class Source:
    """Reads files of a HIPIFY work tree or bare git directory."""

    def __init__(self, path: Path):
        self.path = path
        self.bare = not (path / "src").is_dir()
        self.commit = self._git("rev-parse", "HEAD").strip()

    def _git(self, *args: str) -> str:
        flag = ["--git-dir", str(self.path)] if self.bare else ["-C", str(self.path)]
        done = subprocess.run(["git", *flag, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def files(self) -> list[str]:
        if self.bare:
            return self._git("ls-tree", "--name-only", "HEAD", "src/").split()
        return sorted(f"src/{p.name}" for p in (self.path / "src").iterdir())

    def read(self, name: str) -> str:
        if self.bare:
            return self._git("show", f"HEAD:{name}")
        return (self.path / name).read_text()


def map_bodies(text: str) -> dict[str, tuple[str, str]]:
    """Every ``std::map<llvm::StringRef, T> NAME { ... };`` in a file: NAME -> (T, body)."""
    maps = {}
    for m in _MAP_START.finditer(text):
        end = text.index("\n};", m.end())
        body = re.sub(r"//[^\n]*", "", text[m.end() : end])
        maps[m.group(2)] = (m.group(1), body)
    return maps


def flags_of(text: str | None) -> set[str]:
    return {f.strip() for f in (text or "").split("|") if f.strip()}


def status(flags: set[str], prefix: str, versions: tuple[str, ...] | None) -> str:
    """One name's status for HIP (prefix "HIP") or ROC (prefix "ROC") from HIPIFY's flags."""
    deprecated = versions[1] if versions else ""
    removed = versions[2] if versions else ""
    if flags & {f"{prefix}_UNSUPPORTED", "UNSUPPORTED"}:
        return "unsupported"
    if "HIP_EXPERIMENTAL" in flags:
        return "experimental"
    if flags & {f"{prefix}_REMOVED", "REMOVED"}:
        return f"removed:{removed}" if removed else "removed"
    if flags & {f"{prefix}_DEPRECATED", "DEPRECATED"}:
        return f"deprecated:{deprecated}" if deprecated else "deprecated"
    return "supported"


def generate(source: Source) -> tuple[list[list[str]], Counter]:
    files = [f for f in source.files() if re.fullmatch(r"src/CUDA2HIP(_\w+)?\.cpp", f)]
    version_names: dict[str, str] = {}
    for m in _VERSION_CASE.finditer(source.read("src/Statistics.cpp")):
        version_names[m.group(1)] = m.group(2)
    counters: dict[str, str] = {}  # map name -> body
    cuda_versions: dict[str, tuple[str, ...]] = {}
    hip_versions: dict[str, tuple[str, ...]] = {}
    for name in files:
        for map_name, (value_type, body) in map_bodies(source.read(name)).items():
            if value_type == "hipCounter":
                counters[map_name] = body
            elif value_type in ("cudaAPIversions", "hipAPIversions"):
                target = cuda_versions if value_type == "cudaAPIversions" else hip_versions
                for m in _VERSIONS.finditer(body):
                    fields = tuple(version_names.get(v.strip(), "") for v in m.group(2).split(","))
                    target.setdefault(m.group(1), fields)

    rows: list[list[str]] = []
    seen: set[str] = set()
    duplicates: Counter = Counter()

    def add(body: str, library: str | None, include: bool = False, kind: str = "") -> None:
        for m in _COUNTER.finditer(body):
            cuda, hip, roc, conv, api, _section, flag_text = m.groups()
            if cuda in seen:
                duplicates[library or api] += 1
                continue
            seen.add(cuda)
            flags = flags_of(flag_text)
            lib = INCLUDE_LIBRARY.get(cuda) if include else None
            lib = lib or library or API_LIBRARY[api]
            row_kind = kind or conv.removeprefix("CONV_").lower()
            hip_status = status(flags, "HIP", hip_versions.get(hip))
            if not hip and not include:  # an include without HIP name is removed
                hip_status = "unsupported"
            roc_status = status(flags, "ROC", hip_versions.get(roc or hip)) if lib in ROC_LIBRARIES else ""
            if roc_status and not roc and hip_status == "unsupported":
                # --roc falls back to the HIP name, which HIP lacks (hipify-clang would write it).
                roc_status = "unsupported"
            cv = cuda_versions.get(cuda, ("", "", ""))
            cuda_status = f"removed:{cv[2]}" if cv[2] else f"deprecated:{cv[1]}" if cv[1] else ""
            notes = []
            if "HIP_SUPPORTED_V2_ONLY" in flags:
                notes.append("v2-only")
            if "ROC_MIOPEN_ONLY" in flags:
                notes.append("miopen-only")
            rows.append([cuda, hip, roc, lib, row_kind, hip_status, roc_status, cuda_status, ",".join(notes)])

    add(counters["CUDA_INCLUDE_MAP"], None, include=True)
    for stem, library in MAP_ORDER:
        add(counters[f"CUDA_{stem}_MAP"], library, kind="namespace" if stem.endswith("NAMESPACE") else "")
    for name in sorted(counters):
        if name != "CUDA_INCLUDE_MAP" and not any(name == f"CUDA_{s}_MAP" for s, _ in MAP_ORDER):
            raise SystemExit(f"unknown HIPIFY map {name}: add it to MAP_ORDER")
    for row in EXTRA_ROWS:
        if row[0] not in seen:
            rows.append(list(row))
    return rows, duplicates


ARGUMENT_COLUMNS = ["function", "roc", "miopen", "arg", "action", "value", "to", "count", "warning"]
# hipify-clang's cast kinds: what our table calls them, and the text a "wrap" puts around.
_CASTS = {
    "e_HIP_SYMBOL": ("wrap", "HIP_SYMBOL"),
    "e_reinterpret_cast": ("wrap", "reinterpret_cast<const void*>"),
    "e_reinterpret_cast_size_t": ("wrap", "reinterpret_cast<size_t*>"),
    "e_static_cast_uint64_t": ("wrap", "static_cast<uint64_t>"),
    "e_int32_t": ("wrap", "int32_t"),
    "e_int64_t": ("wrap", "int64_t"),
    "e_remove_argument": ("remove", ""),
    "e_add_const_argument": ("add", ""),
    "e_add_var_argument": ("copy", ""),
    "e_move_argument": ("move", ""),
    "e_replace_argument_with_const": ("replace", ""),
}
_CPP_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|std::to_string\(int\(HIP_LATEST / 10\)\)|[A-Za-z_][\w:]*|\d+|[{},]'
)
_STRING_CONSTANT = re.compile(r'(?:std::string|StringRef)\s+(\w+)\s*=\s*"([^"]*)";')


def _nested(text: str) -> list:
    """A C++ braced initializer as nested lists of its tokens."""
    stack: list[list] = [[]]
    for token in _CPP_TOKEN.findall(re.sub(r"//[^\n]*", "", text)):
        if token == "{":
            stack.append([])
        elif token == "}":
            done = stack.pop()
            stack[-1].append(done)
        elif token != ",":
            stack[-1].append(token)
    return stack[0]


def _initializer(text: str, declaration: str) -> list:
    start = text.index("{", text.index(declaration))
    return _nested(text[start : text.index("\n};", start) + 2])[0]


def argument_rows(source: Source) -> list[list[str]]:
    """hipify-clang's argument rewrites, one row each: the CUDA function; the ``--roc`` and
    ``--miopen`` settings the rewrite is for (hipify-clang applies it only when both match);
    the argument's index; the action (wrap: put ``value(...)`` around it; remove; add: insert
    the constant ``value`` there; copy: insert a copy of it before argument ``to``; move:
    move ``count`` arguments from it to before argument ``to``; replace: with the constant
    ``value``; overload: a call with ``arg`` arguments calls ``value`` instead); a warning
    (data-loss) hipify-clang gives."""
    text = source.read("src/HipifyAction.cpp")
    constants = dict(_STRING_CONSTANT.findall(text))
    latest = re.search(r"HIP_LATEST\s*=\s*HIP_(\d+)", source.read("src/Statistics.h"))
    hip_latest = str(int(latest.group(1)) // 10) if latest else ""

    def value(token: str) -> str:
        if token.startswith('"'):
            return token[1:-1]
        if token.startswith("std::to_string"):
            return hip_latest
        return constants[token]

    def flags(struct: list) -> list[str]:
        return [str(int(len(struct) > i and struct[i] == "true")) for i in (1, 2)]

    rows = []
    for name, structs in _initializer(text, "FuncArgCasts"):
        for struct in structs:
            roc, miopen = flags(struct)
            for arg, info in struct[0]:
                action, wrap = _CASTS[info[0]]
                extra = info[2:]
                constant = value(extra[0]) if extra else ""
                to = extra[1] if len(extra) > 1 else ""
                count = extra[2] if len(extra) > 2 else ("1" if action == "move" else "")
                warning = "data-loss" if info[1] == "cw_DataLoss" else ""
                rows.append([constants[name], roc, miopen, arg, action, wrap or constant, to, count, warning])
    for name, struct in _initializer(text, "FuncOverloads"):
        roc, miopen = flags(struct)
        for count, info in struct[0]:
            rows.append([constants[name], roc, miopen, count, "overload", value(info[0][0]), "", "", ""])
    return rows


def render_arguments(rows: list[list[str]], commit: str) -> str:
    lines = [
        "# hipify-clang's argument rewrites: generated by hipkit/tables/make_hipify_tables.py; do not edit.",
        f"# Source: HIPIFY (github.com/ROCm/HIPIFY) commit {commit}, src/HipifyAction.cpp.",
        "\t".join(ARGUMENT_COLUMNS),
    ]
    lines += ["\t".join(row) for row in rows]
    return "\n".join(lines) + "\n"


def render(rows: list[list[str]], commit: str) -> str:
    lines = [
        "# hipkit's CUDA -> HIP name table: generated by hipkit/tables/make_hipify_tables.py; do not edit.",
        f"# Source: HIPIFY (github.com/ROCm/HIPIFY) commit {commit}, src/CUDA2HIP*.cpp.",
        "\t".join(COLUMNS),
    ]
    lines += ["\t".join(row) for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hipify", type=Path, help="HIPIFY work tree or bare git directory")
    default = Path(__file__).resolve().with_name("names.tsv")
    parser.add_argument("-o", "--output", type=Path, default=default)
    args = parser.parse_args(argv)
    source = Source(args.hipify)
    rows, duplicates = generate(source)
    args.output.write_text(render(rows, source.commit))
    arguments = argument_rows(source) if "src/HipifyAction.cpp" in source.files() else []
    if arguments:
        args.output.with_name("arguments.tsv").write_text(render_arguments(arguments, source.commit))
    by_library: Counter = Counter()
    for row in rows:
        by_library[(row[3], "include" if row[4].startswith("include") else row[5].split(":")[0])] += 1
    print(f"{len(rows)} names from HIPIFY {source.commit[:12]} -> {args.output}", file=sys.stderr)
    print(f"{len(arguments)} argument rewrites -> {args.output.with_name('arguments.tsv')}", file=sys.stderr)
    for (library, state), count in sorted(by_library.items()):
        print(f"  {library:20} {state:14} {count}", file=sys.stderr)
    if duplicates:
        print(f"  (names in more than one map, first kept: {dict(duplicates)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

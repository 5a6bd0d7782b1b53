"""The CUDA -> HIP name table: what it covers, and the generator that makes it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hipkit.hipify import table
from hipkit.tables import ARGUMENTS_TSV, NAMES_TSV
from hipkit.tables.names import Entry

ROOT = Path(__file__).resolve().parents[1]
CHECKED_IN = NAMES_TSV
STATUSES = {"supported", "unsupported", "experimental", "deprecated", "removed"}


def load_generator():
    from hipkit.tables import make_hipify_tables

    return make_hipify_tables


def test_every_library_is_covered():
    names = table()
    libraries = {e.library for e in names.identifiers.values()}
    assert {
        "runtime",
        "driver",
        "device",
        "complex",
        "blas",
        "fft",
        "rand",
        "sparse",
        "solver",
        "dnn",
    } <= libraries
    assert {"cub", "rtc"} <= libraries
    header_libraries = {e.library for e in names.includes.values()}
    assert {"nccl", "cooperative_groups", "runtime", "blas", "dnn", "rtc", "cub"} <= header_libraries
    assert names.source.startswith("HIPIFY (github.com/ROCm/HIPIFY) commit ")


def test_statuses_are_well_formed_and_all_occur():
    seen = set()
    for entry in table().identifiers.values():
        for status in (entry.hip_status, entry.roc_status):
            if status:
                assert status.partition(":")[0] in STATUSES, entry
                seen.add(status.partition(":")[0])
        assert entry.cuda_status.partition(":")[0] in ("", "deprecated", "removed"), entry
        assert entry.hip or entry.hip_status == "unsupported", entry
    assert seen >= STATUSES - {"removed"}  # HIP has removed no name HIPIFY maps to, so far


def test_targets():
    names = table().identifiers
    assert names["cublasCreate"].target(roc=False, miopen=False) == ("hipblasCreate", "supported")
    assert names["cublasCreate"].target(roc=True, miopen=False) == ("rocblas_create_handle", "supported")
    assert names["cudnnCreate"].target(roc=False, miopen=True) == ("miopenCreate", "supported")
    assert names["cuInit"].target(roc=True, miopen=True) == ("hipInit", "supported")  # no ROC form
    assert names["cudaStream_t"].target(roc=True, miopen=False)[0] == "hipStream_t"  # MIOpen only
    assert names["cudaStream_t"].target(roc=False, miopen=True)[0] == "miopenAcceleratorQueue_t"


FAKE_MAPS = {
    "src/CUDA2HIP.cpp": """
const std::map <llvm::StringRef, hipCounter> CUDA_INCLUDE_MAP {
  {"cuda.h",       {"hip/hip_runtime.h", "", CONV_INCLUDE_CUDA_MAIN_H, API_DRIVER, 0}},
  {"cublas_v2.h",  {"hipblas.h", "rocblas.h", CONV_INCLUDE_CUDA_MAIN_V2_H, API_BLAS, 0}},
};
""",
    "src/CUDA2HIP_Runtime_API_functions.cpp": """
const std::map<llvm::StringRef, hipCounter> CUDA_RUNTIME_FUNCTION_MAP {
  // a comment {"cudaNot", {"hipNot", "", CONV_MEMORY, API_RUNTIME, SEC::MEMORY}},
  {"cudaA",    {"hipA",    "", CONV_MEMORY, API_RUNTIME, SEC::MEMORY}},
  {"cudaB",    {"hipB",    "", CONV_GRAPH,  API_RUNTIME, SEC::GRAPH, HIP_EXPERIMENTAL}},
  {"cudaC",    {"hipC",    "", CONV_DEVICE, API_RUNTIME, SEC::DEVICE, HIP_UNSUPPORTED | CUDA_DEPRECATED}},
  {"cudaD",    {"hipD",    "", CONV_STREAM, API_RUNTIME, 2, HIP_DEPRECATED}},
};
const std::map<llvm::StringRef, cudaAPIversions> CUDA_RUNTIME_FUNCTION_VER_MAP {
  {"cudaC",    {CUDA_90,  CUDA_120, CUDA_0  }},
};
const std::map<llvm::StringRef, hipAPIversions> HIP_RUNTIME_FUNCTION_VER_MAP {
  {"hipD",     {HIP_1082, HIP_6000, HIP_0   }},
};
""",
    "src/CUDA2HIP_BLAS_API_functions.cpp": """
const std::map<llvm::StringRef, hipCounter> CUDA_BLAS_FUNCTION_MAP {
  {"cublasA",  {"hipblasA", "rocblas_a", CONV_LIB_FUNC, API_BLAS, SEC::BLAS_LEVEL_1, HIP_SUPPORTED_V2_ONLY}},
  {"cublasB",  {"hipblasB", "",          CONV_LIB_FUNC, API_BLAS, SEC::BLAS_LEVEL_1, ROC_UNSUPPORTED}},
  {"cudaA",    {"hipblasDuplicate", "",  CONV_LIB_FUNC, API_BLAS, SEC::BLAS_LEVEL_1}},
};
""",
    "src/Statistics.cpp": """
    case CUDA_90:  return "9.0";
    case CUDA_120: return "12.0";
    case HIP_1082: return "1.8.2";
    case HIP_6000: return "6.0.0";
""",
}


def test_generator_on_a_small_hipify_tree(tmp_path):
    generate = load_generator()
    maps = dict(FAKE_MAPS)
    for stem, _ in generate.MAP_ORDER:  # every map HIPIFY has, most of them empty here
        name = f"CUDA_{stem}_MAP"
        if not any(name + " " in text for text in maps.values()):
            maps[f"src/CUDA2HIP_{stem}.cpp"] = f"const std::map<llvm::StringRef, hipCounter> {name} {{\n}};\n"
    for path, text in maps.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "maps"], check=True)
    out = tmp_path / "names.tsv"
    assert generate.main([str(tmp_path), "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[1].startswith("# Source: HIPIFY (github.com/ROCm/HIPIFY) commit ")
    assert lines[2].split("\t") == generate.COLUMNS
    assert [line.split("\t") for line in lines[3:]] == [
        ["cuda.h", "hip/hip_runtime.h", "", "driver", "include_cuda_main_h", "supported", "", "", ""],
        [
            "cublas_v2.h",
            "hipblas.h",
            "rocblas.h",
            "blas",
            "include_cuda_main_v2_h",
            "supported",
            "supported",
            "",
            "",
        ],
        ["cudaA", "hipA", "", "runtime", "memory", "supported", "supported", "", ""],
        ["cudaB", "hipB", "", "runtime", "graph", "experimental", "experimental", "", ""],
        ["cudaC", "hipC", "", "runtime", "device", "unsupported", "unsupported", "deprecated:12.0", ""],
        ["cudaD", "hipD", "", "runtime", "stream", "deprecated:6.0.0", "supported", "", ""],
        ["cublasA", "hipblasA", "rocblas_a", "blas", "lib_func", "supported", "supported", "", "v2-only"],
        ["cublasB", "hipblasB", "", "blas", "lib_func", "supported", "unsupported", "", ""],
        ["nccl.h", "rccl/rccl.h", "", "nccl", "include_cuda_main_h", "supported", "", "", ""],
    ]


@pytest.mark.skipif(
    not os.environ.get("HIPKIT_HIPIFY_SOURCE"),
    reason="needs a HIPIFY checkout: set HIPKIT_HIPIFY_SOURCE to its path to regenerate and diff the table",
)
def test_checked_in_table_is_what_the_generator_makes(tmp_path):
    out = tmp_path / "names.tsv"
    assert load_generator().main([os.environ["HIPKIT_HIPIFY_SOURCE"], "-o", str(out)]) == 0
    assert out.read_text() == CHECKED_IN.read_text()


def test_entries_are_immutable():
    entry = table().identifiers["cudaMalloc"]
    assert isinstance(entry, Entry)
    with pytest.raises(AttributeError):
        entry.hip = "x"  # type: ignore[misc]


FAKE_ACTION = """
const std::string sCudaMallocHost = "cudaMallocHost";
const std::string sCudaEventCreate = "cudaEventCreate";
const std::string sCudnnX = "cudnnX";
const std::string sSolve = "rocsparse_solve_policy_auto";
std::map<std::string, hipify::FuncOverloadsStruct> FuncOverloads {
  {sCudaEventCreate,
    {
      {
        {1, {{"hipEventCreate", "", CONV_EVENT, API_RUNTIME, runtime::CUDA_RUNTIME_API_SECTIONS::EVENT},
             ot_arguments_number, ow_None}},
        {2, {{"hipEventCreateWithFlags", "", CONV_EVENT, API_RUNTIME, runtime::SECTIONS::EVENT},
             ot_arguments_number, ow_None}},
      }
    }
  },
};

std::map<std::string, std::vector<ArgCastStruct>> FuncArgCasts {
  {sCudaMallocHost,
    {
      {
        {
          {3, {e_add_const_argument, cw_None, "hipHostMallocDefault"}}
        }
      }
    }
  },
  {sCudnnX,
    {
      {
        {
          {1, {e_move_argument, cw_None, "", 9, 2}},
          {4, {e_remove_argument, cw_DataLoss}},
          {5, {e_replace_argument_with_const, cw_None, sSolve}},
          {0, {e_HIP_SYMBOL, cw_None}},
          {2, {e_add_const_argument, cw_None, std::to_string(int(HIP_LATEST / 10))}}
        },
        true,
        true
      }
    }
  },
};
"""


def test_generator_reads_argument_rewrites(tmp_path):
    generate = load_generator()
    files = {
        "src/HipifyAction.cpp": FAKE_ACTION,
        "src/Statistics.h": "  HIP_6030 = 6030,\n  HIP_LATEST = HIP_6030,\n",
        # A map entry written with spaces inside its braces counts too.
        "src/CUDA2HIP.cpp": "const std::map<llvm::StringRef, hipCounter> CUDA_X_MAP {\n"
        '  { "cudaE", {"hipE", "", CONV_EXECUTION, API_RUNTIME, SEC::EXECUTION} },\n};\n',
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "action"], check=True)
    source = generate.Source(tmp_path)
    assert generate.argument_rows(source) == [
        ["cudaMallocHost", "0", "0", "3", "add", "hipHostMallocDefault", "", "", ""],
        ["cudnnX", "1", "1", "1", "move", "", "9", "2", ""],
        ["cudnnX", "1", "1", "4", "remove", "", "", "", "data-loss"],
        ["cudnnX", "1", "1", "5", "replace", "rocsparse_solve_policy_auto", "", "", ""],
        ["cudnnX", "1", "1", "0", "wrap", "HIP_SYMBOL", "", "", ""],
        ["cudnnX", "1", "1", "2", "add", "603", "", "", ""],
        ["cudaEventCreate", "0", "0", "1", "overload", "hipEventCreate", "", "", ""],
        ["cudaEventCreate", "0", "0", "2", "overload", "hipEventCreateWithFlags", "", "", ""],
    ]
    assert [m.group(1) for m in generate._COUNTER.finditer(files["src/CUDA2HIP.cpp"])] == ["cudaE"]


@pytest.mark.skipif(
    not os.environ.get("HIPKIT_HIPIFY_SOURCE"),
    reason="needs a HIPIFY checkout: set HIPKIT_HIPIFY_SOURCE to its path to regenerate and diff the table",
)
def test_checked_in_argument_table_is_what_the_generator_makes(tmp_path):
    assert load_generator().main([os.environ["HIPKIT_HIPIFY_SOURCE"], "-o", str(tmp_path / "names.tsv")]) == 0
    assert (tmp_path / "arguments.tsv").read_text() == ARGUMENTS_TSV.read_text()

"""``hipkit prof`` on C++ programs built by ``hipkit cc``: the program writes its
native trace file (libhipkit_cpu on the CPU, CUPTI on NVIDIA) and hipkit prof
reads it into rocprofv3's files, as for Python programs.

The CPU part runs here: tests/native_programs/traced.cpp, built once, is run
with sizes drawn afresh for each test, and its kernels, calls, copies,
allocations and roctx ranges are checked against what it did.  The NVIDIA part
is compile-only here (no GPU): roctx.h with nvcc, and the CUPTI injection
library built against CUPTI's headers.
"""

from __future__ import annotations

import csv
import ctypes
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from test_cc import build, hipkit_command
from test_cc_blas import MISSING as OPENBLAS_MISSING
from test_prof import validate_chrome_trace
from test_prof_cli import prof

from hipkit import platforms
from hipkit.platforms.nvidia import gpu_present, toolkit, tracing
from hipkit.platforms.nvidia.toolkit import find_nvcc
from hipkit.profiler import Domains, _native, from_file
from hipkit.profiler._spool import Spool

PROGRAMS = Path(__file__).with_name("native_programs")
LAUNCHED = "launched\t1 \\ 2\n"  # traced.cpp's mark, with characters the file escapes

cpu_absent = platforms.status()["cpu"]
needs_cpu = pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")


def build_traced(directory: Path, platform: str) -> Path:
    """traced.cpp built for ``platform``, with ROCm's roctx libraries on the link line."""
    source = PROGRAMS / "traced.cpp"
    build(directory, "--platform", platform, "-o", "traced", str(source), "-lroctx64", "-lroctracer64")
    return directory / "traced"


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> Path:
    """traced.cpp for the CPU."""
    if cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    return build_traced(tmp_path_factory.mktemp("traced"), "cpu")


@pytest.fixture(scope="module", params=["cpu", "nvidia"])
def traced_on(request, tmp_path_factory) -> tuple[str, Path]:
    """traced.cpp for each platform that can run it here: (platform, program)."""
    platform = request.param
    if platform == "cpu" and cpu_absent:
        pytest.skip(f"cpu platform absent: {cpu_absent}")
    if platform == "nvidia" and not (gpu_present() and find_nvcc()):
        pytest.skip("no NVIDIA GPU and nvcc here (the NVIDIA program is compiled below, not run)")
    return platform, build_traced(tmp_path_factory.mktemp(f"traced-{platform}"), platform)


def kernel_name(name: str) -> str:
    """A kernel's source name: on NVIDIA, CUPTI's symbol demangled ("scale(float*, float, int)")."""
    return name.split("(")[0]


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def start(row: dict[str, str]) -> int:
    return int(row["Start_Timestamp"])


def expected_calls(launches: int, finished: bool = True) -> Counter:
    calls = Counter(hipMalloc=3, hipMemcpy=2, hipLaunchKernel=launches + 1, hipDeviceSynchronize=1)
    if finished:
        calls.update(hipStreamCreate=1, hipMemsetAsync=1, hipStreamSynchronize=1, hipStreamDestroy=1)
        calls.update(hipMemcpy=1, hipFree=3)
    return calls


def sizes(rng) -> tuple[int, int]:
    """Fresh data for a run: the vectors' length and the scale launches."""
    return int(rng.integers(1000, 20000)), int(rng.integers(2, 6))


# ---------------------------------------------------------------- CPU programs


def test_a_programs_trace_is_what_it_did(traced_on, tmp_path, rng):
    platform, traced = traced_on
    n, launches = sizes(rng)
    options = ("--stats", "-d", "out", "-o", "run", "-f", "csv", "json")
    done = prof(*options, "--", str(traced), "ok", str(n), str(launches), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["levels 0 0 -1", "ok"]  # roctx's levels, as ROCm's
    out = tmp_path / "out"
    written = {p.name for p in out.iterdir()}
    domains = ("kernel_trace", "hip_api_trace", "memory_copy_trace", "marker_api_trace")
    stats = ("kernel_stats", "hip_api_stats", "memory_copy_stats", "marker_api_stats")
    both = (*domains, *stats, "memory_allocation_trace", "memory_allocation_stats")
    assert written == {f"run_{name}.csv" for name in both} | {"run_trace.json"}

    kernels = sorted(rows(out / "run_kernel_trace.csv"), key=start)
    assert [kernel_name(k["Kernel_Name"]) for k in kernels] == ["scale"] * launches + ["add"]
    blocks = (n + 255) // 256
    assert {(k["Workgroup_Size_X"], k["Grid_Size_X"], k["Agent_Id"]) for k in kernels} == {
        ("256", str(blocks * 256), "Agent 1")
    }
    calls = rows(out / "run_hip_api_trace.csv")
    launching = ("__hipPushCallConfiguration", "__hipPopCallConfiguration")  # CUDA's <<<...>>>, as ROCm's
    assert Counter(c["Function"] for c in calls if c["Function"] not in launching) == expected_calls(launches)
    by_id = {c["Correlation_Id"]: c for c in calls}
    assert len(by_id) == len(calls)
    for k in kernels:  # each kernel carries the id of the launch that enqueued it
        call = by_id[k["Correlation_Id"]]
        assert call["Function"] == "hipLaunchKernel"
        assert int(call["Start_Timestamp"]) <= int(k["Start_Timestamp"]) <= int(k["End_Timestamp"])
    assert len({k["Correlation_Id"] for k in kernels}) == launches + 1
    copies = sorted(rows(out / "run_memory_copy_trace.csv"), key=start)
    assert [(c["Direction"], by_id[c["Correlation_Id"]]["Function"]) for c in copies] == [
        ("MEMORY_COPY_HOST_TO_DEVICE", "hipMemcpy"),
        ("MEMORY_COPY_HOST_TO_DEVICE", "hipMemcpy"),
        ("MEMORY_SET", "hipMemsetAsync"),
        ("MEMORY_COPY_DEVICE_TO_HOST", "hipMemcpy"),
    ]
    assert [c["Stream_Id"] for c in copies] == ["0", "0", "1", "0"]  # the memset's stream was created
    allocations = rows(out / "run_memory_allocation_trace.csv")
    assert [(a["Operation"], a["Allocation_Size"]) for a in allocations] == [
        ("MEMORY_ALLOCATION_ALLOCATE", str(4 * n))
    ] * 3 + [("MEMORY_ALLOCATION_FREE", str(4 * n))] * 3
    assert [a["Address"] for a in allocations[:3]] == [a["Address"] for a in allocations[3:]]

    markers = rows(out / "run_marker_api_trace.csv")
    names = [m["Function"] for m in markers]
    assert sorted(names) == sorted(["iteration"] * launches + [LAUNCHED, "outer", "copy back"])
    span = {m["Function"]: (int(m["Start_Timestamp"]), int(m["End_Timestamp"])) for m in markers}
    for m in markers[:-2]:  # nested in "outer": the iterations and the mark; not "copy back"
        inside = span["outer"][0] <= int(m["Start_Timestamp"]) <= int(m["End_Timestamp"]) <= span["outer"][1]
        assert inside == (m["Function"] in ("iteration", LAUNCHED))

    data = validate_chrome_trace(out / "run_trace.json")
    events = data["traceEvents"]
    copy_bytes = [e["args"]["bytes"] for e in events if e.get("cat") == "memory_copy"]
    assert copy_bytes == [4 * n] * 4
    depths = {(e["name"], e["args"]["depth"]) for e in events if e.get("cat") == "marker" and e["ph"] == "X"}
    assert depths == {("outer", 0), ("iteration", 1), ("copy back", 0)}
    launches_seen = sum(e["ph"] == "s" and e["name"] == "launch" for e in events)
    assert launches_seen == launches + 1  # an arrow from each launch call to its kernel
    processes = [e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"]
    assert processes[0].startswith("Host (pid ") and processes[1].startswith(f"Device {platform}:0 ")


def test_an_aborting_program_leaves_its_trace_up_to_the_abort(traced, tmp_path, rng):
    n, launches = sizes(rng)
    done = prof("-d", "out", "-o", "run", "--", str(traced), "abort", str(n), str(launches), cwd=tmp_path)
    assert done.returncode == 128 + 6, done.stderr  # SIGABRT, passed through
    out = tmp_path / "out"
    assert [k["Kernel_Name"] for k in rows(out / "run_kernel_trace.csv")] == ["scale"] * launches + ["add"]
    calls = rows(out / "run_hip_api_trace.csv")
    assert Counter(c["Function"] for c in calls) == expected_calls(launches, finished=False)
    assert len(rows(out / "run_memory_copy_trace.csv")) == 2
    assert sorted(m["Function"] for m in rows(out / "run_marker_api_trace.csv")) == sorted(
        ["iteration"] * launches + [LAUNCHED, "outer"]
    )


def test_the_exit_status_passes_through_with_the_whole_trace(traced, tmp_path, rng):
    n, launches = sizes(rng)
    done = prof("-d", "out", "-o", "run", "--", str(traced), "exit7", str(n), str(launches), cwd=tmp_path)
    assert done.returncode == 7, done.stderr
    calls = rows(tmp_path / "out" / "run_hip_api_trace.csv")
    assert Counter(c["Function"] for c in calls) == expected_calls(launches)


def test_only_the_domains_and_kernels_asked_are_kept(traced, tmp_path, rng):
    n, launches = sizes(rng)
    options = ("--kernel-trace", "--kernel-include-regex", "^add$", "-d", "out", "-o", "run")
    done = prof(*options, "--", str(traced), "ok", str(n), str(launches), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["run_kernel_trace.csv"]
    assert [k["Kernel_Name"] for k in rows(tmp_path / "out" / "run_kernel_trace.csv")] == ["add"]


def test_a_python_program_and_its_cpp_child_share_one_timeline(traced, tmp_path, rng):
    n, launches = sizes(rng)
    parent = tmp_path / "parent.py"
    parent.write_text(
        textwrap.dedent(
            f"""
            import subprocess
            import numpy as np
            import hipkit

            source = 'extern "C" __global__ void twice(float* x) {{ x[threadIdx.x] *= 2; }}'
            x = hipkit.to_device(np.ones(64, np.float32))
            hipkit.compile(source).get_function("twice")[1, 64](x)
            hipkit.mark("before")
            subprocess.run([{str(traced)!r}, "ok", "{n}", "{launches}"], check=True)
            hipkit.mark("after")
            assert x.get()[0] == 2
            """
        )
    )
    done = prof("-d", "out", "-o", "run", "-f", "csv", "json", "--", "python", str(parent), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    kernel_files = sorted(out.glob("run_*_kernel_trace.csv"))  # one set of files per process
    assert len(kernel_files) == 2
    names = {int(path.name.split("_")[1]): [k["Kernel_Name"] for k in rows(path)] for path in kernel_files}
    (child,) = [pid for pid, kernels in names.items() if kernels == ["scale"] * launches + ["add"]]
    assert [kernels for pid, kernels in names.items() if pid != child] == [["twice"]]
    pids = set(names)
    assert not list(out.glob("run_*_trace.json"))
    events = validate_chrome_trace(out / "run_trace.json")["traceEvents"]  # both processes in one
    hosts = {e["pid"] for e in events if e["ph"] == "M" and e["args"].get("name", "").startswith("Host")}
    assert hosts == pids
    devices = [e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"]
    assert sorted(d.split(" (pid ")[1].rstrip(")") for d in devices if d.startswith("Device")) == sorted(
        map(str, pids)
    )
    # One clock: the child's calls lie between the parent's marks around it.
    marks = {e["name"]: e["ts"] for e in events if e["ph"] == "i" and e["cat"] == "marker"}
    child_calls = [e for e in events if e.get("cat") == "hip_api" and e["pid"] == child]
    assert len(child_calls) == sum(expected_calls(launches).values()) and all(
        marks["before"] < e["ts"] < marks["after"] for e in child_calls
    )


def test_a_program_that_cannot_write_its_trace_says_so_and_runs(traced, tmp_path, rng):
    n, launches = sizes(rng)
    env = dict(os.environ, HIPKIT_PROF_DIR=str(tmp_path / "missing"))
    done = subprocess.run([str(traced), "ok", str(n), str(launches)], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.endswith("ok\n"), done.stderr
    missing = re.escape(str(tmp_path / "missing"))
    assert re.fullmatch(
        rf"hipkit prof: cannot write the trace of process \d+ in {missing}: .+\n", done.stderr
    )


# ---------------------------------------------------------------- the native file


@needs_cpu
def test_the_reader_ignores_a_cut_last_line_and_rejects_a_bad_one(traced, tmp_path, rng, capsys):
    n, launches = sizes(rng)
    env = dict(os.environ, HIPKIT_PROF_DIR=str(tmp_path))
    subprocess.run([str(traced), "ok", str(n), str(launches)], env=env, check=True, capture_output=True)
    (native,) = tmp_path.glob(f"*{_native.SUFFIX}")
    whole = list(_native.records(native))
    assert whole[-1][0] == "meta" and whole[-1][1][0] == "ended_ns"  # written at exit
    marks = [row for domain, row in whole if domain == "marker" and row[3] == "mark"]
    assert [m[2] for m in marks] == [LAUNCHED]  # unescaped as it was written
    text = native.read_bytes()
    last = text.rindex(b"\n", 0, len(text) - 1) + 1
    for cut in (len(text) - 1, last + 3, last + 1):  # a process killed while writing its last line
        native.write_bytes(text[:cut])
        assert list(_native.records(native)) == whole[:-1]
    native.write_bytes(text[:last])
    assert list(_native.records(native)) == whole[:-1]

    bad = tmp_path / f"1{_native.SUFFIX}"
    for line, error in [
        ("frame\t1\n", "unknown record kind 'frame'"),
        ("api\t1\t2\thipMalloc\t3\n", "has 5 fields, not 4"),
        ("api\t1\tmain\thipMalloc\t3\t4\n", "bad api record"),
        ("kernel" + "\t1" * 6 + "\t1,2\t1,1,1" + "\t0" * 5 + "\n", "bad kernel record"),
    ]:
        bad.write_bytes(text[:last] + line.encode())
        with pytest.raises(_native.NativeTraceError, match=re.escape(f"{bad}:{len(whole)}: ") + f".*{error}"):
            list(_native.records(bad))
    # hipkit prof says which process's trace it could not read, and writes the others'.
    from hipkit.cli import prof as prof_cli
    from hipkit.profiler.programs import read_traces

    native.write_bytes(text)
    traces = read_traces(tmp_path, Domains(), "demangled", prof_cli._warn)
    assert [pid for pid, _ in traces] == [int(native.name.split(".")[0])]
    assert "pid 1: its trace cannot be read" in capsys.readouterr().err


@needs_cpu
def test_convert_keeps_the_domains_asked(traced, tmp_path, rng):
    n, launches = sizes(rng)
    env = dict(os.environ, HIPKIT_PROF_DIR=str(tmp_path))
    subprocess.run([str(traced), "ok", str(n), str(launches)], env=env, check=True, capture_output=True)
    (native,) = tmp_path.glob(f"*{_native.SUFFIX}")
    spool = Spool(tmp_path / "all.spool")
    _native.convert(native, spool, Domains())
    trace = from_file(spool.path)
    assert [c.bytes for c in trace.copies] == [4 * n] * 4
    assert [k.grid for k in trace.kernels] == [((n + 255) // 256, 1, 1)] * (launches + 1)
    assert trace.devices.keys() == {"cpu:0"} and trace.meta["domains"] == Domains().as_dict()
    spool = Spool(tmp_path / "some.spool")
    _native.convert(native, spool, Domains(api=False, copy=False, exclude="scale"))
    trace = from_file(spool.path)
    assert [k.name for k in trace.kernels] == ["add"]
    assert not trace.api_calls and not trace.copies and len(trace.allocations) == 6


# ---------------------------------------------------------------- NVIDIA: compile-only here

needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found (no CUDA toolkit here)")


def found_cupti() -> toolkit.Cupti:
    try:
        return toolkit.find_cupti()
    except toolkit.CuptiUnavailable as exc:
        pytest.skip(str(exc))


# Library programs of native_programs/: (source, library, the calls each program
# makes, those of them that launch kernels).
TRACED_LIBRARIES = {
    "blas": (
        "traced_blas.cpp",
        "-lhipblas",
        {"hipblasSetStream", "hipblasSgemm", "hipblasSdot", "hipblasDestroy"},
        ("hipblasSgemm", "hipblasSdot"),
    ),
    "fft": (
        "traced_fft.cpp",
        "-lhipfft",
        {"hipfftPlan1d", "hipfftSetStream", "hipfftExecC2C", "hipfftDestroy"},
        ("hipfftExecC2C",),
    ),
}


def traced_result(library: str, n: int) -> float:
    """What the library program prints, from the inputs it makes."""
    if library == "blas":
        a = (np.arange(n * n) % 7 - 3).reshape(n, n, order="F").astype(np.float64)
        return float(((a @ a.T) ** 2).sum())
    i = np.arange(3 * n)
    x = (i % 7 - 3) + 1j * (i % 5 - 2)
    return float(n * n * (np.abs(x) ** 2).sum())  # forward and back: n times, squared


@pytest.fixture(
    scope="module",
    params=[(library, platform) for library in TRACED_LIBRARIES for platform in ("cpu", "nvidia")],
)
def library_traced_on(request, tmp_path_factory) -> tuple[str, str, Path]:
    """A library program of native_programs/ for each platform that can run it here."""
    library, platform = request.param
    if platform == "cpu" and library == "blas" and OPENBLAS_MISSING:
        pytest.skip(OPENBLAS_MISSING)
    if platform == "nvidia" and not (gpu_present() and find_nvcc()):
        pytest.skip("no NVIDIA GPU and nvcc here (library programs are compiled for NVIDIA in test_rocblas)")
    source, flag, _, _ = TRACED_LIBRARIES[library]
    directory = tmp_path_factory.mktemp(f"traced-{library}-{platform}")
    build(directory, "--platform", platform, "-o", "traced", str(PROGRAMS / source), flag)
    return library, platform, directory / "traced"


def test_a_programs_library_calls_are_api_rows_with_their_kernels(library_traced_on, tmp_path, rng):
    """Each hipBLAS or hipFFT call is one API row named by the library, its kernels
    (the CPU's named after it, the vendor library's own on NVIDIA) carry its
    correlation id, and the CUDA calls the vendor library makes inside it are not
    rows of their own."""
    library, _, program = library_traced_on
    _, _, names, launching = TRACED_LIBRARIES[library]
    n = int(rng.integers(8, 64))
    done = prof("-d", "out", "-o", "run", "-f", "csv", "--", str(program), str(n), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(traced_result(library, n), rel=1e-4)
    calls = rows(tmp_path / "out" / "run_hip_api_trace.csv")
    by_name = {c["Function"]: c for c in calls}
    assert names <= set(by_name)
    kernels = rows(tmp_path / "out" / "run_kernel_trace.csv")
    for name in launching:
        call = by_name[name]
        begin, end = start(call), int(call["End_Timestamp"])
        theirs = [k for k in kernels if k["Correlation_Id"] == call["Correlation_Id"]]
        assert theirs and all(begin <= start(k) <= int(k["End_Timestamp"]) for k in theirs), name
        inside = [
            c
            for c in calls
            if c is not call and c["Thread_Id"] == call["Thread_Id"] and begin <= start(c) <= end
        ]
        assert inside == [], name


@needs_nvcc
def test_roctx_compiles_for_nvidia_as_nvtx(tmp_path):
    done = hipkit_command(
        "cc",
        "--platform",
        "nvidia",
        "--offload-arch=sm_90",
        "-o",
        "traced",
        str(PROGRAMS / "traced.cpp"),
        "-lroctx64",
        "-lroctracer64",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    # NVTX3 is compiled in: it looks for a tool (CUPTI under hipkit prof) through this variable.
    assert b"NVTX_INJECTION64_PATH" in (tmp_path / "traced").read_bytes()


def test_the_hip_names_of_cuda_functions():
    names = tracing.hip_names()
    assert [cuda for cuda, _ in names] == sorted((cuda for cuda, _ in names), key=str.encode)
    table = dict(names)
    assert table["cudaLaunchKernel"] == "hipLaunchKernel"
    assert table["cudaMemcpy"] == "hipMemcpy" and table["cudaMalloc"] == "hipMalloc"
    assert table["cuLaunchKernel"] == "hipModuleLaunchKernel"
    assert table["cuMemcpyHtoD_v2"] == "hipMemcpyHtoD"
    assert "cudaError_t" not in table and "cudaMemcpyHostToDevice" not in table  # types, enumerators


def test_without_cupti_the_error_says_where_it_looked(tmp_path):
    with pytest.raises(
        toolkit.CuptiUnavailable, match=f"CUPTI not found \\(looked in {tmp_path};.*pip install"
    ):
        toolkit.find_cupti(homes=[tmp_path], wheels=False)
    (tmp_path / "extras" / "CUPTI" / "include").mkdir(parents=True)
    (tmp_path / "extras" / "CUPTI" / "include" / "cupti.h").write_text("")
    (tmp_path / "extras" / "CUPTI" / "lib64").mkdir()
    (tmp_path / "extras" / "CUPTI" / "lib64" / "libcupti.so.13").write_bytes(b"")
    with pytest.raises(toolkit.CuptiUnavailable, match=r"CUDA's headers \(cuda.h\) are not in"):
        toolkit.find_cupti(homes=[tmp_path], wheels=False)


def test_the_injection_library_is_keyed_by_every_part():
    """The library is one translation unit of cupti_inject.cpp and the parts it
    includes from its folder: each part is in the build's key (and the package)."""
    folder = tracing.SOURCE.parent
    included: set[Path] = set()
    todo = [tracing.SOURCE]
    while todo:
        for name in re.findall(r'^#include "([^"]+)"', todo.pop().read_text(), re.M):
            path = folder / name
            if path.is_file() and path not in included:
                included.add(path)
                todo.append(path)
    assert included == set(tracing.PARTS)


def test_the_injection_library_builds_once():
    cupti = found_cupti()
    library = tracing.library(cupti)
    built = library.stat().st_mtime_ns
    assert tracing.library(cupti) == library and library.stat().st_mtime_ns == built  # from the cache
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True)
    exported = [line.split()[-1] for line in symbols.stdout.splitlines()]
    # The driver's entry point and the programs' hooks for library calls (library_trace.h), and
    # none of hipkit's others (the rest are the C++ library's templates).
    hooks = {"InitializeInjection", "hipkit_library_call_begin", "hipkit_library_call_end"}
    assert hooks <= set(exported) and not [name for name in exported if "hk_" in name]
    environment = tracing.environment(cupti)
    assert environment == {"CUDA_INJECTION64_PATH": str(library), "NVTX_INJECTION64_PATH": str(cupti.library)}


def test_the_injection_library_names_and_starts(tmp_path):
    """The library's own lookup of HIP names, and what it does when the driver
    loads it: here, without a GPU, it says the process is not traced and writes
    nothing; on a GPU machine it starts the process's trace."""
    cupti = found_cupti()
    library = tmp_path / "libnames.so"
    tracing.compile_library(cupti, PROGRAMS / "cupti_names.cpp", library)
    lookup = ctypes.CDLL(str(library)).hk_test_hip_name
    lookup.restype, lookup.argtypes = ctypes.c_char_p, [ctypes.c_char_p]
    for cuda, hip in [
        ("cudaMalloc", "hipMalloc"),
        ("cudaMemcpyAsync_ptsz", "hipMemcpyAsync"),
        ("cudaMemcpy2DAsync_ptsz_v7000", "hipMemcpy2DAsync"),
        ("cuMemcpyHtoD_v2", "hipMemcpyHtoD"),
        ("cudaLaunchKernel_v7000", "hipLaunchKernel"),
        ("__cudaPopCallConfiguration", "__hipPopCallConfiguration"),
        ("cudaNotAFunction_v11020", "cudaNotAFunction"),
    ]:
        assert lookup(cuda.encode()).decode() == hip
    start = f"import ctypes; ctypes.CDLL({str(library)!r}).InitializeInjection()"
    env = dict(os.environ, HIPKIT_PROF_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", start], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = list(tmp_path.glob(f"*{_native.SUFFIX}"))
    if gpu_present():
        assert [row for domain, row in _native.records(written[0]) if domain == "meta"][0][0] == "pid"
    else:
        assert not written and "not traced: cuptiSubscribe failed" in done.stderr


@needs_nvcc
def test_prof_warns_when_nvidia_programs_cannot_be_traced(monkeypatch, capsys):
    """On a GPU machine hipkit prof builds the CUPTI library for the program; when
    it cannot, the program still runs, untraced on NVIDIA, and the user is told why."""
    from hipkit.cli import prof as prof_cli
    from hipkit.platforms.nvidia.toolchain import NvidiaToolchain

    found_cupti()
    monkeypatch.setattr(
        NvidiaToolchain, "device_present", classmethod(lambda cls: True)
    )  # as on a GPU machine
    monkeypatch.setenv("HIPKIT_CXX", "false")  # a C++ compiler that fails
    assert prof_cli._program_tracing() == {}
    assert "NVIDIA programs will not be traced: building libhipkit_cupti.so" in capsys.readouterr().err

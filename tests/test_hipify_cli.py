"""``hipkit hipify`` on files and trees: stdout, -o, --inplace, --output-dir, errors and
statistics; the subprocess tests run the command as a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import hipkit
from hipkit.cli import main
from hipkit.hipify import files

CUDA = """#include <cuda_runtime.h>
__global__ void scale(float* x) { x[threadIdx.x] *= 2; }
int main() {
  float* d;  // cudaMalloc below
  cudaMalloc(&d, 64);
  scale<<<1, 16>>>(d);
  cudaDeviceFlushGPUDirectRDMAWrites(0, 0);
  return cudaFree(d);
}
"""
HIP = """#include <hip/hip_runtime.h>
__global__ void scale(float* x) { x[threadIdx.x] *= 2; }
int main() {
  float* d;  // cudaMalloc below
  hipMalloc(&d, 64);
  scale<<<1, 16>>>(d);
  cudaDeviceFlushGPUDirectRDMAWrites(0, 0);
  return hipFree(d);
}
"""


def hipify_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    root = str(Path(hipkit.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "hipkit.cli", "hipify", *map(str, args)],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


def test_stdout_by_default_with_warnings_on_stderr(tmp_path):
    src = write(tmp_path / "k.cu", CUDA)
    done = hipify_cli(src)
    assert done.returncode == 0
    assert done.stdout.decode() == HIP
    stderr = done.stderr.decode()
    assert f"{src}:7:3: warning: 'cudaDeviceFlushGPUDirectRDMAWrites' is unsupported in HIP" in stderr
    assert "Traceback" not in stderr
    assert src.read_text() == CUDA


def test_output_file_and_kernel_syntax_and_stats(tmp_path):
    src = write(tmp_path / "k.cu", CUDA)
    out = tmp_path / "out" / "k.hip"
    done = hipify_cli(src, "-o", out, "--hip-kernel-execution-syntax", "--print-stats")
    assert done.returncode == 0 and done.stdout == b""
    assert out.read_text() == HIP.replace(
        "scale<<<1, 16>>>(d);", "hipLaunchKernelGGL(scale, dim3(1), dim3(16), 0, 0, d);"
    )
    stderr = done.stderr.decode()
    for line in (
        f"[HIPIFY] info: file '{src}' statistics:",
        "  CONVERTED refs count: 4",
        "  UNSUPPORTED refs count: 1",
        "  TOTAL lines of code: 9",
        "  WARNINGS: 1",
        "  runtime: 4",
        "  kernel_launch: 1",
        "  cudaMalloc => hipMalloc: 1",
        "  cuda_runtime.h => hip/hip_runtime.h: 1",
    ):
        assert line + "\n" in stderr + "\n", line


def test_inplace_rewrites_atomically_and_leaves_unchanged_files_alone(tmp_path, capsys):
    src = write(tmp_path / "k.cu", CUDA)
    src.chmod(0o640)
    plain = write(tmp_path / "plain.cpp", "int main() { return 0; }\n")
    os.utime(plain, (1_000_000_000, 1_000_000_000))
    assert main(["hipify", "--inplace", str(src), str(plain)]) == 0
    assert src.read_text() == HIP
    assert src.stat().st_mode & 0o777 == 0o640
    assert plain.stat().st_mtime == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu", "plain.cpp"]  # no temporary files
    assert capsys.readouterr().out == ""


def test_failed_write_loses_nothing(tmp_path, monkeypatch):
    src = write(tmp_path / "k.cu", CUDA)

    def refuse(a, b):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", refuse)
    result = files.translate_file(src, src)
    assert result.error == f"{src}: cannot write: No space left on device"
    assert src.read_text() == CUDA
    assert [p.name for p in tmp_path.iterdir()] == ["k.cu"]


def test_tree_into_output_dir_in_parallel(tmp_path, capsys):
    tree = tmp_path / "proj"
    for i in range(5):
        write(tree / f"k{i}.cu", CUDA.replace("scale", f"scale{i}"))
    write(tree / "include" / "util.cuh", "#pragma once\ncudaStream_t make();\n")
    write(tree / "src" / "main.CPP", '#include "util.cuh"\nint main() { return 0; }\n')
    write(tree / "README.txt", "cudaMalloc\n")
    write(tree / ".git" / "hooks.cu", "cudaMalloc\n")
    out = tree / "hip"  # inside the tree: not read back as input
    code = main(["hipify", str(tree), "--output-dir", str(out), "--rename-ext", "-j", "2"])
    assert code == 0
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == ["include/util.cuh", "k0.hip", "k1.hip", "k2.hip", "k3.hip", "k4.hip", "src/main.CPP"]
    assert (out / "k3.hip").read_text() == HIP.replace("scale", "scale3")
    assert (
        out / "include/util.cuh"
    ).read_text() == "#pragma once\n#include <hip/hip_runtime.h>\n\nhipStream_t make();\n"
    assert (out / "src/main.CPP").read_text() == '#include "util.cuh"\nint main() { return 0; }\n'
    err = capsys.readouterr().err
    assert err.count("is unsupported in HIP") == 5
    # Sequential and parallel runs agree, file by file.
    jobs = [(p, None) for p in files.sources(tree, exclude=out)]
    serial = files.translate_files(jobs, workers=1)
    parallel = files.translate_files(jobs, workers=2)
    assert [(r.source, r.text, r.diagnostics) for r in serial] == [
        (r.source, r.text, r.diagnostics) for r in parallel
    ]


def test_inplace_tree(tmp_path):
    write(tmp_path / "a" / "k.cu", CUDA)
    assert main(["hipify", "--inplace", str(tmp_path / "a")]) == 0
    assert (tmp_path / "a" / "k.cu").read_text() == HIP


def test_input_errors_exit_1_and_others_still_translate(tmp_path):
    good = write(tmp_path / "good.cu", CUDA)
    bad = write(tmp_path / "bad.cu", "#include <cuda.h>\nint x;\n/* never closed\n")
    done = hipify_cli(tmp_path / "missing.cu", bad, good, tmp_path, "--output-dir", tmp_path / "out")
    assert done.returncode == 1
    stderr = done.stderr.decode()
    assert f"hipkit hipify: error: {tmp_path / 'missing.cu'}: No such file or directory" in stderr
    assert f"hipkit hipify: error: {bad}:3:1: unterminated comment" in stderr
    assert "Traceback" not in stderr
    assert (tmp_path / "out" / "good.cu").read_text() == HIP
    assert not (tmp_path / "out" / "bad.cu").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--no-such-option", "k.cu"], "unrecognized arguments: --no-such-option"),
        (["a.cu", "b.cu", "-o", "out.cu"], "-o FILE takes one input"),
        (["k.cu", "--rename-ext"], "--rename-ext needs --output-dir DIR"),
        (["k.cu", "--inplace", "-o", "x.cu"], "not allowed with argument"),
    ],
)
def test_usage_errors_exit_2(args, message, capsys):
    try:
        code = main(["hipify", *args])
    except SystemExit as e:  # argparse's own errors
        code = e.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_directory_without_destination_is_an_input_error(tmp_path, capsys):
    assert main(["hipify", str(tmp_path)]) == 1
    assert "is a directory (translate a tree with --output-dir DIR or --inplace)" in capsys.readouterr().err


def test_roc_and_bytes_kept_through_files(tmp_path, capsysbinary):
    text = "#include <cublas_v2.h>\r\n// caf\xe9\r\ncublasHandle_t h;\r\n"
    src = tmp_path / "b.cu"
    src.write_bytes(text.encode("latin-1"))
    assert main(["hipify", "--roc", str(src)]) == 0
    assert capsysbinary.readouterr().out == (
        "\r\n#include <hip/hip_runtime.h>\r\n#include <rocblas.h>\r\n// caf\xe9\r\nrocblas_handle h;\r\n"
    ).encode("latin-1")


def test_hipify_clang_options_take_one_dash_too(tmp_path, capsys):
    src = tmp_path / "b.cu"
    src.write_text("#include <cublas_v2.h>\ncublasHandle_t h;\nk<<<1, 2>>>(x);\n")
    assert (
        main(["hipify", "-roc", "-hip-kernel-execution-syntax", "-o", str(tmp_path / "o.hip"), str(src)]) == 0
    )
    out = (tmp_path / "o.hip").read_text()
    assert "rocblas_handle h;" in out and "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x);" in out

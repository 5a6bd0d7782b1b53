"""tools/hipify_score.py: RUN-line options, run_test.sh's comment stripping, and the CHECK-line
matcher (FileCheck's semantics, going on after a miss)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("hipify_score", ROOT / "tools/hipify_score.py")
assert spec and spec.loader
score = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = score  # its dataclasses look their module up
spec.loader.exec_module(score)


def test_run_line_options_map_to_ours():
    run = score.parse_run(
        '// RUN: %run_test hipify "%s" "%t" %hipify_args 4 --amap --roc --hip-kernel-execution-syntax '
        "--cuda-kernel-execution-syntax %clang_args -D__CUDA_API_VERSION_INTERNAL\n"
    )
    assert run.options == {"roc": True, "hip_kernel_execution_syntax": True}
    assert run.ignored == ["--amap", "-D__CUDA_API_VERSION_INTERNAL"]
    # A quoted option without a count reaches clang, not hipify (run_test.sh's argument handling).
    run = score.parse_run('// RUN: %run_test hipify "%s" "%t" %hipify_args "-roc" %clang_args\n')
    assert run.options == {} and run.ignored == ["-roc"]
    assert score.parse_run("int main() {}\n") is None


def test_comments_are_cut_as_sed_does():
    assert score.strip_comments('a; // x\nb("http://h"); //\n') == 'a; // \nb("http:// \n'


def test_recall_follows_filecheck_and_goes_on_after_a_miss():
    checks = score.checks(
        "// CHECK: int a = 1;\n"
        "// CHECK-NEXT: int   b = {{[0-9]+}};\n"
        "// CHECK: missing();\n"
        "// CHECK-NEXT: int d;\n"
        "// CHECK-NOT: cudaMalloc\n"
        "// CHECK: int e;\n"
    )
    assert [c.kind for c in checks] == ["CHECK", "CHECK-NEXT", "CHECK", "CHECK-NEXT", "CHECK-NOT", "CHECK"]
    output = "int a = 1;\nint b\t= 22;\nint c;\nint d;\nint e;\n"
    assert score.recall(output, checks) == [True, True, False, True, True, True]
    # CHECK-NEXT must be on the very next line; CHECK-NOT must be absent up to the next match.
    assert score.recall("int a = 1;\n\nint b = 2;\ncudaMalloc;\nint e;\n", checks) == [
        True,
        False,
        False,
        False,
        False,
        True,
    ]

"""tools/hip_tests.py: Catch2's test specs and failure lines as the script reads them, and,
where ``HIPKIT_HIP_TESTS`` names a checkout of ROCm's hip-tests, the script itself on two
test files (one of them run, test case by test case)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipkit import platforms

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("hip_tests", ROOT / "tools/hip_tests.py")
assert spec and spec.loader
tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = tool  # its dataclasses look their module up
spec.loader.exec_module(tool)

CHECKOUT = os.environ.get("HIPKIT_HIP_TESTS", "")
cpu_absent = platforms.status()["cpu"]


def test_test_case_names_are_escaped_as_ctest_does():
    assert tool.catch_spec("Unit_hipMemset_Type - int") == "Unit_hipMemset_Type - int"
    assert tool.catch_spec("a,b [x]") == r"a\,b \[x\]"


def test_the_first_failure_of_a_compact_report():
    report = (
        "Randomness seeded to: 1\n"
        "/src/catch/unit/memory/hipMalloc.cc:120: failed: localError == expectedError for: 1 == 101"
        " with 1 message: 'Matching Errors'\n"
        "/src/catch/unit/memory/hipMalloc.cc:130: failed: x\n"
        "Failed 1 test case, failed 2 assertions.\n"
    )
    failure = tool.catch_failure(report)
    assert failure.startswith("hipMalloc.cc:120: failed: localError == expectedError for: 1 == 101")
    assert tool.catch_failure("\nsegfault here\n") == "segfault here"


def test_the_first_compiler_error_loses_its_folders():
    log = "In file included from /a/b.cc:3:\n/x/y/utils.hh:145:7: error: no 'f'\n/x/z.cc:1:1: error: more\n"
    assert tool.first_error(log) == "utils.hh:145:7: error: no 'f'"


def test_a_checkout_is_required(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("HIPKIT_HIP_TESTS", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        tool.main([])
    assert exit_info.value.code == 2
    assert "no hip-tests checkout" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tool.main([str(tmp_path)])
    assert "is not a hip-tests checkout" in capsys.readouterr().err


def test_every_selected_file_is_named_once():
    paths = [t.path for t in tool.TESTS]
    assert len(paths) == len(set(paths))
    assert all(p.endswith(".cc") and "/" in p for p in paths)


@pytest.mark.slow
@pytest.mark.skipif(not CHECKOUT, reason="HIPKIT_HIP_TESTS names no hip-tests checkout")
@pytest.mark.skipif(bool(cpu_absent), reason=f"cpu platform absent: {cpu_absent}")
def test_the_script_builds_and_runs_a_selection(tmp_path):
    report = tmp_path / "report.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools/hip_tests.py"),
            CHECKOUT,
            "--only",
            "memory/hipMalloc.cc",
            "device/hipDeviceGetPCIBusId.cc",
            "-j",
            "2",
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = report.read_text()
    assert "| memory/hipMalloc.cc | yes | 4 | 4 | 0 | 0 |" in text
    assert "2 test files: 2 built, 2 with every test case passed or skipped" in text

"""The platform registry: a platform registered once appears in hipkit info,
hipkit cc --version, hipkit doctor and the test suite's device fixture, with no
other file changed (the fake platform lives in tests/fake_platform.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import fake_platform
import pytest

from hipkit import cli, config, platforms

pytest_plugins = ["pytester"]


@pytest.fixture
def fake():
    platforms.register("fake", "fake_platform", 50)
    yield "fake"
    platforms.unregister("fake")


def test_a_registered_platform_is_known_in_its_order(fake):
    assert platforms.known() == ("nvidia", "amd", "fake", "cpu")
    assert platforms.status()["fake"] == "the fake platform has no device"
    assert platforms.faces("fake").title == "Fake"


def test_hipkit_info_lists_it_with_its_reason(fake, capsys):
    assert cli.main(["info", "--json"]) == 0
    entries = {p["name"]: p for p in json.loads(capsys.readouterr().out)["platforms"]}
    reason = "the fake platform has no device"
    assert entries["fake"] == {"name": "fake", "available": False, "reason": reason}
    cli.main(["info"])
    assert "Platform: fake\n  absent: the fake platform has no device" in capsys.readouterr().out


def test_hipkit_cc_version_lists_its_tools(fake, capsys):
    cli.main(["cc", "--version"])
    out = capsys.readouterr().out
    assert "Platform fake: cannot build here (fake compiler: not found (nothing to find))\n" in out
    assert "  fake compiler: not found (nothing to find)\n" in out


def test_hipkit_cc_help_names_it(fake, capsys):
    assert cli.main(["cc", "--help"]) == 0
    assert "--platform NAME       one of nvidia, amd, fake, cpu" in capsys.readouterr().out


def test_hipkit_cc_builds_nothing_for_it(fake, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("main.hip").write_text("int main() { return 0; }\n")
    assert cli.main(["cc", "--platform", "fake", "main.hip"]) == 1
    err = capsys.readouterr().err
    assert "cannot build programs for the fake platform here: fake compiler: not found" in err
    assert not Path("a.out").exists()


def test_hipkit_doctor_has_its_section(fake, capsys):
    cli.main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("Fake")
    assert lines[at + 1 : at + 3] == [
        "  skip  fake device: the fake platform has no device",
        "  ok    visible devices: no visibility variable set",
    ]


def test_hipkit_platform_takes_its_name(fake, monkeypatch):
    monkeypatch.setenv("HIPKIT_PLATFORM", "fake")
    assert config.get("HIPKIT_PLATFORM") == "fake"
    with pytest.raises(Exception, match="platform fake is not available: the fake platform has no device"):
        platforms.default()


def test_the_device_fixture_runs_on_it(pytester, monkeypatch):
    """The suite's own conftest, in a session of its own (a process of its own: the
    platforms are made once per process) that registers the fake platform first:
    every device test is parametrized over it and its variant, and skips with its reason."""
    here = Path(__file__).parent
    registration = '\nplatforms.register("fake", "fake_platform", 50)\n'
    pytester.makeconftest((here / "conftest.py").read_text() + registration)
    pytester.makepyfile(test_one="def test_kernel(device):\n    pass\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(here), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv("HIPKIT_TEST_PLATFORMS", raising=False)  # this session's own narrowing
    result = pytester.runpytest_subprocess("-rs", "-k", "fake")
    result.assert_outcomes(skipped=2)
    reason = f"fake platform absent: {fake_platform.REASON}"
    result.stdout.fnmatch_lines([f"SKIPPED [[]2[]] test_one.py:*: {reason}"])
    collected = pytester.runpytest_subprocess("--collect-only", "-q")
    collected.stdout.fnmatch_lines(["*::test_kernel[[]fake[]]", "*::test_kernel[[]fake-twice[]]"])


def test_a_name_is_registered_once(fake):
    with pytest.raises(ValueError, match="a platform 'fake' is registered already"):
        platforms.register("fake", "fake_platform", 60)


@pytest.mark.parametrize("name", ["Fake", "my platform", "", "9x"])
def test_a_name_is_what_hipkit_platform_takes(name):
    with pytest.raises(ValueError, match="a platform's name is a lower-case identifier"):
        platforms.register(name, "fake_platform", 50)
    assert name not in platforms.known()


def test_only_a_registered_name_is_unregistered():
    with pytest.raises(ValueError, match="no platform 'tpu' is registered"):
        platforms.unregister("tpu")


def test_an_unknown_name_is_refused():
    with pytest.raises(ValueError, match="unknown platform 'tpu'; hipkit has nvidia, amd, cpu"):
        platforms.faces("tpu")
    with pytest.raises(ValueError, match="unknown platform 'tpu'"):
        platforms.get("tpu")


def test_hipkit_platform_names_a_registered_platform(monkeypatch):
    monkeypatch.setenv("HIPKIT_PLATFORM", "TPU")
    with pytest.raises(ValueError, match=r"^HIPKIT_PLATFORM='TPU': expected one of nvidia, amd, cpu$"):
        platforms.forced()
    monkeypatch.setenv("HIPKIT_PLATFORM", "CPU")
    assert platforms.forced() == "cpu"


def test_an_unknown_face_is_refused():
    with pytest.raises(ValueError, match="no face 'lapack'"):
        platforms.faces("cpu").load("lapack")

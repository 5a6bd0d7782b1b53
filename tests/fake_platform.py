"""A minimal platform that lives in the test suite: a runtime with no device, a
toolchain with no compiler, a doctor section of one check and a variant.

Registering it (``hipkit.platforms.register("fake", "fake_platform", 50)``) is
all it takes for hipkit info, hipkit cc --version, hipkit doctor and the test
suite's device fixture to know it (tests/test_platforms.py).
"""

from __future__ import annotations

from pathlib import Path

from hipkit._errors import CompileError
from hipkit._system import System
from hipkit.platforms.base.checks import Check
from hipkit.platforms.base.faces import Faces
from hipkit.platforms.base.options import Options
from hipkit.platforms.base.platform import PlatformUnavailable
from hipkit.platforms.base.toolchain import Tool, Toolchain, Unit

REASON = "the fake platform has no device"


class FakePlatform:
    """The runtime face: never usable here (the constructor says why)."""

    name = "fake"

    def __init__(self) -> None:
        raise PlatformUnavailable(REASON)


class FakeToolchain(Toolchain):
    """The toolchain face: its compiler is never found."""

    name = "fake"

    @classmethod
    def tools(cls) -> list[Tool]:
        return [Tool("fake compiler", "fake", None, "not found (nothing to find)")]

    def compile(self, source: str, options: Options) -> Unit:
        raise CompileError("the fake platform compiles nothing")

    def link(self, units: list[Unit], options: Options, output: Path) -> None:
        raise CompileError("the fake platform links nothing")

    def program_key(self, units: list[Unit], options: Options) -> str:
        return ""


def checks(system: System) -> list[Check]:
    """The checks face: the doctor's section."""
    return [Check("fake device", "skip", REASON)]


def devices(system: System) -> tuple[int, list[tuple[str, str]]]:
    """The devices face: none present, none hidden."""
    return 0, []


FACES = Faces(
    __name__,
    title="Fake",
    gpu=False,
    runtime="fake_platform:FakePlatform",
    toolchain="fake_platform:FakeToolchain",
    checks="fake_platform:checks",
    devices="fake_platform:devices",
    variants={"twice": {"FAKE_PLATFORM_MODE": "twice"}},
)

"""Which platform a program is built for, and what each platform builds with.

Each platform that builds whole programs has a toolchain face (a
:class:`~hipkit.platforms.base.toolchain.Toolchain`, in its folder under
``hipkit/platforms``); this module picks one by the registry
(:mod:`hipkit.platforms`) and reports them all: ``hipkit cc --version`` lists
every compiler found, for every platform, and what is missing (:func:`report`).
"""

from __future__ import annotations

from .. import __version__, platforms
from ..platforms.base.options import OptionError, Options
from ..platforms.base.toolchain import Tool, Toolchain

__all__ = ["default_platform", "find_tools", "report", "select", "toolchain_class"]


def toolchain_class(name: str) -> type[Toolchain]:
    """The toolchain of platform ``name``; OptionError if it builds no programs."""
    builders = platforms.having("toolchain")
    if name not in builders:
        raise OptionError(f"unknown platform {name!r}; platforms: {', '.join(builders)}")
    cls: type[Toolchain] = platforms.faces(name).load("toolchain")
    return cls


def default_platform() -> str:
    """HIPKIT_PLATFORM, else the first platform with a device here and its
    compiler installed, else the last (the CPU): the platform the program can run on."""
    forced = platforms.forced()
    if forced:
        return forced
    names = platforms.having("toolchain")
    for name in names:
        cls = toolchain_class(name)
        if cls.device_present() and not cls.missing():
            return name
    return names[-1]


def select(options: Options) -> Toolchain:
    """The toolchain of ``--platform``, else of :func:`default_platform`.

    Raises
    ------
    OptionError
        For a platform hipkit does not know, or a malformed variable it reads
        (HIPKIT_PLATFORM, HIPKIT_CPU_WARP_SIZE).
    CompileError
        When the platform's compiler is missing (with the reason).
    """
    from .._errors import CompileError

    try:
        name = options.platform or default_platform()
        cls = toolchain_class(name)
        reason = cls.missing()
        if reason:
            raise CompileError(f"cannot build programs for the {name} platform here: {reason}")
        return cls()
    except OptionError:
        raise
    except ValueError as exc:  # hipkit.config's, which names the variable
        raise OptionError(str(exc)) from None


def find_tools() -> list[Tool]:
    """Every compiler hipkit's platforms use, found or not."""
    return [tool for name in platforms.having("toolchain") for tool in toolchain_class(name).tools()]


def report() -> tuple[str, bool]:
    """``hipkit cc --version``'s text, and whether some platform can build programs."""
    try:
        default = default_platform()
    except ValueError as exc:  # a bad HIPKIT_PLATFORM
        default = f"none ({exc})"
    lines = [
        f"hipkit cc {__version__} (HIP compiler driver, hipcc's options)",
        f"Default platform: {default}",
    ]
    usable = False
    for platform in platforms.having("toolchain"):
        cls = toolchain_class(platform)
        reason = cls.missing()
        usable = usable or not reason
        state = f"cannot build here ({reason})" if reason else "ready"
        note = cls.device_note() if not reason else ""
        lines.append(f"Platform {platform}: {state}" + (f"; {note}" if note else ""))
        for tool in cls.tools():
            where = f" [{tool.path}]" if tool.path else ""
            lines.append(f"  {tool.role}: {tool.version}{where}")
        lines += [f"  {line}" for line in cls.settings()]
    return "\n".join(lines), usable

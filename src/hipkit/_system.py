"""The one seam through which ``hipkit doctor`` reads the machine.

Every file, environment variable, group, shared library, command and Python
module a check looks at is read through a :class:`System`, so tests describe a
whole machine (a fake file tree under a temporary root, a fake environment,
fake groups, libraries, commands and modules) and run every check against it.

Example
-------
>>> from hipkit._system import System
>>> System().exists("/proc")
True
"""

from __future__ import annotations

import ctypes
import getpass
import grp
import importlib
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import config

__all__ = ["System"]


def _library_loads(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def _run(argv: list[str], timeout: float) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout + done.stderr if done.returncode == 0 else None


def _import_optional(name: str) -> Any:
    # A broken install (a missing CUDA library under torch, say) raises more
    # than ImportError; for the doctor that is "not usable", not a crash.
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def _group_name(gid: int) -> str | None:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return None


def _records(text: str | None, width: int) -> list[list[str]]:
    """The colon-separated records of /etc/passwd or /etc/group."""
    rows = (line.split(":") for line in (text or "").splitlines())
    return [row for row in rows if len(row) == width]


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass
class System:
    """A machine as the doctor sees it; every field defaults to this process's own.

    Parameters
    ----------
    root
        Where absolute paths are looked up: ``read("/dev/kfd")`` reads ``root/dev/kfd``.
    env
        The environment variables.
    user
        The user name, looked up in ``<root>/etc/group``.
    group_ids, group_name
        The process's supplementary group ids and how to name one (``grp`` by default).
    access_fn
        ``access_fn(real_path, mode) -> bool`` as :func:`os.access`; tests pass one that
        reads the fake files' permission bits, since the tests may run as root.
    library_loads
        Whether a shared library loads by name (``ctypes.CDLL``).
    find_command, run_command
        Find a command on PATH (``shutil.which``); run one with a timeout in seconds,
        returning its output, or None when it fails.
    import_module
        Import a Python module, or None when it is absent or broken.
    cores
        The CPU cores this process may run on.
    cache_dir
        hipkit's cache directory (:func:`hipkit.config.cache_dir`).
    """

    root: Path = Path("/")
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    user: str = field(default_factory=getpass.getuser)
    group_ids: tuple[int, ...] = field(default_factory=lambda: tuple(os.getgroups()))
    group_name: Callable[[int], str | None] = _group_name
    access_fn: Callable[[Path, int], bool] = os.access
    library_loads: Callable[[str], bool] = _library_loads
    find_command: Callable[[str], str | None] = shutil.which
    run_command: Callable[[list[str], float], str | None] = _run
    import_module: Callable[[str], Any] = _import_optional
    cores: int = field(default_factory=_usable_cores)
    cache_dir: str = field(default_factory=lambda: str(config.cache_dir()))

    def path(self, path: str) -> Path:
        """The real location of the absolute ``path`` under :attr:`root`."""
        return self.root / path.lstrip("/")

    def read(self, path: str) -> str | None:
        """The text of a file, or None when it is absent or unreadable."""
        try:
            return self.path(path).read_text(errors="replace")
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        return self.path(path).exists()

    def listdir(self, path: str) -> list[str]:
        """The sorted entry names of a directory; empty when it is absent."""
        try:
            return sorted(os.listdir(self.path(path)))
        except OSError:
            return []

    def access(self, path: str, mode: int) -> bool:
        """Whether this user may use ``path`` with ``mode`` (``os.R_OK | os.W_OK`` ...)."""
        return self.access_fn(self.path(path), mode)

    def groups_of_user(self) -> set[str]:
        """The groups ``<root>/etc/group`` lists :attr:`user` in, with the primary group
        ``<root>/etc/passwd`` gives (the configuration a new login gets)."""
        primary = {f[3] for f in _records(self.read("/etc/passwd"), 7) if f[0] == self.user}
        groups = _records(self.read("/etc/group"), 4)
        return {f[0] for f in groups if self.user in f[3].split(",") or f[2] in primary}

    def process_groups(self) -> set[str]:
        """The names of the groups this process holds (what this login got)."""
        return {name for gid in self.group_ids if (name := self.group_name(gid))}

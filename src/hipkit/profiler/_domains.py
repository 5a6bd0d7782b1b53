"""What a profile traces: rocprofv3's domains, and which kernels by name."""

from __future__ import annotations

import re


class Domains:
    """What to trace: rocprofv3's domains, and which kernels (``re.search``)."""

    def __init__(
        self,
        kernel: bool = True,
        api: bool = True,
        copy: bool = True,
        marker: bool = True,
        alloc: bool = True,
        include: str | None = None,
        exclude: str | None = None,
    ):
        self.kernel, self.api, self.copy, self.marker, self.alloc = kernel, api, copy, marker, alloc
        self.include, self.exclude = _regex("include", include), _regex("exclude", exclude)

    def as_dict(self) -> dict[str, bool]:
        """Each domain, on or off (the profile's meta row "domains")."""
        return {
            "kernel": self.kernel,
            "api": self.api,
            "copy": self.copy,
            "marker": self.marker,
            "alloc": self.alloc,
        }

    def kernel_wanted(self, name: str) -> bool:
        """Whether the include and exclude regexes keep the kernel called ``name``."""
        if self.include is not None and not self.include.search(name):
            return False
        return self.exclude is None or not self.exclude.search(name)


def _regex(which: str, pattern: str | None) -> re.Pattern | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"kernel {which} regex {pattern!r}: {exc}") from None


class KernelFilter(dict):
    """Kernel name -> whether the domains' regexes keep it, decided once per name."""

    def __init__(self, domains: Domains):
        super().__init__()
        self.domains = domains

    def __missing__(self, name: str) -> bool:
        keep = self[name] = self.domains.kernel and self.domains.kernel_wanted(name)
        return keep

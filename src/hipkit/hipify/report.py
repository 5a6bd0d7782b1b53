"""What a hipify translation reports: its diagnostics, its statistics, its result.

:func:`hipkit.hipify.translate` returns a :class:`Result`; ``hipkit hipify``
prints its :class:`Diagnostic` lines (``--report`` writes them as JSON) and
adds the :class:`Stats` of many files into totals.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Location:
    """A name found in the source, 1-based line and column."""

    name: str
    line: int
    col: int


@dataclass(frozen=True)
class Diagnostic:
    """Something the user should look at: where, which rule (:data:`hipkit.hipify.rules.RULES`),
    how bad, what to do; ``fixed`` when ``--fix-warp-size`` rewrote it (a note, then)."""

    file: str
    line: int
    col: int
    rule: str
    severity: str  # "warning" or "note"
    message: str
    hint: str = ""
    fixed: bool = False

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message} [{self.rule}]"
        return f"{text}\n  hint: {self.hint}" if self.hint and not self.fixed else text

    def as_dict(self) -> dict[str, object]:
        """The fields as a JSON-ready dict (``--report``)."""
        return dataclasses.asdict(self)


@dataclass
class Stats:
    """What one translation did.

    ``names`` counts each (CUDA name, replacement) pair; ``libraries`` and ``kinds`` count
    the same conversions by library (runtime, blas, ...) and by HIPIFY's conversion type
    (memory, stream, include, kernel_launch, ...); ``unsupported`` lists the CUDA names
    with no HIP equivalent, where they are.
    """

    lines: int = 0
    names: Counter[tuple[str, str]] = field(default_factory=Counter)
    libraries: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    unsupported: list[Location] = field(default_factory=list)

    @property
    def converted(self) -> int:
        """How many references were converted."""
        return sum(self.names.values())

    def count(self, cuda: str, hip: str, library: str, kind: str) -> None:
        self.names[cuda, hip] += 1
        self.libraries[library] += 1
        self.kinds[kind] += 1

    def add(self, other: Stats) -> None:
        """Fold another file's statistics into these (for totals over many files)."""
        self.lines += other.lines
        self.names.update(other.names)
        self.libraries.update(other.libraries)
        self.kinds.update(other.kinds)
        self.unsupported.extend(other.unsupported)


@dataclass
class Result:
    """The translated text, what was converted, and the diagnostics."""

    text: str
    stats: Stats
    diagnostics: list[Diagnostic]

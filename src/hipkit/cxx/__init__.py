"""C++ source, as hipkit's tools read it (DESIGN.md, seam 5): one package for
the lexer and the little parsing that hipify, the CPU platform's transform and
kernel discovery need.

- :mod:`.lexer`: tokens (comments, literals, directives, ``<<<``/``>>>``) and
  the keywords the parsers tell apart;
- :mod:`.brackets`: matching brackets, splitting a range at its top level;
- :mod:`.toplevel`: functions and marked variables at namespace scope;
- :mod:`.statements`: function bodies as statements;
- :mod:`.declarations`: a statement as a declaration;
- :mod:`.launch`: CUDA's ``k<<<g, b>>>(args)`` launch syntax.

Expressions are never parsed: they stay token ranges, and what cannot be
placed raises :class:`~hipkit.cxx.brackets.ParseError` (the transform then
falls back to its most general execution mode).
"""

from __future__ import annotations

from pathlib import Path


def source_files() -> list[Path]:
    """This package's modules: what a compile that reads sources with them depends
    on (part of the build caches' keys)."""
    return sorted(Path(__file__).parent.glob("*.py"))

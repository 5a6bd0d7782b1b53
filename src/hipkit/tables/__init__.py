"""hipkit's generated tables, each beside the script that makes it (DESIGN.md, seam 4).

- ``names.tsv``: CUDA's names and their HIP and ROC names, with each name's
  support status (read by :mod:`.names`); and ``arguments.tsv``: hipify-clang's
  argument rewrites.  Made from a HIPIFY checkout by :mod:`.make_hipify_tables`
  (``python -m hipkit.tables.make_hipify_tables PATH_TO_HIPIFY``).
- ``include/hipkit_nvidia_program/*.h``: HIP's host API as CUDA's for programs
  built by ``hipkit cc --platform nvidia`` (names, the error functions, the module
  API, hiprtc); and ``include/hipkit_tables/hip_errors.h``: ``hipError_t`` with
  HIP's numbers, names and words, for the programs of the CPU and NVIDIA
  platforms.  ``include/`` (:data:`INCLUDE_DIR`) is on those programs' include
  path.  Made from ``names.tsv``, hipkit's error table and the NVIDIA platform's
  by :mod:`.make_nvidia_headers` (``python -m hipkit.tables.make_nvidia_headers``).
- ``hip_runtime_api.tsv`` and ``hip_device_api.tsv``: HIP's API, host and device, as
  ROCm's headers declare it (read by :mod:`.hip_api`); made by
  :mod:`.make_hip_api_table` and :mod:`.make_hip_device_table` from ROCm's headers.
- ``include/hipkit_rand/*.h``: the jump matrices of XORWOW and MRG32k3a for hipRAND's
  device API (``skipahead``, subsequences), computed from the recurrences by
  :mod:`.make_rand_tables` (``python -m hipkit.tables.make_rand_tables``); SOBOL32's
  direction numbers (:mod:`.make_sobol_tables`, from SciPy's copy) and MTGP32's
  parameter sets (:mod:`.make_mtgp_tables`, from the copy in cuRAND's headers); on
  every platform's include path for kernels and programs.

No table is edited by hand: each has a test that runs its script and compares
(``tests/test_hipify_tables.py``, ``tests/test_cc_nvidia.py``,
``tests/test_rand_tables.py``).  The scripts are
tools (they import what they read the facts from); the rest of hipkit imports
only :mod:`.names` and the paths here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TABLES_DIR = Path(__file__).parent
NAMES_TSV = TABLES_DIR / "names.tsv"
ARGUMENTS_TSV = TABLES_DIR / "arguments.tsv"
INCLUDE_DIR = TABLES_DIR / "include"


def write_text(path: Path, text: str) -> None:
    """Write a generated file whole or not at all (through a file beside it, renamed
    over it), with the mode any file the user writes gets."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def refresh(path: Path, text: str, check: bool, script: str) -> int:
    """A one-header script's end: 0 if ``path`` holds ``text``; else, with ``check``,
    1 and a line naming ``script`` (the module to run), without it the file written."""
    if path.exists() and path.read_text() == text:
        return 0
    if check:
        print(f"stale: {path.name} (run python -m {script})", file=sys.stderr)
        return 1
    path.parent.mkdir(exist_ok=True)
    write_text(path, text)
    return 0

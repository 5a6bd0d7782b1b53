"""hipify: translate CUDA sources to HIP (``hipkit hipify`` on the command line).

Token-accurate, on :mod:`hipkit.cxx.lexer`: CUDA names are renamed by the generated name
table (:mod:`hipkit.tables.names`, DESIGN.md seam 4), never inside comments or string
literals; CUDA headers become HIP headers as hipify-clang writes them; calls whose HIP
function takes other arguments are rewritten (:mod:`hipkit.hipify.arguments`); a text with
nothing to translate comes back unchanged, byte for byte.  The portability analysis
(:mod:`hipkit.hipify.analysis`, :mod:`hipkit.hipify.warp`) adds diagnostics with a rule ID
(:data:`RULES`), and ``Options(fix_warp_size=True)`` rewrites the safe warp-size cases.

Example
-------
>>> from hipkit import hipify
>>> r = hipify.translate('#include "cuda_runtime.h"\\ncudaStream_t s;  // a cudaStream_t\\n')
>>> print(r.text, end="")
#include "hip/hip_runtime.h"
hipStream_t s;  // a cudaStream_t
>>> r.stats.converted, dict(r.stats.libraries)
(2, {'runtime': 2})
"""

from ..tables.names import Entry, NameTable, table
from .files import FileResult, output_path, translate_file, translate_files
from .report import Diagnostic, Location, Result, Stats
from .rules import RULES, Rule
from .translator import Options, translate

__all__ = [
    "translate",
    "translate_file",
    "translate_files",
    "output_path",
    "Options",
    "Result",
    "Stats",
    "Diagnostic",
    "Location",
    "FileResult",
    "Entry",
    "NameTable",
    "table",
    "RULES",
    "Rule",
]

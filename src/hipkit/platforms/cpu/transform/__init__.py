"""The CPU platform's source transform: HIP C++ kernels as C++ the system compiler
builds into block functions (DESIGN.md, CPU execution).

- :mod:`.source`: the whole source: kernels found, markers rewritten, launches
  (program mode) made runtime calls (:mod:`.launches`), each kernel's
  execution chosen and its block function written (:mod:`.kernels`), the
  module descriptor appended (:mod:`.descriptors`), on the user's tokens of
  the unit (:mod:`.unit`);
- :mod:`.split`: a barrier kernel's body split at its barriers into loops over
  the block's threads, where it can be; built on :mod:`.split_state`,
  :mod:`.split_regions` and :mod:`.split_warp`;
- :mod:`.analysis`: what both read from a kernel's tokens (the names that
  synchronize, the functions that do, assignments, grid-stride loops);
- :mod:`.shared`: ``__shared__`` declarations inside functions.

Everything a compile's result depends on in Python is in this package (its
files are part of the kernel cache's key), with :mod:`hipkit.cxx`.
"""

from .descriptors import INCLUDE_DIR
from .source import transform
from .unit import TransformError

__all__ = ["INCLUDE_DIR", "TransformError", "transform"]

"""hipkit's profiler and tracer (rocprofv3 and ROCTx, for hipkit programs).

From Python: ``with hipkit.profile() as p: ...``, then ``p.stats()``,
``p.kernels``, ``p.copies``, ``p.api_calls``, ``p.markers``, ``p.allocations``,
``p.save("trace.json")`` (Perfetto, chrome://tracing) and ``p.save_csv(dir)``
(rocprofv3's CSV files); ``hipkit.mark(message)`` and ``hipkit.range(name)``
annotate the trace.  From the shell: ``hipkit prof -- python script.py``.

Every runtime call reaches the tracer through the runtime's hook point
(``hipkit.runtime.hooks``); with no profile running nothing is traced and the
runtime pays nothing beyond an attribute lookup per launch.
"""

from ._domains import Domains
from .records import ApiCall, KernelDispatch, Marker, MemoryAllocation, MemoryCopy, Stat
from .session import Profile, mark, profile, range
from .trace import StatsTable, Trace, from_file

__all__ = [
    "ApiCall",
    "Domains",
    "KernelDispatch",
    "Marker",
    "MemoryAllocation",
    "MemoryCopy",
    "Profile",
    "Stat",
    "StatsTable",
    "Trace",
    "from_file",
    "mark",
    "profile",
    "range",
]

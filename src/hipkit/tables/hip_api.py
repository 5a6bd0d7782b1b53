"""HIP's runtime API as data: the functions of ROCm's ``hip_runtime_api.h``
(``hip_runtime_api.tsv``, made by ``python -m hipkit.tables.make_hip_api_table``), each
with its Doxygen group and whether it is deprecated or graphics interop."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TABLE = Path(__file__).with_name("hip_runtime_api.tsv")


@dataclass(frozen=True)
class Function:
    name: str
    group: str
    deprecated: bool
    interop: bool

    @property
    def counted(self) -> bool:
        """In the coverage: neither deprecated nor graphics interop."""
        return not (self.deprecated or self.interop)


def load() -> list[Function]:
    """The table, in the header's order."""
    rows = [line.split("\t") for line in TABLE.read_text().splitlines() if line and not line.startswith("#")]
    return [Function(name, group, "deprecated" in flags, "interop" in flags) for name, group, flags in rows]

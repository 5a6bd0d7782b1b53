"""Launches from CUPTI's records: each kernel joined with its launch call.

CUPTI describes a launch by two records with one correlation id of its own:
the ``cuLaunchKernel`` call (its thread, host times and result) and the kernel
(name, grid, block, shared memory, stream, device times).  They come in any
order, and in different reads; :class:`Launches` keeps the half that waits.
Kernels are hipkit's when their symbol is one the platform looked up
(``get_function``): PyTorch's or CuPy's kernels in the same process are left
out.  A HIP-named call's id reaches the launches it makes as CUPTI's external
correlation id.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..base.platform import LAUNCH_RAN, LAUNCH_RECORD, LAUNCH_REFUSED
from .cupti_buffers import CALLS, KERNELS, Buffers
from .driver import launch_error


class Launches:
    """The launches of one profile, as ``ActivityBatch.launches``.

    ``symbols`` maps the symbol of each kernel the platform looked up to the
    name it was looked up by; ``stream_handles(devices, stream_ids)`` gives the
    stream handles of CUPTI's stream ids.  ``names`` is ``ActivityBatch.names``,
    which the launches' ``name`` index."""

    def __init__(
        self, symbols: dict[str, str], stream_handles: Callable[[np.ndarray, np.ndarray], np.ndarray]
    ):
        self._symbols, self._stream_handles = symbols, stream_handles
        self._calls = np.empty(0, CALLS)  # calls whose kernel has not come (yet)
        self._kernels = np.empty(0, KERNELS)  # hipkit's kernels whose call has not come
        self._external: dict[int, int] = {}  # correlation id -> the HIP-named call's id
        self.names: list[str] = [""]  # 0: none, a refused call's
        self._name_index: dict[int, int] = {}  # index in Buffers.symbols -> in names; -1: not hipkit's

    def external(self, externals: list[np.ndarray]) -> None:
        """CUPTI's external correlation records (EXTERNALS) of hipkit's kind."""
        for rows in externals:
            pairs = zip(rows["correlation_id"].tolist(), rows["external_id"].tolist(), strict=True)
            self._external.update(pairs)

    def join(self, kernels: list[np.ndarray], calls: list[np.ndarray], offset: int) -> np.ndarray:
        """The launches whose two records have come (with those that waited), and
        the calls the driver refused (which have no kernel), as LAUNCH_RECORDs on
        the host's clock (CUPTI's minus ``offset``); what waits for its other half
        stays for the next join."""
        kernels_ = np.concatenate([self._kernels, *kernels])
        calls_ = np.concatenate([self._calls, *calls])
        names, at = np.unique(kernels_["name"], return_inverse=True)
        name = np.array([self._launch_name(n) for n in names.tolist()], np.int64)[at]
        foreign = kernels_["correlation_id"][name < 0]  # PyTorch's, CuPy's...: their calls go too
        kernels_, name = kernels_[name >= 0], name[name >= 0]
        refused = calls_[calls_["result"] != 0]
        calls_ = calls_[(calls_["result"] == 0) & ~np.isin(calls_["correlation_id"], foreign)]
        _, k, c = np.intersect1d(kernels_["correlation_id"], calls_["correlation_id"], return_indices=True)
        self._kernels, self._calls = np.delete(kernels_, k), np.delete(calls_, c)
        kernels_, name, calls_ = kernels_[k], name[k], calls_[c]
        out = np.zeros(len(kernels_) + len(refused), LAUNCH_RECORD)
        ran, failed = out[: len(kernels_)], out[len(kernels_) :]
        for part, call in ((ran, calls_), (failed, refused)):
            part["thread_id"] = call["thread_id"]
            part["call_ns"], part["return_ns"] = call["start"] - offset, call["end"] - offset
            part["correlation_id"] = self._correlation_ids(call["correlation_id"])
        ran["start_ns"], ran["end_ns"] = kernels_["start"] - offset, kernels_["end"] - offset
        ran["name"], ran["device"] = name, kernels_["device"]
        for field in ("grid", "block", "dynamic_shared", "static_shared"):
            ran[field] = kernels_[field]
        ran["stream"] = self._stream_handles(kernels_["device"], kernels_["stream"])
        ran["status"] = LAUNCH_RAN
        failed["status"] = LAUNCH_REFUSED
        failed["error"] = [launch_error(result) for result in refused["result"].tolist()]
        return out

    def _launch_name(self, symbol: int) -> int:
        """The index in ``names`` of the kernel ``symbols[symbol]`` names, or -1
        for a kernel the platform never looked up (not hipkit's)."""
        index = self._name_index.get(symbol)
        if index is None:
            name = self._symbols.get(Buffers.symbols[symbol])
            index = self._name_index[symbol] = -1 if name is None else len(self.names)
            if name is not None:
                self.names.append(name)
        return index

    def _correlation_ids(self, correlations: np.ndarray) -> np.ndarray | int:
        """The HIP-named calls' ids of the launches with these CUPTI correlation ids (0: none)."""
        external = self._external
        if not external:
            return 0
        return np.array([external.pop(c, 0) for c in correlations.tolist()], np.int64)

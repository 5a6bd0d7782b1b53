"""Launches from CUPTI's records: each kernel joined with its launch call.

CUPTI describes a launch by two records with one correlation id of its own:
the launch call (its thread, host times and result) and the kernel (name,
grid, block, shared memory, stream, device times).  They come in any order,
and in different reads; :class:`Launches` keeps the half that waits.

Whose launches are in the profile:

- hipkit's own: kernels whose symbol the platform looked up (``get_function``),
  launched by its ``cuLaunchKernel`` calls;
- a vendor library's (cuBLAS, NCCL...) inside a hipkit API call: CUPTI
  correlates each API call made while a HIP-named call runs with that call's id
  (``Activity.correlate`` pushes it as an external correlation id), so the
  library's launch call (``cudaLaunchKernel``, ``cuLaunchKernelEx``..., or a
  launch of CUDA's own outside any API call) comes with it.  Such a kernel
  keeps its own symbol as its name (the profile demangles it) and its stream,
  and belongs to that hipkit call, as rocprofv3 shows rocBLAS's kernels under
  the call that launched them.  On the CPU the same library call is a host task
  on the stream, a launch record with the call's id;
- not PyTorch's or CuPy's own, launched outside any hipkit call: the profile
  shows hipkit's work (its API rows are HIP's calls), and a kernel without a
  hipkit call has no row of the profile to belong to.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..base.platform import LAUNCH_RAN, LAUNCH_RECORD, LAUNCH_REFUSED
from .cupti_buffers import CALLS, EXTERNALS, KERNELS, Buffers
from .driver import launch_error

# How long after it ended a kernel still waits for its launch call.  The call's
# record is written as it returns, which is no later than a few microseconds
# after the kernel was enqueued; a kernel whose call has not come so long after
# it ended was launched by a call that is no launch read here (a graph's).
STALE_NS = 1_000_000_000


def _lookup(keys: np.ndarray, table: np.ndarray, key: str, value: str) -> np.ndarray:
    """``table[value]`` where ``table[key]`` is each of ``keys``, else 0."""
    if not len(table) or not len(keys):
        return np.zeros(len(keys), np.int64)
    order = np.argsort(table[key], kind="stable")
    sorted_keys = table[key][order]
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(table) - 1)
    return np.where(sorted_keys[at] == keys, table[value][order][at], 0)


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
        self._kernels = np.empty(0, KERNELS)  # kernels whose call has not come (yet)
        self._externals = np.empty(0, EXTERNALS)  # correlations whose API call has not come
        self.names: list[str] = [""]  # 0: none, a refused call's
        self._name_index: dict[int, int] = {}  # index in Buffers.symbols -> in names
        self._hipkits: dict[int, bool] = {}  # index in Buffers.symbols -> whether hipkit looked it up

    def join(
        self,
        kernels: list[np.ndarray],
        calls: list[np.ndarray],
        externals: list[np.ndarray],
        api: list[np.ndarray],
        offset: int,
        now: int,
    ) -> np.ndarray:
        """The launches whose two records have come (with those that waited), and
        the calls the driver refused (which have no kernel), as LAUNCH_RECORDs on
        the host's clock (CUPTI's minus ``offset``); what waits for its other half
        stays for the next join, unless it is a kernel that ended STALE_NS before
        ``now`` (CUPTI's clock).

        ``kernels`` (KERNELS), ``calls`` (CALLS) and ``externals`` (EXTERNALS, of
        hipkit's kind) are the records read since the last join; ``api`` the
        correlation ids of all the API calls among them."""
        kernels_ = np.concatenate([self._kernels, *kernels])
        calls_ = np.concatenate([self._calls, *self._correlated(calls, externals, api)])
        refused = calls_[calls_["result"] != 0]
        calls_ = calls_[calls_["result"] == 0]
        _, k, c = np.intersect1d(kernels_["correlation_id"], calls_["correlation_id"], return_indices=True)
        waiting = np.delete(kernels_, k)
        self._kernels = waiting[waiting["end"] + STALE_NS >= now]
        self._calls = np.delete(calls_, c)
        kernels_, calls_ = kernels_[k], calls_[c]
        symbols, at = np.unique(kernels_["name"], return_inverse=True)
        hipkits = np.array([self._hipkit(s) for s in symbols.tolist()], bool)[at]
        kept = hipkits | (calls_["external_id"] != 0)  # a library's, inside a hipkit call
        kernels_, calls_ = kernels_[kept], calls_[kept]
        symbols, at = np.unique(kernels_["name"], return_inverse=True)
        name = np.array([self._name(s) for s in symbols.tolist()], np.int64)[at]
        out = np.zeros(len(kernels_) + len(refused), LAUNCH_RECORD)
        ran, failed = out[: len(kernels_)], out[len(kernels_) :]
        for part, call in ((ran, calls_), (failed, refused)):
            part["thread_id"] = call["thread_id"]
            part["call_ns"], part["return_ns"] = call["start"] - offset, call["end"] - offset
            part["correlation_id"] = call["external_id"]
        ran["start_ns"], ran["end_ns"] = kernels_["start"] - offset, kernels_["end"] - offset
        ran["name"], ran["device"] = name, kernels_["device"]
        for field in ("grid", "block", "dynamic_shared", "static_shared"):
            ran[field] = kernels_[field]
        ran["stream"] = self._stream_handles(kernels_["device"], kernels_["stream"])
        ran["status"] = LAUNCH_RAN
        failed["status"] = LAUNCH_REFUSED
        failed["error"] = [launch_error(result) for result in refused["result"].tolist()]
        return out

    def _correlated(
        self, calls: list[np.ndarray], externals: list[np.ndarray], api: list[np.ndarray]
    ) -> list[np.ndarray]:
        """The new calls, each with the id of the HIP-named call it was made in.
        CUPTI writes an API call's external correlation record just before the
        call's own record, so each external record is resolved by the read that
        brings its call, a launch or not (and is dropped then)."""
        pending = np.concatenate([self._externals, *externals])
        resolved = np.isin(pending["correlation_id"], np.concatenate([np.empty(0, np.int64), *api]))
        self._externals = pending[~resolved]
        pending = pending[resolved]
        for new in calls:
            new["external_id"] = _lookup(new["correlation_id"], pending, "correlation_id", "external_id")
        return calls

    def _hipkit(self, symbol: int) -> bool:
        """Whether the kernel ``Buffers.symbols[symbol]`` is one the platform looked up."""
        hipkit = self._hipkits.get(symbol)
        if hipkit is None:
            hipkit = self._hipkits[symbol] = Buffers.symbols[symbol] in self._symbols
        return hipkit

    def _name(self, symbol: int) -> int:
        """The index in ``names`` of the kernel ``Buffers.symbols[symbol]``: the name
        the platform looked it up by, else (a library's) its symbol."""
        index = self._name_index.get(symbol)
        if index is None:
            text = Buffers.symbols[symbol]
            index = self._name_index[symbol] = len(self.names)
            self.names.append(self._symbols.get(text, text))
        return index

"""Graphs on NVIDIA: stream capture and CUDA graphs through the driver API
(cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiate, cuGraphLaunch),
the NVIDIA platform's part of the seam's graph methods."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Graphs:
    """Mixed into NvidiaPlatform, whose ``_cu``, ``_use``, ``_get`` and ``_check`` it uses."""

    _cu: Any
    _use: Callable[[int], None]
    _get: Callable[[Any], Any]
    _check: Callable[..., None]

    def stream_begin_capture(self, device, stream, mode) -> None:
        self._use(device)
        self._check(self._cu.cuStreamBeginCapture(stream, self._cu.CUstreamCaptureMode(mode)))

    def stream_end_capture(self, device, stream) -> int:
        self._use(device)
        return int(self._get(self._cu.cuStreamEndCapture(stream)))

    def graph_instantiate(self, device, graph) -> int:
        self._use(device)
        return int(self._get(self._cu.cuGraphInstantiate(graph, 0)))

    def graph_launch(self, device, graph_exec, stream) -> None:
        self._use(device)
        self._check(self._cu.cuGraphLaunch(graph_exec, stream))

    def graph_exec_destroy(self, device, graph_exec) -> None:
        self._use(device)
        self._check(self._cu.cuGraphExecDestroy(graph_exec))

    def graph_destroy(self, device, graph) -> None:
        self._use(device)
        self._check(self._cu.cuGraphDestroy(graph))

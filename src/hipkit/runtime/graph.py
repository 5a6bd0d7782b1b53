"""Graphs from Python: work captured from a stream, replayed as one launch.

In the spirit of ``torch.cuda.graph``: ``with hipkit.graph(stream) as g:`` captures
the kernel launches, asynchronous copies and memsets issued on ``stream`` (they do
not run then), and ``g.launch()`` replays them, ordered with the stream's other
work.  The captured work keeps its pointers and scalar arguments: to replay on new
data, write it into the same buffers.  On the CPU a replay is one batch of
operations (cheaper than issuing them again); on NVIDIA it is a CUDA graph.
"""

from __future__ import annotations

from .device import Device
from .stream import Stream, stream_handle

# hipStreamCaptureMode
MODES = {"global": 0, "thread_local": 1, "relaxed": 2}


class Graph:
    """A graph captured from a stream and its instantiation (CUDAGraph's shape:
    :meth:`capture_begin`, :meth:`capture_end`, :meth:`replay`).

    Example::

        s = hipkit.Stream()
        with hipkit.graph(s) as g:
            kernel(grid, block, x, y, stream=s)
        for _ in range(100):
            g.launch()
        s.synchronize()
    """

    def __init__(self, stream: Stream, mode: str = "global"):
        if not isinstance(stream, Stream):
            raise TypeError("a graph is captured from a hipkit.Stream (the null stream cannot capture)")
        if mode not in MODES:
            raise ValueError(f"capture mode must be one of {sorted(MODES)}, not {mode!r}")
        self.stream = stream
        self.mode = mode
        self.device: Device = stream.device
        self._graph = 0
        self._exec = 0

    def capture_begin(self) -> None:
        """Start capturing the work issued on the stream."""
        platform = self.device.platform
        platform.stream_begin_capture(self.device._native, stream_handle(self.stream), MODES[self.mode])

    def capture_end(self) -> None:
        """End the capture and instantiate the graph (HipError as the capture's
        error if it was invalidated or left a fork unjoined)."""
        platform = self.device.platform
        self._graph = platform.stream_end_capture(self.device._native, stream_handle(self.stream))
        self._exec = platform.graph_instantiate(self.device._native, self._graph)

    def launch(self, stream: Stream | None = None) -> None:
        """Replay the graph on ``stream`` (default: the stream it was captured from)."""
        if not self._exec:
            raise RuntimeError("the graph is not captured yet, or destroyed")
        target = self.stream if stream is None else stream
        self.device.platform.graph_launch(self.device._native, self._exec, stream_handle(target))

    replay = launch

    def destroy(self) -> None:
        """Release the graph and its instantiation (launches in flight finish)."""
        platform = self.device.platform
        if self._exec:
            platform.graph_exec_destroy(self.device._native, self._exec)
        if self._graph:
            platform.graph_destroy(self.device._native, self._graph)
        self._exec = self._graph = 0

    def __enter__(self) -> Graph:
        self.capture_begin()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.capture_end()
            return
        try:  # end the capture so that the stream works again; the first error wins
            platform = self.device.platform
            self._graph = platform.stream_end_capture(self.device._native, stream_handle(self.stream))
        except Exception:
            pass
        self.destroy()

    def __del__(self) -> None:
        try:
            self.destroy()
        except Exception:
            pass


def graph(stream: Stream, mode: str = "global") -> Graph:
    """A :class:`Graph` capturing ``stream``'s work inside a ``with`` block."""
    return Graph(stream, mode)


__all__ = ["Graph", "graph"]

"""Graphs from Python (``hipkit.graph``): kernels, copies and memsets captured
from a stream replay the same results as the work issued op by op, on fresh
random data, many times, ordered with the stream's other work; the errors a
capture gives.  Parametrized over every platform present (CUDA graphs on
NVIDIA); a platform without graphs raises hipErrorNotSupported."""

from __future__ import annotations

import numpy as np
import pytest

import hipkit
from hipkit import HipError, hipError_t

SOURCE = r"""
extern "C" __global__ void axpb(float* y, const float* x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
extern "C" __global__ void add(float* y, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}
"""
N = 1000


def launch(kernel, *args, stream):
    kernel[(N + 127) // 128, 128, 0, stream](*args)


def work(mod, s, host_x, x, y, z, out):
    x.set(host_x, stream=s)
    launch(mod.get_function("axpb"), y, x, np.float32(1.5), np.float32(-0.5), np.int32(N), stream=s)
    launch(mod.get_function("axpb"), z, x, np.float32(2.0), np.float32(0.0), np.int32(N), stream=s)
    launch(mod.get_function("add"), z, y, np.int32(N), stream=s)
    z.get(stream=s, out=out)


def supports_graphs(device) -> bool:
    try:
        s = hipkit.Stream()
        hipkit.graph(s).__enter__().capture_end()
    except HipError as error:
        if error.code == hipError_t.hipErrorNotSupported:
            return False
        raise
    return True


@pytest.fixture
def parts(device):
    if not supports_graphs(device):
        pytest.skip(f"{device.platform.name} has no graphs")
    mod = hipkit.compile(SOURCE)
    arrays = [hipkit.empty(N, np.float32) for _ in range(3)]
    return mod, hipkit.Stream(), arrays


def test_a_captured_graph_replays_the_work_issued_op_by_op(parts, rng):
    mod, s, (x, y, z) = parts
    host_x = np.empty(N, np.float32)
    out = np.empty(N, np.float32)
    with hipkit.graph(s) as g:
        work(mod, s, host_x, x, y, z, out)
    for _ in range(5):
        host_x[:] = rng.standard_normal(N)
        work(mod, s, host_x, x, y, z, out)
        s.synchronize()
        expected = out.copy()
        out[:] = 0
        g.launch()
        s.synchronize()
        np.testing.assert_array_equal(out, expected)
        np.testing.assert_allclose(out, 2 * host_x + (1.5 * host_x - 0.5), rtol=1e-6, atol=1e-6)
    g.destroy()


def test_replays_are_ordered_with_the_streams_work(parts, rng):
    """Twenty replays accumulating into z after an upload on the same stream."""
    mod, s, (x, y, z) = parts
    host_x = rng.standard_normal(N).astype(np.float32)
    with hipkit.graph(s) as g:
        launch(mod.get_function("add"), z, x, np.int32(N), stream=s)
    z.set(np.zeros(N, np.float32), stream=s)
    x.set(host_x, stream=s)
    for _ in range(20):
        g.replay(stream=s)
    got = z.get(stream=s, out=np.empty(N, np.float32))
    s.synchronize()
    np.testing.assert_allclose(got, 20 * host_x, rtol=1e-5)
    g.destroy()


def test_a_synchronizing_call_during_capture_invalidates_it(parts):
    mod, s, (x, _, _) = parts
    g = hipkit.graph(s)
    g.capture_begin()
    with pytest.raises(HipError) as refused:
        s.synchronize()
    assert refused.value.code == hipError_t.hipErrorStreamCaptureUnsupported
    with pytest.raises(HipError) as ended:
        g.capture_end()
    assert ended.value.code == hipError_t.hipErrorStreamCaptureInvalidated
    s.synchronize()  # the stream works again


def test_a_graph_needs_a_stream_and_a_known_mode(device):
    with pytest.raises(TypeError):
        hipkit.graph(None)
    with pytest.raises(ValueError):
        hipkit.graph(hipkit.Stream(), mode="eager")

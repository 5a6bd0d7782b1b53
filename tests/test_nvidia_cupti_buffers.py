"""CUPTI's activity buffers as hipkit reads them: walked by record sizes learned
from CUPTI, only buffers hipkit lent, each kind's records gathered with NumPy
at cupti-python's offsets, and of the API's records the calls that launch a
kernel.  Synthetic buffers: no GPU is needed (the record layouts come from
cupti-python where a test needs them)."""

from __future__ import annotations

import ctypes
import enum
import logging

import numpy as np
import pytest
from test_nvidia_activity import SGEMM, SYMBOLS, TORCH, _waiting

from hipkit.platforms.nvidia import cupti_buffers
from hipkit.platforms.nvidia.cupti_buffers import Buffers
from hipkit.platforms.nvidia.launch_records import Launches

# CUpti_ActivityAPI as cupti_activity.h lays it out, the same in every CUPTI.
ACTIVITY_API = np.dtype(
    [
        ("kind", np.int32),
        ("cbid", np.uint32),
        ("start", np.uint64),
        ("end", np.uint64),
        ("process_id", np.uint32),
        ("thread_id", np.uint32),
        ("correlation_id", np.uint32),
        ("return_value", np.uint32),
    ]
)
DRIVER, RUNTIME, INTERNAL = 4, 5, 48  # CUPTI's activity kinds
CU_LAUNCH_KERNEL, CU_LAUNCH_KERNEL_EX, CU_MEMCPY_ASYNC = 307, 652, 279
CUDA_LAUNCH_KERNEL = 211


def _api_records(*rows):  # (cbid, correlation, return value)
    out = np.zeros(len(rows), ACTIVITY_API)
    for i, (cbid, correlation, result) in enumerate(rows):
        out[i]["cbid"], out[i]["correlation_id"], out[i]["return_value"] = cbid, correlation, result
        out[i]["thread_id"], out[i]["start"], out[i]["end"] = 77, 10 * correlation, 10 * correlation + 5
    return out


def test_launch_calls_are_the_launches_of_each_api_and_refusals_only_hipkits(monkeypatch):
    """Of CUPTI's API records, the calls that launch a kernel; a refused one has no
    kernel to tell whose it was, so only cuLaunchKernel's refusals (hipkit's launch
    call) are kept.  Launches of CUDA's own outside API calls have no call id."""
    launch_calls = {
        DRIVER: (np.array([CU_LAUNCH_KERNEL, CU_LAUNCH_KERNEL_EX]), CU_LAUNCH_KERNEL),
        RUNTIME: (np.array([CUDA_LAUNCH_KERNEL]), -1),
        INTERNAL: (None, -1),
    }
    monkeypatch.setattr(Buffers, "_launch_calls", launch_calls)
    driver = Buffers._calls(
        DRIVER,
        _api_records(
            (CU_LAUNCH_KERNEL, 1, 0),
            (CU_MEMCPY_ASYNC, 2, 0),
            (CU_LAUNCH_KERNEL_EX, 3, 0),
            (CU_LAUNCH_KERNEL, 4, 1),  # hipkit's launch refused: CUDA_ERROR_INVALID_VALUE
            (CU_LAUNCH_KERNEL_EX, 5, 1),  # NCCL's refused: not hipkit's to report
        ),
    )
    assert driver["correlation_id"].tolist() == [1, 3, 4] and driver["result"].tolist() == [0, 0, 1]
    assert driver["thread_id"].tolist() == [77] * 3 and driver["start"].tolist() == [10, 30, 40]
    assert driver["external_id"].tolist() == [0] * 3
    runtime = Buffers._calls(RUNTIME, _api_records((CUDA_LAUNCH_KERNEL, 6, 0), (CUDA_LAUNCH_KERNEL, 7, 2)))
    assert runtime["correlation_id"].tolist() == [6]
    internal = Buffers._calls(INTERNAL, _api_records((0, 8, 0), (0, 9, 2)))
    assert internal["correlation_id"].tolist() == [8]


def test_the_launch_calls_are_named_by_cuptis_ids():
    """Every call that launches one kernel, whatever CUDA version added it; not the
    host functions, multi-device or graph launches (several kernels, or none)."""
    cbids = enum.IntEnum(
        "cbids",
        "cuLaunch cuLaunchGrid cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuLaunchHostFunc "
        "cuLaunchCooperativeKernel cuLaunchCooperativeKernelMultiDevice cuGraphLaunch cuMemcpy",
    )
    launches = cupti_buffers._launch_cbids(cbids, "cuLaunch")
    assert [cbids(int(i)).name for i in launches] == [
        "cuLaunch",
        "cuLaunchGrid",
        "cuLaunchKernel",
        "cuLaunchKernel_ptsz",
        "cuLaunchKernelEx",
        "cuLaunchCooperativeKernel",
    ]


def _cupti_module():
    try:
        from cupti import cupti
    except (ImportError, OSError) as exc:
        pytest.skip(f"cupti-python's record layouts are needed (pip install 'hipkit[nvidia]'): {exc}")
    return cupti


def _record(dtype: np.dtype, **fields) -> bytes:
    """One of CUPTI's records: cupti-python's layout, padded to CUPTI's 8 bytes."""
    row = np.zeros(1, dtype)
    for name, value in fields.items():
        row[name] = value
    data = row.tobytes()
    return data + bytes(-len(data) % 8)


def test_a_buffer_of_a_librarys_launch_inside_a_hipkit_call(monkeypatch):
    """A CUPTI buffer as cuBLAS inside hipblasSgemm (id 3) and PyTorch outside it
    leave it, read and joined: the library's launch is the call's, PyTorch's is
    not there, and the external record of the library's copy is resolved."""
    cupti = _cupti_module()
    for attribute in ("_layouts", "_launch_calls", "external_kind", "_names", "symbols"):
        monkeypatch.setattr(Buffers, attribute, type(getattr(Buffers, attribute))())
    Buffers.learn_layouts(cupti)
    kinds, runtime, driver = cupti.ActivityKind, cupti.runtime_api_trace_cbid, cupti.driver_api_trace_cbid
    names = [ctypes.create_string_buffer(s.encode()) for s in (SYMBOLS[SGEMM], SYMBOLS[TORCH])]
    api, kernel = cupti.activity_api_dtype, cupti_buffers._latest(cupti, "activity_kernel")
    external = cupti_buffers._latest(cupti, "activity_external_correlation")
    custom = int(cupti.ExternalCorrelationKind.CUSTOM0)

    def call(kind, cbid, correlation):
        return _record(
            api, kind=kind, cbid=cbid, correlation_id=correlation, thread_id=555, start=100, end=200
        )

    def correlated(correlation):
        return _record(
            external,
            kind=kinds.EXTERNAL_CORRELATION,
            external_kind=custom,
            external_id=3,
            correlation_id=correlation,
        )

    def kernel_record(correlation, name):
        return _record(
            kernel,
            kind=kinds.CONCURRENT_KERNEL,
            correlation_id=correlation,
            name=ctypes.addressof(name),
            stream_id=9,
            start=300,
            end=400,
            grid_x=8,
            grid_y=1,
            grid_z=1,
            block_x=256,
            block_y=1,
            block_z=1,
        )

    records = [
        correlated(71),
        call(kinds.DRIVER, driver.cuMemcpyAsync, 71),  # the library's copy in the call
        correlated(72),
        call(kinds.RUNTIME, runtime.cudaLaunchKernel_v7000, 72),  # its launch in the call
        call(kinds.RUNTIME, runtime.cudaLaunchKernel_v7000, 73),  # PyTorch's, outside it
        kernel_record(72, names[0]),
        kernel_record(73, names[1]),
    ]
    buffer = ctypes.create_string_buffer(b"".join(records), sum(map(len, records)))
    sizes, at = {}, 0
    for record in records:
        sizes[at] = len(record)
        at += len(record)
    _cupti_walk(monkeypatch, sizes)
    read = Buffers._records(ctypes.addressof(buffer), len(buffer))
    assert [len(c) for c in read[cupti_buffers.CALL]] == [0, 2]  # the driver's copy is no launch
    assert np.concatenate(read[cupti_buffers.API]).tolist() == [71, 72, 73]
    launches = Launches({}, lambda devices, stream_ids: stream_ids)
    out = launches.join(
        read[cupti_buffers.KERNEL],
        read[cupti_buffers.CALL],
        read[cupti_buffers.EXTERNAL],
        read[cupti_buffers.API],
        0,
        400,
    )
    assert out["correlation_id"].tolist() == [3] and out["thread_id"].tolist() == [555]
    assert [launches.names[i] for i in out["name"].tolist()] == [SYMBOLS[SGEMM]]
    assert out["grid"].tolist() == [[8, 1, 1]] and out["block"].tolist() == [[256, 1, 1]]
    assert out["stream"].tolist() == [9] and out["start_ns"].tolist() == [300]
    assert _waiting(launches) == ([], [], [])


def _buffer(*records: tuple[int, int]) -> tuple[ctypes.Array, dict[int, int]]:
    """A buffer of (kind, size) records, and each record's size by its offset."""
    buffer = ctypes.create_string_buffer(sum(size for _, size in records))
    sizes, at = {}, 0
    for kind, size in records:
        ctypes.c_uint32.from_address(ctypes.addressof(buffer) + at).value = kind
        sizes[at] = size
        at += size
    return buffer, sizes


def _cupti_walk(monkeypatch, sizes: dict[int, int]) -> list[int]:
    """cuptiActivityGetNextRecord over ``sizes``; returns the offsets it was asked from."""
    asked: list[int] = []

    def next_record(buffer, valid, record):
        at = None if record._obj.value is None else record._obj.value - buffer
        asked.append(at)
        if at is not None and at not in sizes:
            return 1  # no record begins there
        following = 0 if at is None else at + sizes[at]
        if following >= valid:
            return 1  # CUPTI_ERROR_MAX_LIMIT_REACHED
        record._obj.value = buffer + following
        return 0

    monkeypatch.setattr(Buffers, "_next", staticmethod(next_record))
    monkeypatch.setattr(Buffers, "_sizes", {})
    return asked


def test_records_are_walked_by_sizes_learned_from_cupti_once(monkeypatch):
    buffer, sizes = _buffer((10, 16), (11, 24), (10, 16), (10, 16), (11, 24), (12, 8), (10, 16))
    asked = _cupti_walk(monkeypatch, sizes)
    offsets = Buffers._offsets(ctypes.addressof(buffer), len(buffer))
    assert offsets == {10: [0, 40, 56, 104], 11: [16, 72], 12: [96]}
    assert asked == [0, 16, 96]  # CUPTI was asked once per kind
    assert Buffers._sizes == {10: 16, 11: 24, 12: 8}


def test_a_walk_that_goes_wrong_is_redone_by_cupti(monkeypatch):
    buffer, sizes = _buffer((10, 16), (11, 24), (10, 32), (11, 24))  # kind 10 of two sizes
    _cupti_walk(monkeypatch, sizes)
    assert Buffers._offsets(ctypes.addressof(buffer), len(buffer)) == {10: [0, 40], 11: [16, 72]}
    last_unknown, sizes = _buffer((10, 16), (12, 8))  # the last record's size is not CUPTI's to say
    _cupti_walk(monkeypatch, sizes)
    assert Buffers._offsets(ctypes.addressof(last_unknown), len(last_unknown)) == {10: [0], 12: [16]}


def test_a_buffer_hipkit_did_not_lend_is_not_read(monkeypatch, caplog):
    """CUPTI takes one registration of buffer callbacks: a buffer that comes back
    without having been lent here is another tool's, and reading it could read
    freed memory; a lent one is read and given back."""
    taken: list[dict] = []
    monkeypatch.setattr(Buffers, "sink", taken.append)
    monkeypatch.setattr(Buffers, "lent", {})
    monkeypatch.setattr(Buffers, "_records", classmethod(lambda cls, buffer, valid: {"read": buffer}))
    stranger = ctypes.create_string_buffer(64)
    with caplog.at_level(logging.WARNING, logger="hipkit"):
        Buffers._completed(None, 0, ctypes.addressof(stranger), 64, 64)
    assert taken == [] and "did not lend" in caplog.text
    address, size, count = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_size_t()
    Buffers._request(ctypes.pointer(address), ctypes.pointer(size), ctypes.pointer(count))
    assert address.value in Buffers.lent and size.value == cupti_buffers.BUFFER_BYTES
    Buffers._completed(None, 0, address.value, size.value, 64)
    assert taken == [{"read": address.value}] and Buffers.lent == {}

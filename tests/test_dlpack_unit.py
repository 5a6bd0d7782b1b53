"""DLPack export/import (hipkit.runtime._dlpack), checked against NumPy's own DLPack support."""

import ctypes
import doctest
import gc
import re
import subprocess
import sys
import textwrap
import tracemalloc
import weakref

import numpy as np
import pytest

from hipkit.platforms.base.platform import kDLCPU, kDLCUDA
from hipkit.runtime import _dlpack
from hipkit.runtime._dlpack import (
    DLDataType,
    DLDevice,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLPackVersion,
    DLTensor,
    dl_to_dtype,
    dtype_to_dl,
    export,
    import_,
)

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
KINDS = ["versioned", "legacy"]

_get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi)
)


class Owner:
    """Stands for the hipkit buffer that owns exported memory."""


class Producer:
    """What a hipkit array's __dlpack__ does: export an array's memory, kept alive by `owner`."""

    def __init__(self, array, owner=None, *, legacy=False, device_type=kDLCPU):
        self.array, self.owner = array, array if owner is None else owner
        self.legacy, self.device_type, self.asked = legacy, device_type, []

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.asked.append(max_version)
        a = self.array
        return export(
            a.ctypes.data,
            a.shape,
            a.strides,
            a.dtype,
            self.device_type,
            0,
            self.owner,
            None if self.legacy else max_version,
        )

    def __dlpack_device__(self):
        return (kDLCPU, 0)


class OldProducer(Producer):
    """A producer from before DLPack 1.0: __dlpack__ takes no max_version."""

    def __dlpack__(self, stream=None):
        self.stream = stream
        return super().__dlpack__()


def random_array(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 50).astype(dtype)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip_is_zero_copy(dtype, kind):
    a = random_array(dtype)
    producer = Producer(a, legacy=kind == "legacy")
    b = np.from_dlpack(producer)
    assert producer.asked[-1] is not None  # NumPy 2 asks for a versioned capsule
    assert b.dtype == a.dtype and b.shape == a.shape and b.strides == a.strides
    assert b.ctypes.data == a.ctypes.data
    np.testing.assert_array_equal(b, a)
    # NumPy imports legacy capsules read-only (they cannot say whether writing is allowed).
    target, other = (b, a) if kind == "versioned" else (a, b)
    target[1, 2] = not target[1, 2] if dtype == "bool" else 7
    assert other[1, 2] == target[1, 2]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[0, 0, ...],  # 0-d
        lambda a: a[:0],  # size 0
        lambda a: a[:, 1:1],  # size 0, inner
        lambda a: a[:, ::2],  # non-contiguous
        lambda a: a[::-1, ::-3],  # negative strides
        lambda a: a.T,  # transposed
        lambda a: a[1:2, 2:3],  # dims of 1
    ],
    ids=["0d", "size0", "size0_inner", "step", "negative", "transposed", "ones"],
)
def test_numpy_round_trip_shapes(view, kind):
    a = view(np.arange(30.0).reshape(5, 6))
    b = np.from_dlpack(Producer(a, legacy=kind == "legacy"))
    assert b.shape == a.shape and b.strides == a.strides and b.ctypes.data == a.ctypes.data
    np.testing.assert_array_equal(b, a)


def test_old_producer_without_max_version():
    a = random_array("float32")
    producer = OldProducer(a)
    np.testing.assert_array_equal(np.from_dlpack(producer), a)
    t = import_(producer, stream=5)
    assert producer.stream == 5 and t.ptr == a.ctypes.data and not t.readonly


@pytest.mark.parametrize(
    "max_version, name",
    [
        (None, b"dltensor"),
        ((0, 8), b"dltensor"),
        ((1, 0), b"dltensor_versioned"),
        ((1, 3), b"dltensor_versioned"),
        ((2, 0), b"dltensor_versioned"),
    ],
)
def test_export_capsule_kind_and_consumption(max_version, name):
    a = random_array("int32")
    capsule = export(a.ctypes.data, a.shape, None, a.dtype, kDLCPU, 0, a, max_version)
    assert _get_name(capsule) == name
    t = import_(capsule)
    assert _get_name(capsule) == b"used_" + name
    assert (t.ptr, t.shape, t.strides, t.dtype) == (a.ctypes.data, a.shape, a.strides, a.dtype)
    with pytest.raises(BufferError, match="already consumed"):
        import_(capsule)


def test_capsule_consumed_by_numpy_cannot_be_consumed_again():
    a = random_array("float64")
    capsule = Producer(a).__dlpack__(max_version=(1, 0))

    class Once:
        def __dlpack__(self, **kwargs):
            return capsule

        def __dlpack_device__(self):
            return (kDLCPU, 0)

    np.testing.assert_array_equal(np.from_dlpack(Once()), a)
    with pytest.raises(BufferError, match="already consumed"):
        import_(capsule)


def test_byte_strides_become_element_strides():
    a = np.zeros((4, 6), np.int16)[::2, ::-3]
    t = import_(export(a.ctypes.data, a.shape, a.strides, a.dtype, kDLCPU, 0, a, (1, 0)))
    assert t.strides == a.strides == (24, -6)
    with pytest.raises(BufferError, match="itemsize 2"):
        export(a.ctypes.data, (2,), (3,), np.int16, kDLCPU, 0, a)
    with pytest.raises(ValueError, match="1 strides for 2 dimensions"):
        export(a.ctypes.data, (2, 2), (2,), np.int16, kDLCPU, 0, a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_codes_match_numpy(dtype):
    code, bits, lanes = dtype_to_dl(dtype)
    assert dl_to_dtype(code, bits, lanes) == np.dtype(dtype)
    # NumPy's exporter is the reference for the codes.
    capsule = np.zeros(2, dtype).__dlpack__(max_version=(1, 0))
    t = import_(capsule)
    assert t.dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", ["object", "U3", ">f4", "datetime64[s]", [("x", "i4")]])
def test_unsupported_dtype_is_a_buffer_error(dtype):
    with pytest.raises(BufferError, match=re.escape(str(np.dtype(dtype)))):
        dtype_to_dl(dtype)
    with pytest.raises(BufferError, match="DLPack"):
        export(0, (0,), None, dtype, kDLCPU, 0, None)


def test_unknown_dl_dtype_is_a_buffer_error():
    with pytest.raises(BufferError, match="code=2, bits=32, lanes=4"):
        dl_to_dtype(2, 32, 4)


@pytest.mark.skipif(np.longdouble(0).itemsize <= 8, reason="longdouble is float64 here")
def test_longdouble_is_unsupported():
    with pytest.raises(BufferError, match="float128|longdouble"):
        dtype_to_dl(np.longdouble)


def test_bfloat16_when_ml_dtypes_is_installed():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 needs ml_dtypes")
    assert dl_to_dtype(*dtype_to_dl(ml_dtypes.bfloat16)) == np.dtype(ml_dtypes.bfloat16)


def test_owner_lives_until_consumer_releases():
    a = random_array("float32")
    owner = Owner()
    alive = weakref.ref(owner)
    b = np.from_dlpack(Producer(a, owner))
    del owner
    gc.collect()
    assert alive() is not None  # the consumed capsule is gone; NumPy's array holds the owner
    del b
    assert alive() is None


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_unconsumed_capsule_releases_owner(max_version):
    owner = Owner()
    alive = weakref.ref(owner)
    capsule = Producer(np.zeros(3), owner).__dlpack__(max_version=max_version)
    del owner
    assert alive() is not None
    del capsule
    assert alive() is None


def test_owner_released_when_numpy_rejects_the_capsule(monkeypatch):
    # NumPy drops the capsule with its own exception set: the destructor must still free it.
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    owner = Owner()
    alive = weakref.ref(owner)
    producer = Producer(np.zeros(3), owner, device_type=kDLCUDA)
    del owner
    # NumPy's own error cannot reach its caller intact (see _dlpack._c_callbacks).
    with pytest.raises((RuntimeError, BufferError, SystemError)):
        np.from_dlpack(producer)
    producer.owner = None
    assert alive() is None
    assert any("device" in str(e).lower() for e in reported)  # the cause is not silently lost


def test_import_numpy_array():
    a = random_array("int64", (4, 5))[:, 1::2]
    t = import_(a)
    assert (t.ptr, t.shape, t.strides, t.dtype) == (a.ctypes.data, a.shape, a.strides, a.dtype)
    assert (t.device_type, t.device_id, t.readonly) == (kDLCPU, 0, False)
    a.flags.writeable = False
    assert import_(a).readonly


def test_keepalive_holds_the_producers_memory():
    a = np.arange(1000, 1000 + 64, dtype=np.int64)
    expected = a.copy()
    alive = weakref.ref(a)
    t = import_(a)
    del a
    gc.collect()
    assert alive() is not None
    np.testing.assert_array_equal((ctypes.c_int64 * 64).from_address(t.ptr), expected)
    t.keepalive = None
    assert alive() is None


def make_foreign_capsule(versioned, version=(1, 0), flags=0, deleter=None):
    """A producer written only against dlpack.h: NULL strides, a byte_offset, our deleter."""
    data = (ctypes.c_float * 8)(*range(8))
    shape = (ctypes.c_int64 * 2)(2, 3)
    tensor = DLTensor(
        ctypes.addressof(data), DLDevice(kDLCPU, 0), 2, DLDataType(2, 32, 1), ctypes.addressof(shape), None, 8
    )
    fn = deleter if deleter is not None else _dlpack.DLDeleter(0)  # NULL: nothing to free
    if versioned:
        managed = DLManagedTensorVersioned(DLPackVersion(*version), None, fn, flags, tensor)
    else:
        managed = DLManagedTensor(tensor, None, fn)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    return _capsule_new(ctypes.addressof(managed), name, None), (data, shape, managed, name)


@pytest.mark.parametrize("versioned", [True, False])
def test_foreign_producer_deleter_called_exactly_once(versioned):
    calls = []
    deleter = _dlpack.DLDeleter(calls.append)
    capsule, keep = make_foreign_capsule(versioned, flags=1, deleter=deleter)
    t = import_(capsule)
    assert t.ptr == ctypes.addressof(keep[0]) + 8 and t.shape == (2, 3) and t.strides == (12, 4)
    assert t.readonly == versioned and t.dtype == np.float32
    view = np.ctypeslib.as_array((ctypes.c_float * 6).from_address(t.ptr))
    np.testing.assert_array_equal(view, np.arange(2, 8))
    del capsule, view
    assert calls == []
    keepalive = t.keepalive
    del t
    assert calls == []
    del keepalive
    assert calls == [ctypes.addressof(keep[2])]


def test_foreign_producer_without_deleter():
    capsule, keep = make_foreign_capsule(True)
    t = import_(capsule)
    del t  # a NULL deleter means nothing to call


def test_unsupported_major_version_leaves_capsule_unconsumed():
    capsule, keep = make_foreign_capsule(True, version=(2, 0))
    with pytest.raises(BufferError, match="version 2.0"):
        import_(capsule)
    assert _get_name(capsule) == b"dltensor_versioned"


@pytest.mark.parametrize("obj", [object(), 3, np.zeros(3).tolist()])
def test_non_dlpack_objects_are_type_errors(obj):
    with pytest.raises(TypeError, match="does not support DLPack"):
        import_(obj)


def test_bad_capsules_are_type_errors():
    class Bad:
        def __dlpack__(self, **kwargs):
            return "not a capsule"

    with pytest.raises(TypeError, match="not a capsule"):
        import_(Bad())
    with pytest.raises(TypeError, match="not a DLPack capsule"):
        import_(_capsule_new(1, b"something_else", None))


@pytest.mark.slow
def test_no_leaks_over_100k_capsules():
    a = np.arange(16.0)
    owner = Owner()
    producer, old = Producer(a, owner), OldProducer(a, owner)
    baseline = sys.getrefcount(owner)

    def churn(n):
        for _ in range(n):
            np.from_dlpack(producer)  # consumed, versioned
            np.from_dlpack(old)  # consumed, legacy
            producer.__dlpack__(max_version=(1, 0))  # unconsumed, versioned
            producer.__dlpack__()  # unconsumed, legacy
            producer.asked.clear()
            old.asked.clear()

    churn(100)  # warm up caches (dtype, ctypes types) before measuring
    objects = len(gc.get_objects())
    churn(50_000)
    assert sys.getrefcount(owner) == baseline
    assert len(gc.get_objects()) - objects < 100
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        churn(5_000)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 16_000, f"{grown} bytes left after 20k capsules"


def test_callbacks_survive_interpreter_teardown():
    # Arrays viewing exported memory, and unconsumed capsules, may outlive the module's globals.
    script = textwrap.dedent("""
        import numpy as np
        from hipkit.platforms.base.platform import kDLCPU
        from hipkit.runtime._dlpack import export
        a = np.arange(4.0)
        class P:
            def __dlpack__(self, **kw):
                return export(a.ctypes.data, a.shape, None, a.dtype, kDLCPU, 0, a, (1, 0))
            def __dlpack_device__(self):
                return (kDLCPU, 0)
        np.held = np.from_dlpack(P())
        np.capsule = P().__dlpack__()
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": ":".join(sys.path)},
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == ""


def test_docstring_examples():
    assert doctest.testmod(_dlpack).failed == 0

// The hot path of a kernel launch on a GPU platform, compiled: a CPython
// extension whose Launcher calls the driver's launch entry (cuLaunchKernel,
// hipModuleLaunchKernel: the same signature) with the packed arguments in
// place.  Through cuda-bindings, converting the eleven arguments costs more
// than the driver's own work for a small kernel; here it is a few loads.
// Built into the cache by compiled_launch.py, which falls back to the
// bindings where no compiler or Python.h is found.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <climits>
#include <cstddef>

namespace {

// CUresult cuLaunchKernel(CUfunction, unsigned gridDim x3, unsigned blockDim x3,
//                         unsigned sharedMemBytes, CUstream, void** kernelParams, void** extra)
using LaunchEntry = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, void*, void**, void**);

struct Launcher {
  PyObject_HEAD
  LaunchEntry entry;
  // The extra array's markers: BUFFER_POINTER, BUFFER_SIZE and END (0 in CUDA, 3 in HIP).
  void* buffer_pointer;
  void* buffer_size;
  void* end;
};

bool as_pointer(PyObject* value, void** out) {
  *out = PyLong_AsVoidPtr(value);
  return !(*out == nullptr && PyErr_Occurred());
}

bool as_unsigned(PyObject* value, const char* what, unsigned* out) {
  unsigned long v = PyLong_AsUnsignedLong(value);
  if (v == static_cast<unsigned long>(-1) && PyErr_Occurred()) return false;
  if (v > UINT_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s %lu does not fit in 32 bits", what, v);
    return false;
  }
  *out = static_cast<unsigned>(v);
  return true;
}

int launcher_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* launcher = reinterpret_cast<Launcher*>(self);
  static const char* names[] = {"entry", "buffer_pointer", "buffer_size", "end", nullptr};
  PyObject *entry, *buffer_pointer, *buffer_size, *end;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOO", const_cast<char**>(names), &entry,
                                   &buffer_pointer, &buffer_size, &end))
    return -1;
  void* address;
  if (!as_pointer(entry, &address) || !as_pointer(buffer_pointer, &launcher->buffer_pointer) ||
      !as_pointer(buffer_size, &launcher->buffer_size) || !as_pointer(end, &launcher->end))
    return -1;
  if (address == nullptr) {
    PyErr_SetString(PyExc_ValueError, "the launch entry is a null pointer");
    return -1;
  }
  launcher->entry = reinterpret_cast<LaunchEntry>(address);
  return 0;
}

// launch(function, gx, gy, gz, bx, by, bz, shared_mem, stream, args) -> the driver's result.
// ``args`` is the packed parameters (bytes; empty or None for a kernel without any).
PyObject* launcher_launch(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  auto* launcher = reinterpret_cast<Launcher*>(self);
  if (nargs != 10) {
    PyErr_Format(PyExc_TypeError, "launch() takes 10 arguments (%zd given)", nargs);
    return nullptr;
  }
  static const char* what[] = {"grid.x",  "grid.y",  "grid.z",    "block.x",
                               "block.y", "block.z", "shared_mem"};
  void* function;
  void* stream;
  unsigned dims[7];
  if (!as_pointer(args[0], &function)) return nullptr;
  for (int i = 0; i < 7; ++i)
    if (!as_unsigned(args[1 + i], what[i], &dims[i])) return nullptr;
  if (!as_pointer(args[8], &stream)) return nullptr;
  PyObject* packed = args[9];
  // The driver copies the parameters during the call; the caller holds ``packed``.
  std::size_t size = 0;
  void* extra[5];
  void** extra_address = nullptr;
  if (packed != Py_None) {
    if (!PyBytes_Check(packed)) {
      PyErr_Format(PyExc_TypeError, "packed arguments must be bytes, not %.80s",
                   Py_TYPE(packed)->tp_name);
      return nullptr;
    }
    size = static_cast<std::size_t>(PyBytes_GET_SIZE(packed));
    if (size) {
      extra[0] = launcher->buffer_pointer;
      extra[1] = PyBytes_AS_STRING(packed);
      extra[2] = launcher->buffer_size;
      extra[3] = &size;
      extra[4] = launcher->end;
      extra_address = extra;
    }
  }
  int result;
  Py_BEGIN_ALLOW_THREADS  // a full launch queue blocks in the driver
  result = launcher->entry(function, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], dims[6],
                           stream, nullptr, extra_address);
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(result);
}

PyMethodDef launcher_methods[] = {
    {"launch", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(launcher_launch)),
     METH_FASTCALL,
     "launch(function, gx, gy, gz, bx, by, bz, shared_mem, stream, args) -> the driver's result"},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot launcher_slots[] = {
    {Py_tp_init, reinterpret_cast<void*>(launcher_init)},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_methods, launcher_methods},
    {Py_tp_doc, const_cast<char*>("Launcher(entry, buffer_pointer, buffer_size, end): a driver's "
                                  "launch entry and its extra array's markers")},
    {0, nullptr},
};

PyType_Spec launcher_spec = {"_hipkit_launch.Launcher", sizeof(Launcher), 0, Py_TPFLAGS_DEFAULT,
                             launcher_slots};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_hipkit_launch", nullptr, -1, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__hipkit_launch() {
  PyObject* module = PyModule_Create(&module_def);
  if (module == nullptr) return nullptr;
  PyObject* type = PyType_FromSpec(&launcher_spec);
  if (type == nullptr || PyModule_AddObject(module, "Launcher", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}

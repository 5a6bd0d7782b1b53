"""hipBLAS's compute routines as data: one source for every face of hipkit's BLAS.

Each routine is its hipBLAS name and its C parameters, in hipBLAS's order and with
hipBLAS's names.  From this table:

- :mod:`.make_blas_headers` writes the declarations of ``hipblas/hipblas.h``, the NVIDIA
  platform's hipBLAS-on-cuBLAS definitions and rocBLAS's names over hipBLAS's;
- the CPU and AMD providers give ctypes its argument types;
- the NVIDIA provider forwards each routine to ``nvmath.bindings.cublas``;
- :mod:`hipkit.hipblas` wraps each routine for Python.

A parameter's :attr:`Param.role` says what it is beyond its C type (a scalar read through
the pointer mode, a device array, a batch of device arrays...), so that each face can
treat it without a list of exceptions.

The handle's own functions (``hipblasCreate``, ``hipblasSetStream``...) are not here: each
provider writes them by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

# The element types: hipBLAS's letter, its C type, the real type of its scalars and
# results (nrm2, asum, the c of rot), and the NumPy dtype name.
ELEMENTS = {
    "H": ("hipblasHalf", "hipblasHalf", "float16"),
    "S": ("float", "float", "float32"),
    "D": ("double", "double", "float64"),
    "C": ("hipComplex", "float", "complex64"),
    "Z": ("hipDoubleComplex", "double", "complex128"),
}
COMPLEX = frozenset("CZ")

# Parameter roles.
HANDLE = "handle"
ENUM = "enum"  # hipblasOperation_t, hipblasFillMode_t, hipblasDiagType_t, hipblasSideMode_t
DATATYPE = "datatype"  # hipDataType
COMPUTE = "compute"  # hipblasComputeType_t
ALGO = "algo"  # hipblasGemmAlgo_t
INT = "int"  # a size, leading dimension, increment or batch count
STRIDE = "stride"  # hipblasStride: elements between the matrices of a strided batch
SCALAR = "scalar"  # alpha, beta, c, s: host or device memory, as the pointer mode says
RESULT = "result"  # dot, nrm2, asum, amax: host or device memory, as the pointer mode says
ARRAY = "array"  # a vector or matrix in device memory
BATCH = "batch"  # a device array of pointers to device matrices

ENUM_TYPES = ("hipblasOperation_t", "hipblasFillMode_t", "hipblasDiagType_t", "hipblasSideMode_t")
SCALAR_NAMES = ("alpha", "beta", "c", "s")


@dataclass(frozen=True)
class Param:
    """One C parameter of a routine: ``ctype name``, with its role."""

    ctype: str
    name: str
    role: str

    @property
    def writes(self) -> bool:
        """Whether the routine writes through this pointer."""
        return self.role in (ARRAY, BATCH, RESULT) and not self.ctype.startswith("const ")

    @property
    def declaration(self) -> str:
        """The parameter as C declares it (``const float* const A[]``)."""
        if self.role == BATCH:
            return f"{self.ctype} {self.name}[]"
        return f"{self.ctype} {self.name}"


@dataclass(frozen=True)
class Routine:
    """A hipBLAS routine: its name, family, element type and parameters."""

    name: str
    family: str  # "gemm", "gemm_batched", "gemm_ex", "dot"...
    element: str  # a key of ELEMENTS, or "" for the Ex forms (typed by their arguments)
    params: tuple[Param, ...]
    aliases: tuple[str, ...] = ()  # other hipBLAS names of the same routine ("hipblasCaxpy_v2")

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def cuda_name(self) -> str:
        """cuBLAS's name of this routine (what the NVIDIA provider calls)."""
        v2 = self.family not in _CUDA_WITHOUT_V2 and self.element != "H"
        return "cublas" + self.name[len("hipblas") :] + ("_v2" if v2 else "")

    @property
    def rocblas_name(self) -> str:
        """rocBLAS's name of this routine (``rocblas_sgemm_strided_batched``)."""
        return _ROCBLAS_NAMES.get(self.name) or _rocblas_name(self.name)


def _role(ctype: str, name: str) -> str:
    base = ctype.replace("const ", "").strip()
    if base == "hipblasHandle_t":
        return HANDLE
    if base in ENUM_TYPES:
        return ENUM
    if base == "hipDataType":
        return DATATYPE
    if base == "hipblasComputeType_t":
        return COMPUTE
    if base == "hipblasGemmAlgo_t":
        return ALGO
    if base == "int":
        return INT
    if base == "hipblasStride":
        return STRIDE
    if name.endswith("[]"):
        return BATCH
    if name in SCALAR_NAMES:
        return SCALAR
    if name == "result":
        return RESULT
    if base.endswith("*"):
        return ARRAY
    raise ValueError(f"blas_api: no role for parameter {ctype} {name}")


def _params(signature: str, element: str) -> tuple[Param, ...]:
    """Parses ``"hipblasHandle_t handle, int n, const T* x"`` with T (and R, the real
    type) replaced for `element`."""
    t, r = ELEMENTS[element][:2] if element else ("void", "void")
    params = []
    for text in signature.split(","):
        text = re.sub(r"\bT\b", t, re.sub(r"\bR\b", r, text.strip()))
        match = re.fullmatch(r"(.+?)\s*\b(\w+)(\[\])?", text)
        if match is None:
            raise ValueError(f"blas_api: cannot read parameter {text!r}")
        ctype, name, brackets = match.group(1).strip(), match.group(2), match.group(3) or ""
        role = _role(ctype, name + brackets)
        params.append(Param(ctype, name, role))
    return tuple(params)


# Signatures, with T the element type and R its real type (hipBLAS's parameter names).
_H = "hipblasHandle_t handle"
_GEMM_HEAD = f"{_H}, hipblasOperation_t transA, hipblasOperation_t transB, int m, int n, int k"
_SIGNATURES = {
    "axpy": f"{_H}, int n, const T* alpha, const T* x, int incx, T* y, int incy",
    "scal": f"{_H}, int n, const T* alpha, T* x, int incx",
    "scal_real": f"{_H}, int n, const R* alpha, T* x, int incx",
    "copy": f"{_H}, int n, const T* x, int incx, T* y, int incy",
    "swap": f"{_H}, int n, T* x, int incx, T* y, int incy",
    "dot": f"{_H}, int n, const T* x, int incx, const T* y, int incy, T* result",
    "nrm2": f"{_H}, int n, const T* x, int incx, R* result",
    "asum": f"{_H}, int n, const T* x, int incx, R* result",
    "amax": f"{_H}, int n, const T* x, int incx, int* result",
    "amin": f"{_H}, int n, const T* x, int incx, int* result",
    "rot": f"{_H}, int n, T* x, int incx, T* y, int incy, const R* c, const T* s",
    "rot_real": f"{_H}, int n, T* x, int incx, T* y, int incy, const R* c, const R* s",
    "gemv": f"{_H}, hipblasOperation_t trans, int m, int n, const T* alpha, const T* A, int lda, "
    "const T* x, int incx, const T* beta, T* y, int incy",
    "ger": f"{_H}, int m, int n, const T* alpha, const T* x, int incx, const T* y, int incy, T* A, int lda",
    "symv": f"{_H}, hipblasFillMode_t uplo, int n, const T* alpha, const T* A, int lda, "
    "const T* x, int incx, const T* beta, T* y, int incy",
    "trsv": f"{_H}, hipblasFillMode_t uplo, hipblasOperation_t transA, hipblasDiagType_t diag, "
    "int n, const T* A, int lda, T* x, int incx",
    "trmv": f"{_H}, hipblasFillMode_t uplo, hipblasOperation_t transA, hipblasDiagType_t diag, "
    "int n, const T* A, int lda, T* x, int incx",
    "gemm": f"{_GEMM_HEAD}, const T* alpha, const T* A, int lda, const T* B, int ldb, "
    "const T* beta, T* C, int ldc",
    "gemm_batched": f"{_GEMM_HEAD}, const T* alpha, const T* const A[], int lda, "
    "const T* const B[], int ldb, const T* beta, T* const C[], int ldc, int batchCount",
    "gemm_strided_batched": f"{_GEMM_HEAD}, const T* alpha, const T* A, int lda, "
    "hipblasStride strideA, const T* B, int ldb, hipblasStride strideB, const T* beta, "
    "T* C, int ldc, hipblasStride strideC, int batchCount",
    "symm": f"{_H}, hipblasSideMode_t side, hipblasFillMode_t uplo, int m, int n, "
    "const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc",
    "syrk": f"{_H}, hipblasFillMode_t uplo, hipblasOperation_t transA, int n, int k, "
    "const T* alpha, const T* A, int lda, const T* beta, T* C, int ldc",
    "syr2k": f"{_H}, hipblasFillMode_t uplo, hipblasOperation_t transA, int n, int k, "
    "const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc",
    "trsm": f"{_H}, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA, "
    "hipblasDiagType_t diag, int m, int n, const T* alpha, const T* A, int lda, T* B, int ldb",
    "trmm": f"{_H}, hipblasSideMode_t side, hipblasFillMode_t uplo, hipblasOperation_t transA, "
    "hipblasDiagType_t diag, int m, int n, const T* alpha, const T* A, int lda, "
    "const T* B, int ldb, T* C, int ldc",
    "geam": f"{_H}, hipblasOperation_t transA, hipblasOperation_t transB, int m, int n, "
    "const T* alpha, const T* A, int lda, const T* beta, const T* B, int ldb, T* C, int ldc",
    "gemm_ex": f"{_GEMM_HEAD}, const void* alpha, const void* A, hipDataType aType, int lda, "
    "const void* B, hipDataType bType, int ldb, const void* beta, void* C, hipDataType cType, "
    "int ldc, hipblasComputeType_t computeType, hipblasGemmAlgo_t algo",
    "gemm_batched_ex": f"{_GEMM_HEAD}, const void* alpha, const void* A[], hipDataType aType, "
    "int lda, const void* B[], hipDataType bType, int ldb, const void* beta, void* C[], "
    "hipDataType cType, int ldc, int batchCount, hipblasComputeType_t computeType, "
    "hipblasGemmAlgo_t algo",
    "gemm_strided_batched_ex": f"{_GEMM_HEAD}, const void* alpha, const void* A, "
    "hipDataType aType, int lda, hipblasStride strideA, const void* B, hipDataType bType, "
    "int ldb, hipblasStride strideB, const void* beta, void* C, hipDataType cType, int ldc, "
    "hipblasStride strideC, int batchCount, hipblasComputeType_t computeType, "
    "hipblasGemmAlgo_t algo",
}

# Each family's routines: (hipBLAS name with {} for the family's stem, element).
_PLAIN = ("S", "D", "C", "Z")
_FAMILIES: dict[str, tuple[tuple[str, str], ...]] = {
    "axpy": tuple((f"hipblas{e}axpy", e) for e in _PLAIN),
    "scal": tuple((f"hipblas{e}scal", e) for e in _PLAIN),
    "scal_real": (("hipblasCsscal", "C"), ("hipblasZdscal", "Z")),
    "copy": tuple((f"hipblas{e}copy", e) for e in _PLAIN),
    "swap": tuple((f"hipblas{e}swap", e) for e in _PLAIN),
    "dot": (
        ("hipblasSdot", "S"),
        ("hipblasDdot", "D"),
        ("hipblasCdotu", "C"),
        ("hipblasCdotc", "C"),
        ("hipblasZdotu", "Z"),
        ("hipblasZdotc", "Z"),
    ),
    "nrm2": (("hipblasSnrm2", "S"), ("hipblasDnrm2", "D"), ("hipblasScnrm2", "C"), ("hipblasDznrm2", "Z")),
    "asum": (("hipblasSasum", "S"), ("hipblasDasum", "D"), ("hipblasScasum", "C"), ("hipblasDzasum", "Z")),
    "amax": (("hipblasIsamax", "S"), ("hipblasIdamax", "D"), ("hipblasIcamax", "C"), ("hipblasIzamax", "Z")),
    "amin": (("hipblasIsamin", "S"), ("hipblasIdamin", "D"), ("hipblasIcamin", "C"), ("hipblasIzamin", "Z")),
    "rot": (("hipblasCrot", "C"), ("hipblasZrot", "Z")),
    "rot_real": (("hipblasSrot", "S"), ("hipblasDrot", "D"), ("hipblasCsrot", "C"), ("hipblasZdrot", "Z")),
    "gemv": tuple((f"hipblas{e}gemv", e) for e in _PLAIN),
    "ger": (
        ("hipblasSger", "S"),
        ("hipblasDger", "D"),
        ("hipblasCgeru", "C"),
        ("hipblasCgerc", "C"),
        ("hipblasZgeru", "Z"),
        ("hipblasZgerc", "Z"),
    ),
    "symv": tuple((f"hipblas{e}symv", e) for e in _PLAIN),
    "trsv": tuple((f"hipblas{e}trsv", e) for e in _PLAIN),
    "trmv": tuple((f"hipblas{e}trmv", e) for e in _PLAIN),
    "gemm": tuple((f"hipblas{e}gemm", e) for e in ("H", *_PLAIN)),
    "gemm_batched": tuple((f"hipblas{e}gemmBatched", e) for e in ("H", *_PLAIN)),
    "gemm_strided_batched": tuple((f"hipblas{e}gemmStridedBatched", e) for e in ("H", *_PLAIN)),
    "symm": tuple((f"hipblas{e}symm", e) for e in _PLAIN),
    "syrk": tuple((f"hipblas{e}syrk", e) for e in _PLAIN),
    "syr2k": tuple((f"hipblas{e}syr2k", e) for e in _PLAIN),
    "trsm": tuple((f"hipblas{e}trsm", e) for e in _PLAIN),
    "trmm": tuple((f"hipblas{e}trmm", e) for e in _PLAIN),
    "geam": tuple((f"hipblas{e}geam", e) for e in _PLAIN),
    "gemm_ex": (("hipblasGemmEx", ""),),
    "gemm_batched_ex": (("hipblasGemmBatchedEx", ""),),
    "gemm_strided_batched_ex": (("hipblasGemmStridedBatchedEx", ""),),
}

# cuBLAS's families without the "_v2" of its current names (cublasSgemm_v2).
_CUDA_WITHOUT_V2 = frozenset(
    {"gemm_batched", "gemm_strided_batched", "geam", "gemm_ex", "gemm_batched_ex", "gemm_strided_batched_ex"}
)

# rocBLAS's names that its rule (lower case, "_" before batched forms) does not give.
_ROCBLAS_NAMES = {
    "hipblasGemmEx": "rocblas_gemm_ex",
    "hipblasGemmBatchedEx": "rocblas_gemm_batched_ex",
    "hipblasGemmStridedBatchedEx": "rocblas_gemm_strided_batched_ex",
}


def _rocblas_name(name: str) -> str:
    stem = name[len("hipblas") :]
    stem = stem.replace("StridedBatched", "_strided_batched").replace("Batched", "_batched")
    return "rocblas_" + stem.lower()


@cache
def routines() -> tuple[Routine, ...]:
    """Every routine of the table, in its order (level 1, 2, 3, then the Ex forms)."""
    out = []
    for family, members in _FAMILIES.items():
        for name, element in members:
            # hipBLAS 2 names its complex routines on hipComplex with "_v2" (what hipify
            # writes); hipBLAS 3 dropped the suffix: both names are the same routine.
            v2 = element in COMPLEX or family.endswith("_ex")
            aliases = (name + "_v2",) if v2 else ()
            out.append(Routine(name, family, element, _params(_SIGNATURES[family], element), aliases))
    return tuple(out)


@cache
def by_name() -> dict[str, Routine]:
    """Every routine by each of its hipBLAS names."""
    return {name: r for r in routines() for name in r.names}

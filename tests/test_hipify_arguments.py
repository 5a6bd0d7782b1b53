"""hipify-clang's argument rewrites (arguments.tsv): symbols, casts, added, removed, moved
and replaced arguments, overloads by argument count; each where --roc/--miopen match."""

from __future__ import annotations

import pytest

from hipkit.hipify import Options, translate
from hipkit.hipify.arguments import overloads, rewrites


def hip(text: str, **options) -> str:
    out = translate("#include <cuda_runtime.h>\n" + text, options=Options(**options)).text
    return out.removeprefix("#include <hip/hip_runtime.h>\n")


@pytest.mark.parametrize(
    "source, expected",
    [
        # wrap: HIP_SYMBOL around a symbol, a cast around a kernel
        (
            "cudaMemcpyToSymbol(coef, h, n, 0, cudaMemcpyHostToDevice);",
            "hipMemcpyToSymbol(HIP_SYMBOL(coef), h, n, 0, hipMemcpyHostToDevice);",
        ),
        (
            'cudaMemcpyFromSymbol(h, "name", n);',
            'hipMemcpyFromSymbol(h, HIP_SYMBOL("name"), n);',
        ),
        (
            "cudaFuncGetAttributes(&a, k<float>);",
            "hipFuncGetAttributes(&a, reinterpret_cast<const void*>(k<float>));",
        ),
        # add: a constant where the HIP function has one more parameter
        ("cudaMallocHost(&p, n);", "hipHostMalloc(&p, n, hipHostMallocDefault);"),
        # overloads by argument count
        (
            "cudaEventCreate(&e); cudaEventCreate(&e, f);",
            "hipEventCreate(&e); hipEventCreateWithFlags(&e, f);",
        ),
        # names inside the arguments are translated too
        (
            "cudaMemcpyToSymbolAsync(sym, p, n, 0, cudaMemcpyHostToDevice, cudaStreamPerThread);",
            "hipMemcpyToSymbolAsync(HIP_SYMBOL(sym), p, n, 0, hipMemcpyHostToDevice, hipStreamPerThread);",
        ),
    ],
)
def test_runtime_argument_rewrites(source, expected):
    assert hip(source + "\n") == expected + "\n"


def test_calls_that_need_no_rewrite_are_kept():
    # Not a call; a member function of the same name (renamed, its arguments its own); HIP's own call.
    source = (
        "auto f = &cudaMemcpyToSymbol; x.cudaMallocHost(&p, n); hipMemcpyToSymbol(HIP_SYMBOL(s), h, n);\n"
    )
    assert hip(source) == (
        "auto f = &hipMemcpyToSymbol; x.hipHostMalloc(&p, n); hipMemcpyToSymbol(HIP_SYMBOL(s), h, n);\n"
    )


def test_removed_argument_is_reported():
    source = "cuOccupancyMaxPotentialBlockSize(&g, &b, f, smem, 0, 0);\n"
    result = translate("#include <cuda.h>\n" + source)
    assert result.text.endswith("hipModuleOccupancyMaxPotentialBlockSize(&g, &b, f, 0, 0);\n")
    assert [(d.rule, d.line, d.col) for d in result.diagnostics] == [("dropped-argument", 2, 1)]
    assert result.diagnostics[0].message == (
        "argument 4 of 'cuOccupancyMaxPotentialBlockSize' is dropped: "
        "'hipModuleOccupancyMaxPotentialBlockSize' has no such parameter"
    )


def test_no_dropped_argument_where_nothing_is_dropped():
    result = translate("#include <cuda.h>\ncuOccupancyMaxPotentialBlockSize();\ncuInit(0);\n")
    assert [d.rule for d in result.diagnostics if d.rule == "dropped-argument"] == []


DNN = (
    "#include <cudnn.h>\n"
    "cudnnGetConvolutionForwardWorkspaceSize(h, xD, wD, cD, yD, algo, &size);\n"
    "cudnnConvolutionForward(h, alpha, xD, x, wD, w, cD, algo, ws, wsSize, beta, yD, y);\n"
)


def test_cudnn_to_miopen_moves_and_removes_arguments():
    out = translate(DNN, options=Options(roc=True, miopen=True)).text
    assert out.endswith(
        "#include <miopen/miopen.h>\n"
        "miopenConvolutionForwardGetWorkSpaceSize(h, wD, xD, cD, yD, &size);\n"
        "miopenConvolutionForward(h, alpha, xD, x, wD, w, cD, algo, beta, yD, y, ws, wsSize);\n"
    )


def test_rewrites_apply_only_for_their_target():
    # Only with --roc --miopen, as hipify-clang: hipDNN keeps cuDNN's arguments.
    assert translate(DNN).text.endswith(
        "hipdnnGetConvolutionForwardWorkspaceSize(h, xD, wD, cD, yD, algo, &size);\n"
        "hipdnnConvolutionForward(h, alpha, xD, x, wD, w, cD, algo, ws, wsSize, beta, yD, y);\n"
    )
    assert ("cudnnConvolutionForward", True, True) in rewrites()
    assert ("cudnnConvolutionForward", False, False) not in rewrites()


def test_rocsparse_constants_replace_and_extend_arguments():
    source = (
        "#include <cusparse.h>\n"
        "cusparseScsrilu02(h, m, nnz, d, v, r, c, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf);\n"
    )
    out = translate(source, options=Options(roc=True)).text
    assert out.endswith(
        "rocsparse_scsrilu0(h, m, nnz, d, v, r, c, info, rocsparse_solve_policy_auto, buf);\n"
    )


def test_overload_table():
    assert overloads()[("cudaGraphInstantiate", False, False)] == {
        5: "hipGraphInstantiate",
        3: "hipGraphInstantiateWithFlags",
    }

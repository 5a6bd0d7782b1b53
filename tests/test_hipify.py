"""hipify's translation of source text: names, comments and literals, preprocessor lines,
includes, launches, --roc/--miopen/--experimental, diagnostics and statistics."""

import doctest

import pytest

from hipkit import hipify
from hipkit.cxx.lexer import LexError
from hipkit.hipify import Options, translate

HIP = Options(hip_kernel_execution_syntax=True)


def hip(text: str, **options) -> str:
    return translate(text, options=Options(**options)).text


def test_docstring_examples():
    import hipkit.hipify.files
    import hipkit.hipify.translator
    import hipkit.tables.names

    for module in (hipify, hipkit.hipify.files, hipkit.tables.names, hipkit.hipify.translator):
        assert doctest.testmod(module).failed == 0, module.__name__


# ---- names, comments, literals --------------------------------------------------------


def test_names_renamed_but_not_in_comments_or_literals():
    source = (
        "#include <cuda_runtime.h>\n"
        "// cudaMalloc in a line comment\n"
        "/* cudaFree in a\n   block comment */\n"
        "const char* s = \"cudaMalloc failed\", c = 'c';\n"
        'auto r = R"x(cudaMalloc(")" */ cudaFree)x"; auto u = u8"cudaFree";\n'
        "cudaError_t e = cudaMalloc(&p, n); cudaFree(p);  // cudaFree\n"
    )
    assert hip(source) == (
        "#include <hip/hip_runtime.h>\n"
        "// cudaMalloc in a line comment\n"
        "/* cudaFree in a\n   block comment */\n"
        "const char* s = \"cudaMalloc failed\", c = 'c';\n"
        'auto r = R"x(cudaMalloc(")" */ cudaFree)x"; auto u = u8"cudaFree";\n'
        "hipError_t e = hipMalloc(&p, n); hipFree(p);  // cudaFree\n"
    )


def test_only_whole_identifiers_are_renamed():
    source = '#include "cuda.h"\nint my_cudaMalloc, cudaMallocX; obj.cudaMalloc_(); x = cudaMalloc;\n'
    assert (
        hip(source)
        == '#include "hip/hip_runtime.h"\nint my_cudaMalloc, cudaMallocX; obj.cudaMalloc_(); x = hipMalloc;\n'
    )


def test_non_cuda_text_is_returned_byte_for_byte():
    source = (
        "// caf\udce9 \u00e9t\u00e9\r\n#include <vector>\r\n"
        "template <class T> using V = std::vector<std::vector<T>>;\t \r\n"
        "int f(int a) { return a >> 1 << 2; }  /* cuda-ish words: CUDA, cudart */"
    )
    result = translate(source, filename="plain.cpp")
    assert result.text == source
    assert result.stats.converted == 0 and result.diagnostics == []


def test_crlf_and_layout_kept_where_names_change():
    source = "#include <cuda_runtime.h>\r\n\tcudaStream_t  s ;\r\n\r\n  cudaStreamCreate( &s );"
    assert hip(source) == "#include <hip/hip_runtime.h>\r\n\thipStream_t  s ;\r\n\r\n  hipStreamCreate( &s );"


def test_macros_and_conditionals_are_translated_but_not_their_comments_or_strings():
    source = (
        "#include <cuda_runtime.h>\n"
        "#ifdef __CUDACC__  // __CUDACC__ stays\n"
        "#define CHECK(x) do { cudaError_t e = (x); \\\n"
        '    if (e != cudaSuccess) puts("cudaSuccess"); /* cudaSuccess */ } while (0)\n'
        "#endif\n"
        "#  if defined(__CUDACC__)\n#error don't use cudaMalloc here\n#endif\n"
    )
    assert hip(source) == (
        "#include <hip/hip_runtime.h>\n"
        "#ifdef __HIPCC__  // __CUDACC__ stays\n"
        "#define CHECK(x) do { hipError_t e = (x); \\\n"
        '    if (e != hipSuccess) puts("cudaSuccess"); /* cudaSuccess */ } while (0)\n'
        "#endif\n"
        "#  if defined(__HIPCC__)\n#error don't use cudaMalloc here\n#endif\n"
    )


def test_unterminated_literal_raises_with_position():
    with pytest.raises(LexError) as info:
        translate('#include <cuda.h>\ncudaFree(p);\nputs("oops);\n')
    assert (info.value.line, info.value.col) == (3, 6)


# ---- includes ------------------------------------------------------------------------


def test_includes_follow_the_table_and_keep_their_quotes_and_comments():
    source = (
        "#include <cuda_runtime.h>  // runtime\n"
        '#include "cublas_v2.h"\n'
        "#include <cufft.h>\n"
        "# include <curand_kernel.h>\n"
        "#include <cooperative_groups.h>\n"
        "#include <nccl.h>\n"
        "#include <nvrtc.h>\n"
        "#include <device_launch_parameters.h> // gone\n"
        "#include <my/cuda_helpers.h>\n"
    )
    assert hip(source) == (
        "#include <hip/hip_runtime.h>  // runtime\n"
        '#include "hipblas.h"\n'
        "#include <hipfft/hipfft.h>\n"
        "# include <hiprand/hiprand_kernel.h>\n"
        "#include <hip/hip_cooperative_groups.h>\n"
        "#include <rccl/rccl.h>\n"
        "#include <hiprtc.h>\n"
        " // gone\n"
        "#include <my/cuda_helpers.h>\n"
    )


@pytest.mark.parametrize(
    "source, expected",
    [
        # hipify-clang's rule: one include per main header; the second goes, its line stays.
        ("#include <cuda.h>\n#include <cuda_runtime.h>\n", "#include <hip/hip_runtime.h>\n\n"),
        ('#include "cuda_runtime.h"\n#include "cuda.h"\n', '#include "hip/hip_runtime.h"\n\n'),
        ("#include <hip/hip_runtime.h>\n#include <cuda_runtime.h>\n", "#include <hip/hip_runtime.h>\n\n"),
        ("#include <cuda_runtime.h>\n#include <hip/hip_runtime.h>\n", "#include <hip/hip_runtime.h>\n\n"),
    ],
)
def test_never_two_runtime_includes(source, expected):
    out = hip(source + "cudaFree(p);\n")
    assert out == expected + "hipFree(p);\n"
    assert out.count("hip/hip_runtime.h") == 1


@pytest.mark.parametrize(
    "source, expected",
    [
        ("cudaFree(p);\n", "\n#include <hip/hip_runtime.h>\nhipFree(p);\n"),
        (
            "// notes\n#include <stdio.h>\ncudaFree(p);\n",
            "// notes\n\n#include <hip/hip_runtime.h>\n#include <stdio.h>\nhipFree(p);\n",
        ),
        (
            "#pragma once\n#include <stdio.h>\n__global__ void k();\n",
            "#pragma once\n#include <hip/hip_runtime.h>\n\n#include <stdio.h>\n__global__ void k();\n",
        ),
        (
            "#ifndef K_H\n#define K_H\n__device__ int f();\n#endif  // K_H\n",
            "#ifndef K_H\n#include <hip/hip_runtime.h>\n\n#define K_H\n__device__ int f();\n#endif  // K_H\n",
        ),
    ],
)
def test_runtime_header_added_where_hipify_clang_adds_it(source, expected):
    assert hip(source) == expected


def test_runtime_header_for_cuda_files_only():
    text = "int main() { return 0; }\n"
    assert translate(text, filename="k.cu").text == "\n#include <hip/hip_runtime.h>\n" + text
    assert translate(text, filename="k.cpp").text == text


# ---- launches ------------------------------------------------------------------------

KERNELS = """template <typename T, int N>
__global__ void tk(T* x) {}
__global__ void k(float* x, int n) {}
"""


def test_launch_kept_by_default():
    source = KERNELS + "void f() { k<<<g, b, 0, s>>>(x, n); tk<float, 4><<<1, 2>>>(x); }\n"
    assert hip(source) == "\n#include <hip/hip_runtime.h>\n" + source


@pytest.mark.parametrize(
    "launch, expected",
    [
        ("k<<<g, b>>>(x, n);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, n);"),
        ("k<<<g, b, shm>>>(x, n);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, 0, x, n);"),
        ("k<<<dim3(g, 2), b, 0, s>>>(x, n);", "hipLaunchKernelGGL(k, dim3(g, 2), dim3(b), 0, s, x, n);"),
        (
            "k<<<(n + 255) / 256, min(n, 256)>>>(f(a, g(b)), (n >> 1) > 2);",
            "hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(min(n, 256)), 0, 0, "
            "f(a, g(b)), (n >> 1) > 2);",
        ),
        (
            "tk<float, 4><<<1, 2>>>(x);",
            "hipLaunchKernelGGL(HIP_KERNEL_NAME(tk<float, 4>), dim3(1), dim3(2), 0, 0, x);",
        ),
        (
            "tk<Pair<int, 2>, sizeof(T)><<<1, 2>>>(x);",
            "hipLaunchKernelGGL(HIP_KERNEL_NAME(tk<Pair<int, 2>, sizeof(T)>), dim3(1), dim3(2), 0, 0, x);",
        ),
        ("tk<<<1, 2>>>(x);", "hipLaunchKernelGGL(HIP_KERNEL_NAME(tk), dim3(1), dim3(2), 0, 0, x);"),
        ("ns::k<<<1, 2>>>();", "hipLaunchKernelGGL(ns::k, dim3(1), dim3(2), 0, 0);"),
        (
            "k<<<\n    grid,  // rows\n    block>>>(\n      x, cudaGetLastError() );",
            "hipLaunchKernelGGL(k, dim3(grid), dim3(block), 0, 0, x, hipGetLastError());",
        ),
        (
            "k<<<1, 1, 0, cudaStreamPerThread>>>(x, n);",
            "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, hipStreamPerThread, x, n);",
        ),
    ],
)
def test_launch_as_hipLaunchKernelGGL(launch, expected):
    out = translate(KERNELS + launch + "\n", options=HIP).text
    assert out == "\n#include <hip/hip_runtime.h>\n" + KERNELS + expected + "\n"


def test_launch_in_a_macro():
    source = (
        "#define LAUNCH(kern, g, b, ...) \\\n"
        "    kern<<<g, b>>>(__VA_ARGS__)  /* k<<<1, 1>>>(x) */\n"
        "LAUNCH(k, 1, 2, x, n);\n"
    )
    assert translate(source, options=HIP).text == (
        "\n#include <hip/hip_runtime.h>\n"
        "#define LAUNCH(kern, g, b, ...) \\\n"
        "    hipLaunchKernelGGL(kern, dim3(g), dim3(b), 0, 0, __VA_ARGS__)  /* k<<<1, 1>>>(x) */\n"
        "LAUNCH(k, 1, 2, x, n);\n"
    )


def test_what_is_not_a_launch_is_kept():
    source = "#include <cuda.h>\nint a = b >> 2; vector<vector<int>> v; x = y<<<1;\n"
    assert translate(source, options=HIP).text == source.replace("cuda.h", "hip/hip_runtime.h")


# ---- library targets --------------------------------------------------------------------

BLAS = """#include <cublas_v2.h>
cublasHandle_t h; cublasStatus_t st = cublasCreate(&h);
if (st != CUBLAS_STATUS_SUCCESS) cublasDestroy(h);
"""


def test_blas_to_hipblas_or_rocblas():
    assert hip(BLAS) == (
        "\n#include <hip/hip_runtime.h>\n#include <hipblas.h>\n"
        "hipblasHandle_t h; hipblasStatus_t st = hipblasCreate(&h);\n"
        "if (st != HIPBLAS_STATUS_SUCCESS) hipblasDestroy(h);\n"
    )
    assert hip(BLAS, roc=True) == (
        "\n#include <hip/hip_runtime.h>\n#include <rocblas.h>\n"
        "rocblas_handle h; rocblas_status st = rocblas_create_handle(&h);\n"
        "if (st != rocblas_status_success) rocblas_destroy_handle(h);\n"
    )


def test_cudnn_to_hipdnn_or_miopen():
    source = "#include <cudnn.h>\ncudnnHandle_t h; cudnnCreate(&h); cudaStream_t s;\n"
    assert hip(source).endswith("#include <hipDNN.h>\nhipdnnHandle_t h; hipdnnCreate(&h); hipStream_t s;\n")
    # --roc takes cuDNN to MIOpen too, except names MIOpen alone should take (a stream).
    assert hip(source, roc=True).endswith(
        "#include <miopen/miopen.h>\nmiopenHandle_t h; miopenCreate(&h); hipStream_t s;\n"
    )
    assert hip(source, miopen=True).endswith(
        "#include <miopen/miopen.h>\nmiopenHandle_t h; miopenCreate(&h); miopenAcceleratorQueue_t s;\n"
    )


def test_cub_namespace():
    source = (
        "#include <cub/cub.cuh>\nusing namespace cub;\ncub::DeviceReduce::Sum(t, n, a, b, c); int cub = 1;\n"
    )
    assert hip(source).endswith(
        "#include <hipcub/hipcub.hpp>\nusing namespace hipcub;\n"
        "hipcub::DeviceReduce::Sum(t, n, a, b, c); int cub = 1;\n"
    )


# ---- diagnostics and statistics -------------------------------------------------------------


def test_unsupported_names_are_kept_and_reported_with_position():
    source = "#include <cuda_runtime.h>\nint main() {\n    cudaDeviceFlushGPUDirectRDMAWrites(t, s);\n}\n"
    result = translate(source, filename="u.cu")
    assert result.text == source.replace("cuda_runtime.h", "hip/hip_runtime.h")
    (diagnostic,) = result.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.col) == ("u.cu", 3, 5)
    assert (diagnostic.rule, diagnostic.severity) == ("unsupported-api", "warning")
    assert str(diagnostic).startswith(
        "u.cu:3:5: warning: 'cudaDeviceFlushGPUDirectRDMAWrites' is unsupported in HIP [unsupported-api]"
    )
    assert [(u.name, u.line, u.col) for u in result.stats.unsupported] == [
        ("cudaDeviceFlushGPUDirectRDMAWrites", 3, 5)
    ]


def test_unsupported_device_function_only_where_cudas_is_called():
    source = (
        "#include <cuda.h>\n__device__ int g(unsigned a, unsigned b) {\n  return umin(a, b) + p.umin(1);\n}\n"
    )
    (diagnostic,) = translate(source).diagnostics
    assert (diagnostic.line, diagnostic.col, diagnostic.rule) == (3, 10, "unsupported-api")
    own = "__device__ unsigned umin(unsigned a, unsigned b);\n" + source
    assert translate(own).diagnostics == []


def test_names_in_directives_are_reported_at_their_place():
    source = "#include <cuda.h>\n#define FLUSH() \\\n  cudaDeviceFlushGPUDirectRDMAWrites(0, 0)\n"
    (diagnostic,) = translate(source).diagnostics
    assert (diagnostic.line, diagnostic.col) == (3, 3)


def test_experimental_names_need_the_option():
    source = "#include <cuda_runtime.h>\ncudaGraphExecGetFlags(g, &f);\n"
    result = translate(source)
    assert "cudaGraphExecGetFlags(g, &f);" in result.text
    assert [(d.rule, d.line, d.col) for d in result.diagnostics] == [("experimental-api", 2, 1)]
    result = translate(source, options=Options(experimental=True))
    assert "\nhipGraphExecGetFlags(g, &f);" in result.text and result.diagnostics == []


def test_blas_names_of_the_v2_api_need_cublas_v2_h():
    call = "cublasSnrm2(h, n, x, 1, &r);\n"
    result = translate("#include <cublas.h>\n" + call)
    assert result.text.endswith(call)
    assert [d.rule for d in result.diagnostics] == ["v2-only-api"]
    assert translate("#include <cublas_v2.h>\n" + call).text.endswith("hipblasSnrm2(h, n, x, 1, &r);\n")


def test_deprecated_names_are_translated_with_a_warning():
    result = translate("#include <cuda.h>\ncudaThreadSynchronize();\n")
    assert result.text.endswith("\nhipDeviceSynchronize();\n")
    assert [(d.rule, d.message) for d in result.diagnostics] == [
        ("deprecated-api", "'cudaThreadSynchronize' is deprecated in CUDA 10.0")
    ]


def test_stats_count_conversions_by_name_library_and_kind():
    source = (
        "#include <cuda_runtime.h>\n#include <cufft.h>\n"
        "__global__ void k() {}\n"
        "cudaMalloc(&a, n); cudaMalloc(&b, n); cufftPlan1d(&p, n, CUFFT_C2C, 1);\n"
        "k<<<1, 1>>>(); cudaDeviceFlushGPUDirectRDMAWrites(0, 0);\n"
    )
    stats = translate(source, options=HIP).stats
    assert stats.lines == 5
    assert dict(stats.names) == {
        ("cuda_runtime.h", "hip/hip_runtime.h"): 1,
        ("cufft.h", "hipfft/hipfft.h"): 1,
        ("cudaMalloc", "hipMalloc"): 2,
        ("cufftPlan1d", "hipfftPlan1d"): 1,
        ("CUFFT_C2C", "HIPFFT_C2C"): 1,
        ("<<<>>>", "hipLaunchKernelGGL"): 1,
    }
    assert stats.converted == 7
    assert dict(stats.libraries) == {"runtime": 4, "fft": 3}
    assert stats.kinds["memory"] == 2 and stats.kinds["kernel_launch"] == 1
    assert [u.name for u in stats.unsupported] == ["cudaDeviceFlushGPUDirectRDMAWrites"]


def test_names_rocblas_lacks_are_kept_with_roc():
    source = "#include <cublas_v2.h>\ncublasComputeType_t t = CUBLAS_COMPUTE_16F;\n"
    assert hip(source).endswith("hipblasComputeType_t t = HIPBLAS_COMPUTE_16F;\n")
    result = translate(source, options=Options(roc=True))
    assert result.text.endswith("= CUBLAS_COMPUTE_16F;\n")
    assert [(d.line, d.col, d.message, d.hint) for d in result.diagnostics if "16F" in d.message] == [
        (2, 25, "'CUBLAS_COMPUTE_16F' is unsupported in ROC", "try without --roc")
    ]


def test_unsupported_header_is_kept_and_reported():
    source = '#include <cuda.h>\n  #include "caffe2/core/common_gpu.h"\n'
    result = translate(source)
    assert result.text == source.replace("cuda.h", "hip/hip_runtime.h")
    assert [(d.rule, d.line, d.col) for d in result.diagnostics] == [("unsupported-header", 2, 12)]


def test_launch_of_a_macro_naming_a_template_instance():
    source = (
        KERNELS
        + "#define KERNEL tk<float, 4>\n#define SCALE 2 < 3\nKERNEL<<<1, 2>>>(x);\nk<<<1, 2>>>(x, SCALE);\n"
    )
    assert translate(source, options=HIP).text == (
        "\n#include <hip/hip_runtime.h>\n" + KERNELS + "#define KERNEL tk<float, 4>\n#define SCALE 2 < 3\n"
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(KERNEL), dim3(1), dim3(2), 0, 0, x);\n"
        "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x, SCALE);\n"
    )

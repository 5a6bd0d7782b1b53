"""hipify's portability rules: each finds what it should (with its position) and leaves the
rest alone; --fix-warp-size rewrites the safe cases; the report and the rules table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hipkit.cli import main
from hipkit.hipify import Options, translate
from hipkit.hipify.rules import RULES

README = Path(__file__).parents[1] / "README.md"


def found(source: str, rule: str, **options) -> list[tuple[int, int]]:
    """(line, col) of each diagnostic of ``rule``."""
    result = translate(source, filename="t.cu", options=Options(**options))
    return [(d.line, d.col) for d in result.diagnostics if d.rule == rule]


def fixed(source: str) -> str:
    """The translation with --fix-warp-size, less the runtime header a CUDA file gets."""
    text = translate(source, filename="t.cpp", options=Options(fix_warp_size=True)).text
    return text.removeprefix("\n#include <hip/hip_runtime.h>\n")


def kernel(body: str) -> str:
    """``body`` as the second line of a kernel (so positions are line 2)."""
    return f"__global__ void k(float* x, unsigned mask, int n) {{\n{body}\n}}\n"


# ---- inline-asm ---------------------------------------------------------------------------


def test_inline_asm_in_device_code_or_with_ptx():
    device = kernel('  int l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));')
    assert found(device, "inline-asm") == [(2, 10)]
    macro = '#define LANE(x) asm("mov.u32 %0, %%laneid;" : "=r"(x))\n'
    assert found(macro, "inline-asm") == [(1, 17)]


def test_inline_asm_on_the_host_is_not_reported():
    host = 'unsigned t() { unsigned lo, hi; __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)); return lo; }\n'
    assert found(host, "inline-asm") == []
    assert (
        found(kernel('  const char* s = "asm(mov.u32)"; // asm volatile("mov.u32 %0;")'), "inline-asm") == []
    )


# ---- warp-size-arith ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, col",
    [
        ("  int lane = threadIdx.x & 31;", 26),
        ("  int tid = threadIdx.x; int w = tid / 32;", 38),
        ("  int lane_id = (blockIdx.x * blockDim.x + threadIdx.x) % 32u;", 57),
        ("  int warps = blockDim.x >> 5;", 26),
        ("  int laneId = n; laneId %= 32;", 26),
        ("  int w = __lane_id() & 0x1f;", 23),
    ],
)
def test_warp_size_arithmetic_on_thread_indices(line, col):
    assert found(kernel(line), "warp-size-arith") == [(2, col)]


@pytest.mark.parametrize(
    "source",
    [
        kernel("  int a = n % 32, b = (n + 31) / 32, c = n & 31;"),  # not a lane or thread index
        kernel("  int plane = n; int p = plane % 32;"),  # 'plane' is not a lane
        "int blocks(int n, int tid) { return (n + 31) / 32 + tid % 32; }\n",  # host code, CPU thread ids
        kernel("  int lane = threadIdx.x % 64; // threadIdx.x & 31"),
    ],
)
def test_other_arithmetic_by_32_is_not_reported(source):
    assert found(source, "warp-size-arith") == []


def test_fix_warp_size_rewrites_lane_arithmetic():
    source = kernel(
        "  int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, l2 = threadIdx.x & 0x1f;\n"
        "  int w2 = threadIdx.x >> 5, w3 = (tid + 1) >> 5; lane %= 32;"
    )
    assert fixed(source) == kernel(
        "  int tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize, l2 = threadIdx.x & "
        "(warpSize - 1);\n"
        "  int w2 = threadIdx.x / warpSize, w3 = (tid + 1) / warpSize; lane %= warpSize;"
    )


def test_fix_warp_size_leaves_what_it_cannot_prove():
    # A shift whose operand or right side is not a single term; a weak name in a macro.
    source = (
        kernel("  int tid = threadIdx.x; int a = n + tid >> 5, b = tid >> 5 + 1;")
        + "#define WARP(t) (t##_tid / 32)\n"
    )
    result = translate(source, options=Options(fix_warp_size=True))
    assert result.text.endswith(source)
    assert [(d.line, d.severity, d.fixed) for d in result.diagnostics if d.rule == "warp-size-arith"] == [
        (2, "warning", False),
        (2, "warning", False),
        (4, "warning", False),
    ]


def test_fixed_places_are_notes():
    result = translate(kernel("  int lane = threadIdx.x % 32;"), options=Options(fix_warp_size=True))
    (d,) = result.diagnostics
    assert (d.rule, d.severity, d.fixed, d.line, d.col) == ("warp-size-arith", "note", True, 2, 26)
    assert d.message == "'threadIdx.x % 32' assumes 32 lanes per warp: rewritten as '% warpSize'"
    assert str(d) == f"<string>:2:26: note: {d.message} [warp-size-arith]"


# ---- warp-shuffle-loop --------------------------------------------------------------------

DOWN = "  float v = x[0];\n  for (int o = 16; o > 0; o /= 2)\n    v += __shfl_down(v, o);"
UP = "  float v = x[0];\n  for (int o = 1; o < 32; o <<= 1) { v += __shfl_xor(v, o); }"


def test_shuffle_loops_over_32_lanes():
    assert found(kernel(DOWN), "warp-shuffle-loop") == [(3, 16)]
    assert found(kernel(UP), "warp-shuffle-loop") == [(3, 23)]
    assert fixed(kernel(DOWN)) == kernel(DOWN.replace("= 16", "= warpSize / 2"))
    assert fixed(kernel(UP)) == kernel(UP.replace("< 32", "< warpSize"))


@pytest.mark.parametrize(
    "loop",
    [
        "  for (int s = 16; s > 0; s /= 2) x[s] += x[s + 1];",  # no shuffle
        "  for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);",  # a tile of explicit size
        "  for (int o = 16; o < n; o += 2) v += __shfl_down(v, o);",  # not halving
    ],
)
def test_other_loops_from_16_are_not_reported(loop):
    assert found(kernel("  float v = 0;\n" + loop), "warp-shuffle-loop") == []


def test_shuffle_loop_with_its_own_width_is_reported_not_fixed():
    source = kernel("  float v = 0;\n  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o, 32);")
    result = translate(source, options=Options(fix_warp_size=True))
    assert result.text.endswith(source)
    assert [(d.rule, d.fixed) for d in result.diagnostics] == [("warp-shuffle-loop", False)]


# ---- warp-size-constant -------------------------------------------------------------------


def test_warp_size_constants():
    source = (
        "#define WARP_SIZE 32  // lanes\nconstexpr int kWarpSize = 32;\n"
        "static const unsigned warp_size = 32u;\n"
    )
    assert found(source, "warp-size-constant") == [(1, 9), (2, 15), (3, 23)]
    assert fixed(source) == source  # they size arrays and template arguments: reported only


def test_other_constants_are_not_warp_sizes():
    source = "#define BLOCK 32\n#define WARP_SIZE warpSize\nconst int warp_size = 64;\nint lanes = 32;\n"
    assert found(source, "warp-size-constant") == []


# ---- lane-mask-32 -------------------------------------------------------------------------


def test_ballots_kept_in_32_bits():
    source = kernel(
        "  unsigned b = __ballot_sync(__activemask(), n > 0); uint32_t c = __ballot(n);\n"
        "  int a = __activemask(); int k = __popc(b) + __ffs(__ballot(n > 1));"
    )
    assert found(source, "lane-mask-32") == [(2, 3), (2, 54), (3, 3), (3, 35), (3, 47)]
    assert fixed(source) == kernel(
        "  unsigned long long b = __ballot_sync(__activemask(), n > 0); uint64_t c = __ballot(n);\n"
        "  int a = __activemask(); int k = __popcll(b) + __ffsll(__ballot(n > 1));"
    )


def test_64_bit_ballots_are_fine():
    source = kernel(
        "  unsigned long long b = __ballot_sync(__activemask(), n > 0); auto c = __ballot(n);\n"
        "  int k = __popcll(b) + __popc(n); uint64_t d = __activemask();"
    )
    assert found(source, "lane-mask-32") == []


# ---- mask-32-sync -------------------------------------------------------------------------


def test_32_bit_masks_passed_to_sync_functions():
    source = "#define FULL 0xffffffff\n" + kernel(
        "  float v = __shfl_sync(0xFFFFFFFFu, x[0], 0) + __shfl_up_sync(~0u, x[0], 1);\n"
        "  unsigned m = 0xffffffff; v += __shfl_xor_sync(m, v, 1) + __any_sync(FULL, v > 0);\n"
        "  __syncwarp(mask);"
    )
    assert found(source, "mask-32-sync") == [(3, 25), (3, 64), (4, 49), (4, 71), (5, 14)]
    assert fixed(source) == (
        "#define FULL 0xffffffffffffffffull\n"
        + kernel(
            "  float v = __shfl_sync(0xffffffffffffffffull, x[0], 0) + "
            "__shfl_up_sync(0xffffffffffffffffull, x[0], 1);\n"
            "  unsigned long long m = 0xffffffffffffffffull; v += __shfl_xor_sync(m, v, 1) + "
            "__any_sync(FULL, v > 0);\n"
            "  __syncwarp(mask);"  # a parameter: reported, not rewritten
        )
    )


def test_64_bit_masks_are_fine():
    source = kernel(
        "  unsigned long long m = 0xffffffffffffffffull; float v = __shfl_sync(m, x[0], 0);\n"
        "  v += __shfl_down_sync(__activemask(), v, 1) + __shfl_sync(0xffffffffull, v, 2) + __shfl(v, "
        "0xffff);"
    )
    assert found(source, "mask-32-sync") == []


# ---- activemask ---------------------------------------------------------------------------


def test_activemask_is_a_note():
    result = translate(kernel("  auto m = __activemask();  // __activemask()"))
    assert [(d.rule, d.severity, d.line, d.col) for d in result.diagnostics] == [
        ("activemask", "note", 2, 12)
    ]
    assert (
        found(kernel('  const char* s = "__activemask()"; int __activemask_count = 0;'), "activemask") == []
    )


# ---- texture-reference --------------------------------------------------------------------


def test_texture_references_and_their_fetches():
    source = (
        "texture<float, 1, cudaReadModeElementType> tex;\n"
        "__global__ void k(float* y, cudaTextureObject_t obj) {\n"
        "  y[0] = tex1Dfetch(tex, 0) + tex1Dfetch<float>(obj, 1);\n}\n"
    )
    assert found(source, "texture-reference") == [(1, 1), (3, 10)]


def test_texture_objects_are_not_references():
    source = (
        "__global__ void k(float* y, cudaTextureObject_t tex) { y[0] = tex2D<float>(tex, 0, 0); }\n"
        "struct S { int texture; } s; int t = s.texture;\n"
    )
    assert found(source, "texture-reference") == []


# ---- dynamic-parallelism ------------------------------------------------------------------


def test_launches_and_device_synchronize_in_device_code():
    source = (
        "__global__ void child() {}\n"
        "__global__ void parent() {\n  child<<<1, 1>>>();\n  cudaDeviceSynchronize();\n}\n"
        "__device__ void helper() { if (true) { child<<<1, 32>>>(); } }\n"
    )
    assert found(source, "dynamic-parallelism") == [(3, 8), (4, 3), (6, 45)]


def test_launches_from_the_host_are_not_dynamic_parallelism():
    source = (
        "__global__ void child() {}\n#define LAUNCH() child<<<1, 1>>>()\n"
        "void host() {\n  child<<<1, 1>>>();\n  cudaDeviceSynchronize();\n  LAUNCH();\n}\n"
        "auto f = [] __device__ (int x) { return x; };\nvoid later() { child<<<2, 2>>>(); }\n"
    )
    assert found(source, "dynamic-parallelism") == []


# ---- cooperative-launch -------------------------------------------------------------------


def test_cooperative_launches_and_grid_syncs():
    source = (
        "namespace cg = cooperative_groups;\n"
        "__global__ void k() {\n  cg::grid_group grid = cg::this_grid();\n  grid.sync();\n"
        "  auto g = cg::this_grid(); g.sync(); cg::this_grid().sync();\n}\n"
        "void host(void** args) { cudaLaunchCooperativeKernel((void*)k, 1, 1, args, 0, 0); }\n"
    )
    assert found(source, "cooperative-launch") == [(4, 8), (5, 31), (5, 55), (7, 26)]
    assert {d.severity for d in translate(source).diagnostics if d.rule == "cooperative-launch"} == {"note"}


def test_block_syncs_and_plain_launches_are_not_cooperative():
    source = (
        "__global__ void k() { cg::thread_block block = cg::this_thread_block(); block.sync(); "
        "__syncthreads(); }\n"
        "void host(void** args) { cudaLaunchKernel((void*)k, 1, 1, args, 0, 0); }\n"
    )
    assert found(source, "cooperative-launch") == []


# ---- cuda-arch ----------------------------------------------------------------------------


def test_conditions_on_cuda_arch():
    source = (
        "#if __CUDA_ARCH__ >= 700\n#elif defined(X) || defined(__CUDA_ARCH__)\n#endif\n"
        "#ifdef __CUDA_ARCH__\n#endif\n"
    )
    assert found(source, "cuda-arch") == [(1, 5), (2, 29), (4, 8)]


def test_cuda_arch_in_comments_or_code_is_not_a_condition():
    source = "#if X  // __CUDA_ARCH__\n#endif  // __CUDA_ARCH__\nint a = 1; /* #if __CUDA_ARCH__ */\n"
    assert found(source, "cuda-arch") == []


# ---- device-prop-field --------------------------------------------------------------------


def test_device_properties_hip_lacks():
    source = (
        "void f(cudaDeviceProp prop, cudaDeviceProp* p) {\n"
        "  if (prop.mpsEnabled || p->sparseCudaArraySupported) {}\n"
        "  if (prop.major >= 7) {}\n}\n"
    )
    assert found(source, "device-prop-field") == [(2, 12), (2, 29), (3, 12)]
    hints = [d.hint for d in translate(source).diagnostics if d.rule == "device-prop-field"]
    assert hints[1] == "HIP names it sparseHipArraySupported"


def test_device_properties_hip_has():
    source = (
        "void f(cudaDeviceProp prop) {\n  int mpsEnabled = 0;\n"
        '  printf("%d.%d %d", prop.major, prop.minor, prop.warpSize);\n}\n'
    )
    assert found(source, "device-prop-field") == []
    assert found("bool f(Version v) { return v.major >= 2; }\n", "device-prop-field") == []


# ---- dnn-arguments ------------------------------------------------------------------------

CONV = (
    "#include <cudnn.h>\n"
    "cudnnConvolutionForward(h, &a, x, dx, w, dw, c, algo, ws, n, &b, y, dy);\n"
    "cudnnCreate(&h);\n"
)


def test_cudnn_calls_whose_miopen_arguments_differ():
    assert found(CONV, "dnn-arguments", roc=True) == [(2, 1)]
    assert found(CONV, "dnn-arguments", miopen=True) == [(2, 1)]
    (hint,) = [
        d.hint for d in translate(CONV, options=Options(roc=True)).diagnostics if d.rule == "dnn-arguments"
    ]
    assert hint.startswith(
        "miopenConvolutionForward takes (..., algo, beta, yDesc, y, workSpace, workSpaceSize)"
    )


def test_cudnn_calls_to_hipdnn_keep_their_arguments():
    assert found(CONV, "dnn-arguments") == []


# ---- names: HIP's own status ----------------------------------------------------------------


def test_names_hip_deprecates():
    source = "#include <cuda_runtime.h>\ncudaBindTexture(0, t, p, n); cudaMalloc(&p, n);\n"
    result = translate(source)
    assert [(d.rule, d.line, d.col, d.message) for d in result.diagnostics] == [
        (
            "hip-deprecated-api",
            2,
            1,
            "'cudaBindTexture' becomes 'hipBindTexture', which HIP deprecates since 3.8.0",
        )
    ]


# ---- the report, the command line, the rules table ----------------------------------------

SAMPLE = kernel("  unsigned lane = threadIdx.x % 32;\n  lane += __shfl_sync(0xffffffff, lane, 0);")


def test_report_file_and_quiet_stderr(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(SAMPLE)
    report = tmp_path / "out" / "report.json"
    out = tmp_path / "k.hip"
    assert (
        main(
            ["hipify", str(src), "-o", str(out), "--fix-warp-size", "--report", str(report), "--no-warnings"]
        )
        == 0
    )
    assert capsys.readouterr().err == ""
    data = json.loads(report.read_text())
    assert data["version"] == 1 and data["files"] == [str(src)] and data["errors"] == []
    assert data["summary"] == {
        "diagnostics": 3,
        "by_severity": {"note": 2, "warning": 1},
        "by_rule": {"mask-32-sync": 1, "unsupported-api": 1, "warp-size-arith": 1},
        "fixed": 2,
    }
    first = data["diagnostics"][0]
    assert first == {
        "file": str(src),
        "line": 2,
        "col": 31,
        "rule": "warp-size-arith",
        "severity": "note",
        "message": "'threadIdx.x % 32' assumes 32 lanes per warp: rewritten as '% warpSize'",
        "hint": RULES["warp-size-arith"].hint,
        "fixed": True,
    }
    assert "% warpSize" in out.read_text() and "0xffffffffffffffffull" in out.read_text()
    assert not [p for p in report.parent.iterdir() if p.name != "report.json"]  # no temporary left


def test_diagnostics_on_stderr_with_rule_and_hint(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(SAMPLE)
    assert main(["hipify", str(src)]) == 0
    err = capsys.readouterr().err
    assert f"{src}:2:31: warning: 'threadIdx.x % 32' assumes 32 lanes per warp [warp-size-arith]\n" in err
    assert f"  hint: {RULES['warp-size-arith'].hint}\n" in err


def test_report_unwritable_is_an_error(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(SAMPLE)
    (tmp_path / "file").write_text("")
    assert main(["hipify", str(src), "--report", str(tmp_path / "file" / "r.json"), "--no-warnings"]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_list_rules_and_readme_table_name_every_rule(capsys):
    assert main(["hipify", "--list-rules"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == list(RULES)
    section = README.read_text().split("### CUDA to HIP")[1].split("\n## ")[0]
    documented = re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.M)
    assert sorted(documented) == sorted(RULES)


def test_no_input_is_a_usage_error(capsys):
    assert main(["hipify"]) == 2
    assert "no input" in capsys.readouterr().err

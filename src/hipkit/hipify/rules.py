"""The rules behind hipify's diagnostics: one ID each, with its severity and fix hint.

README's "CUDA to HIP" section has the same table for users; ``hipkit hipify --list-rules``
prints this one.  The translator's name rules (unsupported-api and its neighbours) come
from the name table's status columns; the portability rules are found by
:mod:`hipkit.hipify.analysis` and :mod:`hipkit.hipify.warp`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rule", "RULES", "DEVICE_PROP_FIELDS", "DNN_ARGUMENTS"]


@dataclass(frozen=True)
class Rule:
    """A diagnostic rule: its ID, how bad, what it finds, and what to do about it."""

    id: str
    severity: str  # "warning" or "note"
    summary: str
    hint: str
    fixable: bool = False  # --fix-warp-size rewrites its safe cases


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        # ---- names, from the name table's status columns ----
        Rule(
            "unsupported-api",
            "warning",
            "a CUDA name with no HIP (or ROC) equivalent",
            "rewrite this use by hand",
        ),
        Rule("unsupported-header", "warning", "a CUDA header with no HIP equivalent", "rewrite by hand"),
        Rule(
            "experimental-api", "warning", "a name HIP marks experimental", "translate it with --experimental"
        ),
        Rule("v2-only-api", "warning", "a cuBLAS name HIP has only in the v2 API", "include cublas_v2.h"),
        Rule("deprecated-api", "warning", "a name CUDA deprecates (translated)", "move to its replacement"),
        Rule(
            "dropped-argument",
            "warning",
            "an argument hipify drops because the HIP function has no such parameter",
            "check that the CUDA call passed the default there (cuOccupancyMaxPotentialBlockSize's "
            "blockSizeToDynamicSMemSize: no per-block-size shared memory in HIP)",
        ),
        Rule(
            "hip-deprecated-api",
            "warning",
            "a name translated to one HIP (or ROC) deprecates",
            "plan the move to its replacement (see HIP's deprecated-API list)",
        ),
        # ---- portability ----
        Rule(
            "inline-asm",
            "warning",
            "inline PTX assembly (asm / asm volatile) in device code",
            "AMD GPUs do not run PTX: use a HIP device function or builtin (__lane_id(), "
            "__builtin_amdgcn_*), "
            "or keep the asm for NVIDIA only under #ifdef __HIP_PLATFORM_NVIDIA__",
        ),
        Rule(
            "warp-size-arith",
            "warning",
            "lane or warp arithmetic that assumes 32 lanes: & 31, % 32, >> 5, / 32 on thread indices",
            "use warpSize (64 on AMD Instinct): x % warpSize, x & (warpSize - 1), x / warpSize",
            fixable=True,
        ),
        Rule(
            "warp-shuffle-loop",
            "warning",
            "a shuffle loop over 32 lanes: for (o = 16; o > 0; o /= 2) or for (o = 1; o < 32; o *= 2)",
            "start at warpSize / 2 (or stop at warpSize), so that all 64 lanes of a wavefront take part",
            fixable=True,
        ),
        Rule(
            "warp-size-constant",
            "warning",
            "a constant named for the warp size set to 32 (#define WARP_SIZE 32, constexpr int kWarpSize = "
            "32)",
            "use warpSize in device code and hipDeviceProp_t::warpSize on the host; size arrays for 64 lanes",
        ),
        Rule(
            "lane-mask-32",
            "warning",
            "a ballot or active-lane mask kept in 32 bits (unsigned m = __ballot_sync(...), __popc(ballot))",
            "HIP's masks are 64-bit: keep them in unsigned long long / uint64_t and count with __popcll, "
            "__ffsll",
            fixable=True,
        ),
        Rule(
            "mask-32-sync",
            "warning",
            "a 32-bit lane mask (0xffffffff, a 32-bit variable) passed to a _sync warp function",
            "HIP's _sync functions take 64-bit masks (a static_assert rejects others): 0xffffffffffffffffull",
            fixable=True,
        ),
        Rule(
            "activemask",
            "note",
            "__activemask()",
            "HIP returns a 64-bit mask of the wavefront's active lanes; AMD GPUs have no independent thread "
            "scheduling, so lanes that diverged are not reconverged by __syncwarp",
        ),
        Rule(
            "texture-reference",
            "warning",
            "a texture reference (texture<T, dim> declaration, tex1Dfetch/tex2D on one)",
            "texture references are deprecated in HIP and removed in CUDA 12: create a texture object "
            "(hipCreateTextureObject) and pass it to the kernel",
        ),
        Rule(
            "dynamic-parallelism",
            "warning",
            "a kernel launch or cudaDeviceSynchronize in device code (CUDA dynamic parallelism)",
            "HIP has no dynamic parallelism: launch from the host, or turn the child work into a loop or a "
            "persistent kernel",
        ),
        Rule(
            "cooperative-launch",
            "note",
            "a cooperative launch or a grid-wide sync (cudaLaunchCooperativeKernel, grid.sync())",
            "check hipDeviceAttributeCooperativeLaunch; the whole grid must be resident at once: size it "
            "with "
            "hipOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount, and launch every kernel "
            "that "
            "calls grid.sync() with hipLaunchCooperativeKernel",
        ),
        Rule(
            "cuda-arch",
            "warning",
            "a preprocessor condition on __CUDA_ARCH__",
            "HIP-Clang does not define __CUDA_ARCH__ for AMD GPUs: test __HIP_DEVICE_COMPILE__ for device "
            "code, "
            "and feature macros (__HIP_ARCH_HAS_*__, __gfx*__) for architectures",
        ),
        Rule(
            "device-prop-field",
            "warning",
            "a cudaDeviceProp field hipDeviceProp_t lacks, or a compute-capability test",
            "see the field's own hint",
        ),
        Rule(
            "dnn-arguments",
            "warning",
            "a cuDNN call translated to an MIOpen function whose arguments differ",
            "see the call's own hint",
        ),
    )
}

# cudaDeviceProp fields (CUDA 12.x and 13.0) that HIP's hipDeviceProp_t (HIP 6.x,
# include/hip/hip_runtime_api.h) does not have; the matching cudaDevAttr* values are marked
# unsupported in HIPIFY's CUDA2HIP_Runtime_API_types.cpp.  The value is the hint.
DEVICE_PROP_FIELDS: dict[str, str] = {
    "sparseCudaArraySupported": "HIP names it sparseHipArraySupported",
    "deferredMappingCudaArraySupported": "HIP names it deferredMappingHipArraySupported",
    "hostNumaId": "no HIP equivalent (cudaDevAttrHostNumaId is unsupported in HIP)",
    "hostNumaMultinodeIpcSupported": "no HIP equivalent",
    "deviceNumaConfig": "no HIP equivalent (cudaDevAttrNumaConfig is unsupported in HIP)",
    "deviceNumaId": "no HIP equivalent (cudaDevAttrNumaId is unsupported in HIP)",
    "mpsEnabled": "no HIP equivalent (cudaDevAttrMpsEnabled is unsupported in HIP)",
    "gpuPciDeviceID": "no HIP equivalent: use pciDeviceID and hipDeviceGetPCIBusId",
    "gpuPciSubsystemID": "no HIP equivalent: use hipDeviceGetPCIBusId",
}

# cuDNN functions whose MIOpen counterpart takes other arguments (MIOpen's signatures as
# HIPIFY's cudnn2miopen tests quote them).  The value is the hint.
DNN_ARGUMENTS: dict[str, str] = {
    "cudnnConvolutionForward": (
        "miopenConvolutionForward takes (..., algo, beta, yDesc, y, workSpace, workSpaceSize): the workspace "
        "comes last, and algo must come from miopenFindConvolutionForwardAlgorithm, run first with a "
        "workspace of miopenConvolutionForwardGetWorkSpaceSize bytes"
    ),
    "cudnnConvolutionBackwardData": (
        "miopenConvolutionBackwardData takes (handle, alpha, dyDesc, dy, wDesc, w, convDesc, algo, beta, "
        "dxDesc, "
        "dx, workSpace, workSpaceSize): dy and w swap places, the workspace comes last, and algo must come "
        "from "
        "miopenFindConvolutionBackwardDataAlgorithm"
    ),
    "cudnnConvolutionBackwardFilter": (
        "MIOpen's is miopenConvolutionBackwardWeights(handle, alpha, dyDesc, dy, xDesc, x, convDesc, algo, "
        "beta, "
        "dwDesc, dw, workSpace, workSpaceSize), with algo from miopenFindConvolutionBackwardWeightsAlgorithm"
    ),
    "cudnnGetConvolutionForwardWorkspaceSize": (
        "miopenConvolutionForwardGetWorkSpaceSize takes (handle, wDesc, xDesc, convDesc, yDesc, &size): the "
        "filter descriptor comes first and there is no algo argument"
    ),
    "cudnnFindConvolutionForwardAlgorithm": (
        "miopenFindConvolutionForwardAlgorithm also needs the x, w and y buffers and a workspace, and "
        "returns "
        "miopenConvAlgoPerf_t (fwd_algo, memory): run it once before the first miopenConvolutionForward"
    ),
    "cudnnGetConvolutionForwardAlgorithm": (
        "MIOpen has no heuristic query: call miopenFindConvolutionForwardAlgorithm (with buffers and a "
        "workspace)"
    ),
    "cudnnSetConvolution2dDescriptor": (
        "MIOpen's is miopenInitConvolutionDescriptor(desc, mode, pad_h, pad_w, u, v, dilation_h, "
        "dilation_w): "
        "the mode comes first and there is no compute type"
    ),
    "cudnnSetPooling2dDescriptor": (
        "miopenSet2dPoolingDescriptor(desc, mode, windowH, windowW, padH, padW, strideH, strideW) has no "
        "NaN-propagation argument"
    ),
    "cudnnPoolingForward": (
        "miopenPoolingForward adds do_backward, workSpace and workSpaceSize (the indices the backward pass "
        "needs; "
        "size from miopenPoolingGetWorkSpaceSize)"
    ),
    "cudnnSoftmaxForward": (
        "miopenSoftmaxForward_V2 takes (handle, alpha, xDesc, x, beta, yDesc, y, algorithm, mode): "
        "algorithm and "
        "mode come last"
    ),
    "cudnnSoftmaxBackward": (
        "miopenSoftmaxBackward_V2 takes (handle, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx, algorithm, "
        "mode): "
        "algorithm and mode come last"
    ),
    "cudnnSetActivationDescriptor": (
        "miopenSetActivationDescriptor(desc, mode, alpha, beta, gamma) has no NaN option; cuDNN's coef is "
        "alpha"
    ),
    "cudnnSetDropoutDescriptor": (
        "miopenSetDropoutDescriptor adds use_mask, state_evo and rng_mode after the seed"
    ),
    "cudnnDropoutForward": (
        "miopenDropoutForward adds a noise-shape tensor descriptor after the dropout descriptor"
    ),
}

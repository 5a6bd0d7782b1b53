"""hipError_t: HIP's error codes (HIP's numbering) and the exceptions hipkit raises."""

from __future__ import annotations

import enum


class hipError_t(enum.IntEnum):  # HIP's own name
    """HIP's error codes, with HIP's numeric values."""

    hipSuccess = 0
    hipErrorInvalidValue = 1
    hipErrorOutOfMemory = 2
    hipErrorNotInitialized = 3
    hipErrorDeinitialized = 4
    hipErrorProfilerDisabled = 5
    hipErrorProfilerNotInitialized = 6
    hipErrorProfilerAlreadyStarted = 7
    hipErrorProfilerAlreadyStopped = 8
    hipErrorInvalidConfiguration = 9
    hipErrorInvalidPitchValue = 12
    hipErrorInvalidSymbol = 13
    hipErrorInvalidDevicePointer = 17
    hipErrorInvalidMemcpyDirection = 21
    hipErrorInsufficientDriver = 35
    hipErrorMissingConfiguration = 52
    hipErrorPriorLaunchFailure = 53
    hipErrorInvalidDeviceFunction = 98
    hipErrorNoDevice = 100
    hipErrorInvalidDevice = 101
    hipErrorInvalidImage = 200
    hipErrorInvalidContext = 201
    hipErrorContextAlreadyCurrent = 202
    hipErrorMapFailed = 205
    hipErrorUnmapFailed = 206
    hipErrorArrayIsMapped = 207
    hipErrorAlreadyMapped = 208
    hipErrorNoBinaryForGpu = 209
    hipErrorAlreadyAcquired = 210
    hipErrorNotMapped = 211
    hipErrorNotMappedAsArray = 212
    hipErrorNotMappedAsPointer = 213
    hipErrorECCNotCorrectable = 214
    hipErrorUnsupportedLimit = 215
    hipErrorContextAlreadyInUse = 216
    hipErrorPeerAccessUnsupported = 217
    hipErrorInvalidKernelFile = 218
    hipErrorInvalidGraphicsContext = 219
    hipErrorInvalidSource = 300
    hipErrorFileNotFound = 301
    hipErrorSharedObjectSymbolNotFound = 302
    hipErrorSharedObjectInitFailed = 303
    hipErrorOperatingSystem = 304
    hipErrorInvalidHandle = 400
    hipErrorIllegalState = 401
    hipErrorNotFound = 500
    hipErrorNotReady = 600
    hipErrorIllegalAddress = 700
    hipErrorLaunchOutOfResources = 701
    hipErrorLaunchTimeOut = 702
    hipErrorPeerAccessAlreadyEnabled = 704
    hipErrorPeerAccessNotEnabled = 705
    hipErrorSetOnActiveProcess = 708
    hipErrorContextIsDestroyed = 709
    hipErrorAssert = 710
    hipErrorHostMemoryAlreadyRegistered = 712
    hipErrorHostMemoryNotRegistered = 713
    hipErrorLaunchFailure = 719
    hipErrorCooperativeLaunchTooLarge = 720
    hipErrorNotSupported = 801
    hipErrorStreamCaptureUnsupported = 900
    hipErrorStreamCaptureInvalidated = 901
    hipErrorStreamCaptureMerge = 902
    hipErrorStreamCaptureUnmatched = 903
    hipErrorStreamCaptureUnjoined = 904
    hipErrorStreamCaptureIsolation = 905
    hipErrorStreamCaptureImplicit = 906
    hipErrorCapturedEvent = 907
    hipErrorStreamCaptureWrongThread = 908
    hipErrorGraphExecUpdateFailure = 910
    hipErrorInvalidChannelDescriptor = 911
    hipErrorInvalidTexture = 912
    hipErrorUnknown = 999
    hipErrorRuntimeMemory = 1052
    hipErrorRuntimeOther = 1053
    hipErrorTbd = 1054  # HIP's marker after its last code
    # HIP's older names of the same codes (aliases: a code's name is the one above).
    hipErrorMemoryAllocation = 2
    hipErrorInitializationError = 3
    hipErrorMapBufferObjectFailed = 205
    hipErrorInvalidResourceHandle = 400


# hipGetErrorString's messages (as the HIP runtime words them).
_MESSAGES = {
    0: "no error",
    1: "invalid argument",
    2: "out of memory",
    3: "initialization error",
    4: "driver shutting down",
    5: "profiler disabled while using external profiling tool",
    6: "profiler is not initialized",
    7: "profiler already started",
    8: "profiler already stopped",
    9: "invalid configuration argument",
    12: "invalid pitch argument",
    13: "invalid device symbol",
    17: "invalid device pointer",
    21: "invalid copy direction for memcpy",
    35: "driver version is insufficient for runtime version",
    52: "__global__ function call is not configured",
    53: "unspecified launch failure in prior launch",
    98: "invalid device function",
    100: "no ROCm-capable device is detected",
    101: "invalid device ordinal",
    200: "device kernel image is invalid",
    201: "invalid device context",
    209: "no kernel image is available for execution on the device",
    217: "peer access is not supported between these two devices",
    218: "invalid kernel file",
    300: "device kernel image is invalid",
    301: "file not found",
    302: "shared object symbol not found",
    303: "shared object initialization failed",
    304: "OS call failed or operation not supported on this OS",
    400: "invalid resource handle",
    401: "the operation cannot be performed in the present state",
    500: "named symbol not found",
    600: "device not ready",
    700: "an illegal memory access was encountered",
    701: "too many resources requested for launch",
    702: "the launch timed out and was terminated",
    704: "peer access is already enabled",
    705: "peer access has not been enabled",
    709: "context is destroyed",
    710: "device-side assert triggered",
    719: "unspecified launch failure",
    720: "too many blocks in cooperative launch",
    801: "operation not supported",
    911: "invalid channel descriptor",
    912: "invalid texture",
    999: "unknown error",
}


def error_name(code: int) -> str:
    """hipGetErrorName: the enumerator's name, or "hipErrorUnknown"."""
    try:
        return hipError_t(code).name
    except ValueError:
        return "hipErrorUnknown"


def error_string(code: int) -> str:
    """hipGetErrorString: a short description of the error."""
    return _MESSAGES.get(code, "unknown error")


class HipError(RuntimeError):
    """A HIP runtime error: ``code`` (hipError_t), ``name``, ``message`` and
    ``detail`` (what hipkit knows about this occurrence, e.g. the faulting address)."""

    def __init__(self, code: int, detail: str = ""):
        self.code = hipError_t(code) if code in hipError_t._value2member_map_ else code
        self.name = error_name(code)
        self.message = error_string(code)
        self.detail = detail
        text = f"{self.name} ({int(code)}): {self.message}"
        super().__init__(f"{text}: {detail}" if detail else text)


class CompileError(RuntimeError):
    """Compilation failed: ``log`` holds the compiler's diagnostics, which name
    the user's file, line and column."""

    def __init__(self, message: str, log: str = ""):
        self.log = log
        super().__init__(f"{message}\n{log}" if log else message)


class CompileOptionError(CompileError):
    """A compile option the platform's compiler does not take (hiprtc's
    HIPRTC_ERROR_INVALID_OPTION)."""

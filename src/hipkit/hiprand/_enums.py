"""hipRAND's enums with hipRAND's numbers (ROCm's hiprand.h; cuRAND's are the same)."""

from __future__ import annotations

from enum import IntEnum


class hiprandStatus_t(IntEnum):
    HIPRAND_STATUS_SUCCESS = 0
    HIPRAND_STATUS_VERSION_MISMATCH = 100
    HIPRAND_STATUS_NOT_INITIALIZED = 101
    HIPRAND_STATUS_ALLOCATION_FAILED = 102
    HIPRAND_STATUS_TYPE_ERROR = 103
    HIPRAND_STATUS_OUT_OF_RANGE = 104
    HIPRAND_STATUS_LENGTH_NOT_MULTIPLE = 105
    HIPRAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106
    HIPRAND_STATUS_LAUNCH_FAILURE = 201
    HIPRAND_STATUS_PREEXISTING_FAILURE = 202
    HIPRAND_STATUS_INITIALIZATION_FAILED = 203
    HIPRAND_STATUS_ARCH_MISMATCH = 204
    HIPRAND_STATUS_INTERNAL_ERROR = 999
    HIPRAND_STATUS_NOT_IMPLEMENTED = 1000


class hiprandRngType_t(IntEnum):
    HIPRAND_RNG_TEST = 0
    HIPRAND_RNG_PSEUDO_DEFAULT = 400
    HIPRAND_RNG_PSEUDO_XORWOW = 401
    HIPRAND_RNG_PSEUDO_MRG32K3A = 402
    HIPRAND_RNG_PSEUDO_MTGP32 = 403
    HIPRAND_RNG_PSEUDO_MT19937 = 404
    HIPRAND_RNG_PSEUDO_PHILOX4_32_10 = 405
    HIPRAND_RNG_QUASI_DEFAULT = 500
    HIPRAND_RNG_QUASI_SOBOL32 = 501
    HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 502
    HIPRAND_RNG_QUASI_SOBOL64 = 503
    HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 504


class HiprandError(RuntimeError):
    """A hipRAND function answered a status other than HIPRAND_STATUS_SUCCESS.

    ``status`` is the hiprandStatus_t (an int where hipRAND has no such status),
    ``function`` the function that answered it, ``detail`` what hipkit knows beyond it.

    Example
    -------
    >>> try:
    ...     hiprand.hiprandCreateGenerator(12345)
    ... except hiprand.HiprandError as exc:
    ...     exc.status
    <hiprandStatus_t.HIPRAND_STATUS_TYPE_ERROR: 103>
    """

    def __init__(self, status: int, function: str, detail: str = ""):
        known = status in hiprandStatus_t._value2member_map_
        self.status: hiprandStatus_t | int = hiprandStatus_t(status) if known else status
        self.function = function
        self.detail = detail
        name = hiprandStatus_t(status).name if known else "unknown status"
        text = f"{function}: {name} ({int(status)})"
        super().__init__(f"{text}: {detail}" if detail else text)

"""hipblasStatus_t as Python sees it: :class:`HipblasError` and hipblasStatusToString."""

from __future__ import annotations

from ._enums import hipblasStatus_t

_UNKNOWN_STATUS = "Unrecognized status code"  # what hipBLAS answers for a number it lacks


class HipblasError(RuntimeError):
    """A hipBLAS function answered a status other than HIPBLAS_STATUS_SUCCESS.

    ``status`` is the hipblasStatus_t (an int where hipBLAS has no such status),
    ``function`` the hipBLAS function that answered it, ``detail`` what hipkit
    knows beyond the status (empty where the library said only the status).

    Example
    -------
    >>> try:
    ...     hipblas.hipblasSscal(handle, -1, 2.0, x, 1)
    ... except hipblas.HipblasError as exc:
    ...     exc.status, exc.function
    (<hipblasStatus_t.HIPBLAS_STATUS_INVALID_VALUE: 3>, 'hipblasSscal')
    """

    def __init__(self, status: int, function: str, detail: str = ""):
        self.status = hipblasStatus_t(status) if status in hipblasStatus_t._value2member_map_ else status
        self.function = function
        self.detail = detail
        text = f"{function}: {hipblasStatusToString(status)} ({int(status)})"
        super().__init__(f"{text}: {detail}" if detail else text)


def hipblasStatusToString(status: int) -> str:
    """The status's name ("HIPBLAS_STATUS_INVALID_VALUE"), as hipBLAS answers it."""
    try:
        return hipblasStatus_t(status).name
    except ValueError:
        return _UNKNOWN_STATUS

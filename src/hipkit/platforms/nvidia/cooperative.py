"""Cooperative launches on NVIDIA (the seam's ``launch_cooperative``): the NVIDIA
platform's part of cooperative groups' grid synchronization."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._errors import HipError
from .driver import describe, launch_error


class CooperativeLaunches:
    """Mixed into NvidiaPlatform, whose ``_cu``, ``_use`` and ``_blocking`` it uses."""

    _cu: Any
    _use: Callable[[int], None]
    _blocking: bool

    def launch_cooperative(self, device, function, grid, block, shared_mem, stream, args) -> None:
        """cuLaunchCooperativeKernel, which takes the arguments as kernelParams (no ``extra``)."""
        self._use(device)
        cu = self._cu
        cu_function, arguments = function.native
        params, params_address = arguments.params(args)  # held during the call
        (err,) = cu.cuLaunchCooperativeKernel(
            cu_function, *grid, *block, shared_mem, stream, params_address if args else 0
        )
        if not err and self._blocking:
            (err,) = cu.cuStreamSynchronize(stream)
        if err:
            raise HipError(
                launch_error(int(err)),
                f"cooperative launch of {function.name} on grid {grid}, block {block}: {describe(cu, err)}",
            )

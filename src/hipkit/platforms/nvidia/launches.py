"""Kernel launches on NVIDIA (the seam's ``launch`` and ``launch_cooperative``).

A plain launch is the runtime's hot path: it goes through the compiled launch
(``_gpu/launch.cpp``), which calls the driver's cuLaunchKernel with the packed
arguments in place, and through cuda-bindings only where that cannot be built
(``launch_path`` says which, and why).  A cooperative launch, for cooperative
groups' grid synchronization, takes its arguments as kernelParams."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import config
from ..._errors import HipError
from .._gpu import compiled_launch
from .driver import describe, launch_entry, launch_error

CU_LAUNCH_PARAMS = compiled_launch.LaunchMarkers(buffer_pointer=1, buffer_size=2, end=0)  # CU_LAUNCH_PARAM_*


class Launches:
    """Mixed into NvidiaPlatform, whose ``_cu``, ``_tls``, ``_generations``,
    ``_use``, ``_error`` and ``_blocking`` it uses."""

    _cu: Any
    _tls: Any
    _generations: list[int]
    _use: Callable[[int], None]
    _error: Callable[..., HipError]
    _blocking: bool
    _launch: compiled_launch.LaunchFunction | None = None
    _launch_path = ""

    @property
    def launch_path(self) -> str:
        """How kernels are launched: compiled (``_gpu/launch.cpp``), or through
        cuda-bindings, with the reason; decided at the first kernel looked up."""
        if not self._launch_path:
            entry = launch_entry(self._cu)
            if config.get("HIPKIT_GPU_LAUNCH") == "bindings":
                self._launch_path = "through the bindings: HIPKIT_GPU_LAUNCH=bindings"
            elif entry:
                self._launch, self._launch_path = compiled_launch.launcher(entry, CU_LAUNCH_PARAMS)
            else:
                self._launch_path = "through the bindings: the driver gives no cuLaunchKernel entry"
        return self._launch_path

    def launch(self, device, function, grid, block, shared_mem, stream, args) -> None:
        key = getattr(self._tls, "key", None)
        if key is None or key[0] != device or key[1] != self._generations[device]:
            self._use(device)
        gx, gy, gz = grid  # a flat call: unpacking with * in the call costs more here
        bx, by, bz = block
        if self._launch is not None:
            err = self._launch(function.handle, gx, gy, gz, bx, by, bz, shared_mem, stream, args)
        else:
            cu_function, arguments = function.native
            extra, extra_address = arguments.extra(args) if args else (None, 0)  # held during the call
            (err,) = self._cu.cuLaunchKernel(
                cu_function, gx, gy, gz, bx, by, bz, shared_mem, stream, None, extra_address
            )
        if not err and self._blocking:
            (err,) = self._cu.cuStreamSynchronize(stream)
            if err:
                raise self._error(err, f"kernel {function.name}")
        if err:
            raise HipError(
                launch_error(int(err)),
                f"launching {function.name} on grid {grid}, block {block}, {shared_mem} bytes of "
                f"dynamic shared memory: {describe(self._cu, self._cu.CUresult(err))}",
            )

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

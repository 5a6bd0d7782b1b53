"""The platform seam (DESIGN.md, seam 2): the types every platform's faces
implement, below the runtime, the libraries and the tools.

- :mod:`.platform`: the runtime a platform provides (:class:`~.platform.Platform`):
  devices, memory, streams and events, compiling for a target, modules, launches,
  activity records; with :class:`~.platform.Target` and the kernel parameter kinds;
- :mod:`.options`: hipcc's command line, as every program toolchain takes it;
- :mod:`.toolchain`: building whole programs (:class:`~.toolchain.Toolchain`,
  its compiled :class:`~.toolchain.Unit` and the :class:`~.toolchain.Tool` it uses);
- :mod:`.checks`: one ``hipkit doctor`` finding (:class:`~.checks.Check`) and the
  checks every platform runs the same way (device files, visibility);
- :mod:`.faces`: what a platform's folder declares it has (:class:`~.faces.Faces`),
  which the registry (:mod:`hipkit.platforms`) reads.

Nothing here imports a platform, and this package's ``__init__`` imports
nothing: ``hipkit run`` of a cached program reads :mod:`.options` and the
registry in milliseconds.
"""

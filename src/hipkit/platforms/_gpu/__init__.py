"""What the two GPU platforms, NVIDIA and AMD, share: one implementation of
the parts that are the same above their vendors' APIs.

- :mod:`.compiler`: compiling HIP C++ at run time (NVRTC, hiprtc) the same
  way: kernels found in the source with hipkit's lexer, a parameter
  descriptor appended per kernel and read back from the image, hipkit's
  compile options, the build cache, the self-describing module container.
- :mod:`.elf`: the ELF64 images both compilers write (cubins, code objects).
- :mod:`.platform`: the runtime side: loaded modules and their kernel
  tables, __device__ variables by name, handles made stale by a reset, and
  the ``extra`` array through which a launch passes its packed arguments.

Each platform keeps what differs on purpose: its compiler's calls and
diagnostics, its driver's calls and error numbers, its device headers' view
of its compiler (the shared headers are in ``platforms/include/hipkit_portable``).
"""

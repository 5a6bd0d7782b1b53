"""``__shared__`` declarations inside functions, as the CPU's block functions hold them.

A kernel's own shared array is a local of its block function, so each block
has its own; ``extern __shared__`` is a pointer to the block's dynamic shared
memory, which the launch sized.
"""

from __future__ import annotations

from ....cxx.brackets import ParseError
from ....cxx.declarations import parse_declaration
from ....cxx.lexer import Token


def shared_declaration(gen, lo: int, hi: int) -> str:
    """A function-scope ``__shared__`` declaration as a block-function local
    (its size noted for hipFuncGetAttributes), or, for ``extern __shared__``,
    a pointer to the block's dynamic shared memory."""
    toks = gen.toks
    words = [t.text for t in toks[lo:hi]]
    if "extern" in words:
        return extern_shared_pointer(toks, lo, hi)
    subs = {k: (k, "") for k in range(lo, hi) if toks[k].text in ("__hk_shared", "static")}
    text = gen.emit_slice(lo, hi + 1, subs)
    decl = parse_declaration(toks, lo, hi)
    if decl is None:
        raise ParseError(f"cannot parse __shared__ declaration at line {toks[lo].line}")
    notes = " ".join(f"__hk_b.note_shared(sizeof({toks[d.name_index].text}));" for d in decl.declarators)
    return f"{text} {notes}"


def extern_shared_type(toks: list[Token], lo: int, hi: int) -> tuple[str, str]:
    """(element type, name) of ``extern __shared__ T name[];`` in toks[lo:hi]."""
    decl = parse_declaration(toks, lo, hi)
    if decl is None or len(decl.declarators) != 1:
        raise ParseError(f"cannot parse extern __shared__ declaration at line {toks[lo].line}")
    d = decl.declarators[0]
    specs = " ".join(
        t.text for t in toks[decl.specs[0] : decl.specs[1]] if t.text not in ("extern", "__hk_shared")
    )
    ptr_ops = " ".join(t.text for t in toks[d.start : d.name_index])
    return f"{specs} {ptr_ops}".strip(), toks[d.name_index].text


def extern_shared_pointer(toks: list[Token], lo: int, hi: int) -> str:
    """``extern __shared__ T name[];`` inside a function, as a pointer."""
    element, name = extern_shared_type(toks, lo, hi)
    return f"{element}* const {name} = static_cast<{element}*>(__hk_block->dynamic_shared);"

"""The C++ lexer: exact round trips, token kinds, launch brackets, errors."""

import pytest

from hipkit.cxx.lexer import CHAR, DIRECTIVE, IDENT, NUMBER, PUNCT, STRING, LexError, tokenize

SOURCE = r"""#include <hip/hip_runtime.h>
#define ADD(a, b) \
    ((a) + (b))
/* block
   comment */ __global__ void k(float* x, int n) {  // line comment
    const char* s = "a \"quoted\" // not a comment";
    const char* r = R"raw(a ) " \ b)raw";
    char c = '\''; auto u = u8"x"; auto w = L'w';
    int big = 1'000'000 + 0x1fu + 1.5e-3f;
    vector<vector<int>> v;
    k<<<dim3(1), 256, 0, s>>>(x, n >> 1);
}
"""


def test_round_trip_is_exact():
    tokens = tokenize(SOURCE, keep_trivia=True)
    assert "".join(t.text for t in tokens) == SOURCE


def test_kinds():
    tokens = tokenize(SOURCE)
    kinds = {t.text: t.kind for t in tokens}
    assert kinds["#include <hip/hip_runtime.h>"] == DIRECTIVE
    assert kinds["#define ADD(a, b) \\\n    ((a) + (b))"] == DIRECTIVE
    assert kinds['"a \\"quoted\\" // not a comment"'] == STRING
    assert kinds['R"raw(a ) " \\ b)raw"'] == STRING
    assert kinds["'\\''"] == CHAR
    assert kinds['u8"x"'] == STRING
    assert kinds["L'w'"] == CHAR
    assert kinds["1'000'000"] == NUMBER
    assert kinds["1.5e-3f"] == NUMBER
    assert kinds["__global__"] == IDENT
    assert not any(t.text.startswith(("//", "/*")) for t in tokens)


def test_launch_brackets_versus_shifts_and_templates():
    texts = [t.text for t in tokenize(SOURCE)]
    assert texts.count("<<<") == 1 and texts.count(">>>") == 1
    assert "vector" in texts and texts[texts.index("vector") + 5] == ">>"  # vector<vector<int>>
    assert texts[texts.index(">>>") - 1] == "s"
    assert ">>" in texts[texts.index(">>>") + 1 :]  # n >> 1 inside the arguments
    plain = [t.text for t in tokenize("a >>> b; x = y >>= 2;")]
    assert ">>>" not in plain and ">>=" in plain


def test_positions():
    tokens = tokenize("int a;\n  float b;")
    b = next(t for t in tokens if t.text == "b")
    assert (b.line, b.col) == (2, 9)
    assert tokens[0].kind == IDENT and tokens[2].kind == PUNCT


@pytest.mark.parametrize("text", ['const char* s = "abc;\n', "/* never closed", "char c = '"])
def test_unterminated(text):
    with pytest.raises(LexError) as info:
        tokenize(text)
    assert info.value.line == 1

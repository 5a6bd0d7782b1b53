"""The RAND tables (hipkit/tables/include/hipkit_rand/) are what their scripts make:
the jump matrices from the recurrences alone and, where cuRAND's headers are installed,
the same matrices as cuRAND's own precalculated ones (read as data, to check the math);
MTGP32's parameter sets, cuRAND's."""

from __future__ import annotations

import re

import pytest

from hipkit.platforms.nvidia import toolkit
from hipkit.tables import make_mtgp_tables, make_rand_tables, make_sobol_tables


def test_generated_headers_are_current():
    assert make_rand_tables.main(["--check"]) == 0
    assert make_sobol_tables.main(["--check"]) == 0
    assert make_mtgp_tables.main(["--check"]) == 0


def test_mtgp_sets_are_curands():
    """The header written here holds cuRAND's 200 sets (its --check above says so only
    where cuRAND is here; this test skips elsewhere)."""
    text = _curand_header(make_mtgp_tables.SOURCE)
    sets = make_mtgp_tables.written_sets()
    assert sets == make_mtgp_tables.parse(text) and len(sets) == 200
    assert sets[0].pos == 88 and sets[0].sh1 == 19 and sets[0].tbl[1] == 0xABA4D62C


def _curand_header(name: str) -> str:
    curand = toolkit.find_curand()
    if curand is None or not (curand.include / name).is_file():
        pytest.skip(f"cuRAND's {name} is not here to compare with: {toolkit.CURAND_MISSING}")
    return (curand.include / name).read_text()


def _numbers(text: str, array: str, count: int, size: int) -> list[list[int]]:
    start = text.index(f"{array}[")
    body = text[text.index("{", start) : text.index("};", start)]
    numbers = [int(x) for x in re.findall(r"(\d+)[uU]", body)]
    return [numbers[k * size : (k + 1) * size] for k in range(count)]


def test_xorwow_jumps_are_curands():
    text = _curand_header("curand_precalc.h")
    jumps, sequence = make_rand_tables.xorwow_tables()
    assert jumps == _numbers(text, "precalc_xorwow_offset_matrix", 32, 800)
    assert sequence == _numbers(text, "precalc_xorwow_matrix", 32, 800)


def test_mrg32k3a_jumps_are_curands():
    text = _curand_header("curand_mrg32k3a.h")
    tables = make_rand_tables.mrg32k3a_tables()
    for ours, theirs, count in (
        ("jump", "M{}", 64),
        ("subsequence_jump", "M{}SubSeq", 51),  # cuRAND's table stops at 2^51 subsequences
        ("sequence_jump", "M{}Seq", 64),
    ):
        for k in (1, 2):
            name = "mrg32k3a" + theirs.format(k)
            assert tables[f"__hk_mrg32k3a_{ours}{k}"][:count] == _numbers(text, name, count, 9), name

"""hipkit's BLAS headers and its table of hipBLAS routines (hipkit/tables/blas_api.py)."""

from __future__ import annotations

import pytest

from hipkit.tables import blas_api, make_blas_headers, names


def test_generated_headers_are_current():
    assert make_blas_headers.main(["--check"]) == 0


@pytest.mark.parametrize("routine", blas_api.routines(), ids=lambda r: r.name)
def test_hipify_writes_a_name_of_the_routine(routine):
    # What hipify makes of cuBLAS's routine must be a name hipkit's headers declare,
    # and what rocBLAS calls it must be hipify's ROC name for it.
    entry = names.table().identifiers[routine.cuda_name]
    assert entry.hip in routine.names
    if entry.roc:
        assert entry.roc == routine.rocblas_name


def test_every_parameter_has_a_role():
    roles = {p.role for r in blas_api.routines() for p in r.params}
    assert roles <= {
        blas_api.HANDLE,
        blas_api.ENUM,
        blas_api.DATATYPE,
        blas_api.COMPUTE,
        blas_api.ALGO,
        blas_api.INT,
        blas_api.STRIDE,
        blas_api.SCALAR,
        blas_api.RESULT,
        blas_api.ARRAY,
        blas_api.BATCH,
    }
    assert all(r.params[0].role == blas_api.HANDLE for r in blas_api.routines())


def test_names_are_unique():
    all_names = [n for r in blas_api.routines() for n in r.names]
    assert len(all_names) == len(set(all_names))

"""Tests of ``cordspec host`` that need torch, executorch and torchao (tox -e host): the
substitution on ExecuTorch's real modules, the hooks the file-backed backend picks, and one model
of the zoo exported with the reference's classes and ExecuTorch's. Skipped, with the reason,
where they are not installed."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

from conformance.host import prerequisites

_missing = prerequisites.missing()
if _missing:
    pytest.skip(
        f"needs {', '.join(_missing)} (tox -e host installs them: {prerequisites.INSTALL})",
        allow_module_level=True,
    )

from conformance.adapters import load_implementation  # noqa: E402
from conformance.adapters.substitution import classes_of, find_holders, substituted  # noqa: E402
from conformance.host import backend  # noqa: E402
from conformance.host.check import check_model  # noqa: E402
from conformance.host.command import Host  # noqa: E402
from conformance.host.zoo import MODELS  # noqa: E402

HOST = Host.load()
REFERENCE = load_implementation("reference")


def test_the_classes_are_replaced_in_every_module_of_executorch_that_holds_them() -> None:
    originals, replacements = HOST.originals(), classes_of(REFERENCE)
    before = HOST.holders()
    where = {(s.module, s.attribute) for s in before}
    assert ("executorch.exir._serialize._program", "Cord") in where
    assert ("executorch.exir.program._program", "NamedDataStore") in where
    with substituted(originals, replacements, root=str(HOST.root)) as swaps:
        assert len(swaps) == len(before)
        assert HOST.holders() == []
        from executorch.exir._serialize import _named_data_store

        assert _named_data_store.NamedDataStore is replacements["NamedDataStore"]
    assert HOST.holders() == before
    assert find_holders(replacements, sys.modules, root=str(HOST.root)) == []


def test_the_backend_uses_the_implementations_default_hooks_and_its_own_low_memory_path() -> None:
    low = "low-memory hooks: cordspec's backend's own, calling the implementation's"
    assert backend.hooks_for(REFERENCE).source.startswith(f"default hooks: reference's; {low}")
    assert backend.hooks_for(HOST.executorch).source.startswith(
        f"default hooks: executorch's; {low}"
    )


def test_a_model_exported_with_the_reference_is_identical_runs_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    model = next(m for m in MODELS if m.name == "portable_external")
    originals, replacements = HOST.originals(), classes_of(REFERENCE)
    result = check_model(
        model,
        tmp_path,
        (contextlib.nullcontext, backend.hooks_for(HOST.executorch)),
        (lambda: substituted(originals, replacements), backend.hooks_for(REFERENCE)),
    )
    assert result.problems == []
    assert sorted(result.candidate.files) == ["_default_external_constant.ptd", "model.pte"]
    assert result.identical and result.ran and result.runs[0].detail == "ok"


def test_the_cuda_low_memory_tests_pass_with_the_reference_in_place() -> None:
    from conformance.host.shipped_tests import Outcome, read_scope, run_shipped_tests

    entry = "backends/cuda/tests/test_cuda_partitioner.py::TestCudaLowMemoryExport"
    results = run_shipped_tests(
        HOST.originals(), classes_of(REFERENCE), HOST.root, read_scope(), [entry]
    )
    assert len(results) >= 15, results  # the wheel's 15 low-memory tests
    assert all(r.test.startswith(entry) for r in results), results
    assert {r.outcome for r in results} == {Outcome.PASSED}, [
        (r.test, r.detail) for r in results if r.outcome is not Outcome.PASSED
    ]

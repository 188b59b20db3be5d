"""The impact map that narrows each mutant's run to the tests that can see it
(``tests/mutants/_impact.py``): what it takes a mutant to replace, which tests it selects, and
what the recorder writes. A selection that left out a test that sees the mutant would hide a
failure, so each rule that makes a run smaller has a case here where it must not."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import reference
from conformance.adapters import reference as reference_adapter
from reference import ownership
from tests.children import REPO, subprocess_env
from tests.mutants import _impact
from tests.mutants._impact import ImpactMap, changes, code_key

BASE = reference_adapter.load()


def _key(function: object) -> str:
    return code_key(function.__code__)  # type: ignore[attr-defined]  # a plain function


class _Closes(reference.FileBackedData):
    def close(self) -> None:  # replaces the reference's close
        self._step()

    def _step(self) -> None:  # a step of its own, reached only through its override
        pass


class _ReadsLength(reference.FileBackedData):
    def __len__(self) -> int:
        return 0


class _Equal(reference.FileBackedData):
    def __eq__(self, other: object) -> bool:  # the reference has no __eq__: any test may compare
        return True

    __hash__ = object.__hash__


class _Chunked:
    """A class of the reference's package with a data attribute (the reference's classes have
    none yet): reading it runs no code the map could record."""

    __module__ = "reference.chunked"
    CHUNK = 8

    def read(self) -> int:
        return self.CHUNK


class _Constant(_Chunked):
    __module__ = __name__
    CHUNK = 1


def test_the_reference_replaces_nothing() -> None:
    assert changes(reference_adapter.load()) == (set(), set())


def test_an_override_replaces_the_reference_method_and_its_own_steps_add_nothing() -> None:
    code, fields = changes(dataclasses.replace(BASE, FileBackedData=_Closes))
    assert code == {_key(reference.FileBackedData.close)}
    assert fields == set()


def test_a_special_method_the_reference_defines_is_followed() -> None:
    code, _ = changes(dataclasses.replace(BASE, FileBackedData=_ReadsLength))
    assert code == {_key(reference.FileBackedData.__len__)}


def test_a_special_method_the_reference_lacks_replaces_the_whole_field() -> None:
    code, fields = changes(dataclasses.replace(BASE, FileBackedData=_Equal))
    assert (code, fields) == (set(), {"FileBackedData"})


def test_a_data_attribute_of_the_reference_overridden_cannot_be_followed() -> None:
    assert _impact._overridden(_Constant, _Chunked) is None
    assert _impact._overridden(_Closes, reference.FileBackedData) == {
        _key(reference.FileBackedData.close)
    }


def test_a_replaced_hook_object_replaces_its_field() -> None:
    code, fields = changes(dataclasses.replace(BASE, lowering=object()))  # type: ignore[arg-type]  # any object
    assert (code, fields) == (set(), {"lowering"})


MAP = ImpactMap(
    calls={"a": {"x.py:1"}, "b": {"x.py:2"}, "c": set(), "d": set()},
    fields={"a": set(), "b": set(), "c": {"lowering"}, "d": set()},
    blind={"d"},
    session={"x.py:9"},
)


def test_select_keeps_the_tests_that_call_the_code_read_the_field_or_are_blind() -> None:
    closes = dataclasses.replace(BASE, FileBackedData=_Closes)
    key = _key(reference.FileBackedData.close)
    found = dataclasses.replace(MAP, calls={**MAP.calls, "b": {key}})
    assert found.select(closes) == {"b", "d"}
    lowering = dataclasses.replace(BASE, lowering=object())  # type: ignore[arg-type]  # any object
    assert MAP.select(lowering) == {"c", "d"}


def test_code_run_outside_any_test_means_the_whole_suite() -> None:
    closes = dataclasses.replace(BASE, FileBackedData=_Closes)
    key = _key(reference.FileBackedData.close)
    assert dataclasses.replace(MAP, session={key}).select(closes) is None


def test_the_map_survives_its_json() -> None:
    assert ImpactMap.from_json(MAP.to_json()) == MAP


@pytest.mark.meta
def test_the_recorder_sees_the_test_its_fork_children_and_its_child_interpreters(
    tmp_path: Path,
) -> None:
    """One test that forks (the children move and close owners), one that runs child
    interpreters (a warm parent's forks), the store's: each has what it reached, and what the
    children reached counts for their test alone."""
    tests = [
        "suite/test_process_end.py::TestFork::test_child_close_or_gc_spares_the_parents_file",
        "suite/test_process_end.py::TestInterpreterExit::test_released",
        "suite/test_store_add.py",
    ]
    out = tmp_path / "impact.json"
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--impl", f"{_impact.__name__}:WATCHED",
         "--report", str(tmp_path / "report.json"), "--", "-q", "-p", "no:xdist",
         "-p", _impact.__name__, "-k", "child_close_or_gc or test_released or test_store_add"],
        cwd=REPO, env=subprocess_env(**{_impact.RECORD_VARIABLE: str(out)}),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.is_file(), done.stdout + done.stderr
    found = ImpactMap.from_json(out.read_text(encoding="utf-8"))
    after_fork = _key(ownership._reset_after_fork)  # only a forked child runs it
    release = _key(ownership._release_all_at_exit)
    forked = {t for t in found.tests if t.startswith(tests[0])}
    exits = {t for t in found.tests if t.startswith(tests[1])}
    assert forked and exits, sorted(found.tests)
    assert all(after_fork in found.calls[t] for t in forked), {t: found.calls[t] for t in forked}
    assert all(release in found.calls[t] for t in exits), {t: found.calls[t] for t in exits}
    assert not found.blind & (forked | exits)
    stored = {t for t in found.tests if t.startswith(tests[2])}
    add = _key(reference.NamedDataStore.add_named_data)
    assert stored and all(add in found.calls[t] for t in stored)
    assert not any(after_fork in found.calls[t] or release in found.calls[t] for t in stored)

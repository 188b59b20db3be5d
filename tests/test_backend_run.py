"""``cordspec run --backend``: each hook attributed to the class that defines it, a hook that
exists but cannot be driven failing its clauses (never "not applicable"), and the verdict naming
the backend. Runs without torch: the backends are built on the reference's hooks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conformance.adapters import backend, backend_run, executorch, load_implementation
from conformance.adapters.undrivable import Undrivable
from conformance.api import Capability, ImplementationError
from conformance.run.collect import collect_suite
from tests.children import python, subprocess_env
from tests.impls import backends


def test_a_target_names_the_backend_and_the_implementation_around_it() -> None:
    value = backend.target("pkg.mod:Cls", "package.module:object")
    assert backend.parse_target(value) == ("pkg.mod:Cls", "package.module:object")
    assert backend.parse_target("reference") is None
    assert backend.parse_target("backend=pkg.mod:Cls") is None


def test_each_hook_is_attributed_to_the_class_that_defines_it() -> None:
    inherited = backend.hook_origins(backends.Inheriting)
    assert {h: o.describe() for h, o in inherited.items()} == {
        backend.COPY: "inherited from BackendDetails",
        backend.MATERIALIZE: "inherited from AotiBackend",
        backend.LOAD: "inherited from AotiBackend",
    }
    own = backend.hook_origins(backends.ShallowCopy)
    assert own[backend.COPY].own and own[backend.LOAD].own
    assert own[backend.MATERIALIZE].describe() == "inherited from AotiBackend"


def test_a_class_without_hooks_or_a_bad_name_is_refused() -> None:
    with pytest.raises(ImplementationError, match="none of the hooks"):
        backend.import_backend("tests.impls.backends:NoHooks")
    with pytest.raises(ImplementationError, match="has no class 'Missing'"):
        backend.import_backend("tests.impls.backends:Missing")
    with pytest.raises(ImplementationError, match=r"expected package\.module:Class"):
        backend.import_backend("tests.impls.backends")
    with pytest.raises(ImplementationError, match=r"cannot import 'tests\.impls\.nowhere'"):
        backend.import_backend("tests.impls.nowhere:Cls")


def test_an_inheriting_backend_has_no_low_memory_mode_and_says_why() -> None:
    impl = load_implementation(backend.target("tests.impls.backends:Inheriting", "reference"))
    assert Capability.LOW_MEMORY not in impl.capabilities
    assert "inherited from AotiBackend" in impl.why_absent(Capability.LOW_MEMORY)
    assert impl.name.startswith("Inheriting (tests.impls.backends; ")
    assert "load_weights_blob: inherited from AotiBackend" in impl.name


def test_own_low_memory_hooks_that_cannot_be_driven_fail_naming_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(backend_class: type | None = None) -> None:
        raise ModuleNotFoundError(
            "No module named 'helper_gone'", name="executorch.backends.cuda.helper_gone"
        )

    monkeypatch.setattr(executorch, "_LowMemory", broken)
    impl = backend.load("tests.impls.backends:OwnLowMemory", load_implementation("reference"))
    assert Capability.LOW_MEMORY in impl.capabilities, "own hooks must be judged, not skipped"
    assert impl.low_memory is not None
    with pytest.raises(ImplementationError, match=r"helper_gone.*is missing"):
        impl.low_memory.load("blob")


def test_the_adapter_tells_a_missing_release_from_a_broken_driver() -> None:
    absent: dict[Capability, str] = {}
    what = "executorch.backends.cuda.cuda_backend"

    def no_module() -> object:
        raise ModuleNotFoundError("No module named ...", name="executorch.backends.cuda")

    def helper_missing() -> object:
        raise ModuleNotFoundError(
            "No module named ...", name="executorch.backends.cuda.cuda_weight_collector"
        )

    def fails_to_import() -> object:
        raise AttributeError("module 'torch' has no attribute 'gone'")

    assert executorch._optional(no_module, what, absent, Capability.LOW_MEMORY) is None
    assert "this release has no" in absent[Capability.LOW_MEMORY]
    absent.clear()
    for factory, named in ((helper_missing, "cuda_weight_collector"), (fails_to_import, "gone")):
        driver = executorch._optional(factory, what, absent, Capability.LOW_MEMORY)
        assert isinstance(driver, Undrivable)
        assert absent == {}, "a hook that cannot be driven is not absent"
        with pytest.raises(ImplementationError, match=named):
            driver.materialize("so", [])


def _run(*args: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    report = tmp_path / "report.json"
    args = ("-m", "conformance", "run", "--report", str(report), *args)
    proc = python(*args, timeout=900, env=subprocess_env(COLUMNS="200"))
    return proc, json.loads(report.read_text(encoding="utf-8"))


def _statuses(report: dict[str, object]) -> dict[str, str]:
    clauses = report["clauses"]
    assert isinstance(clauses, list)
    return {c["id"]: c["status"] for c in clauses if c["id"].startswith("HOOK-")}


def test_an_inheriting_backend_is_judged_as_its_bases_and_said_so(tmp_path: Path) -> None:
    proc, report = _run("--backend", "tests.impls.backends:Inheriting", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # narrowed by its definition alone
    assert report["partial"] == f"-m {backend_run.SELECTION!r}", report["partial"]
    out = proc.stdout
    assert "backend Inheriting (tests.impls.backends" in out
    assert "HOOK-MAT-1   passed" in out
    assert "inherited from AotiBackend (judged as AotiBackend's)" in out
    assert "inherited from BackendDetails (judged as BackendDetails's)" in out
    statuses = _statuses(report)
    assert statuses["HOOK-COPY-1"] == statuses["HOOK-LOAD-1"] == "passed"
    for lowering in ("HOOK-COPY-2", "HOOK-COPY-3", "HOOK-COPY-4"):
        assert statuses[lowering] == "not run", "lowering is not the backend's code"
    assert statuses["HOOK-LOW-1"] == "not applicable"


def test_a_backends_own_wrong_hooks_fail(tmp_path: Path) -> None:
    proc, report = _run("--backend", "tests.impls.backends:ShallowCopy", tmp_path=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    statuses = _statuses(report)
    assert statuses["HOOK-COPY-1"] == statuses["HOOK-LOAD-1"] == "failed"
    assert statuses["HOOK-MAT-1"] == "passed"
    assert "backend ShallowCopy" in proc.stdout and "DOES NOT CONFORM" in proc.stdout


def test_own_low_memory_hooks_are_never_not_applicable(tmp_path: Path) -> None:
    proc, report = _run("--backend", "tests.impls.backends:OwnLowMemory", tmp_path=tmp_path)
    statuses = _statuses(report)
    for clause in ("HOOK-MAT-2", "HOOK-LOW-1", "HOOK-LOW-2", "HOOK-LOW-4"):
        assert statuses[clause] != "not applicable", (clause, proc.stdout)
    assert statuses["HOOK-BLOB-1"] == "failed"  # the others rely on it: untested, not passed
    assert proc.returncode == 1


def test_selection_leaves_out_exactly_the_lowering_tests() -> None:
    """The tests marked ``lowering`` are the three of HOOK-COPY-2..4, all in the hook tests."""
    tests = collect_suite()
    lowering = {t.function for t in tests if "lowering" in t.markers}
    assert lowering == {
        "test_called_once_per_submodule_with_its_own_specs",
        "test_preprocess_receives_exactly_the_copies",
        "test_an_override_replaces_the_default",
    }
    assert all("hooks" in t.markers for t in tests if "lowering" in t.markers)
    hooks = {t.nodeid.partition("::")[0] for t in tests if "hooks" in t.markers}
    assert hooks == {"suite/test_hooks.py"}
    assert backend_run.SELECTION == "hooks and not lowering"


def test_a_users_m_narrows_the_hook_tests_instead_of_replacing_them() -> None:
    own = backend_run.SELECTION
    assert backend_run.selected([]) == ["-m", own]
    assert backend_run.selected(["-x", "-m", "copy"]) == ["-m", f"{own} and (copy)", "-x"]
    assert backend_run.selected(["-mcopy", "-m", "load or mat"]) == [
        "-m",
        f"{own} and (copy) and (load or mat)",
    ]
    assert backend_run.selected(["--", "-m"]) == ["-m", own, "--", "-m"], "after --: not pytest's"
    assert backend_run.selected(["-m", " "]) == ["-m", own]
    assert backend_run.selected(["-k", "copy"]) == ["-m", own, "-k", "copy"], "-k is the user's"


def test_a_backend_run_is_partial_only_where_its_report_says_the_user_narrowed_it() -> None:
    own = f"-m {backend_run.SELECTION!r}"
    status = backend_run._as_backend_status
    assert status(4, {"partial": own}) == 0, "narrowed to the hook tests by definition"
    assert status(4, {"partial": f"{own} --clause HOOK-MAT-1"}) == 4
    assert status(4, {"partial": f"-k 'copy' {own}"}) == 4
    assert status(4, {"partial": "-m 'hooks and copy'"}) == 4, "the user's -m replaced it"
    assert status(4, None) == 4, "no report: nothing says the run was whole"
    assert [status(s, {"partial": own}) for s in (0, 1, 2, 3)] == [0, 1, 2, 3]


def test_a_backend_run_narrowed_by_the_user_is_a_partial_run(tmp_path: Path) -> None:
    args = ("--backend", "tests.impls.backends:Inheriting", "--clause", "HOOK-MAT-1")
    proc, report = _run(*args, tmp_path=tmp_path)
    assert "--clause HOOK-MAT-1" in str(report["partial"]), report["partial"]
    assert proc.returncode == 4, proc.stdout + proc.stderr


def test_a_blob_padded_as_aotinductor_pads_it_is_not_accused(tmp_path: Path) -> None:
    args = (
        "--impl",
        "tests.impls.zero_padded:IMPLEMENTATION",
        "--",
        "-k",
        "TestLowMemory and not large",
    )
    proc, report = _run(*args, tmp_path=tmp_path)
    statuses = _statuses(report)
    for clause in ("HOOK-BLOB-1", "HOOK-MAT-2", "HOOK-LOW-1", "HOOK-LOW-2"):
        assert statuses[clause] == "passed", (clause, proc.stdout)
    assert proc.returncode == 4, proc.stdout  # narrowed with -k: a partial run that conformed

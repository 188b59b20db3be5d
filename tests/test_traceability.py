"""Traceability between spec/SPEC.md, the conformance suite and the deviation files.

The suite is collected by pytest itself (in a subprocess, configured as ``cordspec run`` configures
it), so parametrized tests, class markers and the plugin's own checks all count as they do in a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from conformance.run.collect import SuiteTest, collect_suite
from conformance.run.deviations import Deviation, parse_deviations, read_deviations
from conformance.run.spec import load_spec
from tests.children import subprocess_env

pytest_plugins = ("pytester",)

# inner runs: no cache files, no pytest-benchmark notices about xdist
QUIET = ("-p", "no:cacheprovider", "-p", "no:benchmark")

SPEC = load_spec()
REQUIRED = ("MUST", "MUST NOT")
ADAPTERS = Path(__file__).resolve().parents[1] / "conformance" / "adapters"
SUITE = Path(__file__).resolve().parents[1] / "conformance" / "suite"


@pytest.fixture(scope="module")
def suite_tests() -> list[SuiteTest]:
    return collect_suite(env=subprocess_env())


def unknown_targets(
    deviations: Mapping[str, Deviation], clause_ids: Iterable[str], test_functions: Iterable[str]
) -> list[str]:
    """The deviation targets that are neither a clause id nor a suite test function's name."""
    known = set(clause_ids) | set(test_functions)
    return [f"line {d.line}: {d.target}" for d in deviations.values() if d.target not in known]


def test_the_suite_has_tests(suite_tests: list[SuiteTest]) -> None:
    assert suite_tests, "pytest collected no test from conformance/suite"


def test_every_must_clause_has_a_test(suite_tests: list[SuiteTest]) -> None:
    covered = {clause for test in suite_tests for clause in test.clauses}
    missing = [
        f"{c.id} ({c.keyword}, {c.profile})"
        for c in SPEC.clauses.values()
        if c.keyword in REQUIRED and c.id not in covered
    ]
    assert not missing, (
        f"{len(missing)} MUST / MUST NOT clause(s) have no suite test:\n" + "\n".join(missing)
    )


def test_every_suite_test_names_a_clause(suite_tests: list[SuiteTest]) -> None:
    unnamed = [t.nodeid for t in suite_tests if not t.clauses]
    assert not unnamed, "suite tests without @pytest.mark.clause(...):\n" + "\n".join(unnamed)


def test_every_named_clause_exists(suite_tests: list[SuiteTest]) -> None:
    unknown = sorted(
        f"{t.nodeid}: {c}" for t in suite_tests for c in t.clauses if c not in SPEC.clauses
    )
    assert not unknown, "suite tests name clauses SPEC.md does not have:\n" + "\n".join(unknown)


def test_the_suite_never_imports_the_reference() -> None:
    pattern = re.compile(r"^\s*(?:from\s+reference[\s.]|import\s+reference\b)", re.MULTILINE)
    offenders = [
        str(path.relative_to(SUITE))
        for path in sorted(SUITE.rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, f"suite modules import reference directly: {', '.join(offenders)}"


@pytest.mark.parametrize(
    ("ids", "unknown", "ours"),
    [
        (("CORD-INIT-1", "NOPE-BOGUS-1"), "NOPE-BOGUS-1", True),
        (("CORD-INIT-1", "NDS-MERGE-1"), "", True),
        (("CORD-INIT-1", "NOPE-BOGUS-1"), "", False),
    ],
    ids=["unknown-is-a-usage-error", "known-are-accepted", "another-projects-own-marker"],
)
def test_clause_ids_are_checked_at_collection(
    pytester: pytest.Pytester, ids: tuple[str, ...], unknown: str, ours: bool
) -> None:
    """In a run that is cordspec's (here: given a ``--cordspec-`` option) every ``clause`` marker
    names the spec's clauses; in another project's run, a ``clause`` marker is its own."""
    marks = ", ".join(f"{i!r}" for i in ids)
    pytester.makepyfile(
        test_marked=f"""
        import pytest

        @pytest.mark.clause({marks})
        def test_names_clauses():
            pass
        """
    )
    result = pytester.runpytest(*QUIET, *(["--cordspec-profile=strict"] if ours else []))
    if unknown:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [f"*test_marked.py::test_names_clauses names unknown clause(s): {unknown}*"]
        )
    else:
        result.assert_outcomes(passed=1)
        assert "unknown clause" not in result.stderr.str()


def test_deviation_file_targets_exist(suite_tests: list[SuiteTest]) -> None:
    functions = {t.function for t in suite_tests} | {
        t.nodeid.rsplit("::", 1)[-1]
        for t in suite_tests  # a parametrized case by name
    }
    problems = [
        f"{path.name}: {target}"
        for path in sorted(ADAPTERS.glob("*.deviations"))
        for target in unknown_targets(read_deviations(path), SPEC.clauses, functions)
    ]
    assert not problems, (
        "deviation targets that are neither a clause id nor a suite test function:\n"
        + "\n".join(problems)
    )


def test_every_deviation_file_is_checked() -> None:
    """Each deviation file belongs to a built-in adapter, whose runs read it by default."""
    adapters = {p.stem for p in ADAPTERS.glob("*.py") if p.stem != "__init__"}
    strays = [p.name for p in ADAPTERS.glob("*.deviations") if p.stem not in adapters]
    assert not strays, f"deviation files without an adapter of that name: {', '.join(strays)}"


def test_unknown_targets_finds_typos() -> None:
    deviations = parse_deviations(
        "CORD-WRITE-1  real clause\n"
        "CORD-WRIET-1  a typo of a clause id\n"
        "test_order_into_a_real_file  a real test function\n"
        "test_no_such_test  a test that does not exist\n"
    )
    unknown = unknown_targets(deviations, ["CORD-WRITE-1"], ["test_order_into_a_real_file"])
    assert unknown == ["line 2: CORD-WRIET-1", "line 4: test_no_such_test"]


def test_an_implementation_that_cannot_load_is_one_usage_error(pytester: pytest.Pytester) -> None:
    """Checked once, before any test (or worker) starts: not an exit from inside a fixture, whose
    status 4 ``cordspec run`` would read as a partial run."""
    pytester.makepyfile(
        test_marked="""
        import pytest

        @pytest.mark.clause("CORD-INIT-1")
        def test_uses_it(impl):
            pass
        """
    )
    result = pytester.runpytest(*QUIET, "--cordspec-impl", "no_such_module_here")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: cordspec: cannot import 'no_such_module_here'*"])
    assert "test_uses_it" not in result.stdout.str()

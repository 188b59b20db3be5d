"""The README's route for a user's own test tree: ``examples/subclass/test_suite.py`` (three lines)
runs the whole suite under plain pytest, and the report names the implementation its ``impl``
fixture gave; a function-scoped ``impl`` override passes the property tests; a ``-k`` run is
judged on what it ran and says it is partial."""

from __future__ import annotations

import inspect
import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.run.report import report_schema
from conformance.testing import SUITE_CLASSES
from tests.children import REPO, subprocess_env

EXAMPLE = REPO / "examples" / "subclass"


def _pytest(tmp_path: Path, *args: str, cwd: Path = REPO) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "--cordspec-report", str(report), *args],
        cwd=cwd, env=subprocess_env(), capture_output=True, text=True, timeout=1200, check=False,
    )  # fmt: skip
    data = json.loads(report.read_text()) if report.exists() else {}
    return run.returncode, run.stdout + run.stderr, data


def test_every_suite_test_and_fixture_comes_with_a_class() -> None:
    """What ``import *`` or a subclass would miss: module-level tests and fixtures, and classes
    defined twice under one name (``conformance.testing`` refuses those at import)."""
    loose = [
        f"{module.__name__}.{name}"
        for module in {sys.modules[c.__module__] for c in SUITE_CLASSES.values()}
        for name, value in vars(module).items()
        if (name.startswith("test") and inspect.isfunction(value))
        or hasattr(value, "_fixture_function_marker")  # a fixture, pytest >= 8.4
        or hasattr(value, "_pytestfixturefunction")  # a fixture, earlier pytest
        or "pytestmark" in name
    ]
    assert not loose, loose
    suite = sys.modules["conformance.suite"]
    modules = {m.name for m in pkgutil.iter_modules(suite.__path__) if m.name.startswith("test_")}
    assert {c.__module__.rpartition(".")[2] for c in SUITE_CLASSES.values()} == modules


@pytest.mark.meta
def test_the_three_line_example_runs_the_whole_suite(tmp_path: Path) -> None:
    assert len(Path(EXAMPLE, "test_suite.py").read_text().strip().splitlines()) <= 4
    code, output, data = _pytest(tmp_path, str(EXAMPLE), "-n", "2")
    assert code == 0, output[-3000:]
    assert data["implementation"]["name"] == "reference"
    assert data["implementation"]["impl"] == "the impl fixture of examples/subclass/test_suite.py"
    assert data["partial"] == ""
    verdict = data["verdicts"]["strict"]
    assert verdict["result"] == "conforms" and verdict["untested"] == 0, verdict
    assert "implementation: reference" in output and "(--impl reference)" not in output


@pytest.mark.meta
def test_a_function_scoped_override_and_a_partial_run(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "test_mine.py").write_text(
        "import pytest\n"
        "from conformance.adapters import load_implementation\n"
        "from conformance.testing import TestFirstObjects, TestMergeProperty  # noqa: F401\n"
        "@pytest.fixture\n"
        "def impl():\n"
        "    return load_implementation('reference')\n"
    )
    code, output, data = _pytest(tmp_path, "-k", "TestMergeProperty or TestFirstObjects", cwd=tree)
    assert code == 0, output[-3000:]
    jsonschema.Draft202012Validator(report_schema()).validate(data)
    assert data["partial"] == "-k 'TestMergeProperty or TestFirstObjects'"
    assert data["implementation"]["impl"] == "the impl fixture of test_mine.py"
    verdict = data["verdicts"]["strict"]
    assert verdict["result"] == "conforms" and verdict["not_run"] > 0, verdict
    assert "PARTIAL RUN" in verdict["verdict"]
    statuses = {c["status"] for c in data["clauses"]}
    assert statuses <= {
        "passed",
        "not run",
        "untested",
        "not applicable",
        "not testable here",  # a SHOULD no test can check, with the spec's reason (NDS-ALIGN-3)
    }, statuses
    assert "function_scoped_fixture" not in output

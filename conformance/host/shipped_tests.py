"""ExecuTorch's own unit tests of this layer, as its wheel ships them, run with an
implementation's classes in place of ExecuTorch's.

Each test is reported passed or failed; a failure that a declaration in ``shipped-tests.scope``
puts outside the spec (a torch.Tensor blob, a private attribute) is reported "out of scope" with the
section or clause that says so. Nothing is skipped unseen: a test ExecuTorch itself skips is
reported as skipped with its reason, and it fails the run.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..adapters.substitution import substituted

__all__ = [
    "SCOPE_FILE",
    "TEST_FILES",
    "Outcome",
    "Scope",
    "TestResult",
    "classify",
    "read_scope",
    "run_shipped_tests",
]

TEST_FILES = (
    "exir/_serialize/test/test_cord.py",
    "exir/_serialize/test/test_named_data_store.py",
    "exir/_serialize/test/test_program.py",
    "extension/flat_tensor/test/test_serialize.py",
    "backends/cuda/tests/test_cuda_partitioner.py::TestCudaLowMemoryExport",
)
"""The test modules of this layer in ExecuTorch's wheel, relative to the ``executorch`` package,
and the production-path tests of its classes: the CUDA backend's low-memory tests, which drive
``FileBackedData`` and ``NamedDataStore`` through the CUDA weight collector every CUDA export goes
through (``path::Class``: the file's other class tests partitioning, not this layer)."""
STAND_IN_IMPORTS = {
    "backends/cuda/": (
        "executorch.backends.cuda.cuda_backend",
        "executorch.backends.cuda.cuda_partitioner",
    ),
}
"""Modules a test file below a directory imports that need ``triton`` at import time: imported
first under cordspec's stand-in (``conformance/adapters/stand_in.py``); the tests then find them
imported. One that fails to import fails its tests' run, naming the module."""
_FIRST = (
    "torch",
    "torch._inductor.utils",
    "executorch.exir",
    "executorch.backends.aoti.aoti_backend",
)
SCOPE_FILE = Path(__file__).with_name("shipped-tests.scope")


class Outcome(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    OUT_OF_SCOPE = "out of scope"
    SKIPPED = "skipped"
    """Skipped by the test itself; reported, and counted against the run."""
    MISSING = "missing"
    """A test file this layer's list names is not in the installed wheel."""


@dataclass(frozen=True)
class Scope:
    """Why a test is outside the spec: the section or clause, and what the test needs."""

    test: str
    reference: str
    reason: str


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a test class, for pytest
    test: str
    """``path::Class::test`` with the path relative to the ``executorch`` package."""
    outcome: Outcome
    detail: str = ""


def read_scope(path: Path = SCOPE_FILE) -> dict[str, Scope]:
    """``test | SPEC reference | reason`` lines; ``#`` starts a comment."""
    scopes: dict[str, Scope] = {}
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{path}:{number}: expected 'test | reference | reason', got {line!r}")
        test, reference, reason = parts
        if test in scopes:
            raise ValueError(f"{path}:{number}: {test} is declared twice")
        scopes[test] = Scope(test, reference, reason)
    return scopes


def classify(test: str, passed: bool, failure: str, scopes: Mapping[str, Scope]) -> TestResult:
    """A test's result: a declared out-of-scope test that fails is "out of scope"; one that passes
    is "passed" (the declaration is then not needed for this implementation)."""
    if passed:
        return TestResult(test, Outcome.PASSED)
    scope = scopes.get(test)
    if scope is not None:
        return TestResult(test, Outcome.OUT_OF_SCOPE, f"{scope.reference}: {scope.reason}")
    return TestResult(test, Outcome.FAILED, failure)


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class _Plugin:
    """Puts the classes in place around each test, and records each test's result."""

    def __init__(
        self, originals: Mapping[str, type], replacements: Mapping[str, type], root: str
    ) -> None:
        self.originals, self.replacements, self.root = originals, replacements, root
        self.reports: dict[str, tuple[bool, str, str]] = {}
        self.names: dict[str, str] = {}
        self.errors: list[str] = []

    def _name(self, path: object, nodeid: str) -> str:
        relative = os.path.relpath(str(path), self.root)
        rest = nodeid.partition("::")[2]
        return f"{relative}::{rest}" if rest else relative

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self.names[item.nodeid] = self._name(item.path, item.nodeid)
        with substituted(self.originals, self.replacements, root=self.root):
            return (yield)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = self.names.get(report.nodeid, report.nodeid)
        passed, failure, skipped = self.reports.get(name, (True, "", ""))
        if report.failed:
            where = f"{report.when}: " if report.when != "call" else ""
            crash = getattr(report.longrepr, "reprcrash", None)
            message = getattr(crash, "message", None) or report.longreprtext or "failed"
            passed, failure = False, where + _one_line(str(message))
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
            skipped = str(reason)
        self.reports[name] = (passed, failure, skipped)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            where = os.path.relpath(str(report.fspath), self.root)
            self.errors.append(f"{where}: {_one_line(report.longreprtext)}")


def _file(entry: str) -> str:
    """The file of a ``path`` or ``path::Class`` entry."""
    return entry.partition("::")[0]


def _import_under_stand_in(entry: str) -> str | None:
    """Import what ``entry``'s tests need under the ``triton`` stand-in; the failure, naming the
    module, or None."""
    from ..adapters import stand_in

    for directory, modules in STAND_IN_IMPORTS.items():
        if not entry.startswith(directory):
            continue
        for module in modules:
            try:
                stand_in.import_with_stand_in(module, _FIRST)
            except Exception as exc:
                return f"cannot import {module} (under the triton stand-in): {exc!r}"
    return None


def run_shipped_tests(
    originals: Mapping[str, type],
    replacements: Mapping[str, type],
    root: Path,
    scopes: Mapping[str, Scope],
    files: Sequence[str] = TEST_FILES,
) -> list[TestResult]:
    """Run ``files`` (relative to ExecuTorch's package directory ``root``) in this process with
    ``replacements`` in place of ``originals``; one result per test, in the order run."""
    results = [
        TestResult(f, Outcome.MISSING, "not in the installed wheel")
        for f in files
        if not (root / _file(f)).is_file()
    ]
    present = [str(root / f) for f in files if (root / _file(f)).is_file()]
    if not present:
        return results
    for f in files:
        failure = _import_under_stand_in(f) if (root / _file(f)).is_file() else None
        if failure is not None:
            results.append(TestResult(f, Outcome.FAILED, failure))
            present.remove(str(root / f))
    plugin = _Plugin(originals, replacements, str(root))
    args = [
        "-p",
        "no:cacheprovider",
        "-p",
        "no:cordspec",
        "-p",
        "no:terminal",
        "-p",
        "no:warnings",
        "--rootdir",
        str(root),
        "-c",
        os.devnull,
        "--import-mode=importlib",
        *present,
    ]
    pytest.main(args, plugins=[plugin])
    for error in plugin.errors:
        results.append(TestResult(error.partition(":")[0], Outcome.FAILED, error))
    for name, (passed, failure, skipped) in plugin.reports.items():
        if skipped and passed:
            results.append(TestResult(name, Outcome.SKIPPED, skipped))
        else:
            results.append(classify(name, passed, failure, scopes))
    return results

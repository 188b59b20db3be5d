"""docs/coverage.md against the spec and the suite: every MUST and MUST NOT clause lists its input
classes with tests, and every test named there exists and names that clause.

Tests are named by function (as in the deviation files), so moving a test to another module keeps
the page right; the suite is collected as ``cordspec run`` collects it
(``conformance.run.collect``).
"""

from __future__ import annotations

import re

import pytest

from conformance.run.collect import SuiteTest, collect_suite
from conformance.run.spec import load_spec
from tests.children import REPO

COVERAGE = REPO / "docs" / "coverage.md"
REQUIRED = ("MUST", "MUST NOT")
_SECTION = re.compile(r"^### ([A-Z][A-Z0-9-]*[0-9])\s*$", re.MULTILINE)
_TEST = re.compile(r"`(test_\w+)`")


def sections(text: str) -> dict[str, str]:
    """Each ``### CLAUSE-ID`` section of the page, by clause id, with its text up to the next
    heading of level 3 or less."""
    found: dict[str, str] = {}
    starts = list(_SECTION.finditer(text))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[match.end() : end]
        body = re.split(r"^#{1,2} ", body, maxsplit=1, flags=re.MULTILINE)[0]
        if match.group(1) in found:
            raise AssertionError(f"{match.group(1)} has two sections in {COVERAGE.name}")
        found[match.group(1)] = body
    return found


def named_tests(body: str) -> list[str]:
    return _TEST.findall(body)


@pytest.fixture(scope="module")
def suite_tests() -> list[SuiteTest]:
    return collect_suite()


@pytest.fixture(scope="module")
def page() -> dict[str, str]:
    return sections(COVERAGE.read_text(encoding="utf-8"))


def test_sections_are_found() -> None:
    text = "### A-1\n| x | `test_a` |\n## 2. next\nprose `test_not_mine`\n### B-2\n`test_b`\n"
    assert {k: named_tests(v) for k, v in sections(text).items()} == {
        "A-1": ["test_a"],
        "B-2": ["test_b"],
    }


def test_every_must_clause_has_input_classes_with_tests(page: dict[str, str]) -> None:
    spec = load_spec()
    missing = [
        c.id
        for c in spec.clauses.values()
        if c.keyword in REQUIRED and not named_tests(page.get(c.id, ""))
    ]
    assert not missing, f"no section with tests in {COVERAGE.name} for: {', '.join(missing)}"


def test_every_section_is_a_clause(page: dict[str, str]) -> None:
    unknown = sorted(set(page) - set(load_spec().clauses))
    assert not unknown, f"{COVERAGE.name} has sections for unknown clauses: {unknown}"


def test_every_named_test_exists_and_names_its_clause(
    page: dict[str, str], suite_tests: list[SuiteTest]
) -> None:
    clauses_of: dict[str, set[str]] = {}
    for test in suite_tests:
        clauses_of.setdefault(test.function, set()).update(test.clauses)
    wrong = [
        f"{clause}: {name}" + ("" if name in clauses_of else " (no such suite test)")
        for clause, body in page.items()
        for name in named_tests(body)
        if clause not in clauses_of.get(name, set())
    ]
    assert not wrong, f"{COVERAGE.name} names tests that do not test that clause:\n" + "\n".join(
        wrong
    )

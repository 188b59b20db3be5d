"""Deviation files: the clause ids (or test names) an implementation is known not to meet, and why.

One deviation a line: ``TARGET reason``, TARGET a clause id, a suite test function name or one
parametrized case (``test_name[param]``), then whitespace and the reason. A line whose first
non-blank character is ``#`` is a comment; a ``#`` later in a line belongs to the reason.

A target of another shape, or one that names no clause of the spec and no test of the suite, is
an error (:func:`unmatched`): a deviation that matches nothing would silently declare nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Deviation",
    "builtin_deviations_path",
    "parse_deviations",
    "read_deviations",
    "suite_test_names",
    "unmatched",
]

_CLAUSE = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-[0-9]+")
_TEST = re.compile(r"test\w*(?:\[.+\])?")


@dataclass(frozen=True)
class Deviation:
    """One known deviation: what (a clause id, or a test function name) and why."""

    target: str
    reason: str
    line: int
    source: str = field(default="<deviations>", compare=False)
    """The file (or other source) it was read from."""


def parse_deviations(text: str, source: str = "<deviations>") -> dict[str, Deviation]:
    """Parse ``TARGET reason`` lines; ``#`` starts a comment line; each target at most once.

    Raises ValueError listing every problem as ``SOURCE:LINE: problem``.
    """
    found: dict[str, Deviation] = {}
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = "" if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        target, *rest = line.split(None, 1)
        reason = rest[0].strip() if rest else ""
        if not (_CLAUSE.fullmatch(target) or _TEST.fullmatch(target)):
            problems.append(
                f"{source}:{number}: {target!r} is neither a clause id (like NDS-MERGE-6) nor a "
                "test name (test_name or test_name[param])"
            )
        elif not reason:
            problems.append(f"{source}:{number}: {target!r} has no reason")
        elif target in found:
            problems.append(
                f"{source}:{number}: {target!r} listed twice (first at line {found[target].line})"
            )
        else:
            found[target] = Deviation(target, reason, number, source)
    if problems:
        raise ValueError("\n".join(problems))
    return found


def builtin_deviations_path(implementation: str) -> Path:
    """Where a built-in adapter's deviation file lives (it may not exist)."""
    return Path(__file__).parents[1] / "adapters" / f"{implementation}.deviations"


def read_deviations(path: Path) -> dict[str, Deviation]:
    """Deviations from a file; an absent file means none."""
    if not path.exists():
        return {}
    return parse_deviations(path.read_text(encoding="utf-8"), str(path))


def suite_test_names(directory: Path) -> frozenset[str]:
    """The names of the test functions and methods in the ``test_*.py`` modules of
    ``directory``, read from their source (parametrized cases are only known once collected)."""
    names: set[str] = set()
    for module in sorted(directory.glob("test_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"), str(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                node.name.startswith("test")
            ):
                names.add(node.name)
    return frozenset(names)


def unmatched(
    deviations: Mapping[str, Deviation],
    clauses: Collection[str],
    tests: Collection[str],
    collected: Iterable[str] = (),
) -> list[str]:
    """Problems, as ``SOURCE:LINE: problem``, of deviations whose target is no clause id of
    ``clauses``, no test function of ``tests``, or a parametrized case of a collected function
    (``collected``: the node names of this run's items) that is not among its collected cases."""
    cases = set(collected)
    functions = {name.partition("[")[0] for name in cases}
    problems = []
    for deviation in deviations.values():
        target, at = deviation.target, f"{deviation.source}:{deviation.line}"
        if _CLAUSE.fullmatch(target):
            if target not in clauses:
                problems.append(f"{at}: {target!r} is not a clause of the spec")
            continue
        function, _, _ = target.partition("[")
        if function not in tests:
            problems.append(f"{at}: {target!r} names no test of the suite")
        elif target != function and function in functions and target not in cases:
            problems.append(f"{at}: {target!r}: {function} has no such case")
    return problems

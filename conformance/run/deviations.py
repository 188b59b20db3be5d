"""Deviation files: the clause ids (or test names) an implementation is known not to meet, and why.

One deviation a line: ``TARGET reason``, TARGET a clause id, a suite test function name or one
parametrized case (``test_name[param]``), either of them optionally after its class
(``TestAdd::test_name[param]``, where two classes have tests of one name), then whitespace and the
reason. A line whose first
non-blank character is ``#`` is a comment; a ``#`` later in a line belongs to the reason.

A line may start with the releases it applies to, in brackets: ``[1.5.0..] TARGET reason``.
Between the brackets, comma-separated: a version (``1.4.1``) or an inclusive range
(``1.0.1..1.4.1``, ``1.5.0..``, ``..1.4.1``). Such a line applies only when the implementation's
version is among them; a line without brackets applies to every release.

A target of another shape, or one that names no clause of the spec and no test of the suite, is
an error (:func:`unmatched`): a deviation that matches nothing would silently declare nothing.

How the plugin applies them: a test line makes the test a strict xfail. A clause line makes each
failure that counts against the clause (its check named the clause, or the test names only
declared clauses) an expected deviation of that clause alone, while the clause's passing tests
still pass; a declared clause none of whose checks failed reads "deviation fixed" and fails the run.
A failure that names no clause, of a test that relies on declared clauses or names some among its
own, counts against those (if they fail in tests of their own); its other clauses read "masked".
A declared clause whose tests all pass or stop at another clause's check reads "deviation fixed"
too: a declaration is believed only where a check of its clause fails. A test line's reason may
start with the clauses it is about (``FBD-INTR-1: ...``): a failure whose check names no clause
then counts against those alone, and each of them none of whose checks failed reads "deviation
fixed" as a clause line's would.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Deviation",
    "applies",
    "builtin_deviations_path",
    "declared_clauses",
    "parse_deviations",
    "read_deviations",
    "reason_clauses",
    "suite_test_names",
    "unmatched",
]

_CLAUSE = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-[0-9]+")
_TEST = re.compile(r"(?:Test\w*::)?test\w*(?:\[.+\])?")


@dataclass(frozen=True)
class Deviation:
    """One known deviation: what (a clause id, or a test function name) and why."""

    target: str
    reason: str
    line: int
    source: str = field(default="<deviations>", compare=False)
    """The file (or other source) it was read from."""


_RELEASES_RE = re.compile(r"\[([^\]]*)\]\s*")
_VERSION_RE = re.compile(r"[0-9]+(?:\.[0-9]+)*")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _numeric(version: str) -> tuple[int, ...] | None:
    """``1.5.1`` of ``1.5.1+cpu`` or ``1.5.1rc2``; None when it does not start with a number."""
    found = _VERSION_RE.match(version)
    return _version(found[0]) if found else None


def applies(releases: str, version: str | None) -> bool:
    """Whether ``version`` is among ``releases`` (``1.4.1``, ``1.0.1..1.4.1``, ``1.5.0..``, ...);
    ValueError for a malformed list. No version (or one that is not numeric) matches no list."""
    wanted = _numeric(version) if version is not None else None
    hit = False
    for item in (part.strip() for part in releases.split(",")):
        low, dots, high = item.partition("..")
        bounds = [b for b in (low, high) if b]
        if not bounds or any(not _VERSION_RE.fullmatch(b) for b in bounds):
            raise ValueError(f"bad release {item!r} (expected 1.4.1, 1.0.1..1.4.1, 1.5.0..)")
        if wanted is None:
            continue
        if not dots:
            hit = hit or wanted == _version(low)
        else:
            above = not low or wanted >= _version(low)
            below = not high or wanted <= _version(high)
            hit = hit or (above and below)
    return hit


def parse_deviations(
    text: str, source: str = "<deviations>", version: str | None = None
) -> dict[str, Deviation]:
    """Parse ``[RELEASES] TARGET reason`` lines; ``#`` starts a comment line; each target at most
    once among the lines that apply to ``version`` (with no version, lines with releases are
    checked but apply to nothing).

    Raises ValueError listing every problem as ``SOURCE:LINE: problem``.
    """
    found: dict[str, Deviation] = {}
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = "" if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        tagged = _RELEASES_RE.match(line)
        if tagged:
            line = line[tagged.end() :]
            try:
                wanted = applies(tagged[1], version)
            except ValueError as exc:
                problems.append(f"{source}:{number}: {exc}")
                continue
            if not wanted or not line:
                if not line:
                    problems.append(f"{source}:{number}: releases but no target")
                continue
        target, *rest = line.split(None, 1)
        reason = rest[0].strip() if rest else ""
        if not (_CLAUSE.fullmatch(target) or _TEST.fullmatch(target)):
            problems.append(
                f"{source}:{number}: {target!r} is neither a clause id (like NDS-MERGE-6) nor a "
                "test name (test_name, test_name[param] or TestClass::test_name)"
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


def declared_clauses(deviations: Mapping[str, Deviation]) -> dict[str, Deviation]:
    """The deviations that name a clause (not a test), by clause id."""
    return {t: d for t, d in deviations.items() if _CLAUSE.fullmatch(t)}


_REASON_CLAUSES = re.compile(rf"({_CLAUSE.pattern}(?:,\s*{_CLAUSE.pattern})*):\s")


def reason_clauses(reason: str) -> tuple[str, ...]:
    """The clause ids a test line's reason starts with (``FBD-MOVE-4, FBD-MOVE-5: ...``): the
    clauses the line says the test deviates in. Its failure counts against those when its check
    names none, and each of them whose checks all hold reads "deviation fixed"."""
    found = _REASON_CLAUSES.match(reason)
    return tuple(c.strip() for c in found[1].split(",")) if found else ()


def builtin_deviations_path(implementation: str) -> Path:
    """Where a built-in adapter's deviation file lives (it may not exist)."""
    return Path(__file__).parents[1] / "adapters" / f"{implementation}.deviations"


_parsed: dict[tuple[str, int, int, str | None], dict[str, Deviation]] = {}


def read_deviations(path: Path, version: str | None = None) -> dict[str, Deviation]:
    """Deviations from a file that apply to ``version``; an absent file means none. A file is
    parsed once per process while it is unchanged (``cordspec run`` checks it before the plugin
    applies it)."""
    if not path.exists():
        return {}
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size, version)
    if key not in _parsed:
        _parsed[key] = parse_deviations(path.read_text(encoding="utf-8"), str(path), version)
    return dict(_parsed[key])


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
        function, _, _ = target.rpartition("::")[2].partition("[")
        if function not in tests:
            problems.append(f"{at}: {target!r} names no test of the suite")
        elif "[" in target and function in functions and target.rpartition("::")[2] not in cases:
            problems.append(f"{at}: {target!r}: {function} has no such case")
    return problems

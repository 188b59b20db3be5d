"""The reference names its clauses: every MUST / MUST NOT id of spec/SPEC.md appears in
``reference/`` at the code that implements it, and every clause id the reference names is one of
the spec's, so ``grep -rn NDS-MERGE-3 reference/`` leads a porter from the spec to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from conformance.run.spec import load_spec

SPEC = load_spec()
REQUIRED = ("MUST", "MUST NOT")
REFERENCE = Path(__file__).resolve().parents[1] / "reference"


def clause_prefixes(clause_ids: Iterable[str]) -> frozenset[str]:
    """The first part of every clause id (``NDS`` of ``NDS-MERGE-3``)."""
    return frozenset(clause_id.split("-", 1)[0] for clause_id in clause_ids)


def named_ids(texts: Iterable[str], prefixes: Iterable[str]) -> set[str]:
    """Every clause-id-shaped token in ``texts``: a spec prefix, upper-case parts, a number.
    ``NDS-DEDUP-1/2`` names NDS-DEDUP-1 only: a porter greps for whole ids."""
    pattern = re.compile(
        r"(?<![A-Za-z0-9-])(?:" + "|".join(sorted(map(re.escape, prefixes))) + r")"
        r"(?:-[A-Z][A-Z0-9]*)+-[1-9][0-9]*(?![0-9A-Za-z])"
    )
    found: set[str] = set()
    for text in texts:
        found.update(pattern.findall(text))
    return found


def reference_texts(root: Path = REFERENCE) -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted(root.rglob("*.py"))]


NAMED = named_ids(reference_texts(), clause_prefixes(SPEC.clauses))


@pytest.mark.parametrize(
    "clause_id", [c.id for c in SPEC.clauses.values() if c.keyword in REQUIRED]
)
def test_every_required_clause_is_named_in_the_reference(clause_id: str) -> None:
    assert clause_id in NAMED, (
        f"{clause_id} ({SPEC.clauses[clause_id].keyword}, SPEC.md line "
        f"{SPEC.clauses[clause_id].line}) is not named in reference/: put it in a comment or "
        "docstring at the code that implements it"
    )


def test_every_id_named_in_the_reference_is_a_clause() -> None:
    unknown = sorted(NAMED - set(SPEC.clauses))
    assert not unknown, f"reference/ names clause ids SPEC.md lacks: {unknown}"


def test_scanner_finds_ids_and_unknown_ones(tmp_path: Path) -> None:
    """The scan itself: whole ids only, of the spec's prefixes, not SHA-256 or UTF-8."""
    (tmp_path / "a.py").write_text(
        "# NDS-MERGE-3: read only; NDS-DEDUP-1/2; SHA-256, UTF-8, XNDS-ADD-1, NDS-ADD-12x\n"
        '"""FBD-NOPE-7 and HOOK-LOW-2."""\n',
        encoding="utf-8",
    )
    found = named_ids(reference_texts(tmp_path), clause_prefixes(SPEC.clauses))
    assert found == {"NDS-MERGE-3", "NDS-DEDUP-1", "FBD-NOPE-7", "HOOK-LOW-2"}
    assert sorted(found - set(SPEC.clauses)) == ["FBD-NOPE-7"]

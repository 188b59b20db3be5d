"""Parser of ``spec/SPEC.md``, the single source of truth for clause ids, keywords and profiles.

A clause is a level-4 heading ``#### <ID> · <KEYWORD> · <PROFILE>`` followed by its normative
text, a ``*Rationale:*`` paragraph, optionally an ``*ExecuTorch 1.5.1:*`` paragraph, and, for a
clause no test of this suite can check, an ``*Untested:*`` paragraph saying why (the report shows
it in place of "untested"). The table of section 1.1 says which clauses each optional part needs.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import cast

from ..profiles import PROFILES as PROFILES  # the spec names them; kept importable here
from ..profiles import Profile as Profile

KEYWORDS: tuple[str, ...] = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
SEPARATOR = " · "
ID_RE = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*-[1-9][0-9]*")
RATIONALE = "*Rationale:*"
EXECUTORCH = "*ExecuTorch 1.5.1:*"
UNTESTED = "*Untested:*"

_HEADING_RE = re.compile(r"(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_VERSION_RE = re.compile(r"\**Version:\**[ \t]*(\S.*?)[ \t]*")


class SpecError(ValueError):
    """SPEC.md is malformed; ``problems`` holds each problem as ``SOURCE:LINE: problem``."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(f"{source} has {len(problems)} problem(s):\n" + "\n".join(problems))


@dataclass(frozen=True)
class Clause:
    """One normative clause of the spec; ``line`` is the line of its heading."""

    id: str
    keyword: str
    profile: Profile
    section: str
    subsection: str
    text: str
    rationale: str
    executorch: str
    line: int
    untested: str = ""
    """Why no test of this suite can check the clause (its ``*Untested:*`` paragraph), if none
    can."""


@dataclass(frozen=True)
class Spec:
    """The clauses of the spec, by id, in document order."""

    clauses: dict[str, Clause]
    version: str = ""
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Section 1.1: the clauses each optional part's capability (``file-backed``, ...) needs."""

    def needing(self, capabilities: Iterable[str]) -> dict[str, str]:
        """Each clause that needs one of ``capabilities``, with the first of them it needs."""
        found: dict[str, str] = {}
        for capability in capabilities:
            for clause_id in self.parts.get(capability, ()):
                found.setdefault(clause_id, capability)
        return found

    def in_profile(self, profile: Profile) -> list[Clause]:
        """The clauses a profile requires: core gives core clauses, strict gives core + strict."""
        wanted = profiles_within(profile)
        return [c for c in self.clauses.values() if c.profile in wanted]


def profiles_within(profile: Profile) -> tuple[Profile, ...]:
    """The profiles whose clauses ``profile`` requires: core is within strict."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {PROFILES}")
    return PROFILES[: PROFILES.index(profile) + 1]


@dataclass
class _Line:
    number: int
    text: str
    in_code: bool  # inside a fenced code block (fence lines included)


@dataclass
class _Block:
    """A heading and the lines up to the next heading of any level."""

    level: int  # 0 for the text before the first heading
    title: str
    line: int
    body: list[_Line] = field(default_factory=list)


def _blocks(lines: list[str], problems: list[tuple[int, str]]) -> list[_Block]:
    """Split the lines into blocks at headings, ignoring anything inside fenced code."""
    blocks = [_Block(0, "", 0)]
    fence: tuple[str, int, int] | None = None  # (character, length, line) of the open fence
    for number, text in enumerate(lines, start=1):
        m = _FENCE_RE.fullmatch(text)
        if fence is not None:
            blocks[-1].body.append(_Line(number, text, True))
            if m and m[1][0] == fence[0] and len(m[1]) >= fence[1] and not m[2].strip():
                fence = None
        elif m:
            fence = (m[1][0], len(m[1]), number)
            blocks[-1].body.append(_Line(number, text, True))
        elif h := _HEADING_RE.fullmatch(text):
            blocks.append(_Block(len(h[1]), h[2] or "", number))
        else:
            blocks[-1].body.append(_Line(number, text, False))
    if fence is not None:
        problems.append((fence[2], "code fence is never closed"))
    return blocks


def _heading_fields(title: str) -> tuple[tuple[str, str, str] | None, list[str]]:
    """Split a clause heading into (id, keyword, profile), or say what is wrong with it."""
    parts = title.split(SEPARATOR)
    if len(parts) != 3:
        if len(parts) == 2 and parts[1] in PROFILES:
            what = "missing keyword"
        elif len(parts) == 2 and parts[1] in KEYWORDS:
            what = "missing profile"
        else:
            what = f"{len(parts)} field(s) separated by {SEPARATOR!r}"
        expected = f"#### <ID>{SEPARATOR}<KEYWORD>{SEPARATOR}<PROFILE>"
        return None, [f"malformed clause heading {title!r}: {what}; expected {expected!r}"]
    clause_id, keyword, profile = parts
    errors = []
    if not ID_RE.fullmatch(clause_id):
        errors.append(f"bad id format {clause_id!r} (expected e.g. FBD-MOVE-2)")
    if keyword not in KEYWORDS:
        errors.append(f"unknown keyword {keyword!r} (expected one of {', '.join(KEYWORDS)})")
    if profile not in PROFILES:
        errors.append(f"unknown profile {profile!r} (expected one of {', '.join(PROFILES)})")
    return (None if errors else (clause_id, keyword, profile)), errors


def _split_body(body: list[_Line]) -> tuple[str, dict[str, list[tuple[int, str]]]]:
    """Split a clause body into normative text and note paragraphs, (line, text) by marker."""
    text: list[str] = []
    notes: dict[str, list[tuple[int, str]]] = {RATIONALE: [], EXECUTORCH: [], UNTESTED: []}
    marker: str | None = None  # marker of the note paragraph being read
    for line in body:
        stripped = line.text.strip()
        starts = None if line.in_code else next((m for m in notes if stripped.startswith(m)), None)
        if starts is not None:
            marker = starts
            notes[marker].append((line.number, stripped[len(marker) :].strip()))
        elif marker is not None and stripped and not line.in_code:
            number, note = notes[marker][-1]
            notes[marker][-1] = (number, f"{note} {stripped}".strip())
        else:
            marker = None
            text.append(line.text)
    return "\n".join(text).strip("\n"), notes


def _clause(
    block: _Block, section: str, subsection: str, problems: list[tuple[int, str]]
) -> Clause | None:
    """Check one clause block, recording its problems; the Clause if its heading is valid."""
    fields, errors = _heading_fields(block.title)
    problems.extend((block.line, error) for error in errors)
    if fields is None:
        return None
    clause_id, keyword, profile = fields
    text, notes = _split_body(block.body)
    for marker, paragraphs in notes.items():
        problems.extend(
            (n, f"{clause_id}: more than one {marker} paragraph") for n, _ in paragraphs[1:]
        )
    rationale = notes[RATIONALE][0] if notes[RATIONALE] else None
    if rationale is None:
        problems.append((block.line, f"{clause_id}: missing {RATIONALE} line"))
    elif not rationale[1]:
        problems.append((rationale[0], f"{clause_id}: empty {RATIONALE}"))
    if not text.strip():
        problems.append((block.line, f"{clause_id}: no normative text"))
    elif not re.search(r"\b" + keyword.replace(" ", r"\s+") + r"\b", text):
        problems.append((block.line, f"{clause_id}: normative text does not say {keyword}"))
    return Clause(
        id=clause_id,
        keyword=keyword,
        profile=cast(Profile, profile),
        section=section,
        subsection=subsection,
        text=text,
        rationale=rationale[1] if rationale else "",
        executorch=notes[EXECUTORCH][0][1] if notes[EXECUTORCH] else "",
        line=block.line,
        untested=notes[UNTESTED][0][1] if notes[UNTESTED] else "",
    )


PARTS_SECTION = "1.1 Optional parts"
_PART_ROW_RE = re.compile(r"\|[^|]*\|\s*`([a-z-]+)`\s*\|[^|]*\|([^|]*)\|")


def _parts(
    blocks: list[_Block], clauses: dict[str, Clause], problems: list[tuple[int, str]]
) -> dict[str, tuple[str, ...]]:
    """The table of section 1.1: capability -> clause ids (``FBD-INIT-*`` names every one)."""
    parts: dict[str, tuple[str, ...]] = {}
    for block in blocks:
        if block.level != 3 or block.title != PARTS_SECTION:
            continue
        for line in block.body:
            row = _PART_ROW_RE.fullmatch(line.text.strip())
            if line.in_code or row is None:
                continue
            ids: list[str] = []
            for pattern in (p.strip() for p in row[2].split(",")):
                matched = [c for c in clauses if fnmatch.fnmatchcase(c, pattern)]
                if not matched:
                    problems.append((line.number, f"optional part {row[1]}: no clause {pattern}"))
                ids.extend(matched)
            parts[row[1]] = tuple(dict.fromkeys(ids))
    return parts


def parse_spec(text: str, source: str = "SPEC.md") -> Spec:
    """Parse the spec text; raise SpecError listing every problem found."""
    problems: list[tuple[int, str]] = []
    clauses: dict[str, Clause] = {}
    version = section = subsection = ""
    blocks = _blocks(text.splitlines(), problems)
    for block in blocks:
        if block.level == 2:
            section, subsection = block.title, ""
        elif block.level == 3:
            subsection = block.title
        elif block.level == 4:
            clause = _clause(block, section, subsection, problems)
            if clause is not None and clause.id in clauses:
                first = clauses[clause.id].line
                problems.append(
                    (clause.line, f"duplicate clause id {clause.id} (first at line {first})")
                )
            elif clause is not None:
                clauses[clause.id] = clause
        if block.level < 2 and not section and not version:
            found = (_VERSION_RE.fullmatch(ln.text.strip()) for ln in block.body if not ln.in_code)
            version = next((m[1] for m in found if m), "")
    parts = _parts(blocks, clauses, problems)
    if problems:
        problems.sort(key=lambda problem: problem[0])
        raise SpecError(source, [f"{source}:{number}: {message}" for number, message in problems])
    return Spec(clauses=clauses, version=version, parts=parts)


def load_spec(path: str | os.PathLike[str] | None = None) -> Spec:
    """Load SPEC.md from ``path``, else from the source checkout, else from the package."""
    if path is not None:
        file = Path(path)
        return parse_spec(file.read_text(encoding="utf-8"), source=file.name)
    checkout = Path(__file__).resolve().parents[2] / "spec" / "SPEC.md"
    if checkout.is_file():
        return load_spec(checkout)
    packaged = resources.files("conformance") / "data" / "SPEC.md"
    if packaged.is_file():
        return parse_spec(packaged.read_text(encoding="utf-8"), source="SPEC.md")
    raise FileNotFoundError(
        f"SPEC.md not found: looked for {checkout} (source checkout) "
        f"and {packaged} (installed package data)"
    )

"""Tests of the SPEC.md parser (conformance.run.spec) and of the repository's own SPEC.md."""

from __future__ import annotations

import importlib.resources
import textwrap
from pathlib import Path

import pytest

import conformance
from conformance.run import spec as spec_module
from conformance.run.spec import Clause, Spec, SpecError, load_spec, parse_spec

VALID = textwrap.dedent(
    """\
    # cordspec: file-backed serialization

    Version: 0.1.0

    ## 1. Conventions

    Prose outside clauses MAY use keywords freely.

    ## 3. FileBackedData

    ### 3.2 move_from

    #### FBD-MOVE-2 · MUST · core

    The placeholder MUST be made in the source's own directory:

    - made with mkstemp;
    - removed if the replace fails.

    *Rationale:* os.replace is atomic only within one filesystem.

    *ExecuTorch 1.5.1:* conforms.

    #### FBD-MOVE-10 · MUST NOT · strict

    move_from MUST
    NOT take over the target of a symlink.

    *Rationale:* a link is not
    the data it points to.

    ## 4. NamedDataStore

    #### NDS-DEDUP-1 · SHOULD · core

    Equal contents SHOULD share one buffer, e.g.:

    ```python
    #### NOT-A-CLAUSE · bogus
    ## 9. Not a section
    *Rationale:* not this one.
    ```

    *Rationale:* memory.

    #### HOOK-COPY-1 · MAY · strict

    A backend MAY return the program itself.

    *Rationale:* copying is expensive.
    """
)


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based number of the line holding the n-th occurrence of ``needle``."""
    hits = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    return hits[occurrence - 1]


def problems_of(text: str) -> tuple[str, ...]:
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    return info.value.problems


# --- a valid spec -----------------------------------------------------------------------------


def test_valid_spec_parses() -> None:
    spec = parse_spec(VALID)
    assert list(spec.clauses) == ["FBD-MOVE-2", "FBD-MOVE-10", "NDS-DEDUP-1", "HOOK-COPY-1"]
    assert spec.version == "0.1.0"

    move = spec.clauses["FBD-MOVE-2"]
    assert move == Clause(
        id="FBD-MOVE-2",
        keyword="MUST",
        profile="core",
        section="3. FileBackedData",
        subsection="3.2 move_from",
        text=(
            "The placeholder MUST be made in the source's own directory:\n\n"
            "- made with mkstemp;\n"
            "- removed if the replace fails."
        ),
        rationale="os.replace is atomic only within one filesystem.",
        executorch="conforms.",
        line=line_of(VALID, "#### FBD-MOVE-2"),
    )

    symlink = spec.clauses["FBD-MOVE-10"]
    assert (symlink.keyword, symlink.profile) == ("MUST NOT", "strict")
    assert symlink.rationale == "a link is not the data it points to."
    assert symlink.executorch == ""
    assert "Rationale" not in symlink.text
    assert symlink.line == line_of(VALID, "#### FBD-MOVE-10")

    dedup = spec.clauses["NDS-DEDUP-1"]
    assert (dedup.section, dedup.subsection) == ("4. NamedDataStore", "")
    assert dedup.rationale == "memory."
    assert "#### NOT-A-CLAUSE · bogus" in dedup.text
    assert dedup.line == line_of(VALID, "#### NDS-DEDUP-1")

    assert spec.clauses["HOOK-COPY-1"].keyword == "MAY"


def test_clause_and_spec_are_immutable() -> None:
    spec = parse_spec(VALID)
    with pytest.raises(AttributeError):
        spec.clauses["FBD-MOVE-2"].id = "X-1"  # type: ignore[misc]  # assigning to a frozen field is the point


def test_version_is_optional() -> None:
    assert parse_spec(VALID.replace("Version: 0.1.0", "")).version == ""


def test_headings_inside_fenced_code_are_ignored() -> None:
    spec = parse_spec(VALID)
    assert "NOT-A-CLAUSE" not in spec.clauses
    assert spec.clauses["HOOK-COPY-1"].section == "4. NamedDataStore"


def test_tilde_fences_and_longer_fences_are_code_too() -> None:
    text = VALID.replace("```python", "~~~~").replace("```", "~~~~")
    assert list(parse_spec(text).clauses) == list(parse_spec(VALID).clauses)


def test_in_profile() -> None:
    spec = parse_spec(VALID)
    assert [c.id for c in spec.in_profile("core")] == ["FBD-MOVE-2", "NDS-DEDUP-1"]
    assert [c.id for c in spec.in_profile("strict")] == list(spec.clauses)
    with pytest.raises(ValueError, match="unknown profile"):
        spec.in_profile("extra")  # type: ignore[arg-type]  # the wrong type is the point


def test_package_reexports() -> None:
    assert conformance.Spec is Spec
    assert conformance.load_spec is load_spec
    assert issubclass(conformance.SpecError, ValueError)


# --- errors -----------------------------------------------------------------------------------

OK_BODY = "\n\nThe store MUST do it.\n\n*Rationale:* because.\n"


def doc(*parts: str) -> str:
    return "# Spec\n\n## 1. Section\n\n" + "\n".join(parts)


ERROR_CASES = [
    pytest.param(
        doc("#### FBD-MOVE-1 · core" + OK_BODY),
        "#### FBD-MOVE-1",
        "missing keyword",
        id="missing-keyword",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST" + OK_BODY),
        "#### FBD-MOVE-1",
        "missing profile",
        id="missing-profile",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 - MUST - core" + OK_BODY),
        "#### FBD-MOVE-1",
        "malformed clause heading",
        id="wrong-separator",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST ALWAYS · core" + OK_BODY),
        "#### FBD-MOVE-1",
        "unknown keyword 'MUST ALWAYS'",
        id="unknown-keyword",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · must · core" + OK_BODY),
        "#### FBD-MOVE-1",
        "unknown keyword 'must'",
        id="lowercase-keyword",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · extra" + OK_BODY),
        "#### FBD-MOVE-1",
        "unknown profile 'extra'",
        id="unknown-profile",
    ),
    *(
        pytest.param(
            doc(f"#### {bad} · MUST · core" + OK_BODY),
            f"#### {bad} ",
            f"bad id format {bad!r}",
            id=f"bad-id-{bad}",
        )
        for bad in ("fbd-move-1", "FBD-MOVE-0", "FBD-MOVE", "FBD-MOVE-01", "FBD--MOVE-1", "1FBD-2")
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · core\n\nThe store MUST do it.\n"),
        "#### FBD-MOVE-1",
        "missing *Rationale:*",
        id="missing-rationale",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · core\n\nThe store MUST do it.\n\n```\n*Rationale:* x\n```\n"),
        "#### FBD-MOVE-1",
        "missing *Rationale:*",
        id="rationale-only-in-code",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · core\n\nThe store MUST do it.\n\n*Rationale:*\n"),
        "*Rationale:*",
        "empty *Rationale:*",
        id="empty-rationale",
    ),
    pytest.param(
        doc(
            "#### FBD-MOVE-1 · MUST · core\n\nThe store MUST do it.\n\n*Rationale:* a.\n\n"
            "*Rationale:* b.\n"
        ),
        "*Rationale:* b.",
        "more than one *Rationale:*",
        id="two-rationales",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · core\n\n*Rationale:* because.\n"),
        "#### FBD-MOVE-1",
        "no normative text",
        id="no-normative-text",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · SHOULD · core" + OK_BODY),
        "#### FBD-MOVE-1",
        "does not say SHOULD",
        id="keyword-not-in-text",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · core\n\nThe store must do it.\n\n*Rationale:* because.\n"),
        "#### FBD-MOVE-1",
        "does not say MUST",
        id="keyword-not-in-capitals",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MAY · core\n\nThe store MUST do it.\n\n*Rationale:* MAY.\n"),
        "#### FBD-MOVE-1",
        "does not say MAY",
        id="keyword-only-in-rationale",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST NOT · core" + OK_BODY),
        "#### FBD-MOVE-1",
        "does not say MUST NOT",
        id="must-not-text-says-must",
    ),
    pytest.param(
        doc("#### FBD-MOVE-1 · MUST · core" + OK_BODY, "```python\nx = 1\n"),
        "```python",
        "code fence is never closed",
        id="unclosed-fence",
    ),
]


@pytest.mark.parametrize(("text", "where", "fragment"), ERROR_CASES)
def test_error_is_reported_with_its_line(text: str, where: str, fragment: str) -> None:
    problems = problems_of(text)
    expected_line = line_of(text, where)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"SPEC.md:{expected_line}: "), problems
    assert fragment in problems[0]


def test_duplicate_id_names_both_lines() -> None:
    text = doc("#### FBD-MOVE-1 · MUST · core" + OK_BODY, "#### FBD-MOVE-1 · MUST · core" + OK_BODY)
    first, second = line_of(text, "#### FBD-MOVE-1", 1), line_of(text, "#### FBD-MOVE-1", 2)
    assert problems_of(text) == (
        f"SPEC.md:{second}: duplicate clause id FBD-MOVE-1 (first at line {first})",
    )


def test_several_errors_are_reported_together_in_line_order() -> None:
    text = doc(
        "#### FBD-MOVE-1 · MUST · extra" + OK_BODY,
        "#### FBD-MOVE-2 · SHOULD · core\n\nThe store SHOULD do it.\n",
        "#### nds-1 · MIGHT · core" + OK_BODY,
    )
    with pytest.raises(SpecError) as info:
        parse_spec(text, source="my-spec.md")
    lines = [line_of(text, "#### FBD-MOVE-1"), line_of(text, "#### FBD-MOVE-2")]
    lines += [line_of(text, "#### nds-1")] * 2
    assert [p.split(":")[1] for p in info.value.problems] == [str(n) for n in lines]
    assert all(p.startswith("my-spec.md:") for p in info.value.problems)
    message = str(info.value)
    assert message.startswith("my-spec.md has 4 problem(s):\n")
    for fragment in ("unknown profile", "missing *Rationale:*", "bad id format", "unknown keyword"):
        assert fragment in message


# --- loading ----------------------------------------------------------------------------------


def test_load_spec_from_a_path(tmp_path: Path) -> None:
    path = tmp_path / "SPEC.md"
    path.write_text(VALID, encoding="utf-8")
    assert list(load_spec(path).clauses) == list(parse_spec(VALID).clauses)
    path.write_text(doc("#### X-1 · MUST · core\n\nIt MUST.\n"), encoding="utf-8")
    with pytest.raises(SpecError, match=r"^SPEC\.md has 1 problem"):
        load_spec(str(path))


def test_load_spec_falls_back_to_package_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        spec_module, "__file__", str(tmp_path / "site" / "conformance" / "run" / "spec.py")
    )
    package = tmp_path / "package"
    monkeypatch.setattr(importlib.resources, "files", lambda name: package)
    with pytest.raises(FileNotFoundError) as info:
        load_spec()
    assert str(tmp_path / "site" / "spec" / "SPEC.md") in str(info.value)
    assert str(package / "data" / "SPEC.md") in str(info.value)

    (package / "data").mkdir(parents=True)
    (package / "data" / "SPEC.md").write_text(VALID, encoding="utf-8")
    assert "FBD-MOVE-2" in load_spec().clauses


# --- the repository's own spec ----------------------------------------------------------------


def test_repository_spec_is_well_formed() -> None:
    spec = load_spec()
    assert len(spec.clauses) >= 60
    assert {clause.profile for clause in spec.clauses.values()} == {"core", "strict"}


# --- the clause texts say what the suite checks -------------------------------------------------


def test_the_prefix_read_bound_is_the_one_the_clauses_state() -> None:
    """FBD-READ-1 and NDS-DEDUP-3 state the one read buffer the suite allows a prefix read."""
    from conformance.harness.measure import PREFIX_READ_BOUND

    clauses = load_spec().clauses
    stated = f"at most one read buffer of {PREFIX_READ_BOUND // 1024} KiB"
    for clause in ("FBD-READ-1", "NDS-DEDUP-3"):
        assert stated in " ".join(clauses[clause].text.split()), clause


def test_fbd_fault_2_says_what_a_known_digest_does() -> None:
    """The suite checks that a supplied or computed digest outlives the file (FBD-FAULT-2)."""
    text = " ".join(load_spec().clauses["FBD-FAULT-2"].text.split())
    assert "`sha256` when it has to read the file" in text
    assert "`sha256()` MUST return it, file or no file" in text


def test_fbd_write_1_says_which_sinks_core_covers() -> None:
    """FBD-WRITE-1 names the raw sinks that its short-write tests use, as core."""
    text = " ".join(load_spec().clauses["FBD-WRITE-1"].text.split())
    for sink in ("`io.BufferedIOBase`", "`io.RawIOBase`", "returns the number of bytes it took"):
        assert sink in text, sink
    assert "Core covers all three" in text

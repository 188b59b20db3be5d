"""Write docs/mutation.md's table of failed clauses per mutant from a meta run's reports.

``tests/test_mutants.py`` runs each mutant (over the tests that can see it) with a JSON report in
its ``tmp_path``; run the meta tests with a ``--basetemp`` outside the repository (the child runs of
the suite must not find its configuration) and point this at it::

    tox -e meta -- --basetemp=/tmp/meta
    python tools/mutation_table.py /tmp/meta docs/mutation.md
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mutants import breaks, mutant_names  # noqa: E402  # after the path is set
from tests.test_mutants import MAX_OTHERS  # noqa: E402

BEGIN, END = "<!-- failed-clauses-per-mutant -->", "<!-- end failed-clauses-per-mutant -->"
_TARGET = re.compile(r"tests\.mutants\.(\w+):IMPLEMENTATION")


def failed_clauses(base: Path) -> dict[str, list[str]]:
    """Each mutant's failed clauses, from the reports under ``base`` (its newest report wins)."""
    found: dict[str, tuple[float, list[str]]] = {}
    for path in base.glob("**/report.json"):
        report = json.loads(path.read_text("utf-8"))
        match = _TARGET.search(json.dumps(report.get("implementation")))
        if match is None:
            continue
        failed = [c["id"] for c in report["clauses"] if c["status"] == "failed"]
        when = path.stat().st_mtime
        if match[1] not in found or found[match[1]][0] < when:
            found[match[1]] = (when, failed)
    return {name: failed for name, (_, failed) in found.items()}


def table(failed: dict[str, list[str]], note: str) -> str:
    """The section: a row per mutant, then who is over the bound."""
    rows = [
        "## Failed clauses per mutant",
        "",
        note,
        "",
        "| mutant | breaks | failed clauses | others |",
        "| --- | --- | --- | ---: |",
    ]
    over = []
    for name in mutant_names():
        named = breaks(name)
        if name not in failed:
            rows.append(f"| `{name}` | {', '.join(named)} | not measured | |")
            continue
        others = [c for c in failed[name] if c not in named]
        if len(others) > MAX_OTHERS:
            over.append(f"`{name}` ({len(others)})")
        shown = ", ".join(f"**{c}**" if c in named else c for c in failed[name])
        rows.append(f"| `{name}` | {', '.join(named)} | {shown} | {len(others)} |")
    rows += ["", f"Over the bound of {MAX_OTHERS} others: {', '.join(over) or 'none'}."]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("basetemp", type=Path, help="the --basetemp of a meta run")
    parser.add_argument("page", type=Path, help="the Markdown page to write the table into")
    parser.add_argument("--note", default="", help="how it was measured (a paragraph)")
    args = parser.parse_args(argv)
    failed = failed_clauses(args.basetemp)
    text = args.page.read_text("utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        print(f"{args.page}: no {BEGIN} ... {END} section", file=sys.stderr)
        return 2
    section = f"{BEGIN}\n{table(failed, args.note)}\n"
    args.page.write_text(text[:start] + section + text[end:], "utf-8")
    print(f"{len(failed)} mutants measured, written to {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

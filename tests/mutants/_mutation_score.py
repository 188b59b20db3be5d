"""Print the mutation score of the last ``mutmut run`` and check its survivors (tox -e mutation).

Run from the project root after ``mutmut run``. The score is mutmut's own: killed and timed-out
mutants over all mutants tested. Every mutant that was not killed must be listed, by its full
mutmut name, in ``docs/mutation.md`` with the reason it survives. Exit status 1 when the score is
under ``TARGET`` or a survivor is not explained there.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

TARGET = 0.98
"""The score of reference/ is kept at 98% or more."""
DOC = Path("docs/mutation.md")
_LINE = re.compile(r"^\s+(\S+): (.+)$")
_KILLED = ("killed", "timeout")


def results() -> dict[str, str]:
    """Every mutant of the last run and its status (killed, survived, timeout, no tests, ...)."""
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = (_LINE.match(line) for line in done.stdout.splitlines())
    return {m.group(1): m.group(2).strip() for m in found if m}


def main() -> int:
    statuses = results()
    if not statuses:
        print("mutation: no results; run `mutmut run` first")
        return 1
    counts = Counter(statuses.values())
    tested = sum(n for status, n in counts.items() if status not in ("skipped", "not checked"))
    killed = sum(counts[status] for status in _KILLED)
    score = killed / tested if tested else 0.0
    survivors = sorted(name for name, status in statuses.items() if status not in _KILLED)
    explained = set(re.findall(r"`(reference\.[^`\s]+__mutmut_\d+)`", DOC.read_text("utf-8")))
    unexplained = [name for name in survivors if name not in explained]
    detail = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"mutation score: {killed}/{tested} killed = {score:.1%} (target {TARGET:.0%}; {detail})")
    print(f"survivors: {len(survivors)}, explained in {DOC}: {len(survivors) - len(unexplained)}")
    for name in unexplained:
        print(f"  not explained: {name} ({statuses[name]}); see `mutmut show {name}`")
    return 0 if score >= TARGET and not unexplained else 1


if __name__ == "__main__":
    sys.exit(main())

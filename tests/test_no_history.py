"""The project speaks of what it is, never of how it came to be: no tracked file names an issue,
a session or a turn of the work by its number (the spec's change log is where its history goes)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"\b(issue|session|turn|round)s? ?#?[0-9]+|\bdone-when\b", re.IGNORECASE)
"""A reference to the work's own history: a tracker word (issue, session, turn) followed by a
number, or a done-when."""


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an sdist)
        pytest.skip("not a git checkout: no list of tracked files")
    return [ROOT / name for name in out.decode().split("\0") if name]


def history_lines(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` (numbered from 1) that name the work's history."""
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if HISTORY.search(line)]


def test_the_pattern_finds_what_it_is_for() -> None:
    # built from parts, so that this file does not itself hold the words it looks for
    issue, session, turn = "iss" + "ue", "sess" + "ion", "tu" + "rn"
    text = (
        f"fixed in {issue} 25\nsee {issue.title()} #3\n{session} 8's tests\n{turn}s 2\n"
        "the done-when\nissues\n"
    )
    assert [n for n, _ in history_lines(text)] == [1, 2, 3, 4, 5]
    assert history_lines("the issue of ownership; the session fixture; turn it off") == []


def test_no_tracked_file_names_the_works_history() -> None:
    found = []
    for path in _tracked():
        if path == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):  # binary (or unreadable): no prose
            continue
        name = path.relative_to(ROOT)
        found += [f"{name}:{n}: {line.strip()}" for n, line in history_lines(text)]
    assert not found, "history in the project's files:\n" + "\n".join(found)

"""Deviation files: the clause ids (or test names) an implementation is known not to meet, and why.

One deviation a line: ``TARGET reason``, TARGET a clause id, a suite test function name or one
parametrized case (``test_name[param]``), then whitespace and the reason. A line whose first
non-blank character is ``#`` is a comment; a ``#`` later in a line belongs to the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Deviation", "builtin_deviations_path", "parse_deviations", "read_deviations"]


@dataclass(frozen=True)
class Deviation:
    """One known deviation: what (a clause id, or a test function name) and why."""

    target: str
    reason: str
    line: int


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
        if not reason:
            problems.append(f"{source}:{number}: {target!r} has no reason")
        elif target in found:
            problems.append(
                f"{source}:{number}: {target!r} listed twice (first at line {found[target].line})"
            )
        else:
            found[target] = Deviation(target, reason, number)
    if problems:
        raise ValueError("\n".join(problems))
    return found


def builtin_deviations_path(implementation: str) -> Path:
    """Where a built-in adapter's deviation file lives (it may not exist)."""
    return Path(__file__).parents[1] / "adapters" / f"{implementation}.deviations"


_parsed: dict[tuple[str, int, int], dict[str, Deviation]] = {}


def read_deviations(path: Path) -> dict[str, Deviation]:
    """Deviations from a file; an absent file means none. A file is parsed once per process
    while it is unchanged (``cordspec run`` checks it before the plugin applies it)."""
    if not path.exists():
        return {}
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _parsed:
        _parsed[key] = parse_deviations(path.read_text(encoding="utf-8"), str(path))
    return dict(_parsed[key])

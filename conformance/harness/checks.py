"""Checks that name their clause, so that a failure is counted against the clause that broke.

A test may name several clauses (the store state machine names 28). When one of its checks fails,
the report counts the failure against the clause that check names, not against all of the test's:
:func:`check` and :func:`blame` raise :class:`ClauseFailure`, which carries the clause ids, and
the plugin records them with the test's report (:func:`failed_clauses`). A failure that names no
clause (a plain ``assert``, an unexpected exception) still counts against every clause of its test,
except in the store state machine, whose steps blame such an exception on their own clauses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ClauseFailure", "blame", "check", "failed_clauses"]


class ClauseFailure(AssertionError):
    """A failed check of ``clauses``; the message says what was found."""

    def __init__(self, message: str, clauses: tuple[str, ...]) -> None:
        super().__init__(message)
        self.clauses = clauses


def check(condition: object, message: str, *clauses: str) -> None:
    """Raise :class:`ClauseFailure` for ``clauses`` with ``message`` unless ``condition``."""
    if not condition:
        raise ClauseFailure(f"{message} ({', '.join(clauses)})", clauses)


@contextmanager
def blame(*clauses: str) -> Iterator[None]:
    """Count a failure inside the block (an assertion, or an exception the implementation raised)
    against ``clauses``, unless it already names its own."""
    try:
        yield
    except ClauseFailure:
        raise
    except (AssertionError, Exception) as exc:
        text = str(exc) if isinstance(exc, AssertionError) else f"{type(exc).__name__}: {exc}"
        raise ClauseFailure(f"{text} ({', '.join(clauses)})", clauses) from exc


def failed_clauses(exc: BaseException) -> tuple[str, ...] | None:
    """The clauses a test's failure counts against: those its :class:`ClauseFailure` names (every
    member's, for an exception group such as Hypothesis raises for several distinct failures), or
    None when some part of it names none."""
    if isinstance(exc, ClauseFailure):
        return exc.clauses
    members = getattr(exc, "exceptions", None)
    if not isinstance(members, tuple) or not members:
        return None
    found: dict[str, None] = {}
    for member in members:
        if not isinstance(member, BaseException):
            return None
        named = failed_clauses(member)
        if named is None:
            return None
        found.update(dict.fromkeys(named))
    return tuple(found)

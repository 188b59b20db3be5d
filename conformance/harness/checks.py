"""Checks that name their clause, so that a failure is counted against the clause that broke.

A test may name several clauses (the store state machine names 28). When one of its checks fails,
the report counts the failure against the clause that check names, not against all of the test's:
:func:`check` and :func:`blame` raise :class:`ClauseFailure`, which carries the clause ids, and
the plugin records them with the test's report (:func:`failed_clauses`). A failure that names no
clause (a plain ``assert``, an unexpected exception) still counts against every clause of its test,
except in the store state machine, whose steps blame such an exception on their own clauses.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ClauseFailure", "blame", "check", "failed_clauses"]


class ClauseFailure(AssertionError):
    """A failed check of ``clauses``; the message says what was found.

    ``ClauseFailure(message, clauses)`` makes an instance of a subclass of its own for those
    clauses (one per tuple of clause ids, made once): Hypothesis tells distinct failures apart by
    exception type and raising line, and every check raises from one line, so without it a
    failure of one clause could be shrunk into another's and ``--shrink`` would blame other
    clauses than the plain run."""

    clauses: tuple[str, ...]

    def __new__(cls, message: str, clauses: tuple[str, ...]) -> ClauseFailure:
        kind = _kind(tuple(clauses)) if cls is ClauseFailure else cls
        return AssertionError.__new__(kind, message)

    def __init__(self, message: str, clauses: tuple[str, ...]) -> None:
        super().__init__(message)
        self.clauses = tuple(clauses)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the base class, which makes the clauses' own subclass again."""
        return (ClauseFailure, (str(self), self.clauses), self.__dict__)


@functools.cache
def _kind(clauses: tuple[str, ...]) -> type[ClauseFailure]:
    """The subclass of :class:`ClauseFailure` for ``clauses``: shown by the same name."""
    doc = f"A failed check of {', '.join(clauses) or 'no clause'}."
    attributes = {"__module__": __name__, "__qualname__": ClauseFailure.__qualname__}
    return type(ClauseFailure.__name__, (ClauseFailure,), {**attributes, "__doc__": doc})


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

"""Fault injection on both sides of an OS call: the functions of :mod:`os` an operation
calls, counted, then made to raise one at a time, either before the call (nothing happened) or
after it (it took effect, then reported an error, as a network filesystem can). Only calls made
through ``os.<name>`` at call time are seen; an implementation that reaches the OS another way is
faulted where it does."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from .checks import check

__all__ = [
    "ABSORBABLE", "OS_CALLS", "Call", "Fault", "Faulted", "calls_of", "each_fault", "injected",
]  # fmt: skip

S = TypeVar("S")
T = TypeVar("T")

OS_CALLS = (
    "open", "close", "read", "readv", "readinto", "pread", "write", "writev", "pwrite",
    "lseek", "stat", "lstat", "fstat", "replace", "rename", "unlink", "remove", "rmdir",
    "link", "symlink", "mkdir", "sendfile", "copy_file_range", "splice", "ftruncate", "truncate",
    "fsync", "fdatasync", "utime", "chmod", "fchmod", "posix_fallocate", "scandir", "listdir",
)  # fmt: skip
"""The functions of :mod:`os` faulted (those this Python has)."""

ABSORBABLE = frozenset({"close", "lseek", "stat", "lstat"})
"""The calls whose error an operation may absorb (its result is still checked): a descriptor's
``close``, after which POSIX leaves the descriptor's state unspecified (Linux frees it), so there
is nothing to retry; and the queries by path (``stat``, ``lstat``) and ``lseek``, which an
operation may answer another way (``os.path.realpath`` ignores a failed ``lstat``; a filesystem
may not tell holes, so that a sparse copy falls back to copying the zeros). Any other ``OSError``
raised while an operation runs (an open, an ``fstat`` of the file being read, a read, a write, a
rename, an unlink) is the caller's to see (FBD-FAULT-1), and so is a failed removal in
``close()`` (FBD-CLOSE-7)."""

FAULT = errno.EIO


@dataclass(frozen=True)
class Call:
    """One call of ``os.<name>``, by the first argument it was given."""

    name: str
    subject: str

    def __str__(self) -> str:
        return f"os.{self.name}({self.subject})"


@dataclass
class Fault:
    """The ``index``-th call made raises ``OSError(EIO)``, before it or after it took effect."""

    index: int
    after: bool
    fired: Call | None = None
    seen: list[Call] = field(default_factory=list)

    @property
    def timing(self) -> str:
        return "after it took effect" if self.after else "before it"


def _subject(args: tuple[Any, ...]) -> str:
    return (
        repr(os.fspath(args[0]))
        if args and isinstance(args[0], (str, os.PathLike))
        else (repr(args[0]) if args else "")
    )


@contextmanager
def _patched(on_call: Callable[[str, Callable[..., Any]], Callable[..., Any]]) -> Iterator[None]:
    real = {name: getattr(os, name) for name in OS_CALLS if hasattr(os, name)}
    for name, function in real.items():
        setattr(os, name, on_call(name, function))
    try:
        yield
    finally:
        for name, function in real.items():
            setattr(os, name, function)


@contextmanager
def calls_of() -> Iterator[list[Call]]:
    """The calls of the faulted ``os`` functions made inside the block, in order."""
    seen: list[Call] = []

    def on_call(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            seen.append(Call(name, _subject(args)))
            return function(*args, **kwargs)

        return counted

    with _patched(on_call):
        yield seen


@contextmanager
def injected(fault: Fault) -> Iterator[Fault]:
    """Inside the block, ``fault``'s call raises ``OSError(EIO)`` (once); ``fault.fired`` says
    which call it was, None if fewer calls were made."""
    real_close, real_unlink = os.close, os.unlink

    def on_call(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def faulty(*args: Any, **kwargs: Any) -> Any:
            call = Call(name, _subject(args))
            fault.seen.append(call)
            if len(fault.seen) - 1 != fault.index:
                return function(*args, **kwargs)
            fault.fired = call
            if not fault.after:
                raise OSError(FAULT, f"injected fault before {call}")
            result = function(*args, **kwargs)
            if name == "open":
                _undo_open(real_close, real_unlink, result, args, kwargs)
            raise OSError(FAULT, f"injected fault after {call} took effect")

        return faulty

    with _patched(on_call):
        yield fault


def _undo_open(
    close: Callable[[int], None],
    unlink: Callable[..., None],
    result: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """What "after" leaves of an ``open``: the descriptor closed, and a file it created removed
    (the fault models an OS that opened, then reported failure, without a leak the
    implementation could not know of)."""
    close(result)
    flags = args[1] if len(args) > 1 else kwargs.get("flags", 0)
    if flags & os.O_CREAT and flags & os.O_EXCL:
        unlink(args[0], dir_fd=kwargs.get("dir_fd"))


@dataclass(frozen=True)
class Faulted(Generic[S, T]):
    """One run of an operation with one of its calls faulted: what it ran on (``subject``), and
    what it returned (``error`` None) or the injected error it raised."""

    fault: Fault
    subject: S
    result: T | None = None
    error: Exception | None = None

    @property
    def returned(self) -> T:
        """What the operation returned; only for a run that raised nothing."""
        assert self.error is None, self.error
        return cast(T, self.result)


def each_fault(
    calls: int,
    after: bool,
    prepare: Callable[[int], S],
    run: Callable[[S], T],
    clause_id: str,
) -> Iterator[Faulted[S, T]]:
    """For each of the ``calls`` calls an operation makes, in turn: ``prepare(index)`` unfaulted,
    then ``run`` on what it made with that call faulted (``after`` it took effect, or before it).
    An error raised is checked to be the one injected, and a run that returned although its fault
    fired to have absorbed only what it may (:data:`ABSORBABLE`), each against ``clause_id``; an
    error raised when no fault fired is the operation's own, and propagates."""
    for index in range(calls):
        subject = prepare(index)
        fault = Fault(index, after)
        try:
            with injected(fault):
                result = run(subject)
        except Exception as exc:
            if fault.fired is None:
                raise
            check(
                isinstance(exc, OSError) and exc.errno == FAULT,
                f"the EIO injected {fault.timing} {fault.fired} came out as {exc!r}",
                clause_id,
            )
            yield Faulted(fault, subject, error=exc)
        else:
            if fault.fired is not None:
                check(
                    fault.fired.name in ABSORBABLE,
                    f"the error injected {fault.timing} {fault.fired} was swallowed",
                    clause_id,
                )
            yield Faulted(fault, subject, result)

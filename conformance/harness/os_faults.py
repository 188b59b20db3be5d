"""Fault injection on both sides of an OS call (issue 25): the functions of :mod:`os` an operation
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
from typing import Any

__all__ = ["ABSORBABLE", "OS_CALLS", "Call", "Fault", "calls_of", "injected"]

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

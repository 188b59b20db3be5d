"""What a test saw of the implementation: a test whose hooks never reached it credits nothing.

The fault, interrupt and inode-reuse tests reach an implementation only through ``os.<name>``
looked up at call time and through traced Python lines. A port that binds ``from os import
replace``, calls ``posix`` or libc, or is native code, is never faulted there: its calls are not
counted, and a loop over them runs zero times. Such a test ends in :func:`unobserved`, a skip whose
reason starts :data:`UNOBSERVED_PREFIX`; the report reads every clause of the test *untested*
(never passed, whatever its other tests did), and an untested MUST clause fails the verdict."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import NoReturn

import pytest

__all__ = ["UNOBSERVED_PREFIX", "require_calls", "unobserved"]

UNOBSERVED_PREFIX = "unobserved: "
"""How the skip reason of a test that could not see what it checks starts."""


def unobserved(why: str) -> NoReturn:
    """End the test as *untested* for its clauses: ``why`` says what the harness could not see
    (e.g. "the implementation made no rename the harness could see")."""
    pytest.skip(f"{UNOBSERVED_PREFIX}{why}")


def require_calls(seen: Iterable[object], names: Collection[str], doing: str) -> None:
    """End the test as unobserved unless ``seen`` (calls with a ``name``) holds one of ``names``:
    ``doing`` did, at the OS level, what only those calls do (a move renames, an owned close
    unlinks), so a run in which none was counted reached the OS another way."""
    if not any(getattr(call, "name", None) in names for call in seen):
        listed = " or ".join(f"os.{name}" for name in sorted(names))
        unobserved(
            f"the implementation made no {listed} call the harness could see while {doing} "
            "(it reached the OS another way: a bound name, posix, ctypes or native code)"
        )

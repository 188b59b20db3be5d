"""What the mutants that mishandle a failing OS call share: ``os.<name>`` replaced, for the length
of one call of the implementation, by a wrapper that decides what a failure of the call means.
Installed at call time, so that it wraps whatever ``os.<name>`` is then (a test's fault injector
included), as an implementation's own error handling would."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["wrapping"]

Call = Callable[..., Any]


@contextmanager
def wrapping(name: str, wrap: Callable[[Call], Call]) -> Iterator[None]:
    """``os.<name>`` is ``wrap(os.<name>)`` inside the block."""
    real = getattr(os, name)
    setattr(os, name, wrap(real))
    try:
        yield
    finally:
        setattr(os, name, real)

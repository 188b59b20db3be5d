"""What the mutants that mishandle a failing OS call share: ``os.<name>`` replaced, for the length
of one call of the implementation, by a wrapper that decides what a failure of the call means.
Installed at call time, so that it wraps whatever ``os.<name>`` is then (a test's fault injector
included), as an implementation's own error handling would."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import reference

__all__ = ["Call", "FailedTake", "wrapping"]

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


def _is_take(dst: Any) -> bool:
    return os.path.basename(os.fspath(dst)).startswith(".executorch_")


class FailedTake(reference.FileBackedData):
    """The reference's ``FileBackedData``, with what ``move_from`` does when its rename of the
    source onto the placeholder raises as a step (``_take_failed``), for a mutant to change."""

    @classmethod
    def move_from(cls, path: Any, sha256: bytes | None = None) -> reference.FileBackedData:
        with wrapping("replace", cls._taking):
            return super().move_from(path, sha256)

    @classmethod
    def _taking(cls, real: Call) -> Call:
        def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
            if not _is_take(dst):
                return real(src, dst, *args, **kwargs)
            try:
                return real(src, dst, *args, **kwargs)
            except OSError as error:
                return cls._take_failed(real, src, dst, error)

        return replace

    @staticmethod
    def _take_failed(rename: Call, source: Any, placeholder: Any, error: OSError) -> None:
        """After ``rename(source, placeholder)`` raised ``error``: raise it, as the reference."""
        raise error

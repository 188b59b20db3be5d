"""What the mutants that mishandle a failing OS call share: the reference's step that makes the
call, with what a failure of it means as a step of its own. The call is looked up in :mod:`os` at
call time, so that it is whatever ``os.<name>`` is then (a test's fault injector included), as an
implementation's own error handling would see it; and the step runs where the reference's does,
inside ``move_from``'s deferral of interrupts, so that a mutant breaks only what its failure path
does (wrapped around the whole ``move_from``, the scaffolding's own lines were outside the
deferral, and an interrupt landing on them left an owner no caller got: FBD-INTR-1)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import reference

__all__ = ["Call", "FailedTake"]

Call = Callable[..., Any]


class FailedTake(reference.FileBackedData):
    """The reference's ``FileBackedData``, with what ``move_from`` does when its rename of the
    source onto the placeholder raises as a step (``_take_failed``), for a mutant to change."""

    @classmethod
    def _take(cls, source: str, placeholder: str) -> None:
        rename = os.replace
        try:
            rename(source, placeholder)
        except OSError as error:
            cls._take_failed(rename, source, placeholder, error)

    @staticmethod
    def _take_failed(rename: Call, source: Any, placeholder: Any, error: OSError) -> None:
        """After ``rename(source, placeholder)`` raised ``error``: raise it, as the reference."""
        raise error

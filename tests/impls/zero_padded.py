"""The reference with a low-memory backend that writes AOTInductor's host layout: the weights
padded with zeros to a multiple of 64 bytes, streamed and hashed with the padding. HOOK-BLOB-1
allows exactly this: the suite must not accuse it (a padded blob must not be taken for a
wrong one)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from reference import hooks
from tests.mutants import implementation
from tests.mutants._base import LowMemory, LowMemoryBackend

P = TypeVar("P")


def _padded(chunks: Iterable[bytes]) -> Iterator[bytes]:
    length = 0
    for chunk in chunks:
        length += len(chunk)
        yield chunk
    yield bytes(-length % 64)


class Backend(LowMemoryBackend):
    @classmethod
    def materialize_weights_blob(cls, paths: P, compile_specs: Sequence[hooks.CompileSpec]) -> P:
        if isinstance(paths, list):
            paths = [  # type: ignore[assignment]  # P is a list here
                hooks.Weights(_padded(p.chunks)) if isinstance(p, hooks.Weights) else p
                for p in paths
            ]
        return super().materialize_weights_blob(paths, compile_specs)


IMPLEMENTATION = implementation(__name__, low_memory=LowMemory(Backend))

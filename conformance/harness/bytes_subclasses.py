"""Subclasses of ``bytes``, which CORD-TYPE-1 and NDS-ADD-1 take as ``bytes``: held by identity and
never copied. Some override what a copy would be made through (``bytes()``, iteration, indexing),
with other contents, so a piece normalised through them shows in what is written, besides the
memory its copy takes; the others are plain or override only consistently."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import SupportsIndex, overload

_OTHER = 0xEE
"""The byte an overriding method gives instead of the object's own contents."""


class Plain(bytes):
    """A subclass that adds nothing, as serializers use to tag a blob."""


class Slotted(bytes):
    """A subclass without an instance dictionary."""

    __slots__ = ()


class OwnBytes(bytes):
    """``bytes(piece)`` gives other contents: a piece written through it is written wrong."""

    def __bytes__(self) -> bytes:
        return bytes([_OTHER]) * bytes.__len__(self)


class OwnLen(bytes):
    """A ``__len__`` of its own, which agrees with the contents."""

    def __len__(self) -> int:
        return bytes.__len__(self)


class OwnIter(bytes):
    """Iterating gives other contents: a piece copied by ``bytes(iter(...))`` is written wrong."""

    def __iter__(self) -> Iterator[int]:
        return iter(bytes([_OTHER]) * bytes.__len__(self))


class OwnGetitem(bytes):
    """Indexing and slicing give other contents: a piece copied by slicing is written wrong."""

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> bytes: ...
    def __getitem__(self, index: SupportsIndex | slice) -> int | bytes:
        # no buffer as large as the object: what the caller asks for costs what it is
        size = bytes.__len__(self)
        if isinstance(index, slice):
            return bytes([_OTHER]) * len(range(*index.indices(size)))
        range(size)[index]  # IndexError as bytes' own
        return _OTHER


ALL: dict[str, type[bytes]] = {
    c.__name__: c for c in (Plain, Slotted, OwnBytes, OwnLen, OwnIter, OwnGetitem)
}
"""Every sample, by name (the test ids)."""

HONEST_SLICES: dict[str, type[bytes]] = {k: c for k, c in ALL.items() if c is not OwnGetitem}
"""The samples whose first bytes, sliced, are their contents: those a store's fingerprint (which
the spec does not say is taken without slicing) sees as they are."""


class HashingSink:
    """A binary output that keeps nothing of what it is given but its SHA-256 and length, so
    the memory a write takes is the writer's own."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes | memoryview) -> int:
        self._hash.update(data)
        self.size += memoryview(data).nbytes
        return memoryview(data).nbytes

    def digest(self) -> bytes:
        return self._hash.digest()

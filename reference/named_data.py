"""NamedDataStore: named blobs for the runtime; equal contents share a buffer; outputs merge."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

from .cord import CordBuffer
from .file_backed import FileBackedData

__all__ = ["FINGERPRINT_PREFIX", "DataEntry", "NamedDataStore", "NamedDataStoreOutput"]

FINGERPRINT_PREFIX = 32
"""Leading bytes that, with the length, form a blob's fingerprint (spec NDS-DEDUP-2)."""


@dataclass(frozen=True)
class DataEntry:
    """Where a key's data is: an index into ``buffers``, its alignment, an opaque layout."""

    buffer_index: int
    alignment: int
    tensor_layout: object | None = None


@dataclass
class NamedDataStoreOutput:
    """A store's contents: unique buffers, inline entries by key, external ones by tag and key."""

    buffers: list[CordBuffer]
    pte_data: dict[str, DataEntry]
    external_data: dict[str, dict[str, DataEntry]]


_Entry = tuple[str, CordBuffer, int, "str | None", object]


def _digest(data: CordBuffer) -> bytes:
    return data.sha256() if isinstance(data, FileBackedData) else hashlib.sha256(data).digest()


def _fingerprint(data: CordBuffer) -> tuple[int, bytes]:
    if isinstance(data, FileBackedData):
        return len(data), data.prefix(FINGERPRINT_PREFIX)
    return len(data), data[:FINGERPRINT_PREFIX]


def _where(tag: str | None) -> str:
    return "inline in the PTE" if tag is None else f"under external tag {tag!r}"


def _checked(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, CordBuffer, int, str | None]:
    if not isinstance(key, str):
        raise TypeError(f"key must be str, not {type(key).__name__}: {key!r}")
    if not isinstance(data, (bytes, FileBackedData)):
        raise TypeError(f"Unsupported named data type: {type(data).__name__}")
    if alignment is None:
        alignment = 1
    if isinstance(alignment, bool) or not isinstance(alignment, int):
        raise TypeError(f"alignment must be int, not {type(alignment).__name__}: {alignment!r}")
    if alignment <= 0:
        raise ValueError(f"Alignment must be greater than 0, received {alignment}.")
    if external_tag is not None and not isinstance(external_tag, str):
        raise TypeError(
            f"external_tag must be str or None, not {type(external_tag).__name__}: {external_tag!r}"
        )
    if external_tag == "":
        raise ValueError("external_tag must not be empty (use None for data inline in the PTE)")
    return key, data, alignment, external_tag


def _replay(other: NamedDataStoreOutput) -> Iterator[_Entry]:
    """Every entry of ``other`` as add arguments: inline ones first, then each tag's, in order."""
    buffers = other.buffers
    seen: dict[str, str | None] = {}
    maps = [(None, other.pte_data), *other.external_data.items()]
    for tag, entries in maps:
        for key, entry in entries.items():
            if key in seen:
                raise ValueError(
                    f"key {key!r} appears twice in the output: "
                    f"{_where(seen[key])} and {_where(tag)}"
                )
            seen[key] = tag
            index = entry.buffer_index
            if (
                isinstance(index, bool)
                or not isinstance(index, int)
                or not 0 <= index < len(buffers)
            ):
                raise ValueError(
                    f"entry {key!r} refers to buffer {index!r}, but the output has {len(buffers)}"
                )
            yield key, buffers[index], entry.alignment, tag, entry.tensor_layout


class NamedDataStore:
    """Blobs by name; equal contents share one buffer (length + first 32 bytes, then SHA-256)."""

    def __init__(self) -> None:
        self.buffers: list[CordBuffer] = []
        self.pte_data: dict[str, DataEntry] = {}
        self.external_data: dict[str, dict[str, DataEntry]] = {}
        self._tags: dict[str, str | None] = {}
        self._fingerprints: dict[tuple[int, bytes], list[int]] = {}
        self._digests: dict[int, bytes] = {}

    def add_named_data(
        self,
        key: str,
        data: bytes | FileBackedData,
        alignment: int | None = 1,
        external_tag: str | None = None,
        tensor_layout: object | None = None,
    ) -> None:
        """Add ``data`` under ``key``, inline (no tag) or for an external file; atomic on error."""
        self._add(*_checked(key, data, alignment, external_tag), tensor_layout)

    def get_named_data_store_output(self) -> NamedDataStoreOutput:
        """A snapshot: later changes to the store never show through it; buffers by identity."""
        return NamedDataStoreOutput(
            list(self.buffers),
            dict(self.pte_data),
            {tag: dict(entries) for tag, entries in self.external_data.items() if entries},
        )

    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        """Add every entry of ``other``, which is never changed, nor its files; all or nothing."""
        staged = self._clone()
        for key, data, alignment, tag, layout in _replay(other):
            staged._add(*_checked(key, data, alignment, tag), layout)
        self._take(staged)

    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        """Move every inline entry to external shards of at most ``max_data_bytes``; atomic."""
        if (
            isinstance(max_data_bytes, bool)
            or not isinstance(max_data_bytes, int)
            or max_data_bytes <= 0
        ):
            raise ValueError(
                f"external data shard cap must be a positive integer, got {max_data_bytes!r}"
            )
        if not isinstance(tag_prefix, str) or not tag_prefix:
            raise ValueError(f"external data tag prefix must be nonempty, got {tag_prefix!r}")
        groups: dict[int, dict[str, DataEntry]] = {}
        for key, entry in self.pte_data.items():
            groups.setdefault(entry.buffer_index, {})[key] = entry
        shards: list[dict[str, DataEntry]] = []
        current: dict[str, DataEntry] = {}
        current_bytes = 0
        # Key order, not size, decides the packing, so equal stores give equal shards.
        for index, entries in sorted(groups.items(), key=lambda item: sorted(item[1])):
            size = len(self.buffers[index])
            if size > max_data_bytes:
                raise ValueError(
                    f"buffer {index} has {size} bytes and exceeds "
                    f"external data shard cap {max_data_bytes}"
                )
            if current and current_bytes + size > max_data_bytes:
                shards.append(current)
                current, current_bytes = {}, 0
            current.update(entries)
            current_bytes += size
        if current:
            shards.append(current)
        external = {tag: dict(entries) for tag, entries in self.external_data.items()}
        tags = dict(self._tags)
        for shard in shards:
            keys = sorted(shard)
            tag = f"{tag_prefix}_{hashlib.sha256(chr(0).join(keys).encode()).hexdigest()}"
            canonical = {key: shard[key] for key in keys}
            if external.get(tag, canonical) != canonical:
                raise ValueError(f"external data tag collision for {tag}")
            external[tag] = canonical
            tags.update(dict.fromkeys(keys, tag))
        self.external_data, self.pte_data, self._tags = external, {}, tags

    def _add(
        self, key: str, data: CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> None:
        # Every check and digest comes before the first change, so a failed add changes nothing.
        if key in self._tags:
            self._readd(key, data, alignment, tag, layout)
            return
        fingerprint = _fingerprint(data)
        candidates = self._fingerprints.get(fingerprint, [])
        # The very object of a stored buffer is equal to it without hashing either.
        index = next((i for i in candidates if self.buffers[i] is data), None)
        digest = _digest(data) if candidates and index is None else None
        if digest is not None:
            index = next((i for i in candidates if self._buffer_digest(i) == digest), None)
        if index is None:
            index = len(self.buffers)
            self.buffers.append(data)
            self._fingerprints.setdefault(fingerprint, []).append(index)
            if digest is not None:
                self._digests[index] = digest
        entries = self.pte_data if tag is None else self.external_data.setdefault(tag, {})
        entries[key] = DataEntry(index, alignment, layout)
        self._tags[key] = tag

    def _readd(
        self, key: str, data: CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> None:
        """A key already present: equal contents are accepted, anything else is a conflict."""
        old_tag = self._tags[key]
        entries = self.pte_data if old_tag is None else self.external_data[old_tag]
        entry = entries[key]
        existing = self.buffers[entry.buffer_index]
        if data is not existing and (
            len(data) != len(existing) or _digest(data) != self._buffer_digest(entry.buffer_index)
        ):
            raise ValueError(
                f"Duplicate key {key} with different data. "
                f"Existing data size: {len(existing)} bytes. "
                f"New data size: {len(data)} bytes."
            )
        if tag != old_tag:
            raise ValueError(
                f"Duplicate key {key!r} is stored {_where(old_tag)}, not {_where(tag)}"
            )
        if layout != entry.tensor_layout:
            raise ValueError(
                f"Duplicate key {key!r} with a different tensor layout: "
                f"{entry.tensor_layout!r}, then {layout!r}"
            )
        combined = math.lcm(entry.alignment, alignment)
        if combined != entry.alignment:
            entries[key] = replace(entry, alignment=combined)

    def _buffer_digest(self, index: int) -> bytes:
        digest = self._digests.get(index)
        if digest is None:
            digest = self._digests[index] = _digest(self.buffers[index])
        return digest

    def _clone(self) -> NamedDataStore:
        clone = NamedDataStore()
        clone.buffers = list(self.buffers)
        clone.pte_data = dict(self.pte_data)
        clone.external_data = {tag: dict(entries) for tag, entries in self.external_data.items()}
        clone._tags = dict(self._tags)
        clone._fingerprints = {fp: list(indices) for fp, indices in self._fingerprints.items()}
        clone._digests = dict(self._digests)
        return clone

    def _take(self, other: NamedDataStore) -> None:
        self.buffers, self.pte_data, self.external_data = (
            other.buffers,
            other.pte_data,
            other.external_data,
        )
        self._tags, self._fingerprints, self._digests = (
            other._tags,
            other._fingerprints,
            other._digests,
        )

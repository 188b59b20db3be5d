"""NamedDataStore: named blobs for the runtime; equal contents share a buffer; outputs merge.

Every operation costs what it changes, not the size of the store: an add touches a few dicts, a
merge stages its additions and commits them in a few steps (undone if interrupted), an output
shares the store's append-only containers and copies them only when it is first read, and
colliding fingerprints are settled through a digest index rather than a scan.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice

from .cord import CordBuffer
from .file_backed import FileBackedData
from .shown import shown, type_name

__all__ = ["FINGERPRINT_PREFIX", "DataEntry", "NamedDataStore", "NamedDataStoreOutput"]

FINGERPRINT_PREFIX = 32
"""Leading bytes that, with the length, form a blob's fingerprint (spec NDS-DEDUP-2)."""


@dataclass(frozen=True)
class DataEntry:
    """Where a key's data is: an index into ``buffers``, its alignment, an opaque layout.

    NDS-OUT-4: a plain record, nothing checked or copied (a merge checks hand-made entries)."""

    buffer_index: int
    alignment: int
    tensor_layout: object | None = None


_Maps = dict[str, dict[str, DataEntry]]
_View = tuple[
    list[CordBuffer], int, dict[str, DataEntry], int, list[tuple[str, dict[str, DataEntry], int]]
]


_FIELDS = ("buffers", "pte_data", "external_data")


@dataclass
class NamedDataStoreOutput:
    """A store's contents: unique buffers, inline entries by key, external ones by tag and key.

    NDS-OUT-4: a plain record, nothing checked or copied (a merge checks hand-made outputs)."""

    buffers: list[CordBuffer]
    pte_data: dict[str, DataEntry]
    external_data: dict[str, dict[str, DataEntry]]


class _Snapshot(NamedDataStoreOutput):
    """The output a store returns (NDS-OUT-3 at O(tags)): its fields are absent until one is
    first read or written, which copies the first items of the store's containers that ``_view``
    holds with their lengths then (the store only appends to a container while it is lent);
    until then a merge of it reads those containers themselves."""

    def __init__(self, view: _View) -> None:  # the fields stay absent: see __getattr__
        # past this class's __setattr__, which has nothing to do for ``_view``: an output costs
        # no Python call but this one (as a frozen dataclass's __init__ sets its fields)
        object.__setattr__(self, "_view", view)

    _view: _View | None

    def __getattr__(self, name: str) -> object:
        # Reached only for an absent attribute: a field not read yet.
        if name not in _FIELDS or self._view is None:
            raise AttributeError(f"'NamedDataStoreOutput' object has no attribute {name!r}")
        self._read_view()
        return getattr(self, name)

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FIELDS and self._view is not None:
            self._read_view()  # the other fields are the snapshot's, not absent
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in _FIELDS and self._view is not None:
            self._read_view()
        super().__delattr__(name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NamedDataStoreOutput):
            return NotImplemented
        mine = (self.buffers, self.pte_data, self.external_data)
        return mine == (other.buffers, other.pte_data, other.external_data)

    def __repr__(self) -> str:
        return repr(NamedDataStoreOutput(self.buffers, self.pte_data, self.external_data))

    def _read_view(self) -> None:
        """Copy the first items of the store's containers into the fields."""
        view, self._view = self._view, None
        assert view is not None
        buffers, count, pte, inline, external = view
        self.buffers = buffers[:count]
        self.pte_data = dict(islice(pte.items(), inline))
        self.external_data = {tag: dict(islice(m.items(), n)) for tag, m, n in external}


_Fingerprint = tuple[int, bytes]
_ABSENT = -1
"""What ``_fps.get`` gives for a fingerprint no buffer has (a stored one is an index or None)."""


def _digest(data: CordBuffer) -> bytes:
    # NDS-DEDUP-6: one digest for either representation; NDS-DEDUP-10: a supplied digest is the
    # file's; NDS-DEDUP-11: bytes hashed in place, a file through its bounded hash (FBD-HASH-3).
    return data.sha256() if isinstance(data, FileBackedData) else hashlib.sha256(data).digest()


def _fingerprint(data: CordBuffer) -> _Fingerprint:
    # NDS-DEDUP-3: length and 32 bytes, no digest; a file reads only its prefix.
    if isinstance(data, FileBackedData):
        return len(data), data.prefix(FINGERPRINT_PREFIX)
    return len(data), data[:FINGERPRINT_PREFIX]


def _where(tag: object) -> str:
    return "inline in the PTE" if tag is None else f"under external tag {shown(tag)}"


def _is(value: object, cls: type) -> bool:
    """``isinstance`` by the value's type alone: a ``__class__`` of its own is not asked (it may
    raise, or claim a type the value is not)."""
    return issubclass(type(value), cls)


def _checked(
    key: object, data: object, alignment: object, external_tag: object
) -> tuple[str, CordBuffer, int, str | None]:
    # NDS-ADD-9: every value shown by ``shown``, which runs none of its code
    if not _is(key, str):  # NDS-ADD-6
        raise TypeError(f"key must be str, not {type_name(key)}: {shown(key)}")
    if not (_is(data, bytes) or _is(data, FileBackedData)):  # NDS-ADD-1: the type named
        raise TypeError(f"Unsupported named data type: {type_name(data)}")
    if alignment is None:  # NDS-ADD-3
        alignment = 1
    if _is(alignment, bool) or not _is(alignment, int):  # NDS-ADD-5
        raise TypeError(f"alignment must be int, not {type_name(alignment)}: {shown(alignment)}")
    alignment = _exact_int(alignment)  # type: ignore[arg-type]  # an int: _is above
    if alignment <= 0:  # NDS-ADD-3; NDS-ADD-4: any positive int, power of two or not
        raise ValueError(f"Alignment must be greater than 0, received {shown(alignment)}.")
    text = _text(_exact_str(key), "key")  # type: ignore[arg-type]  # a str: _is above
    return text, data, alignment, _tag(external_tag)  # type: ignore[return-value]  # data: _is


def _text(value: str, what: str) -> str:
    """``value`` if it is text that UTF-8 can encode, else ValueError naming it (NDS-KEY-7): a
    lone surrogate, which ``os.fsdecode`` gives for a name that is not UTF-8, would be accepted
    here and make a later externalize or serialization raise ``UnicodeEncodeError``."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"{what} {shown(value)} is not valid text: the lone surrogate at index "
                f"{exc.start} has no UTF-8 encoding"
            ) from None
    return value


def _exact_str(value: str) -> str:
    """NDS-ADD-8: a str of a subclass as the plain str of its characters (``str.__str__``, which
    no subclass's ``__str__``, ``__hash__`` or ``__eq__`` can change), so it names one entry."""
    return value if type(value) is str else str.__str__(value)


def _exact_int(value: int) -> int:
    """NDS-ADD-8: an int of a subclass as the plain int of its value (``int.__index__``, which no
    subclass's ``__index__`` or comparisons can change), so it is checked as the value it is."""
    return value if type(value) is int else int.__index__(value)


def _tag(external_tag: object) -> str | None:
    if external_tag is None:
        return None
    if not _is(external_tag, str):  # NDS-ADD-6: a tag is None or a nonempty str
        raise TypeError(
            f"external_tag must be str or None, not {type_name(external_tag)}: "
            f"{shown(external_tag)}"
        )
    external_tag = _exact_str(external_tag)  # type: ignore[arg-type]  # a str: _is above
    if not external_tag:
        raise ValueError("external_tag must not be empty (use None for data inline in the PTE)")
    return _text(external_tag, "external_tag")


def _map(what: str, value: object) -> Mapping[object, DataEntry]:
    # NDS-MERGE-7: a map of an output that is not a dict is a TypeError naming it
    if not isinstance(value, (dict, Mapping)):
        raise TypeError(f"{what} must be a dict, not {type_name(value)}: {shown(value)}")
    return value


_Pairs = Iterable[tuple[object, DataEntry]]


def _maps(
    other: NamedDataStoreOutput,
) -> tuple[Sequence[object], list[tuple[object, int, _Pairs]], bool]:
    """``other``'s buffers, its maps in replay order, inline first, then each tag's, each as
    (tag, size, its (key, entry) pairs), and whether its keys, tags and alignments are known to
    be valid. They are for a store's snapshot not read yet, read from the store's containers,
    which only hold what the store's adds checked; any other output's entries are checked as
    they are read (``_checked_pairs``), and their keys, tags and alignments as add checks them."""
    view = other._view if type(other) is _Snapshot else None
    if view is not None:
        buffers, _, pte, inline, external = view
        maps: list[tuple[object, int, _Pairs]] = [(None, inline, islice(pte.items(), inline))]
        for tag, m, n in external:
            maps.append((tag, n, islice(m.items(), n)))
        return buffers, maps, True
    given: object = other.buffers
    if not isinstance(given, (list, Sequence)):
        raise TypeError(f"buffers must be a list, not {type_name(given)}: {shown(given)}")
    listed: list[tuple[object, Mapping[object, DataEntry]]] = [
        (None, _map("pte_data", other.pte_data))
    ]
    for name, entries in _map("external_data", other.external_data).items():
        listed.append((name, _map(f"external_data[{shown(name)}]", entries)))
    count, seen = len(given), dict[object, object]()
    pairs: list[tuple[object, int, _Pairs]] = [
        (tag, len(m), _checked_pairs(tag, m, given, count, seen)) for tag, m in listed
    ]
    return given, pairs, False


def _checked_pairs(
    tag: object,
    entries: Mapping[object, DataEntry],
    buffers: Sequence[object],
    count: int,
    seen: dict[object, object],
) -> Iterator[tuple[object, DataEntry]]:
    """The entries of one map of an output, each checked before it is staged: its key in no
    other map, a DataEntry's fields (read once: one of another type, or with an index of a
    subclass of int, is copied into a DataEntry), an index into the ``count`` buffers, which are
    still ``count`` (NDS-MERGE-7: reading the output may have run code that changed them)."""
    for key, entry in entries.items():
        if isinstance(key, str) and issubclass(type(key), str):
            key = _exact_str(key)  # NDS-ADD-8: so that it is found in ``seen`` as the str it is
        if key in seen:  # NDS-MERGE-7: a key in two places of the output
            raise ValueError(
                f"key {shown(key)} appears twice in the output: "
                f"{_where(seen[key])} and {_where(tag)}"
            )
        seen[key] = tag
        try:
            index, alignment, layout = entry.buffer_index, entry.alignment, entry.tensor_layout
        except AttributeError:
            raise TypeError(
                f"entry {shown(key)} must be a DataEntry, not {type_name(entry)}: {shown(entry)}"
            ) from None
        exact = type(index) is int
        if not exact:
            if _is(index, bool) or not _is(index, int):
                raise ValueError(
                    f"entry {shown(key)} refers to buffer {shown(index)}, "
                    f"but the output has {count}"
                )
            index = _exact_int(index)  # NDS-ADD-8: compared and used as the value it is
        if not 0 <= index < count:
            raise ValueError(
                f"entry {shown(key)} refers to buffer {shown(index)}, but the output has {count}"
            )
        if len(buffers) != count:
            raise ValueError(
                f"the output's buffers changed while it was merged, from {count} to "
                f"{len(buffers)}, before entry {shown(key)}"
            )
        yield (
            key,
            entry if exact and type(entry) is DataEntry else DataEntry(index, alignment, layout),
        )


def _undo(action: Callable[[], None]) -> None:
    """Run an idempotent undo to its end, again from the start if it is itself interrupted; an
    error of the undo itself (an ``Exception``) is raised, as it would recur in every run."""
    while True:
        try:
            action()
            return
        except Exception:
            raise
        except BaseException:  # a second interrupt: the undo is idempotent, so it runs again
            continue


class NamedDataStore:
    """Blobs by name; equal contents share one buffer (length + first 32 bytes, then SHA-256)."""

    def __init__(self) -> None:
        self.buffers: list[CordBuffer] = []
        self.pte_data: dict[str, DataEntry] = {}
        self.external_data: _Maps = {}
        self._tags: dict[str, str | None] = {}  # NDS-KEY-1: each key's one place
        # A fingerprint maps to the index of the only buffer that has it, or to None once two
        # buffers have it: then every buffer of it is in _index by (fingerprint, digest) and in
        # _ids by identity.
        self._fps: dict[_Fingerprint, int | None] = {}
        self._index: dict[tuple[_Fingerprint, bytes], int] = {}
        self._ids: dict[int, int] = {}
        self._digests: dict[int, bytes] = {}
        self._lent: set[str | None] = set()
        """The places (None for inline, else a tag) whose maps an output reads lazily: such a map
        is copied before an entry of it is replaced, and the copy is not lent."""
        self._changes = 0
        """Changes that keep the numbers of buffers and keys (a re-add that realigns an entry, a
        commit, externalizing): with those numbers, which only grow, it marks the store's state."""

    def add_named_data(
        self,
        key: str,
        data: bytes | FileBackedData,
        alignment: int | None = 1,
        external_tag: str | None = None,
        tensor_layout: object | None = None,
    ) -> None:
        """Add ``data`` under ``key``, inline (no tag) or for an external file; atomic on error
        and on interruption."""
        if (
            type(key) is str
            and key.isascii()  # NDS-KEY-7: text UTF-8 encodes (O(1): a flag of the str)
            and type(data) is bytes
            and type(alignment) is int
            and alignment > 0
            and (
                external_tag is None
                or (type(external_tag) is str and external_tag and external_tag.isascii())
            )
        ):  # the usual arguments, checked by type alone: _checked says what is wrong otherwise
            self._add(key, data, alignment, external_tag, tensor_layout)
        else:
            self._add(*self._check_arguments(key, data, alignment, external_tag), tensor_layout)

    _check_arguments = staticmethod(_checked)
    """``add_named_data``'s checks of arguments the usual ones' test does not pass (a step a
    variant can change: merges check their entries with ``_checked`` itself)."""

    def get_named_data_store_output(self) -> NamedDataStoreOutput:
        """A snapshot: later changes to the store never show through it; buffers by identity.

        It costs O(tags): the store's containers are only ever appended to while lent, so the
        snapshot is their lengths now, and copying waits for the first read of a field."""
        # NDS-OUT-1: no empty tag map; NDS-OUT-2: the stored buffers themselves, by identity.
        external = []
        for tag, entries in self.external_data.items():  # a loop: no comprehension's function
            if entries:
                external.append((tag, entries, len(entries)))
        self._lent.add(None)
        self._lent.update(self.external_data)  # an empty map lent too: it has nothing to replace
        return _Snapshot(
            (self.buffers, len(self.buffers), self.pte_data, len(self.pte_data), external)
        )

    def merge_named_data_store(self, other: NamedDataStoreOutput) -> None:
        """Add every entry of ``other``, which is never changed, nor its files; all or nothing,
        also when interrupted. Costs O(len(other)), whatever the size of this store.

        NDS-MERGE-2, NDS-MERGE-3, NDS-MERGE-8: ``other`` and its files are only read, its buffers
        taken by identity; NDS-MERGE-6: staged, so a failure leaves the store as it was;
        NDS-MERGE-4: a second merge finds every key present and equal (NDS-KEY-2)."""
        stage = _Stage(self)
        try:
            stage.merge(other)
        except Exception:
            stage.check_unchanged()  # a store changed under the merge says so, whatever failed
            raise
        stage.commit()

    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
        """Move every inline entry to external shards of at most ``max_data_bytes``; atomic."""
        # NDS-EXT-1, NDS-EXT-8: arguments checked before anything changes
        # (by their types and exact values: NDS-ADD-8, NDS-ADD-9)
        if (
            _is(max_data_bytes, bool)
            or not _is(max_data_bytes, int)
            or _exact_int(max_data_bytes) <= 0
        ):
            raise ValueError(
                f"external data shard cap must be a positive integer, got {shown(max_data_bytes)}"
            )
        if not _is(tag_prefix, str) or not _exact_str(tag_prefix):
            raise ValueError(f"external data tag prefix must be nonempty, got {shown(tag_prefix)}")
        max_data_bytes = _exact_int(max_data_bytes)
        tag_prefix = _text(_exact_str(tag_prefix), "external data tag prefix")  # NDS-KEY-7
        groups: dict[int, dict[str, DataEntry]] = {}
        for key, entry in self.pte_data.items():
            groups.setdefault(entry.buffer_index, {})[key] = entry  # NDS-EXT-3: by buffer
        shards: list[dict[str, DataEntry]] = []
        current: dict[str, DataEntry] = {}
        current_bytes = 0
        for index, entries in self._group_order(groups):
            size = len(self.buffers[index])
            if size > max_data_bytes:  # NDS-EXT-5: before anything changes
                raise ValueError(
                    f"buffer {index} has {size} bytes and exceeds "
                    f"external data shard cap {max_data_bytes}"
                )
            if current and self._starts_shard(current_bytes, size, max_data_bytes):
                shards.append(current)
                current, current_bytes = {}, 0
            current.update(entries)
            current_bytes += size
        if current:
            shards.append(current)
        # New maps throughout: the old ones may be lent to outputs, which must not change.
        # NDS-EXT-2: pte_data emptied, each entry unchanged under its shard, old tags kept.
        external = {tag: dict(entries) for tag, entries in self.external_data.items()}
        tags = dict(self._tags)
        for shard in shards:
            keys = sorted(shard)
            self._install(self._shard_tag(tag_prefix, keys), shard, keys, external, tags)
        self.external_data, self.pte_data, self._tags = external, {}, tags
        self._lent.clear()
        self._changes += 1

    @staticmethod
    def _group_order(
        groups: dict[int, dict[str, DataEntry]],
    ) -> list[tuple[int, dict[str, DataEntry]]]:
        """The groups of keys sharing a buffer, in the order they are packed: key order, not
        size, decides the packing, so equal stores give equal shards (NDS-EXT-3)."""
        return sorted(groups.items(), key=lambda item: sorted(item[1]))

    @staticmethod
    def _starts_shard(current_bytes: int, size: int, cap: int) -> bool:
        """Whether a group of ``size`` bytes goes to a new shard after ``current_bytes``
        (NDS-EXT-3: greedy, past the cap only)."""
        return current_bytes + size > cap

    @staticmethod
    def _shard_tag(prefix: str, keys: list[str]) -> str:
        """A shard's tag: its keys' UTF-8, each NUL in a key written as the byte FF (which UTF-8
        never holds), joined by NUL and hashed, so no two key lists share one (NDS-EXT-4; for
        keys without NUL, ExecuTorch's tag; NDS-EXT-9)."""
        joined = b"\0".join(key.encode().replace(b"\0", b"\xff") for key in keys)
        return f"{prefix}_{hashlib.sha256(joined).hexdigest()}"

    def _install(
        self,
        tag: str,
        shard: dict[str, DataEntry],
        keys: list[str],
        external: _Maps,
        tags: dict[str, str | None],
    ) -> None:
        """Put one shard under ``tag`` in the staged ``external`` and ``tags``."""
        canonical = self._shard_entries(shard, keys)
        # NDS-EXT-6: another shard under the tag is a collision; NDS-EXT-7: the same one is not
        if external.get(tag, canonical) != canonical:
            raise ValueError(f"external data tag collision for {tag}")
        external[tag] = canonical
        tags.update(dict.fromkeys(keys, tag))

    @staticmethod
    def _shard_entries(shard: dict[str, DataEntry], keys: list[str]) -> dict[str, DataEntry]:
        """A shard's map of entries, in the order of ``keys``: sorted key order (NDS-EXT-4)."""
        return {key: shard[key] for key in keys}

    def _add(
        self, key: str, data: CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> None:
        # Every check and digest comes before the first change, so a failed add changes nothing
        # (NDS-ATOMIC-1); an interrupted one is undone (NDS-ATOMIC-2).
        if key in self._tags:
            old_tag = self._tags[key]
            mark = self._mark()
            changed = self._readd(key, data, alignment, tag, layout)
            if changed is not None:
                self._check_unchanged(mark, "add_named_data")  # NDS-MERGE-9: data's code ran
                self._unlend(old_tag)[key] = changed
                self._changes += 1
            return
        fingerprint = _fingerprint(data)
        index = start = len(self.buffers)
        state = self._fps.get(fingerprint, _ABSENT)
        if state is None:  # several buffers have the fingerprint: the digest index decides
            self._stage_new(key, data, alignment, tag, layout, fingerprint, None)
            return
        if state != _ABSENT:
            equal, digest = self._equal_to_lone(data, state)
            if not equal:  # a collision, or a file: settled by the stage
                self._stage_new(key, data, alignment, tag, layout, fingerprint, digest)
                return
            index = state
        # A new fingerprint, the common case (a new buffer, committed in four steps), or an
        # equal copy of the one buffer of a fingerprint (an entry, in two).
        entries = self.pte_data if tag is None else self.external_data.get(tag)
        entry = DataEntry(index, alignment, layout)  # NDS-ADD-7, NDS-ALIGN-1: this key's own
        try:
            if index == start:  # NDS-DEDUP-9: a new buffer goes at the end
                self.buffers.append(data)
                self._fps[fingerprint] = index
            if entries is not None:  # NDS-ADD-2: in pte_data or external_data[tag]
                entries[key] = entry
            else:  # a new tag: its map, made here
                assert tag is not None  # inline entries have their map always
                self.external_data[tag] = {key: entry}
            self._tags[key] = tag
        except BaseException:
            _undo(lambda: self._forget(start, fingerprint, key, tag, entries is None))
            raise

    def _stage_new(
        self,
        key: str,
        data: CordBuffer,
        alignment: int,
        tag: str | None,
        layout: object,
        fingerprint: _Fingerprint,
        digest: bytes | None,
    ) -> None:
        """Add a new key whose fingerprint a buffer has, through a stage (``_Stage.place_new``)."""
        stage = _Stage(self, "add_named_data")
        stage.place_new(key, data, alignment, tag, layout, fingerprint, digest)
        stage.commit()

    def _equal_to_lone(self, data: CordBuffer, lone: int) -> tuple[bool, bytes | None]:
        """The fast path of NDS-DEDUP-1 for a new key of plain ``bytes``: whether ``data`` is
        the buffer ``lone``, the only one of its fingerprint, or has its digest (NDS-DEDUP-2),
        with the digest of ``data`` if it was computed (NDS-DEDUP-8: kept, not computed again).
        Fast because an equal copy needs no stage: only its entry is written. Only for exact
        ``bytes``, whose reading runs no code of the caller's (NDS-MERGE-9); a file goes to the
        stage, which checks that the store did not change while it was read."""
        if type(data) is not bytes:
            return False, None
        if data is self.buffers[lone]:
            return True, None
        digest = hashlib.sha256(data).digest()
        return digest == self._buffer_digest(lone), digest

    def _forget(
        self, index: int, fingerprint: _Fingerprint, key: str, tag: str | None, created: bool
    ) -> None:
        """Undo an interrupted add: whatever of it was done (a buffer from ``index`` on, its
        fingerprint if it has that index, the entry and the key's tag)."""
        del self.buffers[index:]
        if self._fps.get(fingerprint) == index:
            del self._fps[fingerprint]
        self._tags.pop(key, None)
        if created and tag is not None:
            self.external_data.pop(tag, None)
        else:
            self._entries(tag).pop(key, None)

    def _entries(self, tag: str | None) -> dict[str, DataEntry]:
        return self.pte_data if tag is None else self.external_data[tag]

    def _unlend(self, tag: str | None) -> dict[str, DataEntry]:
        """The map of ``tag``, to replace an entry in: a copy of it first if an output reads it."""
        entries = self._entries(tag)
        if tag not in self._lent:
            return entries
        copy = dict(entries)
        if tag is None:
            self.pte_data = copy
        else:
            self.external_data[tag] = copy
        self._lent.discard(tag)
        return copy

    def _readd(
        self, key: str, data: CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> DataEntry | None:
        """A key already present: equal contents are accepted, anything else is a conflict.
        Returns the entry with its new alignment, or None when it stays as it is.

        NDS-KEY-2: equal contents keep the key's buffer; NDS-KEY-4: equal is length and digest;
        checked in the order of NDS-KEY-5: contents (NDS-KEY-3), place (NDS-KEY-5), layout
        (NDS-KEY-6), then the alignment combined (NDS-ALIGN-2). A merge's conflicts are these
        (NDS-MERGE-5)."""
        if isinstance(data, FileBackedData) and data.closed:
            # FBD-CLOSED-1: refused on every path, also as the very object ``key`` names, which
            # the identity test below would judge equal without the read that raises for others
            raise ValueError(f"I/O operation on closed FileBackedData ({data.path!r})")
        old_tag = self._tags[key]
        entry = self._entries(old_tag)[key]
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
                f"Duplicate key {shown(key)} is stored {_where(old_tag)}, not {_where(tag)}"
            )
        if layout != entry.tensor_layout:
            raise ValueError(
                f"Duplicate key {shown(key)} with a different tensor layout: "
                f"{shown(entry.tensor_layout)}, then {shown(layout)}"
            )
        combined = math.lcm(entry.alignment, alignment)  # NDS-ALIGN-2
        return None if combined == entry.alignment else replace(entry, alignment=combined)

    def _mark(self) -> tuple[int, int, int]:
        """The store's state, as far as a change to it shows: the numbers of buffers and keys,
        which only grow, and the count of the changes that keep them."""
        return len(self.buffers), len(self._tags), self._changes

    def _check_unchanged(self, mark: tuple[int, int, int], call: str) -> None:
        """NDS-MERGE-9: raise if the store changed since ``mark`` (code its input ran added to
        it), before the call changes anything: its staged indices and entries may be stale."""
        if self._mark() != mark:
            raise RuntimeError(
                f"the store changed while {call} read its input (code run by reading the input "
                "added to it); the call added nothing"
            )

    def _buffer_digest(self, index: int) -> bytes:
        """A stored buffer's digest, hashed once and kept (a cache: writing it changes nothing):
        NDS-DEDUP-4, NDS-DEDUP-12."""
        digest = self._digests.get(index)
        if digest is None:
            digest = self._digests[index] = _digest(self.buffers[index])
        return digest

    # --- the de-facto public surface production code reads (SPEC.md section 4.8) ---------------
    # NDS-SURFACE-2: ``buffers``, ``pte_data``, ``external_data`` are the attributes __init__
    # makes; NDS-SURFACE-3: ``NamedDataStoreOutput`` and ``DataEntry`` are the dataclasses above.

    class KeyToBufferIdx(Mapping[str, int]):
        """A live, read-only view: every key of the store, inline or external, to the index of
        its buffer (NDS-SURFACE-1); O(1) per lookup, as ExecuTorch's dict is."""

        def __init__(self, store: NamedDataStore) -> None:
            self._store = store

        def __getitem__(self, key: str) -> int:
            store = self._store
            return store._entries(store._tags[key])[key].buffer_index

        def __iter__(self) -> Iterator[str]:
            return iter(self._store._tags)

        def __len__(self) -> int:
            return len(self._store._tags)

        def __contains__(self, key: object) -> bool:
            return key in self._store._tags

    @property
    def key_to_buffer_idx(self) -> Mapping[str, int]:
        """NDS-SURFACE-1: which keys the store holds and where (ExecuTorch's CUDA weight collector
        tests ``key in store.key_to_buffer_idx`` before adding a weight)."""
        return NamedDataStore.KeyToBufferIdx(self)


class _Stage:
    """Additions to a store found without changing it, then committed in a few steps, each
    undone (idempotently) if the commit is interrupted: the store is as before or as after."""

    __slots__ = (
        "buffers",
        "call",
        "digests",
        "fps",
        "ids",
        "index",
        "maps",
        "mark",
        "old",
        "old_fps",
        "start",
        "store",
    )

    def __init__(self, store: NamedDataStore, call: str = "merge_named_data_store") -> None:
        self.store = store
        self.call = call
        self.start = len(store.buffers)
        self.buffers: list[CordBuffer] = []  # new buffers, at start, start + 1, ...
        self.fps: dict[_Fingerprint, int | None] = {}  # changes to store._fps
        self.old_fps: dict[_Fingerprint, int | None] = {}  # values before, of those it had
        self.index: dict[tuple[_Fingerprint, bytes], int] = {}  # of new buffers only
        self.ids: dict[int, int] = {}  # of new buffers only
        self.digests: dict[int, bytes] = {}  # of new buffers only
        self.maps: dict[str | None, dict[str, DataEntry]] = {}  # new and changed entries by tag
        self.old: dict[tuple[str | None, str], DataEntry] = {}  # changed entries as they were
        self.mark = store._mark()  # the store as staged against: checked before the commit

    def check_unchanged(self) -> None:
        """NDS-MERGE-9: the store is as it was when staging began, or RuntimeError."""
        self.store._check_unchanged(self.mark, self.call)

    def merge(self, other: NamedDataStoreOutput) -> None:
        """Stage every entry of ``other``, in replay order (``_maps``), map by map."""
        buffers, maps, checked = _maps(other)
        for where, size, pairs in maps:
            tag = _tag(where) if size else None  # checked once per map, as add would check it
            self._stage_map(tag, pairs, buffers, checked)

    def _stage_map(
        self, tag: str | None, pairs: _Pairs, buffers: Sequence[object], checked: bool
    ) -> None:
        """Stage the entries of one map of an output, as ``add`` would (NDS-MERGE-1), with the
        fast path of a merge inline: a new key of a ``bytes`` blob whose fingerprint the stage has
        not seen and no stored buffer has, or one stored buffer has (NDS-DEDUP-1/2). Fast because
        it is the usual case and costs a few dict look-ups in this loop: no call per entry, no
        digest unless a stored buffer of the fingerprint is another object, no identity or digest
        index. Anything else goes through ``add``."""
        tags, fps, sfps = self.store._tags, self.store._fps, self.fps
        stored, staged, start = self.store.buffers, self.buffers, self.start
        entries: dict[str, DataEntry] | None = None
        for key, entry in pairs:
            theirs = entry.buffer_index
            data = buffers[theirs]
            alignment = entry.alignment
            if (
                type(key) is str
                and type(data) is bytes
                and (checked or (type(alignment) is int and alignment > 0 and key.isascii()))
                and key not in tags
            ):
                fingerprint = (len(data), data[:FINGERPRINT_PREFIX])
                index: int | None = None
                if fingerprint not in sfps:
                    state = fps.get(fingerprint, _ABSENT)
                    if state == _ABSENT:
                        index = start + len(staged)
                        staged.append(data)
                        sfps[fingerprint] = index
                    elif state is not None:  # one stored buffer has the fingerprint
                        buffer = stored[state]
                        index = (
                            state
                            if buffer is data
                            else self._second(
                                fingerprint, state, buffer, data, hashlib.sha256(data).digest()
                            )
                        )
                if index is not None:
                    if theirs != index:  # else their entry, frozen, is ours too
                        entry = DataEntry(index, alignment, entry.tensor_layout)
                    if entries is None:
                        entries = self.maps.setdefault(tag, {})
                    entries[key] = entry
                    continue
            self.add(*_checked(key, data, alignment, tag), entry.tensor_layout)

    def add(
        self, key: str, data: CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> None:
        store = self.store
        if key not in store._tags:
            self.place_new(key, data, alignment, tag, layout, _fingerprint(data))
            return
        changed = store._readd(key, data, alignment, tag, layout)
        if changed is not None:
            where = store._tags[key]
            self.old[(where, key)] = store._entries(where)[key]
            self.maps.setdefault(where, {})[key] = changed

    def place_new(
        self,
        key: str,
        data: CordBuffer,
        alignment: int,
        tag: str | None,
        layout: object,
        fingerprint: _Fingerprint,
        digest: bytes | None = None,
    ) -> None:
        """Stage ``key``, not in the store, with the buffer equal to ``data`` or a new one
        (``digest``, if given, is the digest of ``data``, computed already)."""
        self.maps.setdefault(tag, {})[key] = DataEntry(
            self._place(data, fingerprint, digest), alignment, layout
        )

    def _place(self, data: CordBuffer, fingerprint: _Fingerprint, digest: bytes | None) -> int:
        state = self.fps.get(fingerprint, _ABSENT)
        if state == _ABSENT:
            state = self.store._fps.get(fingerprint, _ABSENT)
        if state == _ABSENT:
            index = self._new(data)
            self._set_fp(fingerprint, index)
            return index
        if state is not None:  # one buffer has this fingerprint
            buffer = self._buffer(state)
            if buffer is data:
                return state
            if digest is None:
                digest = _digest(data)
            return self._second(fingerprint, state, buffer, data, digest)
        found = self.ids.get(id(data))
        if found is None:
            found = self.store._ids.get(id(data))
        if found is not None and self._buffer(found) is data:  # NDS-DEDUP-5: the first object
            return found
        digest = _digest(data)  # not computed yet: an add computes it only for a lone buffer
        found = self.index.get((fingerprint, digest))
        if found is None:
            found = self.store._index.get((fingerprint, digest))
        if found is not None:
            return found
        index = self._new(data)
        self._index_buffer(fingerprint, digest, index, data)
        self.digests[index] = digest
        return index

    def _second(
        self,
        fingerprint: _Fingerprint,
        lone: int,
        buffer: CordBuffer,
        data: CordBuffer,
        digest: bytes,
    ) -> int:
        """``data``, of digest ``digest``, against ``buffer``, the one buffer of its fingerprint:
        the same index if equal, else a new buffer, and both go into the digest index.

        NDS-DEDUP-4: a fingerprint match confirmed by digests; NDS-DEDUP-7: empty blobs are one
        fingerprint, so they share a buffer unless a supplied digest differs."""
        known = self._digest(lone)
        if digest == known:
            return lone
        self._index_buffer(fingerprint, known, lone, buffer)
        self._set_fp(fingerprint, None)
        index = self._new(data)
        self._index_buffer(fingerprint, digest, index, data)
        self.digests[index] = digest
        return index

    def _new(self, data: CordBuffer) -> int:
        self.buffers.append(data)
        return self.start + len(self.buffers) - 1

    def _buffer(self, index: int) -> CordBuffer:
        start = self.start
        return self.store.buffers[index] if index < start else self.buffers[index - start]

    def _digest(self, index: int) -> bytes:
        if index < self.start:
            return self.store._buffer_digest(index)
        digest = self.digests.get(index)
        if digest is None:
            digest = self.digests[index] = _digest(self._buffer(index))
        return digest

    def _set_fp(self, fingerprint: _Fingerprint, state: int | None) -> None:
        fps = self.store._fps
        if fingerprint not in self.fps and fingerprint in fps:
            self.old_fps[fingerprint] = fps[fingerprint]
        self.fps[fingerprint] = state

    def _index_buffer(
        self, fingerprint: _Fingerprint, digest: bytes, index: int, buffer: CordBuffer
    ) -> None:
        if index < self.start:
            # An index entry for a stored buffer: harmless to write now, as it holds true.
            self.store._index[(fingerprint, digest)] = index
            self.store._ids[id(buffer)] = index
        else:
            self.index[(fingerprint, digest)] = index
            self.ids[id(buffer)] = index

    def commit(self) -> None:
        self.check_unchanged()
        store = self.store
        store._changes += 1
        try:
            store.buffers.extend(self.buffers)
            if self.digests:
                store._digests.update(self.digests)
            if self.index:  # with the ids of the new buffers that collided
                store._index.update(self.index)
                store._ids.update(self.ids)
            store._fps.update(self.fps)
            old = self.old
            for tag, entries in self.maps.items():
                if tag is not None and tag not in store.external_data:
                    store.external_data[tag] = entries  # the stage's own map, handed over
                elif old and any((tag, key) in old for key in entries):
                    store._unlend(tag).update(entries)
                elif tag is None and not store.pte_data:
                    store.pte_data = entries  # into an empty map: handed over, not copied
                    store._lent.discard(None)  # the new map is no output's
                else:
                    store._entries(tag).update(entries)
            for tag, entries in self.maps.items():
                if old:
                    store._tags.update({k: tag for k in entries if (tag, k) not in old})
                else:
                    store._tags.update(dict.fromkeys(entries, tag))
        except BaseException:  # NDS-ATOMIC-2: an interrupted commit is undone
            _undo(self._undo)
            raise

    def _undo(self) -> None:
        store = self.store
        del store.buffers[self.start :]
        for index in self.digests:
            store._digests.pop(index, None)
        for pair in self.index:
            store._index.pop(pair, None)
        for identity in self.ids:
            store._ids.pop(identity, None)
        for fingerprint in self.fps:
            if fingerprint in self.old_fps:
                store._fps[fingerprint] = self.old_fps[fingerprint]
            else:
                store._fps.pop(fingerprint, None)
        for tag, entries in self.maps.items():
            keys = list(entries)  # the store may hold ``entries`` itself, and lose keys below
            for key in keys:
                if (tag, key) not in self.old:
                    store._tags.pop(key, None)
            if tag is not None and tag not in store.external_data:
                continue
            target = store._entries(tag)
            for key in keys:
                old = self.old.get((tag, key))
                if old is not None:
                    target[key] = old
                else:
                    target.pop(key, None)
            if tag is not None and not target:
                del store.external_data[tag]

"""An executable model of the NamedDataStore semantics of spec section 4, for both profiles.

The plainest code that says what the spec says: a store is a list of buffers (their contents, as
``bytes``) and two maps of entries. There are no fingerprints, no lazy digests and no files: the
model is what the state machine (``conformance/suite/test_store_machine.py``) and the vectors
(``spec/vectors/``) compare an implementation with. It is written from the spec text alone and is
used by no implementation.

Where the spec leaves an outcome open in a profile (a key re-added under another place in core, a
merge that fails half-way in core, ...), a method returns an :class:`Unspecified` marker instead of
guessing, and leaves the model unchanged: the caller decides what to do next (the state machine
takes the implementation's state as the new model state, see :meth:`Model.from_output`; a vector
that reaches such a step is not a valid vector for that profile).

Identity (NDS-DEDUP-5, NDS-OUT-2, NDS-MERGE-8) is modelled by a ``label`` that names the object a
blob was added as; a buffer keeps the label of the blob stored first.
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeGuard, TypeVar

from ..profiles import PROFILES, Profile

__all__ = [
    "Blob",
    "Entry",
    "ExactValueError",
    "Model",
    "Output",
    "Profile",
    "Unspecified",
    "alignment_message",
    "clause_of",
    "duplicate_key_message",
    "shard_tag",
]

StepOutcome = type[Exception] | None
"""What a step does: None for success, else the type of exception it raises."""

FINGERPRINT_LENGTH = 32
"""Bytes of a fingerprint (section 1): only a supplied wrong digest makes them matter here."""


class ExactValueError(ValueError):
    """A ValueError whose message the spec fixes word for word (NDS-ADD-3, NDS-KEY-3)."""


E = TypeVar("E", bound=Exception)


def _because(clause: str, error: E) -> E:
    """``error``, marked as the one ``clause`` requires (read back by :func:`clause_of`)."""
    setattr(error, _CLAUSE_ATTRIBUTE, clause)
    return error


_CLAUSE_ATTRIBUTE = "cordspec_clause"


def clause_of(error: BaseException) -> str | None:
    """The clause that requires the model's ``error``, if it was marked with one."""
    found = getattr(error, _CLAUSE_ATTRIBUTE, None)
    return found if isinstance(found, str) else None


def duplicate_key_message(key: object, existing: int, new: int) -> str:
    """The message of NDS-KEY-3."""
    return (
        f"Duplicate key {key} with different data. Existing data size: {existing} bytes. "
        f"New data size: {new} bytes."
    )


def alignment_message(alignment: object) -> str:
    """The message of NDS-ADD-3."""
    return f"Alignment must be greater than 0, received {alignment}."


def shard_tag(tag_prefix: str, keys: list[str]) -> str:
    """The tag of an externalized shard holding ``keys`` (NDS-EXT-4; a NUL in a key written as the
    byte FF, NDS-EXT-9)."""
    joined = b"\0".join(key.encode("utf-8").replace(b"\0", b"\xff") for key in sorted(keys))
    return f"{tag_prefix}_{hashlib.sha256(joined).hexdigest()}"


@dataclass(frozen=True)
class Unspecified:
    """The spec leaves this step open in the model's profile.

    ``allowed`` lists the outcomes the spec still permits (None for success, else an exception
    type); the state after the step is whatever the implementation made it.
    """

    reason: str
    allowed: frozenset[StepOutcome]

    def permits(self, outcome: StepOutcome) -> bool:
        """Whether ``outcome`` is one the spec permits here (an exception type by subclass)."""
        if outcome is None:
            return None in self.allowed
        return any(t is not None and issubclass(outcome, t) for t in self.allowed)


@dataclass(frozen=True)
class Blob:
    """A blob as the store sees it: its contents, the object it is, a digest its caller supplied."""

    contents: bytes
    label: str | None = None
    """Which object this is (a vector's blob name); None when identity does not matter."""
    digest: bytes | None = None
    """A digest supplied with a file-backed blob (trusted, NDS-DEDUP-10); None: the true one."""

    @property
    def sha256(self) -> bytes:
        """The blob's digest: the supplied one if any (FBD-MOVE-7), else that of the contents."""
        return self.digest if self.digest is not None else hashlib.sha256(self.contents).digest()


@dataclass(frozen=True)
class Entry:
    """A key's entry: ``DataEntry(buffer_index, alignment, tensor_layout)``."""

    buffer: int
    alignment: int
    layout: object = None


@dataclass(frozen=True)
class Output:
    """A store's contents at one moment (``NamedDataStoreOutput``), deeply copied."""

    blobs: tuple[Blob, ...]
    pte: dict[str, Entry]
    external: dict[str, dict[str, Entry]]

    @property
    def buffers(self) -> list[bytes]:
        """The buffers' contents, in first-added order."""
        return [blob.contents for blob in self.blobs]

    def entries(self) -> Iterator[tuple[str, str | None, Entry]]:
        """(key, tag or None, entry) in merge order: inline, then each tag's (NDS-MERGE-1)."""
        for key, entry in self.pte.items():
            yield key, None, entry
        for tag, entries in self.external.items():
            for key, entry in entries.items():
                yield key, tag, entry


def _place(tag: str | None) -> str:
    return "inline data" if tag is None else f"external tag {tag!r}"


def _same_for_key(old: Blob, new: Blob) -> bool:
    """Key equality (NDS-KEY-4): length and digest."""
    return len(old.contents) == len(new.contents) and old.sha256 == new.sha256


def _same_for_dedup(old: Blob, new: Blob) -> bool:
    """Buffer sharing (NDS-DEDUP-1 to -4, -10): equal contents. With a supplied wrong digest, the
    spec's two levels decide: equal fingerprints (length, first 32 bytes) and equal digests."""
    return (
        len(old.contents) == len(new.contents)
        and old.contents[:FINGERPRINT_LENGTH] == new.contents[:FINGERPRINT_LENGTH]
        and old.sha256 == new.sha256
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class Model:
    """One NamedDataStore, as the spec defines it in ``profile``."""

    profile: Profile
    blobs: list[Blob] = field(default_factory=list)
    pte: dict[str, Entry] = field(default_factory=dict)
    external: dict[str, dict[str, Entry]] = field(default_factory=dict)
    version: int = 0
    """Counts the changes of state; an output is current while it is unchanged."""

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}")

    # -- reading -----------------------------------------------------------------------------

    def output(self) -> Output:
        """``get_named_data_store_output()``: a snapshot, with no empty tag map (NDS-OUT-1)."""
        return Output(
            tuple(self.blobs),
            dict(self.pte),
            {tag: dict(entries) for tag, entries in self.external.items() if entries},
        )

    def lookup(self, key: str) -> tuple[str | None, Entry] | None:
        """(tag or None, entry) of ``key``, or None when absent."""
        if key in self.pte:
            return None, self.pte[key]
        for tag, entries in self.external.items():
            if key in entries:
                return tag, entries[key]
        return None

    @classmethod
    def from_output(cls, profile: Profile, output: Output) -> Model:
        """A model whose state is ``output`` (to go on after an unspecified step)."""
        return cls(
            profile,
            list(output.blobs),
            dict(output.pte),
            {tag: dict(entries) for tag, entries in output.external.items()},
        )

    # -- adding ------------------------------------------------------------------------------

    def _unspecified(self, reason: str, *allowed: StepOutcome) -> Unspecified:
        return Unspecified(f"{reason} ({self.profile} profile)", frozenset(allowed))

    def _argument_errors(
        self, key: object, contents: object, alignment: object, tag: object
    ) -> tuple[list[Exception], list[Unspecified]]:
        """The errors the spec requires for these arguments, and the checks it leaves open."""
        strict = self.profile == "strict"
        errors: list[Exception] = []
        open_: list[Unspecified] = []
        if not isinstance(contents, bytes):  # NDS-ADD-1
            errors.append(
                _because(
                    "NDS-ADD-1",
                    TypeError(f"unsupported named data type: {type(contents).__name__}"),
                )
            )
        if alignment is not None and not _is_int(alignment):
            if strict:  # NDS-ADD-5
                errors.append(
                    _because("NDS-ADD-5", TypeError(f"alignment must be an int, not {alignment!r}"))
                )
            else:
                open_.append(self._unspecified("alignment of another type", None, TypeError))
        elif alignment is not None and isinstance(alignment, int) and alignment <= 0:
            errors.append(_because("NDS-ADD-3", ExactValueError(alignment_message(alignment))))
        if not isinstance(key, str):
            if strict:  # NDS-ADD-6
                errors.append(_because("NDS-ADD-6", TypeError(f"key must be a str, not {key!r}")))
            else:
                open_.append(self._unspecified("key of another type", None, TypeError))
        if tag is not None and not isinstance(tag, str):
            if strict:  # NDS-ADD-6
                errors.append(
                    _because(
                        "NDS-ADD-6", TypeError(f"external tag must be a str or None, not {tag!r}")
                    )
                )
            else:
                open_.append(self._unspecified("tag of another type", None, TypeError))
        elif tag == "":
            if strict:  # NDS-ADD-6
                errors.append(_because("NDS-ADD-6", ValueError("external tag must not be empty")))
            else:
                open_.append(self._unspecified("empty tag", None, ValueError))
        return errors, open_

    def add(
        self,
        key: object,
        contents: object,
        alignment: object = 1,
        tag: object = None,
        layout: object = None,
        *,
        label: str | None = None,
        digest: bytes | None = None,
    ) -> Unspecified | None:
        """``add_named_data(key, data, alignment, external_tag, tensor_layout)``.

        ``contents`` is the data's bytes (whatever its representation), or an object of another
        type; ``label`` names the object, ``digest`` is a supplied digest. Returns None on success,
        raises the type of exception the spec requires (leaving the model unchanged), or returns
        :class:`Unspecified` (leaving the model unchanged).
        """
        errors, open_ = self._argument_errors(key, contents, alignment, tag)
        kinds = {type(e) if not isinstance(e, ValueError) else ValueError for e in errors}
        if len(kinds) > 1:  # the spec does not say which check comes first
            return self._unspecified("several argument errors", *kinds)
        if errors and not open_:
            raise errors[0]
        if open_:
            allowed = {o for u in open_ for o in u.allowed} | kinds
            if errors:
                allowed.discard(None)
            return self._unspecified("; ".join(u.reason for u in open_), *allowed)
        assert isinstance(key, str) and isinstance(contents, bytes)
        assert tag is None or isinstance(tag, str)
        return self._add(key, Blob(contents, label, digest), _alignment(alignment), tag, layout)

    def _add(
        self, key: str, blob: Blob, alignment: int, tag: str | None, layout: object
    ) -> Unspecified | None:
        strict = self.profile == "strict"
        found = self.lookup(key)
        if found is not None:
            place, entry = found
            old = self.blobs[entry.buffer]
            if not _same_for_key(old, blob):  # NDS-KEY-3
                raise _because(
                    "NDS-KEY-3",
                    ExactValueError(
                        duplicate_key_message(key, len(old.contents), len(blob.contents))
                    ),
                )
            if place != tag:  # NDS-KEY-5
                if strict:
                    raise _because(
                        "NDS-KEY-5",
                        ValueError(
                            f"key {key!r} is already in {_place(place)}, "
                            f"cannot add it to {_place(tag)}"
                        ),
                    )
                return self._unspecified("equal key re-added under another place", None, ValueError)
            if layout != entry.layout:  # NDS-KEY-6
                if strict:
                    raise _because(
                        "NDS-KEY-6",
                        ValueError(f"key {key!r} is already present with another tensor layout"),
                    )
                return self._unspecified("equal key re-added with another layout", None, ValueError)
            if alignment != entry.alignment:  # NDS-ALIGN-2 (strict); core keeps NDS-KEY-2 only
                if not strict:
                    return self._unspecified("equal key re-added with another alignment", None)
                self._entries(tag)[key] = Entry(
                    entry.buffer, math.lcm(entry.alignment, alignment), entry.layout
                )
                self.version += 1
            return None  # NDS-KEY-2: nothing else changes
        index = next(  # NDS-DEDUP-1, -2, -5, -6, -7, -10: the first equal buffer is shared
            (i for i, old in enumerate(self.blobs) if _same_for_dedup(old, blob)), None
        )
        if index is None:
            index = len(self.blobs)
            self.blobs.append(blob)  # NDS-DEDUP-9: first-added order
        self._entries(tag)[key] = Entry(index, alignment, layout)  # NDS-ADD-2, -4, -7, ALIGN-1
        self.version += 1
        return None

    def _entries(self, tag: str | None) -> dict[str, Entry]:
        if tag is None:
            return self.pte
        return self.external.setdefault(tag, {})

    # -- merging -----------------------------------------------------------------------------

    def merge(self, other: Output) -> Unspecified | None:
        """``merge_named_data_store(other)``: a replay of ``other``'s entries (NDS-MERGE-1).

        Strict: atomic (NDS-MERGE-6): when an entry raises, the model is left as it was and the
        error is raised. Core: the error is raised too (NDS-MERGE-5), but what the target keeps
        when something was already added before the failing entry is unspecified.
        """
        problem = _malformed(other)
        if problem is not None:  # NDS-MERGE-7
            if self.profile == "strict":
                raise _because("NDS-MERGE-7", ValueError(problem))
            return self._unspecified(f"malformed output: {problem}", None, ValueError, IndexError)
        work = copy.deepcopy(self)
        first_error: Exception | None = None
        open_: list[Unspecified] = []
        for key, tag, entry in other.entries():
            try:
                result = work._add(
                    key, other.blobs[entry.buffer], entry.alignment, tag, entry.layout
                )
            except (ValueError, TypeError) as exc:
                first_error = exc
                break
            if result is not None:
                open_.append(result)
        if first_error is not None:
            if open_:
                return self._unspecified(
                    "merge raising after an unspecified entry", _kind(first_error)
                )
            if self.profile == "core" and work.version != self.version:
                return self._unspecified("merge failing half-way", _kind(first_error))
            raise first_error
        if open_:
            allowed = {o for u in open_ for o in u.allowed}
            return self._unspecified("; ".join(sorted({u.reason for u in open_})), *allowed)
        if work.version != self.version:
            self.blobs, self.pte, self.external = work.blobs, work.pte, work.external
            self.version += 1
        return None

    # -- externalizing -----------------------------------------------------------------------

    def externalize(self, max_data_bytes: object, tag_prefix: object) -> Unspecified | None:
        """``externalize_pte_data(max_data_bytes, tag_prefix)`` (NDS-EXT-1 to -8)."""
        if not _is_int(max_data_bytes) or max_data_bytes <= 0:  # NDS-EXT-1
            raise _because(
                "NDS-EXT-1",
                ValueError(f"max_data_bytes must be a positive int, not {max_data_bytes!r}"),
            )
        if not isinstance(tag_prefix, str):
            if self.profile == "strict":  # NDS-EXT-8
                raise _because(
                    "NDS-EXT-8", ValueError(f"tag_prefix must be a str, not {tag_prefix!r}")
                )
            return self._unspecified("tag prefix of another type", None, ValueError)
        if not tag_prefix:  # NDS-EXT-1
            raise _because("NDS-EXT-1", ValueError("tag_prefix must not be empty"))
        groups: dict[int, list[str]] = {}  # NDS-EXT-3: inline keys grouped by buffer
        for key, entry in self.pte.items():
            groups.setdefault(entry.buffer, []).append(key)
        shards: list[list[str]] = []
        size = 0
        for index, keys in sorted(groups.items(), key=lambda group: sorted(group[1])):
            length = len(self.blobs[index].contents)
            if length > max_data_bytes:  # NDS-EXT-5
                raise _because(
                    "NDS-EXT-5",
                    ValueError(
                        f"buffer {index} has {length} bytes and exceeds external data shard cap "
                        f"{max_data_bytes}"
                    ),
                )
            if shards and shards[-1] and size + length > max_data_bytes:
                shards.append([])
                size = 0
            if not shards:
                shards.append([])
            shards[-1].extend(keys)
            size += length
        external = {tag: dict(entries) for tag, entries in self.external.items()}
        for keys in shards:
            tag = shard_tag(tag_prefix, keys)  # NDS-EXT-4
            entries = {key: self.pte[key] for key in sorted(keys)}
            if tag in external and external[tag] != entries:  # NDS-EXT-6
                raise _because("NDS-EXT-6", ValueError(f"external data tag collision for {tag}"))
            external[tag] = entries
        if self.pte:  # NDS-EXT-2; NDS-EXT-7: a second call finds nothing inline
            self.external, self.pte = external, {}
            self.version += 1
        return None


def _alignment(alignment: object) -> int:
    """NDS-ADD-3: None means 1 (the value is already checked)."""
    if alignment is None:
        return 1
    assert isinstance(alignment, int)
    return alignment


def _malformed(other: Output) -> str | None:
    """What makes a hand-made output malformed (NDS-MERGE-7), or None."""
    seen: set[str] = set()
    for key, _, entry in other.entries():
        if key in seen:
            return f"key {key!r} is present in two places"
        seen.add(key)
        if not _is_int(entry.buffer) or not 0 <= entry.buffer < len(other.blobs):
            return f"key {key!r} has buffer index {entry.buffer!r}, not one of the output's buffers"
    return None


def _kind(error: Exception) -> type[Exception]:
    return ValueError if isinstance(error, ValueError) else type(error)

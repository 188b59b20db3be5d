"""What several mutants share: reference classes cut into steps a mutant can break one at a time.

Nothing here is broken. ``tests/test_mutants.py`` runs the suite against ``CONTROL`` (these classes
put together, unchanged) and requires it to pass, so that a mutant's failure is its own break's.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import reference
from conformance.adapters import reference as reference_adapter
from conformance.api import Lowering
from reference import hooks
from reference.file_backed import (
    PLACEHOLDER_PREFIX,
    PLACEHOLDER_SUFFIX,
    FileChangedError,
    _identity_of,
    _owner_tag,
    _unlink_quietly,
)
from reference.named_data import _digest, _where

__all__ = ["LowMemory", "LowMemoryBackend", "ProbeLowering", "StepwiseMove", "Store", "Weights"]

T = TypeVar("T")
CopyHook = Callable[[object, Sequence[object]], object]


class StepwiseMove(reference.FileBackedData):
    """The reference's ``move_from`` (its checks, the deferral of interrupts and the held
    descriptor are inherited), with making the placeholder, the rename, the clean-up after a failed
    rename and the clean-up after a failure past it as steps a mutant can override."""

    cleanup_on: type[BaseException] = BaseException
    """What the clean-up after a failed rename catches."""

    @classmethod
    def _move_held(
        cls, source: str, identity: tuple[int, int], digest: bytes | None, held: int
    ) -> reference.FileBackedData:
        placeholder = cls._placeholder(source)
        try:
            cls._take(source, placeholder)
        except cls.cleanup_on:
            cls._undo(source, placeholder, identity)
            raise
        try:
            moved = os.lstat(placeholder)
            if (moved.st_dev, moved.st_ino) != identity:
                raise FileChangedError(
                    errno.ESTALE, "the source was replaced while it was being moved", source
                )
            result = cls.__new__(cls)
            result._init(placeholder, moved, digest, owner=True, fd=held)
        except BaseException:
            cls._put_back(source, placeholder)
            raise
        return result

    @staticmethod
    def _placeholder(source: str) -> str:
        """Make an empty placeholder beside ``source``; return its path."""
        fd, placeholder = tempfile.mkstemp(
            prefix=f"{PLACEHOLDER_PREFIX}{_owner_tag()}_",
            suffix=PLACEHOLDER_SUFFIX,
            dir=os.path.dirname(source) or os.curdir,
        )
        os.close(fd)
        return placeholder

    @staticmethod
    def _take(source: str, placeholder: str) -> None:
        """Put the source file at the placeholder's path."""
        os.replace(source, placeholder)

    @staticmethod
    def _undo(source: str, placeholder: str, identity: tuple[int, int]) -> None:
        """After a failed or interrupted ``_take``: the source back, no placeholder left."""
        if _identity_of(placeholder) == identity:
            os.replace(placeholder, source)
        else:
            _unlink_quietly(placeholder)

    @staticmethod
    def _put_back(source: str, placeholder: str) -> None:
        """After a failure past the rename: the placeholder, which holds the data, back."""
        os.replace(placeholder, source)


class Store(reference.NamedDataStore):
    """The reference store, as the class a store mutant overrides steps of (``_add``,
    ``_readd``, ``_buffer_digest``, ``merge_named_data_store``, ...); re-adding a key and
    externalizing are cut into steps a mutant can override. Merges re-add through ``_readd`` too."""

    def _readd(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> Any:
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
        if self._other_place(old_tag, tag):
            raise ValueError(
                f"Duplicate key {key!r} is stored {_where(old_tag)}, not {_where(tag)}"
            )
        if self._other_layout(entry.tensor_layout, layout):
            raise ValueError(
                f"Duplicate key {key!r} with a different tensor layout: "
                f"{entry.tensor_layout!r}, then {layout!r}"
            )
        combined = self._combined_alignment(entry.alignment, alignment)
        return (
            None if combined == entry.alignment else dataclasses.replace(entry, alignment=combined)
        )

    @staticmethod
    def _other_place(old_tag: str | None, tag: str | None) -> bool:
        """Whether a re-added key names another place than the one it is stored in."""
        return tag != old_tag

    @staticmethod
    def _other_layout(old: object, new: object) -> bool:
        return bool(new != old)

    @staticmethod
    def _combined_alignment(old: int, new: int) -> int:
        return math.lcm(old, new)

    def externalize_pte_data(self, max_data_bytes: int, tag_prefix: str) -> None:
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
        groups: dict[int, dict[str, Any]] = {}
        for key, entry in self.pte_data.items():
            groups.setdefault(entry.buffer_index, {})[key] = entry
        shards: list[dict[str, Any]] = []
        current: dict[str, Any] = {}
        current_bytes = 0
        for index, entries in self._group_order(groups):
            size = len(self.buffers[index])
            if size > max_data_bytes:
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
        external = {tag: dict(entries) for tag, entries in self.external_data.items()}
        tags = dict(self._tags)
        for shard in shards:
            keys = sorted(shard)
            self._install(self._shard_tag(tag_prefix, keys), shard, keys, external, tags)
        self.external_data, self.pte_data, self._tags = external, {}, tags
        self._lent.clear()

    @staticmethod
    def _group_order(groups: dict[int, dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
        """The groups of keys sharing a buffer, in the order they are packed."""
        return sorted(groups.items(), key=lambda item: sorted(item[1]))

    @staticmethod
    def _starts_shard(current_bytes: int, size: int, cap: int) -> bool:
        """Whether a group of ``size`` bytes goes to a new shard after ``current_bytes``."""
        return current_bytes + size > cap

    @staticmethod
    def _shard_tag(prefix: str, keys: list[str]) -> str:
        return f"{prefix}_{hashlib.sha256(chr(0).join(keys).encode()).hexdigest()}"

    def _install(
        self,
        tag: str,
        shard: dict[str, Any],
        keys: list[str],
        external: dict[str, dict[str, Any]],
        tags: dict[str, str | None],
    ) -> None:
        """Put one shard under ``tag`` in the staged ``external`` and ``tags``."""
        canonical = {key: shard[key] for key in keys}
        if external.get(tag, canonical) != canonical:
            raise ValueError(f"external data tag collision for {tag}")
        external[tag] = canonical
        tags.update(dict.fromkeys(keys, tag))


class ProbeLowering:
    """The reference adapter's lowering, with the copy hook a test passes changed on its way
    by ``hook_for`` (given the hook, or None for the default, and the submodules' spec lists)."""

    def __init__(
        self, hook_for: Callable[[CopyHook | None, list[Sequence[object]]], CopyHook | None]
    ) -> None:
        self._inner: Lowering = reference_adapter.load().lowering  # type: ignore[assignment]  # Optional in Implementation, always set by the reference
        self._hook_for = hook_for

    def compile_spec(self, key: str, value: bytes) -> object:
        return self._inner.compile_spec(key, value)

    def default_copy(self, program: T, compile_specs: Sequence[object]) -> T:
        return self._inner.default_copy(program, compile_specs)

    def lower(
        self,
        submodules: Any,
        copy_hook: CopyHook | None,
        preprocess: Callable[[object, Sequence[object]], None],
    ) -> None:
        specs = [s for subs in submodules.values() for _, s in subs]
        self._inner.lower(submodules, self._hook_for(copy_hook, specs), preprocess)


class Weights:
    """The default weights hooks of the adapter, for any ``AotiBackend`` subclass."""

    def __init__(self, backend: type[hooks.AotiBackend] = hooks.AotiBackend) -> None:
        self.backend = backend

    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T:
        return self.backend.materialize_weights_blob(paths, compile_specs)  # type: ignore[arg-type]  # specs are the reference's CompileSpec

    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]:
        return self.backend.load_weights_blob(blob_path, compile_specs)  # type: ignore[arg-type]  # specs are the reference's CompileSpec

    def store(self, blob_path: str, store: Any) -> str:
        return self.backend.store_weights_blob(blob_path, (), store)


_LOW_MEMORY = (hooks.CompileSpec(hooks.LOW_MEMORY_MODE, b"ON"),)


class LowMemoryBackend(hooks.FileBackedAotiBackend):
    """The reference's low-memory backend, taking the blob over with ``blob_class.move_from``,
    with the choice of the digest handed on from ``materialize_weights_blob`` as a step."""

    blob_class: type[reference.FileBackedData] = reference.FileBackedData

    @classmethod
    def load_weights_blob(
        cls, blob_path: str, compile_specs: Sequence[hooks.CompileSpec]
    ) -> tuple[hooks.CordBuffer, str]:
        if not hooks.is_low_memory_mode(compile_specs):
            return super().load_weights_blob(blob_path, compile_specs)
        data = cls.blob_class.move_from(blob_path, sha256=cls._handed_digest(blob_path))
        return data, data.sha256().hex()

    @staticmethod
    def _handed_digest(blob_path: str) -> bytes | None:
        """The digest ``materialize_weights_blob`` computed, while the blob is still that file."""
        if isinstance(blob_path, hooks.WeightsBlobPath):
            return blob_path.digest_if_unchanged()
        return None


class LowMemory:
    """The adapter's low-memory weights, for any ``FileBackedAotiBackend`` subclass."""

    def __init__(self, backend: type[hooks.FileBackedAotiBackend] = LowMemoryBackend) -> None:
        self.backend = backend

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        paths = self.backend.materialize_weights_blob([so_path, hooks.Weights(chunks)], _LOW_MEMORY)
        return next(p for p in paths if isinstance(p, hooks.WeightsBlobPath))

    def load(self, blob_path: str) -> tuple[object, str]:
        return self.backend.load_weights_blob(blob_path, _LOW_MEMORY)

    def mode(self, values: Sequence[bytes]) -> bool:
        return hooks.is_low_memory_mode(hooks.CompileSpec(hooks.LOW_MEMORY_MODE, v) for v in values)

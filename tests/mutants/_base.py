"""What several mutants share: reference classes cut into steps a mutant can break one at a time
(the reference cuts ``move_from`` and ``externalize_pte_data`` into such steps itself).

Nothing here is broken. ``tests/test_mutants.py`` runs the suite against ``CONTROL`` (these classes
put together, unchanged) and requires it to pass, so that a mutant's failure is its own break's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

import reference
from conformance.adapters import reference as reference_adapter
from conformance.api import Lowering
from reference import hooks
from reference.cord import CordBuffer
from reference.location import Location

__all__ = [
    "BlobWritten",
    "KeysJoined",
    "LowMemory",
    "LowMemoryBackend",
    "Owners",
    "ProbeLowering",
    "ReaddTaken",
    "Store",
    "SwappedIn",
    "Weights",
    "handed_digest_if",
    "stored_buffer",
    "written_at_the_end",
]

T = TypeVar("T")
CopyHook = Callable[[object, Sequence[object]], object]


InitArguments = tuple[str, os.stat_result, bytes | None, bool, Location]
"""What the reference's ``FileBackedData._init`` is given: path, stat, digest, owner, location."""


class Owners(reference.FileBackedData):
    """The reference's ``FileBackedData`` with ``_init`` cut into steps: the arguments the
    reference is given (where a mutant drops a digest or ownership), a step run once the reference
    has recorded the file (where a mutant records more of it), and a step run on each object asked
    to own its file (where a mutant changes how owners are registered or released)."""

    def _init(
        self,
        path: str,
        st: os.stat_result,
        digest: bytes | None,
        owner: bool,
        location: Location,
    ) -> None:
        super()._init(*self._arguments((path, st, digest, owner, location)))
        self._recorded(st)
        if owner:
            self._made_owner()

    def _arguments(self, given: InitArguments) -> InitArguments:
        """The arguments of the reference's ``_init``: those given."""
        return given

    def _recorded(self, st: os.stat_result) -> None:
        """Run once the reference's ``_init`` has recorded the file ``st`` describes."""

    def _made_owner(self) -> None:
        """Run on an object just made the owner of its file (by ``move_from`` or ``__init__``)."""


class SwappedIn(reference.FileBackedData):
    """The reference's ``FileBackedData`` that runs ``_swap_in`` before each construction or
    move: where a mutant puts its broken piece into the reference's modules, so that only a process
    that uses the mutant has it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._swap_in()
        super().__init__(*args, **kwargs)

    @classmethod
    def move_from(cls, *args: Any, **kwargs: Any) -> reference.FileBackedData:
        cls._swap_in()
        return super().move_from(*args, **kwargs)

    @staticmethod
    def _swap_in() -> None:
        """Put the mutant's piece in place (again, where something may have undone it)."""


class Store(reference.NamedDataStore):
    """The reference store, as the class a store mutant overrides steps of (``_add``,
    ``_readd``, ``_buffer_digest``, ``merge_named_data_store``, the steps of
    ``externalize_pte_data``, ...), with re-adding a key cut into steps a mutant can override.
    Merges re-add through ``_readd`` too."""

    def _readd(self, key: str, data: Any, alignment: int, tag: str | None, layout: object) -> Any:
        """The reference's re-add, which checks the contents, with its rules for the place, the
        layout and the alignment as steps: where a step finds no other place (or layout), the
        stored one is what the reference is given to check, and the steps combine the alignment."""
        old_tag = self._tags[key]
        entry = self._entries(old_tag)[key]
        old_layout = entry.tensor_layout
        place = tag if self._other_place(old_tag, tag) else old_tag
        shape = layout if self._other_layout(old_layout, layout) else old_layout
        super()._readd(key, data, entry.alignment, place, shape)
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


class ReaddTaken(reference.NamedDataStore):
    """The reference store with a step that takes a re-add as what is stored already
    (``_taken_as_stored``): such an add changes nothing, and none of the reference's checks run."""

    def add_named_data(self, key: str, data: Any, *args: Any, **kwargs: Any) -> None:
        if not self._taken_as_stored(key, data):
            super().add_named_data(key, data, *args, **kwargs)

    def _taken_as_stored(self, key: object, data: object) -> bool:
        """Whether adding ``data`` under ``key`` is taken, unchecked, as what is stored: never."""
        return False


class KeysJoined(Store):
    """The store whose ``_shard_tag`` hashes a shard's keys joined by ``separator`` as they are,
    not with the reference's escape of NUL in a key."""

    separator: ClassVar[str]

    @classmethod
    def _shard_tag(cls, prefix: str, keys: list[str]) -> str:
        return f"{prefix}_{hashlib.sha256(cls.separator.join(keys).encode()).hexdigest()}"


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
    with the choice of the digest handed on from ``materialize_weights_blob`` as a step
    (``_handed_digest``), and how the blob is written as another (``_blob``)."""


class BlobWritten(LowMemoryBackend):
    """The low-memory backend with a step run on each blob path ``materialize_weights_blob``
    hands on (``_written``): where a mutant changes the blob once the reference has written it."""

    @classmethod
    def materialize_weights_blob(cls, paths: T, compile_specs: Sequence[hooks.CompileSpec]) -> T:
        written = super().materialize_weights_blob(paths, compile_specs)
        if not isinstance(written, list):
            return written  # type: ignore[return-value]  # the paths given, handed back
        out = [cls._written(p) if isinstance(p, hooks.WeightsBlobPath) else p for p in written]
        return out  # type: ignore[return-value]  # T is a list here

    @staticmethod
    def _written(path: hooks.WeightsBlobPath) -> hooks.WeightsBlobPath:
        """The blob path to hand on for the blob the reference wrote at ``path``: that one."""
        return path


def handed_digest_if(
    blob_path: str, same: Callable[[os.stat_result, tuple[int, int, int, int]], bool]
) -> bytes | None:
    """The digest a ``WeightsBlobPath`` carries, while ``same`` judges the file at it now (its
    stat) to be the one hashed (its stamp: device, inode, size, ``st_mtime_ns``); else None, as for
    a plain path or a file gone."""
    if not isinstance(blob_path, hooks.WeightsBlobPath):
        return None
    try:
        st = os.stat(blob_path)
    except OSError:
        return None
    return blob_path.sha256 if same(st, blob_path._stamp) else None


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


def stored_buffer(store: reference.NamedDataStore, key: object) -> CordBuffer | None:
    """The buffer ``store`` holds under ``key``, inline or under any tag; None for none."""
    out = store.get_named_data_store_output()
    maps = [out.pte_data, *out.external_data.values()]
    entry = next((m[key] for m in maps if isinstance(key, str) and key in m), None)
    return None if entry is None else out.buffers[entry.buffer_index]


def written_at_the_end(base: type[T]) -> type[T]:
    """``base`` (a class with ``write_to_file``) whose write into an ``io.BytesIO`` starts at its
    end, not at its position: a fast path that builds on what the buffer holds."""

    class AtTheEnd(base):
        def write_to_file(self, outfile: Any) -> None:
            if type(outfile) is io.BytesIO:
                outfile.seek(0, io.SEEK_END)
            super().write_to_file(outfile)

    AtTheEnd.__name__ = AtTheEnd.__qualname__ = base.__name__
    return AtTheEnd

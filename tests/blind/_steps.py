"""The reference's classes with one step of theirs made a method of its own, so that a broken port
overrides only the step it gets wrong: where the reference's step is inline, a port that changes
one line of it would otherwise restate the rest."""

from __future__ import annotations

import errno
import functools
import io
import os
import stat
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import reference
from reference import hooks
from reference.file_backed import check_writable, write_all
from reference.location import FileChangedError, Identity, Location
from reference.named_data import DataEntry
from reference.ownership import _remove_if_same, _unregister
from reference.verified_reader import _os_file, _VerifiedReader

Arguments = tuple[object, object, object, object]
"""``add_named_data``'s key, data, alignment and tag, before any check."""
Compared = tuple[reference.CordBuffer, str | None, object]
"""What a re-added key's data, tag and layout are compared as."""
Copy = Callable[[type[hooks.BackendDetails], hooks.Submodule, Sequence[hooks.Submodule]], object]
"""A lowering's copy of one submodule (``sub``, one of its method's ``subs``) for ``backend``."""


@functools.cache
def _location_opening_with(flags: int) -> type[Location]:
    """A ``Location`` whose file is opened with ``flags``, one class for each set of flags."""

    class FlaggedLocation(Location):
        def open_in(self, directory: int, identity: Identity) -> tuple[int, os.stat_result]:
            fd = os.open(self.name, flags, dir_fd=directory)
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != identity[:2]:
                os.close(fd)
                raise FileChangedError(errno.ESTALE, "the file was replaced", self.path)
            return fd, st

    return FlaggedLocation


class OpeningWith(reference.FileBackedData):
    """The reference's ``FileBackedData`` opening its file with ``open_flags`` (the reference's own
    flags are a constant), then checking it with ``fstat`` as the reference does."""

    open_flags: int

    def _open(self, directory: int | None = None) -> _VerifiedReader:
        location = _location_opening_with(self.open_flags)(*self._location)
        return _VerifiedReader(location, self._identity, self._size)


class PathsThrough(reference.FileBackedData):
    """The reference's ``FileBackedData`` whose constructor and ``move_from`` both take the path
    as ``_taken`` gives it: a port's own reading of a path, before any of the reference's checks
    (the reference takes the path as it is given)."""

    def __init__(self, path: Any, cleanup: Any = False, sha256: Any = None) -> None:
        super().__init__(self._taken(path), cleanup, sha256)

    @classmethod
    def move_from(cls, path: Any, sha256: Any = None) -> reference.FileBackedData:
        return super().move_from(cls._taken(path), sha256)

    @staticmethod
    def _taken(path: object) -> object:
        return path


class ReleasingOnClose(reference.FileBackedData):
    """The reference's ``FileBackedData`` whose ``close()`` removes an owned file by ``_release``
    (the reference's: in the owning process only, and only the very file it recorded)."""

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._owner:
                self._release()
                self._disown()  # then as the reference: finalizer detached, unregistered
            self._closed = True

    def _release(self) -> None:
        if os.getpid() == self._pid:
            _remove_if_same(self._location, self._identity)


class StreamingThrough(reference.FileBackedData):
    """The reference's ``FileBackedData`` writing into an output that is neither a file from
    ``open()`` nor an ``io.BytesIO`` chunk by chunk through ``_write_chunk`` (the reference's:
    ``write_all``, which loops over short writes)."""

    def write_to_file(self, outfile: object) -> None:
        check_writable(outfile)
        self._check_open()
        with self._open() as reader:
            if _os_file(outfile) is not None or type(outfile) is io.BytesIO:
                reader.write_to(outfile)
            else:
                reader.stream(lambda chunk: self._write_chunk(outfile, chunk))

    def _write_chunk(self, outfile: object, chunk: memoryview) -> None:
        write_all(outfile, chunk)


def _release(remove: Callable[..., object], pid: int, identity: Identity, *args: object) -> None:
    try:
        if os.getpid() == pid:
            remove(*args)
    finally:
        _unregister(identity)


def release_at_collection(
    blob: reference.FileBackedData, remove: Callable[..., object], *args: object
) -> None:
    """Give an owner ``blob`` a release at garbage collection that runs ``remove(*args)`` in place
    of the reference's removal, in the owning process only, then unregisters the owner as the
    reference's does (like the reference's, not run at exit: owners are released there by a
    sweep of their own); a blob that owns nothing has none."""
    if blob._finalizer is not None:
        blob._finalizer.detach()
        blob._finalizer = weakref.finalize(blob, _release, remove, blob._pid, blob._identity, *args)
        blob._finalizer.atexit = False


class CheckingFirst(reference.NamedDataStore):
    """The reference's ``NamedDataStore`` with a port's own look at ``add_named_data``'s arguments,
    ``_check_first``, before any of the reference's checks: it may refuse them, or give others."""

    def add_named_data(
        self,
        key: str,
        data: reference.CordBuffer,
        alignment: int | None = 1,
        external_tag: str | None = None,
        tensor_layout: object | None = None,
    ) -> None:
        checked = cast(Any, self._check_first(key, data, alignment, external_tag))
        super().add_named_data(*checked, tensor_layout)

    def _check_first(self, key: object, data: object, alignment: object, tag: object) -> Arguments:
        return key, data, alignment, tag


class ComparingAs(reference.NamedDataStore):
    """The reference's ``NamedDataStore`` whose re-add of a key compares the stored entry with what
    ``_compared`` gives (the reference compares the re-added data, tag and layout themselves)."""

    def _readd(
        self, key: str, data: reference.CordBuffer, alignment: int, tag: str | None, layout: object
    ) -> DataEntry | None:
        data, tag, layout = self._compared(key, data, tag, layout)
        return super()._readd(key, data, alignment, tag, layout)

    def _compared(
        self, key: str, data: reference.CordBuffer, tag: str | None, layout: object
    ) -> Compared:
        return data, tag, layout

    def _stored(self, key: str) -> tuple[DataEntry, reference.CordBuffer]:
        """The entry ``key`` names now, and its buffer."""
        entry = self._entries(self._tags[key])[key]
        return entry, self.buffers[entry.buffer_index]


def lowering_copying(copy: Copy) -> Callable[..., dict[str, list[hooks.PreprocessResult]]]:
    """The reference's ``lower_all_submodules_to_backend`` with each submodule's copy made by
    ``copy`` (the reference's: through ``backend``, with the submodule's own compile specs)."""

    def lower_all(
        backend: type[hooks.BackendDetails],
        method_to_submodules: Mapping[str, Sequence[hooks.Submodule]],
    ) -> dict[str, list[hooks.PreprocessResult]]:
        specs = {m: [sub.compile_specs for sub in subs] for m, subs in method_to_submodules.items()}
        programs = {
            m: [copy(backend, sub, subs) for sub in subs]
            for m, subs in method_to_submodules.items()
        }
        return backend.preprocess_multimethod(programs, specs)

    return lower_all

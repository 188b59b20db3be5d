"""FileBackedData: a byte buffer that lives in a file, streamed in bounded chunks.

The class itself; its parts live beside it: signal deferral (``deferral``), the ownership registry
and the release at exit (``ownership``), the verified reader and kernel copies
(``verified_reader``), placeholder names (``placeholders``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import resource
import stat
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import NoReturn

from .deferral import _atomically, _Deferral
from .location import FileChangedError, Identity, Location, identity_of, locate, locate_owned
from .ownership import (
    _owner_of,
    _refuse_if_exiting,
    _register,
    _registry_lock,
    _release,
    _remove_if_same,
    _unregister,
)
from .placeholders import (
    PLACEHOLDER_PREFIX,
    PLACEHOLDER_SUFFIX,
    _Move,
    _owner_tag,
    make_placeholder,
    put_back,
)
from .shown import shown, type_name
from .verified_reader import (
    CHUNK_SIZE,
    Writable,
    _VerifiedReader,
    check_writable,
    rest_of,
    write_all,
)

__all__ = [
    "CHUNK_SIZE",
    "PLACEHOLDER_PREFIX",
    "PLACEHOLDER_SUFFIX",
    "FileBackedData",
    "FileChangedError",
    "Writable",
    "check_writable",
    "checked_readers",
    "rest_of",
    "write_all",
]

_DIGEST_SIZE = hashlib.sha256().digest_size


def _check_path(path: object) -> str:
    # FBD-INIT-5: a str or a PathLike giving one; no NUL, named in the error by the types alone
    # (FBD-INIT-10): ``isinstance`` would ask the value its ``__class__``. A str of a subclass (or
    # one a PathLike gave) is used as the plain str of its characters (str.__str__), so that none
    # of its own methods (__fspath__, __getitem__, startswith, ...) decides what it names.
    if issubclass(type(path), os.PathLike) and not issubclass(type(path), str):
        path = os.fspath(path)  # type: ignore[call-overload]  # a PathLike: checked above
    if not issubclass(type(path), str):
        raise TypeError(
            f"path must be str or os.PathLike[str], not {type_name(path)}: {shown(path)}"
        )
    assert isinstance(path, str)  # true by its type: no __class__ of its own is asked
    path = str.__str__(path)  # FBD-INIT-5: the plain str of its characters
    if not path:
        raise ValueError("path must not be empty")
    if "\0" in path:
        raise ValueError(f"path must not contain a null byte: {shown(path)}")
    return path


def _check_digest(sha256: object) -> bytes | None:
    # FBD-INIT-6: None or 32 bytes, a wrong type or length named
    if sha256 is None:
        return None
    if not issubclass(type(sha256), bytes):  # FBD-INIT-10: by its type alone
        raise TypeError(f"sha256 must be bytes or None, not {type_name(sha256)}: {shown(sha256)}")
    assert isinstance(sha256, bytes)  # true by its type: no __class__ of its own is asked
    if bytes.__len__(sha256) != _DIGEST_SIZE:  # the length itself, not a subclass's
        raise ValueError(
            f"sha256 must be a {_DIGEST_SIZE}-byte digest, got {bytes.__len__(sha256)} bytes: "
            f"{shown(sha256)}"
        )
    return sha256


def _require_regular(path: str, st: os.stat_result) -> None:
    # FBD-INIT-5, FBD-MOVE-8: a directory is an OSError, any other non-regular file ValueError
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"not a regular file: {shown(path)}")


class FileBackedData:
    """A read-only blob kept in a file; with ``cleanup=True`` the object owns and deletes it."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        cleanup: bool = False,
        sha256: bytes | None = None,
    ) -> None:
        checked = _check_path(path)
        if type(cleanup) is not bool:  # FBD-INIT-6 (bool has no subclasses); FBD-INIT-10
            raise TypeError(f"cleanup must be bool, not {type_name(cleanup)}: {shown(cleanup)}")
        digest = _check_digest(sha256)
        st = os.lstat(checked)  # FBD-INIT-4: a missing path is FileNotFoundError
        link = stat.S_ISLNK(st.st_mode) and not cleanup  # FBD-INIT-7: only a borrower follows
        if link:
            st = os.stat(checked)
        _require_regular(checked, st)
        # made absolute once, for ``locate`` and ``_init`` (FBD-INIT-8): one ``getcwd``, not two
        absolute = checked if os.path.isabs(checked) else os.path.join(os.getcwd(), checked)
        if cleanup:  # an interrupt must not leave an owner the caller never got (FBD-INTR-1)
            _atomically(lambda: self._own(checked, absolute, digest), lambda _: self._disown())
        else:
            self._init(absolute, st, digest, False, locate(absolute, link))

    def _init(
        self,
        path: str,
        st: os.stat_result,
        digest: bytes | None,
        owner: bool,
        location: Location,
    ) -> None:
        """Record where the file ``st`` describes is (``location``, found by the caller) and which
        file it is (FBD-IDENT-1), holding no descriptor (FBD-IDENT-2), and register as its owner
        when ``owner``; on failure nothing is left registered."""
        # FBD-INIT-8: absolute, so a later os.chdir changes nothing; "name/.." kept as the OS
        # reads it (through a linked directory, abspath's dropping it names another file)
        self._path = path if _steps_up(path) else os.path.abspath(path)
        self._location = location
        self._size = st.st_size  # FBD-INIT-1: recorded once; len() reads nothing
        self._identity = identity_of(st)
        self._sha256 = digest
        self._closed = False
        self._pid = os.getpid()
        self._locked = (self._pid, threading.Lock())
        self._owner = False
        self._finalizer: weakref.finalize[..., FileBackedData] | None = None
        if owner:  # FBD-INIT-3 (else FBD-INIT-2: nothing ever deletes a borrowed file)
            # made before the registration, so that the exit release finds every registered
            # owner with its finalizer, also one a thread is making meanwhile (FBD-EXIT-3)
            self._finalizer = weakref.finalize(
                self, _release, location, self._identity, self._pid
            )  # FBD-CLOSE-4
            self._finalizer.atexit = False  # owners are released by _release_all_at_exit
            try:  # FBD-MOVE-9: a second owner is refused; FBD-EXIT-3: so is one at exit
                _register(self._identity, self, location, self._pid)
            except BaseException:
                self._finalizer.detach()
                raise
            self._owner = True

    @property
    def _lock(self) -> threading.Lock:
        """This object's lock in this process (FBD-THREAD-1). A child made by ``fork`` gets a
        new one: the parent thread that may have held the inherited one is not in the child
        (FBD-FORK-2). The registry lock, itself new in a child, makes the swap once."""
        pid = os.getpid()
        if self._locked[0] != pid:
            with _registry_lock():
                if self._locked[0] != pid:  # pragma: no branch  # the suite's race or fault
                    self._locked = (pid, threading.Lock())
        return self._locked[1]

    def _own(self, path: str, absolute: str, digest: bytes | None) -> None:
        """``_init`` of an owner, of the file found by a walk that follows no other user's
        directory link (FBD-INIT-9)."""
        where, st = _located_owned(path)
        self._init(absolute, st, digest, True, where)

    def _disown(self) -> None:
        """Undo ``_init`` of an owner the caller never received: the file stays, unowned."""
        if self._finalizer is not None:  # pragma: no branch  # an owner always has one
            self._finalizer.detach()
        _unregister(self._identity)
        self._closed = True

    @classmethod
    def move_from(cls, path: str | os.PathLike[str], sha256: bytes | None = None) -> FileBackedData:
        """Take ownership of ``path`` by renaming it, in its own directory, without reading it.

        FBD-MOVE-1, FBD-MOVE-6: a rename, so the owner has the source's own inode and mode."""
        source = _check_path(path)
        digest = _check_digest(sha256)  # FBD-MOVE-7: trusted, never checked against the file
        st = os.lstat(source)  # FBD-MOVE-8: checked before any placeholder, no link followed
        _require_regular(source, st)
        made: list[_Move] = []
        return _atomically(
            lambda: cls._move(source, digest, made),
            lambda moved: moved._move_back(made[0]),
            cls._deferral,
        )

    _deferral = _Deferral
    """How ``move_from`` defers signals (FBD-INTR-1 to 3): a step a port (or a mutant) can
    change."""

    @classmethod
    def _move(cls, source: str, digest: bytes | None, made: list[_Move]) -> FileBackedData:
        """move_from's steps, which an interrupt must not split (FBD-INTR-1): an interrupt
        that left the ``with`` of a lock un-exited would hold the registry lock for ever, or a
        descriptor of the walk open. The move's record goes into ``made``, for the undo."""
        _, st = _located_owned(source)  # FBD-INIT-9: in a directory no other user chose
        move = _Move(source, identity_of(st), locate(source, False))
        made.append(move)
        owner = _owner_of(move.identity)
        if owner is not None:
            raise ValueError(f"cannot move {move.source!r}: it is owned by {owner!r}")
        _refuse_if_exiting(move.source)  # FBD-EXIT-3: named by the source, before the rename
        return cls._move_held(move, digest)

    @classmethod
    def _move_held(cls, move: _Move, digest: bytes | None) -> FileBackedData:
        """The move itself, in steps a port's variant (or a mutant) can change one at a time:
        naming the placeholder, taking the source, undoing a failed take, putting it back."""
        # FBD-MOVE-2: an exclusive create; FBD-MOVE-3: beside the source, on its filesystem
        fd, move.placeholder = cls._make_placeholder(
            cls._placeholder_prefix(), PLACEHOLDER_SUFFIX, cls._placeholder_dir(move.source)
        )
        try:
            try:
                move.empty = identity_of(os.fstat(fd))  # what only the take can have replaced
            finally:
                os.close(fd)
            # found before the rename, so that nothing after it can fail for want of a descriptor
            move.where = locate(move.placeholder, False)
            cls._take(move.source, move.placeholder)
        except BaseException:  # FBD-MOVE-4, FBD-MOVE-5: no placeholder, the source in place
            cls._undo(move)
            raise
        try:
            moved = os.lstat(move.placeholder)
            if identity_of(moved) != move.identity:
                raise FileChangedError(
                    errno.ESTALE, "the source was replaced while it was being moved", move.source
                )
            result = cls.__new__(cls)
            result._init(move.placeholder, moved, digest, owner=True, location=move.where)
        except BaseException:  # FBD-MOVE-5, FBD-MOVE-11: what the rename took goes back
            cls._put_back(move)
            raise
        return result

    @staticmethod
    def _make_placeholder(prefix: str, suffix: str, directory: str) -> tuple[int, str]:
        """Create the placeholder, a new empty file named ``prefix``, random letters, ``suffix``
        in ``directory``: its descriptor and absolute path."""
        return make_placeholder(prefix, suffix, directory)  # FBD-FORK-2: not ``tempfile``'s

    @staticmethod
    def _placeholder_prefix() -> str:
        """The start of a placeholder's name: it names the owning process (FBD-MOVE-10)."""
        return f"{PLACEHOLDER_PREFIX}{_owner_tag()}_"

    @staticmethod
    def _placeholder_dir(source: str) -> str:
        """Where the placeholder goes: the source's own directory, so the rename never crosses
        filesystems (FBD-MOVE-2)."""
        directory = os.path.dirname(source) or os.curdir
        # mkstemp makes its directory absolute by the path's text (os.path.abspath), which drops
        # "name/.." where the OS would go up from wherever the link "name" leads: such a directory
        # is given to it resolved by the OS.
        return os.path.realpath(directory) if _steps_up(directory) else directory

    @staticmethod
    def _take(source: str, placeholder: str) -> None:
        """Put the source file at the placeholder's path."""
        os.replace(source, placeholder)

    @classmethod
    def _undo(cls, move: _Move) -> None:
        """After a failed or interrupted ``_take``: no placeholder left, and whatever the take
        moved onto it (it can fail after the rename) back at the source's name (FBD-MOVE-11).
        Only the empty file ``mkstemp`` made is removed, by its path: what has its identity is
        that file, wherever the path leads."""
        there = _identity_of(move.placeholder)
        if there is None:
            return
        if move.where is None or there == move.empty:
            _unlink_quietly(move.placeholder)  # the take never ran, or left the file as made
            return
        put_back(move)

    @staticmethod
    def _put_back(move: _Move) -> None:
        """After a failure past the rename: what is at the placeholder back at the source's name
        (FBD-MOVE-5), never replacing what took that name meanwhile (FBD-MOVE-11). A step of its
        own, apart from the undo of a failed take and of an interrupted move, which put back
        the same way."""
        put_back(move)

    def _move_back(self, move: _Move) -> None:
        """Undo a move whose caller was interrupted before it got the owner: the file goes back
        to the source's name, and no registration is left; where it cannot, the data stays in
        this directory, unowned, and the error names where (FBD-MOVE-11)."""
        try:
            put_back(move)
        finally:
            self._disown()  # never left to a finalizer that would delete what the caller lacks

    @property
    def path(self) -> str:
        """Where the data lives now (for an object made by ``move_from``, the placeholder)."""
        return self._path

    @property
    def closed(self) -> bool:
        """True once ``close()`` has released the file (FBD-CLOSED-1)."""
        return self._closed

    @property
    def owned(self) -> bool:
        """True when this object deletes its file on release."""
        return self._owner

    def __len__(self) -> int:
        self._check_open()
        return self._size

    def prefix(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer if the blob is shorter): FBD-READ-1, reading only
        those bytes (an unbuffered file)."""
        # FBD-READ-3: an int >= 0, named otherwise
        if type(size) is bool or not issubclass(type(size), int):  # FBD-INIT-10: by type alone
            raise TypeError(f"size must be int, not {type_name(size)}: {shown(size)}")
        if size < 0:
            raise ValueError(f"size must be >= 0, got {shown(size)}")
        self._check_open()
        with self._open() as f:
            return f.read(min(size, self._size))

    def sha256(self) -> bytes:
        """SHA-256 digest of the contents, hashed in chunks once and then cached.

        One thread reads into one reused buffer and hashes it: the kernel's readahead overlaps
        the disk with the hashing, and a chunk is hashed from the cache it was just read into
        (a second thread hashing it is slower, docs/performance.md).
        """
        self._check_open()
        if self._sha256 is None:  # FBD-HASH-2: read once, then the cached (or supplied) digest
            digest = hashlib.sha256()  # FBD-HASH-1
            self._stream(digest.update)  # FBD-HASH-3: in chunks; FBD-FAULT-1: an error propagates
            self._sha256 = digest.digest()  # FBD-FAULT-1: cached only after a whole read
        return self._sha256

    def to_bytes(self) -> bytes:
        """The whole contents in memory: the compatibility path, not for large blobs
        (FBD-READ-2)."""
        self._check_open()
        parts: list[bytes] = []
        self._stream(lambda chunk: parts.append(bytes(chunk)))
        return b"".join(parts)

    def write_to_file(self, outfile: Writable) -> None:
        """Write the contents at ``outfile``'s current position, leaving it just after them.

        Into a file from ``open()`` the kernel copies, and no byte passes through Python; into an
        ``io.BytesIO`` the file is read straight into its memory; anything else gets chunks of at
        most ``CHUNK_SIZE`` bytes through ``write``. Every way checks that exactly ``len(self)``
        bytes were copied (FBD-CHANGE-1).
        """
        check_writable(outfile)
        self._check_open()
        with self._open() as reader:
            reader.write_to(outfile)

    def close(self) -> None:
        """Release the file, deleting it if owned; idempotent; a failed removal raises.

        An interrupt does not split it: the release completes, then the interrupt is raised.
        FBD-CLOSE-1 (deleted), FBD-CLOSE-2 (once), FBD-CLOSE-7 (a failed removal raises and leaves
        the object open, for a retry and the exit backstop)."""
        _atomically(self._close, lambda _: None)

    def _close(self) -> None:
        with self._lock:  # FBD-THREAD-1: two threads' close() delete the file once
            if self._closed:  # FBD-CLOSE-2
                return
            # a forked child never deletes its parent's file
            if self._owner and os.getpid() == self._pid:
                _remove_if_same(self._location, self._identity)  # FBD-CLOSE-8, FBD-CLOSE-9
            if self._finalizer is not None:
                self._finalizer.detach()
            if self._owner:
                _unregister(self._identity)
            self._closed = True

    def __enter__(self) -> FileBackedData:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()  # FBD-CLOSE-3: released however the block ends; its exception propagates

    def __copy__(self) -> FileBackedData:
        return self  # FBD-COPY-1: immutable contents, one owner: a copy is the same object

    def __deepcopy__(self, memo: dict[int, object]) -> FileBackedData:
        return self

    def __reduce__(self) -> NoReturn:  # FBD-COPY-2
        raise TypeError(f"cannot pickle {self!r}: it refers to a file owned by this process")

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("owned" if self.owned else "borrowed")
        return f"FileBackedData({self._path!r}, size={self._size}, {state})"

    def _check_open(self) -> None:
        if self._closed:  # FBD-CLOSED-1: like a closed file; nothing is read from the path
            raise ValueError(f"I/O operation on closed FileBackedData ({self._path!r})")

    def _open(self, directory: int | None = None) -> _VerifiedReader:
        """A reader of the file, checked to be it (FBD-CHANGE-1), opened in ``directory`` when
        given (a descriptor of ``self._location``'s directory, checked by its opener)."""
        return _VerifiedReader(self._location, self._identity, self._size, directory)

    def _verify(self) -> None:
        """Raise unless open and still the recorded file with the recorded size."""
        self._check_open()
        self._open().close()

    def _stream(self, sink: Callable[[memoryview], object]) -> None:
        with self._open() as f:
            f.stream(sink)


READERS_HELD = 1024
"""File-backed pieces of one ``Cord.write_to_file`` kept open from their check to their stream, at
most (and at most an eighth of ``RLIMIT_NOFILE``): past them a piece is opened again to be
streamed, so that a Cord of many files never runs the process out of descriptors (FBD-IDENT-2)."""


def _readers_allowed() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return READERS_HELD if soft == resource.RLIM_INFINITY else min(READERS_HELD, soft // 8)


@contextlib.contextmanager
def checked_readers(pieces: Iterable[object]) -> Iterator[dict[int, _VerifiedReader]]:
    """Every ``FileBackedData`` among ``pieces`` checked open and still its file and size before
    the block (CORD-WRITE-3, FBD-CHANGE-1), by ``id``: the fast path of CORD-WRITE-3, which opens
    each distinct piece once, checks it, and keeps that descriptor for the block to stream from,
    instead of opening it to check and again to stream; past ``READERS_HELD`` a piece is checked
    and closed, and is not in the map. The readers are closed after the block, however it ends."""
    readers: dict[int, _VerifiedReader] = {}
    allowed = _readers_allowed()
    try:
        with contextlib.ExitStack() as held:  # each directory opened once, for the checks
            directories: dict[tuple[str, tuple[int, int]], int] = {}
            for piece in pieces:
                if not isinstance(piece, FileBackedData) or id(piece) in readers:
                    continue
                if len(readers) + len(directories) >= allowed:
                    piece._verify()  # checked alone, opened again to be streamed
                    continue
                piece._check_open()
                where = piece._location
                directory = directories.get((where.directory, where.directory_identity))
                if directory is None:
                    directory = held.enter_context(where.opened_directory())
                    directories[where.directory, where.directory_identity] = directory
                readers[id(piece)] = piece._open(directory)
        yield readers
    finally:
        for reader in readers.values():
            reader.close()


def _located_owned(path: str) -> tuple[Location, os.stat_result]:
    """``locate_owned(path)``, a regular file; called where no interrupt splits the walk, whose
    descriptors an interrupt must not leave open (FBD-INTR-1)."""
    where, st = locate_owned(path)
    _require_regular(path, st)
    return where, st


def _steps_up(path: str) -> bool:
    """Whether ``path`` has a ``..`` component, which only the OS can resolve (a link before it
    leads elsewhere than the text says)."""
    return os.pardir in path.split(os.sep)


def _identity_of(path: str) -> Identity | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return identity_of(st)


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)

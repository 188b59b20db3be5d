"""FileBackedData: a byte buffer that lives in a file, streamed in bounded chunks."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
import threading
import warnings
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import NoReturn, Protocol

__all__ = [
    "CHUNK_SIZE",
    "PLACEHOLDER_PREFIX",
    "PLACEHOLDER_SUFFIX",
    "FileBackedData",
    "FileChangedError",
    "Writable",
]

CHUNK_SIZE = 1 << 20
"""Bytes held in memory at once while hashing or copying a file (spec FBD-MEM-1)."""

PLACEHOLDER_PREFIX = ".executorch_"
PLACEHOLDER_SUFFIX = ".data"

_DIGEST_SIZE = hashlib.sha256().digest_size

# (st_dev, st_ino) -> the live object that owns that file, so a second owner is refused.
_owners: dict[tuple[int, int], weakref.ref[FileBackedData]] = {}
_owners_lock = threading.Lock()


class Writable(Protocol):
    """A binary sink: a file opened for writing, ``io.BytesIO``, or anything with ``write``."""

    def write(self, data: bytes | memoryview, /) -> object: ...


class FileChangedError(OSError):
    """The wrapped file is no longer the file, or the size, recorded when it was wrapped."""


def _check_path(path: object) -> str:
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(
            f"path must be str or os.PathLike[str], not {type(path).__name__}: {path!r}"
        )
    if not path:
        raise ValueError("path must not be empty")
    return path


def _check_digest(sha256: object) -> bytes | None:
    if sha256 is None:
        return None
    if not isinstance(sha256, bytes):
        raise TypeError(f"sha256 must be bytes or None, not {type(sha256).__name__}: {sha256!r}")
    if len(sha256) != _DIGEST_SIZE:
        raise ValueError(
            f"sha256 must be a {_DIGEST_SIZE}-byte digest, got {len(sha256)} bytes: {sha256!r}"
        )
    return sha256


def _require_regular(path: str, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"not a regular file: {path!r}")


def _release(path: str, identity: tuple[int, int], pid: int) -> None:
    """Backstop run at garbage collection and interpreter exit: remove the owned file."""
    if os.getpid() != pid:
        return  # a forked child never deletes its parent's file
    try:
        _remove_if_same(path, identity)
    except OSError as exc:
        warnings.warn(f"could not remove {path!r}: {exc}", RuntimeWarning, stacklevel=1)
    finally:
        _unregister(identity)


def _remove_if_same(path: str, identity: tuple[int, int]) -> None:
    """Unlink ``path`` unless it is gone or is now some other file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if (st.st_dev, st.st_ino) == identity:
        os.unlink(path)


def _unregister(identity: tuple[int, int]) -> None:
    with _owners_lock:
        _owners.pop(identity, None)


def _owner_of(identity: tuple[int, int]) -> FileBackedData | None:
    with _owners_lock:
        ref = _owners.get(identity)
    owner = ref() if ref is not None else None
    return owner if owner is not None and not owner.closed else None


class FileBackedData:
    """A read-only blob kept in a file; with ``cleanup=True`` the object owns and deletes it."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        cleanup: bool = False,
        sha256: bytes | None = None,
    ) -> None:
        checked = _check_path(path)
        if not isinstance(cleanup, bool):
            raise TypeError(f"cleanup must be bool, not {type(cleanup).__name__}: {cleanup!r}")
        digest = _check_digest(sha256)
        st = os.lstat(checked) if cleanup else os.stat(checked)
        _require_regular(checked, st)
        self._init(checked, st, digest, cleanup)

    def _init(self, path: str, st: os.stat_result, digest: bytes | None, owner: bool) -> None:
        self._path = path
        self._size = st.st_size
        self._identity = (st.st_dev, st.st_ino)
        self._sha256 = digest
        self._closed = False
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._finalizer: weakref.finalize[[str, tuple[int, int], int], FileBackedData] | None = None
        if owner:
            with _owners_lock:
                ref = _owners.get(self._identity)
                current = ref() if ref is not None else None
                if current is not None and not current.closed:
                    raise ValueError(f"{path!r} is already owned by {current!r}")
                _owners[self._identity] = weakref.ref(self)
            self._finalizer = weakref.finalize(self, _release, path, self._identity, self._pid)

    @classmethod
    def move_from(cls, path: str | os.PathLike[str], sha256: bytes | None = None) -> FileBackedData:
        """Take ownership of ``path`` by renaming it, in its own directory, without reading it."""
        source = _check_path(path)
        digest = _check_digest(sha256)
        st = os.lstat(source)
        _require_regular(source, st)
        identity = (st.st_dev, st.st_ino)
        owner = _owner_of(identity)
        if owner is not None:
            raise ValueError(f"cannot move {source!r}: it is owned by {owner!r}")
        directory = os.path.dirname(source) or os.curdir
        fd, placeholder = tempfile.mkstemp(
            prefix=f"{PLACEHOLDER_PREFIX}{os.getpid()}_", suffix=PLACEHOLDER_SUFFIX, dir=directory
        )
        try:
            os.close(fd)
            os.replace(source, placeholder)
        except BaseException:
            _unlink_quietly(placeholder)
            raise
        try:
            moved = os.lstat(placeholder)
            if (moved.st_dev, moved.st_ino) != identity:
                raise FileChangedError(
                    errno.ESTALE, "the source was replaced while it was being moved", source
                )
            result = cls.__new__(cls)
            result._init(placeholder, moved, digest, owner=True)
        except BaseException:
            os.replace(placeholder, source)
            raise
        return result

    @property
    def path(self) -> str:
        """Where the data lives now (for an object made by ``move_from``, the placeholder)."""
        return self._path

    @property
    def closed(self) -> bool:
        """True once ``close()`` has released the file."""
        return self._closed

    @property
    def owned(self) -> bool:
        """True when this object deletes its file on release."""
        return self._finalizer is not None

    def __len__(self) -> int:
        self._check_open()
        return self._size

    def prefix(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer if the blob is shorter)."""
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"size must be int, not {type(size).__name__}: {size!r}")
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
        self._check_open()
        with self._open() as f:
            return f.read(min(size, self._size))

    def sha256(self) -> bytes:
        """SHA-256 digest of the contents, hashed in chunks once and then cached."""
        self._check_open()
        if self._sha256 is None:
            digest = hashlib.sha256()
            self._stream(digest.update)
            self._sha256 = digest.digest()
        return self._sha256

    def to_bytes(self) -> bytes:
        """The whole contents in memory: the compatibility path, not for large blobs."""
        self._check_open()
        parts: list[bytes] = []
        self._stream(lambda chunk: parts.append(bytes(chunk)))
        return b"".join(parts)

    def write_to_file(self, outfile: Writable) -> None:
        """Stream the contents into ``outfile`` in chunks of at most ``CHUNK_SIZE`` bytes."""
        self._check_open()
        self._stream(lambda chunk: write_all(outfile, chunk))

    def close(self) -> None:
        """Release the file, deleting it if owned; idempotent; a failed removal raises."""
        with self._lock:
            if self._closed:
                return
            if self._finalizer is not None:
                if os.getpid() == self._pid:  # a forked child never deletes its parent's file
                    _remove_if_same(self._path, self._identity)
                self._finalizer.detach()
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
        self.close()

    def __copy__(self) -> FileBackedData:
        return self  # immutable contents, one owner: a copy is the same object

    def __deepcopy__(self, memo: dict[int, object]) -> FileBackedData:
        return self

    def __reduce__(self) -> NoReturn:
        raise TypeError(f"cannot pickle {self!r}: it refers to a file owned by this process")

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("owned" if self.owned else "borrowed")
        return f"FileBackedData({self._path!r}, size={self._size}, {state})"

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"I/O operation on closed FileBackedData ({self._path!r})")

    def _open(self) -> _VerifiedReader:
        return _VerifiedReader(self._path, self._identity, self._size)

    def _verify(self) -> None:
        """Raise unless open and still the recorded file with the recorded size."""
        self._check_open()
        self._open().close()

    def _stream(self, sink: Callable[[memoryview], object]) -> None:
        with self._open() as f:
            f.stream(sink)


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def write_all(outfile: Writable, chunk: memoryview) -> None:
    """Write all of ``chunk``, looping over the short writes a raw file may make."""
    while chunk:
        written = outfile.write(chunk)
        if not isinstance(written, int) or written >= len(chunk):
            return
        chunk = chunk[written:]


class _VerifiedReader:
    """An open file, checked to be the recorded file and size, read in bounded chunks."""

    def __init__(self, path: str, identity: tuple[int, int], size: int) -> None:
        self._path = path
        self._size = size
        self._file = open(path, "rb", buffering=0)  # noqa: SIM115  # closed by close()/__exit__
        try:
            st = os.fstat(self._file.fileno())
            if (st.st_dev, st.st_ino) != identity:
                raise FileChangedError(
                    errno.ESTALE, "the file was replaced after it was wrapped", path
                )
            self._check_size(st.st_size)
        except BaseException:
            self._file.close()
            raise

    def _check_size(self, actual: int) -> None:
        if actual != self._size:
            self._changed(actual)

    def _changed(self, actual: int) -> NoReturn:
        raise FileChangedError(
            errno.ESTALE,
            f"the file changed size after it was wrapped: recorded {self._size} bytes, "
            f"now {actual}",
            self._path,
        )

    def read(self, size: int) -> bytes:
        return self._file.read(size) or b""

    def stream(self, sink: Callable[[memoryview], object]) -> None:
        buffer = bytearray(min(CHUNK_SIZE, max(self._size, 1)))
        view = memoryview(buffer)
        remaining = self._size
        while remaining:
            n = self._file.readinto(view[: min(remaining, len(view))]) or 0
            if n == 0:
                self._changed(self._size - remaining)
            sink(view[:n])
            remaining -= n
        if self._file.read(1):
            self._changed(os.fstat(self._file.fileno()).st_size)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> _VerifiedReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

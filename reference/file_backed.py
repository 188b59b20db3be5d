"""FileBackedData: a byte buffer that lives in a file, streamed in bounded chunks."""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import importlib
import io
import os
import signal
import stat
import tempfile
import threading
import warnings
import weakref
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import NoReturn, Protocol, TypeVar

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no holes are kept there

__all__ = [
    "CHUNK_SIZE",
    "PLACEHOLDER_PREFIX",
    "PLACEHOLDER_SUFFIX",
    "FileBackedData",
    "FileChangedError",
    "Writable",
]

CHUNK_SIZE = 1 << 20
"""Size of a buffer through which a file is read (spec FBD-HASH-3, FBD-WRITE-2, NDS-DEDUP-11)."""

_KERNEL_STEP = 1 << 30
"""Bytes asked of one in-kernel copy or direct ``readinto`` (Linux caps one call at 2 GiB)."""

_NOT_HERE = frozenset(
    {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EBADF, errno.EOPNOTSUPP, errno.ETXTBSY}
)
"""Errors by which an in-kernel copy says it cannot copy between these two files (an output in
append mode, another filesystem, an old kernel, a pipe): the next way of copying is tried."""

PLACEHOLDER_PREFIX = ".executorch_"
PLACEHOLDER_SUFFIX = ".data"

_DIGEST_SIZE = hashlib.sha256().digest_size


def process_start_time(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (field 22 of ``/proc/<pid>/stat``);
    None where the system does not tell (no ``/proc``, no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            line = f.read()
    except OSError:
        return None
    return _parse_start_time(line)


def _parse_start_time(line: bytes) -> int | None:
    fields = line[line.rfind(b")") + 1 :].split()  # the name in parentheses may hold spaces
    try:
        return int(fields[19])  # field 3 (state) is fields[0]
    except (IndexError, ValueError):
        return None


def _make_tag(pid: int) -> tuple[int, str]:
    start = process_start_time(pid)
    return pid, str(pid) if start is None else f"{pid}-{start}"


_tag = _make_tag(os.getpid())


def _owner_tag() -> str:
    """``<pid>-<start time>`` of this process (``<pid>`` where the start time is not known), for
    placeholder names (spec FBD-MOVE-10); computed once per process, again in a forked child."""
    global _tag
    if _tag[0] != os.getpid():
        _tag = _make_tag(os.getpid())
    return _tag[1]


# (st_dev, st_ino) -> the live object that owns that file, so a second owner is refused. Every
# open object holds a descriptor of its file, so no other file can take that inode number while
# the entry exists (FBD-IDENT-1).
_owners: dict[tuple[int, int], weakref.ref[FileBackedData]] = {}
_owners_lock = threading.Lock()

T = TypeVar("T")
_Handler = Callable[[int, FrameType | None], object]
_set_sigint: Callable[[int, _Handler], object] = importlib.import_module("_signal").signal
"""``signal.signal`` without its Python wrapper, in which an interrupt could land after the C
call (typeshed does not describe ``_signal``)."""
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def _reset_after_fork() -> None:
    """In a forked child: a fresh registry lock, as another thread may have held it at the fork."""
    global _owners_lock
    _owners_lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # pragma: no branch  # every POSIX system has it
    os.register_at_fork(after_in_child=_reset_after_fork)


def _atomically(do: Callable[[], T], undo: Callable[[T], None]) -> T:
    """``do()`` with SIGINT deferred (FBD-INTR-1); a SIGINT that came meanwhile then goes to the
    handler it was deferred from, still deferred: if that raises, ``undo`` reverses what ``do``
    did before the exception propagates. Outside the main thread, or where SIGINT has no Python
    handler, no interrupt can split ``do`` and it simply runs. Restoring the handler is the last
    thing done, so nothing of this call is left to run after it."""
    previous = _python_handler()
    if previous is None:
        return do()
    pending: list[tuple[int, FrameType | None]] = []
    _set_sigint(signal.SIGINT, lambda signum, frame: pending.append((signum, frame)))
    try:
        result = do()
        while pending:
            try:
                previous(*pending.pop(0))
            except BaseException:
                pending.clear()  # one interrupt is reported, however many came
                undo(result)
                raise
        return result
    except BaseException:
        if pending:  # ``do`` failed while an interrupt was deferred: it is not lost
            previous(*pending.pop(0))
        raise
    finally:
        _set_sigint(signal.SIGINT, previous)


def _python_handler() -> Callable[[int, FrameType | None], object] | None:
    """SIGINT's handler when it is Python code this thread may replace; else None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGINT)
    return handler if callable(handler) else None


def _close_fd(close: Callable[[int], None], fd: int) -> None:
    """Close a held descriptor with the ``os.close`` of the moment it was opened (under pyfakefs a
    fake one, never a real descriptor that happens to have the same number)."""
    with contextlib.suppress(OSError):
        close(fd)


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
    if "\0" in path:
        raise ValueError(f"path must not contain a null byte: {path!r}")
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


def _release(
    path: str, identity: tuple[int, int], pid: int, close: Callable[[int], None], fd: int
) -> None:
    """Backstop run at garbage collection and interpreter exit: remove the owned file, with no
    interrupt splitting it (one raised in a finalizer would be reported and lost anyway)."""
    _atomically(lambda: _release_now(path, identity, pid, close, fd), lambda _: None)


def _release_now(
    path: str, identity: tuple[int, int], pid: int, close: Callable[[int], None], fd: int
) -> None:
    try:
        if os.getpid() == pid:  # a forked child never deletes its parent's file
            _remove_if_same(path, identity)
    except OSError as exc:
        warnings.warn(f"could not remove {path!r}: {exc}", RuntimeWarning, stacklevel=1)
    finally:
        _unregister(identity)
        _close_fd(close, fd)


def _release_all_at_exit() -> None:
    """Release every owned file still open at exit, with SIGINT ignored throughout, so that a
    second interrupt while the interpreter exits cannot leave the rest behind (FBD-INTR-1)."""
    previous = _python_handler()
    if previous is not None:
        signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        owners = [ref() for ref in list(_owners.values())]  # no lock: a daemon thread may hold it
        for owner in owners:
            # detached and called, as weakref's own exit hook may have shut finalizers down
            pending = owner._finalizer.detach() if owner is not None else None
            if pending is not None:
                _, release, args, _ = pending
                release(*args)  # _release: never raises, warns for a failed removal
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


atexit.register(_release_all_at_exit)


def _remove_if_same(path: str, identity: tuple[int, int]) -> None:
    """Unlink ``path`` unless it is gone or is now some other file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if (st.st_dev, st.st_ino) == identity:
        with contextlib.suppress(FileNotFoundError):  # removed by someone else since the lstat
            os.unlink(path)


def _unregister(identity: tuple[int, int]) -> None:
    with _owners_lock:
        _owners.pop(identity, None)


def _owner_of(identity: tuple[int, int]) -> FileBackedData | None:
    with _owners_lock:
        return _live_owner(identity)


def _live_owner(identity: tuple[int, int]) -> FileBackedData | None:
    """The open object that owns the file ``identity``, if any; ``_owners_lock`` is held."""
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
        if cleanup:  # an interrupt must not leave an owner the caller never got (FBD-INTR-1)
            _atomically(lambda: self._init(checked, st, digest, True), lambda _: self._disown())
        else:
            self._init(checked, st, digest, False)

    def _init(
        self, path: str, st: os.stat_result, digest: bytes | None, owner: bool, fd: int = -1
    ) -> None:
        """Hold a descriptor of the file ``st`` describes (FBD-IDENT-1; ``fd`` when the caller
        opened one, which stays the caller's to close on failure), and register as its owner when
        ``owner``; on failure nothing is left held or registered."""
        self._path = path
        self._size = st.st_size
        self._identity = (st.st_dev, st.st_ino)
        self._sha256 = digest
        self._closed = False
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._owner = False
        self._finalizer: weakref.finalize[..., FileBackedData]
        close = os.close
        given = fd >= 0
        self._fd = fd = fd if given else os.open(path, _OPEN_FLAGS)
        try:
            held = os.fstat(fd)
            if (held.st_dev, held.st_ino) != self._identity:
                raise FileChangedError(
                    errno.ESTALE, "the file was replaced while it was being wrapped", path
                )
            if owner:
                with _owners_lock:
                    current = _live_owner(self._identity)
                    if current is not None:
                        raise ValueError(f"{path!r} is already owned by {current!r}")
                    _owners[self._identity] = weakref.ref(self)
                self._owner = True
                self._finalizer = weakref.finalize(
                    self, _release, path, self._identity, self._pid, close, fd
                )
            else:
                self._finalizer = weakref.finalize(self, _close_fd, close, fd)
        except BaseException:
            if not given:
                _close_fd(close, fd)
            raise
        self._finalizer.atexit = False  # owners are released by _release_all_at_exit

    def _disown(self) -> None:
        """Undo ``_init`` of an owner the caller never received: the file stays, unowned."""
        self._finalizer.detach()
        _unregister(self._identity)
        _close_fd(os.close, self._fd)
        self._closed = True

    @classmethod
    def move_from(cls, path: str | os.PathLike[str], sha256: bytes | None = None) -> FileBackedData:
        """Take ownership of ``path`` by renaming it, in its own directory, without reading it."""
        source = _check_path(path)
        digest = _check_digest(sha256)
        st = os.lstat(source)
        _require_regular(source, st)
        identity = (st.st_dev, st.st_ino)
        return _atomically(
            lambda: cls._move(source, identity, digest),
            lambda moved: moved._move_back(source),
        )

    @classmethod
    def _move(cls, source: str, identity: tuple[int, int], digest: bytes | None) -> FileBackedData:
        """move_from's steps, which an interrupt must not split (FBD-INTR-1): an interrupt
        that left the ``with`` of a lock un-exited would hold the registry lock for ever."""
        owner = _owner_of(identity)
        if owner is not None:
            raise ValueError(f"cannot move {source!r}: it is owned by {owner!r}")
        # the descriptor to hold is opened before the rename, so that nothing after the rename
        # can fail for want of it, and it follows the file through the rename
        held = os.open(source, _OPEN_FLAGS)
        try:
            return cls._move_held(source, identity, digest, held)
        except BaseException:
            _close_fd(os.close, held)  # ``_init`` leaves a descriptor it was given open on failure
            raise

    @classmethod
    def _move_held(
        cls, source: str, identity: tuple[int, int], digest: bytes | None, held: int
    ) -> FileBackedData:
        """The move itself, in steps a port's variant (or a mutant) can change one at a time:
        naming the placeholder, taking the source, undoing a failed take, putting it back."""
        fd, placeholder = tempfile.mkstemp(
            prefix=cls._placeholder_prefix(),
            suffix=PLACEHOLDER_SUFFIX,
            dir=cls._placeholder_dir(source),
        )
        try:
            os.close(fd)
            cls._take(source, placeholder)
        except BaseException:
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
    def _placeholder_prefix() -> str:
        """The start of a placeholder's name: it names the owning process (FBD-MOVE-10)."""
        return f"{PLACEHOLDER_PREFIX}{_owner_tag()}_"

    @staticmethod
    def _placeholder_dir(source: str) -> str:
        """Where the placeholder goes: the source's own directory, so the rename never crosses
        filesystems (FBD-MOVE-2)."""
        return os.path.dirname(source) or os.curdir

    @staticmethod
    def _take(source: str, placeholder: str) -> None:
        """Put the source file at the placeholder's path."""
        os.replace(source, placeholder)

    @staticmethod
    def _undo(source: str, placeholder: str, identity: tuple[int, int]) -> None:
        """After a failed or interrupted ``_take``: the source back, no placeholder left (an
        interruption can land after the rename, when the placeholder holds the data)."""
        if _identity_of(placeholder) == identity:
            os.replace(placeholder, source)
        else:
            _unlink_quietly(placeholder)

    @staticmethod
    def _put_back(source: str, placeholder: str) -> None:
        """After a failure past the rename: the placeholder, which holds the data, back."""
        os.replace(placeholder, source)

    def _move_back(self, source: str) -> None:
        """Undo a move whose caller was interrupted before it got the owner: the file goes back
        to ``source``, and no placeholder or registration is left."""
        os.replace(self._path, source)
        self._disown()

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
        return self._owner

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
        """SHA-256 digest of the contents, hashed in chunks once and then cached.

        One thread reads into one reused buffer and hashes it: the kernel's readahead overlaps
        the disk with the hashing, and a chunk is hashed from the cache it was just read into
        (a second thread hashing it is slower, docs/performance.md).
        """
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
        """Write the contents at ``outfile``'s current position, leaving it just after them.

        Into a file from ``open()`` the kernel copies, and no byte passes through Python; into an
        ``io.BytesIO`` the file is read straight into its memory; anything else gets chunks of at
        most ``CHUNK_SIZE`` bytes through ``write``. Every way checks that exactly ``len(self)``
        bytes were copied (FBD-CHANGE-1).
        """
        check_writable(outfile)
        self._check_open()
        with self._open() as reader:
            target = _os_file(outfile) if reader.is_os_file else None
            if target is not None:
                target.flush()  # bytes still buffered by Python go first
                reader.send_sparse(target.fileno())  # holes stay holes (FBD-WRITE-3)
                reader.send_to(target.fileno())  # moves the position that ``target`` reads back
            elif type(outfile) is io.BytesIO:
                reader.read_into(outfile)
            reader.stream(lambda chunk: write_all(outfile, chunk))  # what is left, and the end

    def close(self) -> None:
        """Release the file, deleting it if owned; idempotent; a failed removal raises.

        An interrupt does not split it: the release completes, then the interrupt is raised."""
        _atomically(self._close, lambda _: None)

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            # a forked child never deletes its parent's file
            if self._owner and os.getpid() == self._pid:
                _remove_if_same(self._path, self._identity)
            self._finalizer.detach()
            if self._owner:
                _unregister(self._identity)  # before the descriptor goes, and the inode with it
            _close_fd(os.close, self._fd)
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


def _identity_of(path: str) -> tuple[int, int] | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def check_writable(outfile: object) -> None:
    """Raise TypeError naming ``outfile`` unless it has a ``write`` method (FBD-WRITE-1)."""
    if not callable(getattr(outfile, "write", None)):
        raise TypeError(
            f"outfile must be a binary output with a write() method, "
            f"not {type(outfile).__name__}: {outfile!r}"
        )


def write_all(outfile: Writable, chunk: memoryview) -> None:
    """Write all of ``chunk``, looping over the short writes a raw file may make."""
    while chunk:
        chunk = rest_of(outfile, chunk, outfile.write(chunk))


def rest_of(outfile: Writable, chunk: memoryview, written: object) -> memoryview:
    """What is left to write of ``chunk`` once a write of it returned ``written`` (empty: nothing).

    A raw output (``io.RawIOBase``) returns None when it is non-blocking and full: it wrote
    nothing, which raises BlockingIOError naming it (FBD-FAULT-3); any other output returning
    something other than an ``int`` is taken to have written everything."""
    if written is None and isinstance(outfile, io.RawIOBase):
        raise BlockingIOError(
            errno.EAGAIN,
            f"the non-blocking output {outfile!r} is full: it took none of {len(chunk)} "
            f"bytes, which are not written",
        )
    if not isinstance(written, int) or written >= len(chunk):
        return chunk[:0]
    if written <= 0:  # FBD-FAULT-3: a sink that takes nothing would be retried forever
        raise OSError(errno.EIO, f"the output {outfile!r} accepted none of {len(chunk)} bytes")
    return chunk[written:]


class _VerifiedReader:
    """An open file, checked to be the recorded file and size, read from its start to its end.

    ``remaining`` counts what is still to be read; each way of reading takes it from there, so a
    copy can start in the kernel and end in Python. ``stream`` ends every read: it checks that the
    file ends where its recorded size says.
    """

    def __init__(self, path: str, identity: tuple[int, int], size: int) -> None:
        self._path = path
        self._size = size
        self.remaining = size
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

    @property
    def is_os_file(self) -> bool:
        """True when this reads a real OS file, whose descriptor the kernel can copy from."""
        return type(self._file) is io.FileIO

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

    def _took(self, n: int) -> None:
        """Count ``n`` bytes as read; none while some remain means the file is shorter now."""
        if n == 0:
            self._changed(self._size - self.remaining)
        self.remaining -= n

    def read(self, size: int) -> bytes:
        return self._file.read(size) or b""

    def stream(self, sink: Callable[[memoryview], object]) -> None:
        """Pass what remains to ``sink`` in chunks of at most ``CHUNK_SIZE``, read into one
        reused buffer, then check that the file ends where its recorded size says."""
        buffer = memoryview(bytearray(min(CHUNK_SIZE, max(self.remaining, 1))))
        while self.remaining:
            n = self._file.readinto(buffer[: min(self.remaining, len(buffer))]) or 0
            self._took(n)
            sink(buffer[:n])
        if self._file.read(1):
            self._changed(os.fstat(self._file.fileno()).st_size)

    def send_sparse(self, fd: int) -> None:
        """Copy what remains to ``fd`` leaving the file's holes (SEEK_DATA/SEEK_HOLE) unwritten
        (FBD-WRITE-3), where ``fd`` is a regular file written at or past its end and not in append
        mode, so that what is skipped reads as zeros; stop early where the kernel cannot tell
        holes or copy, leaving the rest to ``send_to`` and ``stream``."""
        if not _writes_at_its_end(fd):
            return
        source, end = self._file.fileno(), self._size
        while self.remaining:
            at = end - self.remaining
            try:
                data = min(os.lseek(source, at, os.SEEK_DATA), end)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # the filesystem does not tell holes
                    return
                self._check_size(os.fstat(source).st_size)  # ENXIO also means past a new end
                data = end  # no data after ``at``: a hole to the end
            if data > at:  # a hole: both positions move on, nothing is written
                os.lseek(source, data, os.SEEK_SET)
                os.lseek(fd, data - at, os.SEEK_CUR)
                self.remaining -= data - at
                continue
            hole = min(os.lseek(source, at, os.SEEK_HOLE), end)
            os.lseek(source, at, os.SEEK_SET)
            self.send_to(fd, self.remaining - (hole - at))
            if self.remaining != end - hole:
                break  # the kernel copy stopped early
        self._check_size(os.fstat(source).st_size)  # a hole is no proof the file did not shrink
        position = os.lseek(fd, 0, os.SEEK_CUR)
        if os.fstat(fd).st_size < position:
            os.ftruncate(fd, position)  # a hole at the end still counts in the size

    def send_to(self, fd: int, keep: int = 0) -> None:
        """Copy what remains in the kernel to ``fd`` at its position, moving both positions, until
        ``keep`` bytes remain; stop early, leaving the rest to ``stream``, where no in-kernel copy
        can go on."""
        for copy in _kernel_copies():
            while self.remaining > keep:
                try:
                    n = copy(self._file.fileno(), fd, min(self.remaining - keep, _KERNEL_STEP))
                except OSError as exc:
                    if exc.errno not in _NOT_HERE:
                        raise
                    break
                if n == 0:
                    break  # no progress: the file may be shorter now, which ``stream`` tells
                self.remaining -= n

    def read_into(self, out: io.BytesIO) -> None:
        """Read what remains straight into ``out``'s memory at its position, grown once first."""
        if not self.remaining:
            return
        start = out.tell()
        end = start + self.remaining
        out.seek(end - 1)
        out.write(b"\0")  # the buffer now reaches ``end``; the file's bytes overwrite the rest
        with out.getbuffer() as memory, memory[start:end] as region:
            while self.remaining:
                done = end - start - self.remaining
                self._took(self._file.readinto(region[done : done + _KERNEL_STEP]) or 0)
        out.seek(end)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> _VerifiedReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_OS_FILES = (io.FileIO, io.BufferedWriter, io.BufferedRandom)
_OsFile = io.FileIO | io.BufferedWriter | io.BufferedRandom


def _os_file(outfile: object) -> _OsFile | None:
    """``outfile`` when it is a writable file exactly as ``open()`` makes it, over a descriptor of
    this process; None for anything else: ``BytesIO``, a subclass that may change what ``write``
    does, a fake file of pyfakefs (whose ``fileno()`` is no descriptor of this process)."""
    if not isinstance(outfile, _OS_FILES) or type(outfile) not in _OS_FILES:
        return None
    raw = outfile if isinstance(outfile, io.FileIO) else outfile.raw
    if type(raw) is not io.FileIO or raw.closed or not raw.writable():
        return None
    return outfile


def _writes_at_its_end(fd: int) -> bool:
    """Whether ``fd`` is a regular file, not in append mode, positioned at or past its end: there
    a byte left unwritten reads as zero."""
    if not hasattr(os, "SEEK_DATA") or fcntl is None:  # pragma: no cover - not on Linux
        return False
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
        return False
    return os.lseek(fd, 0, os.SEEK_CUR) >= st.st_size


def _kernel_copies() -> list[Callable[[int, int, int], int]]:
    """This platform's in-kernel copies ``(source, target, count) -> copied``, fastest first; each
    reads and writes at the current positions of both descriptors and moves them."""
    copies: list[Callable[[int, int, int], int]] = []
    copy_file_range = getattr(os, "copy_file_range", None)
    if copy_file_range is not None:
        copies.append(lambda source, target, count: copy_file_range(source, target, count))
    sendfile = getattr(os, "sendfile", None)
    if sendfile is not None:
        copies.append(lambda source, target, count: sendfile(target, source, None, count))
    return copies

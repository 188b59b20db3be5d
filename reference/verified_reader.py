"""The verified reader: reads a wrapped file from start to end, checked to be the recorded file and
size (FBD-CHANGE-1), by in-kernel copies where the output allows, and the output helpers shared
with ``Cord`` (short writes, full non-blocking outputs: FBD-WRITE-1, FBD-FAULT-3)."""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
from collections.abc import Callable
from typing import NoReturn, Protocol

from .location import FileChangedError, Identity, Location, identity_of

if sys.platform != "win32":  # pragma: no branch - POSIX only; on Windows no holes are kept
    import fcntl


CHUNK_SIZE = 1 << 20
"""Size of a buffer through which a file is read (spec FBD-HASH-3, FBD-WRITE-2, NDS-DEDUP-11)."""

SMALL_PIECE = 4096
"""Bytes up to which a file is read whole in one ``read`` and written through the output's
``write`` (``_VerifiedReader.write_small``): less than a filesystem block, so that no whole block of
the output could have been left a hole (FBD-WRITE-3)."""

_KERNEL_STEP = 1 << 30
"""Bytes asked of one in-kernel copy or direct ``readinto`` (Linux caps one call at 2 GiB)."""

_NOT_HERE = frozenset(
    {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EBADF, errno.EOPNOTSUPP, errno.ETXTBSY}
)
"""Errors by which an in-kernel copy says it cannot copy between these two files (an output in
append mode, another filesystem, an old kernel, a pipe): the next way of copying is tried."""


class Writable(Protocol):
    """A binary sink: a file opened for writing, ``io.BytesIO``, or anything with ``write``."""

    def write(self, data: bytes | memoryview, /) -> object: ...


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
    file ends where its recorded size says, and that nothing wrote it while it was read.
    """

    def __init__(
        self, location: Location, identity: Identity, size: int, directory: int | None = None
    ) -> None:
        """Open the file in ``directory``, a descriptor of its recorded directory (checked by
        ``Location.opened_directory``), or when None in one opened for the call."""
        self._location = location
        self._size = size
        self.remaining = size
        if directory is None:
            with location.opened_directory() as held:  # FBD-READ-4: no link, no FIFO, no wait
                fd, st = location.open_in(held, identity)
        else:
            fd, st = location.open_in(directory, identity)
        self._file = open(fd, "rb", buffering=0)  # noqa: SIM115  # closed by close()/__exit__
        self._opened = self._stamp(st)
        self._status = st
        self._used = False
        try:
            self._check_size(st.st_size)
            if identity_of(st) != identity:  # FBD-IDENT-1: the same inode number, another file
                raise FileChangedError(
                    errno.ESTALE,
                    "the file was modified or replaced after it was wrapped",
                    self._location.path,
                )
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
            self._location.path,
        )

    def _took(self, n: int) -> None:
        """Count ``n`` bytes as read; none while some remain means the file is shorter now."""
        if n == 0:
            self._changed(self._size - self.remaining)
        self.remaining -= n

    @staticmethod
    def _stamp(st: os.stat_result) -> tuple[int, ...]:
        """What a write, a truncate or a ``utime`` of the file changes: its size, ``st_mtime_ns``,
        and ``st_ctime_ns``, which the kernel sets to now on each of them and no call can set
        back (FBD-CHANGE-1)."""
        return st.st_size, st.st_mtime_ns, st.st_ctime_ns

    def check_unchanged(self) -> None:
        """Raise FileChangedError unless the open file has its size and stamps of when it was
        opened: FBD-CHANGE-1's check of a change while it was read, a rewrite in place that kept
        the size too. One ``fstat``."""
        st = os.fstat(self._file.fileno())
        self._check_size(st.st_size)
        if self._stamp(st) != self._opened:
            raise FileChangedError(
                errno.ESTALE, "the file was modified while it was read", self._location.path
            )

    def write_to(self, outfile: Writable) -> None:
        """Write the file at ``outfile``'s position, leaving it just after (FBD-WRITE-1): a small
        file through ``write_small``; into a file from ``open()`` by the kernel, holes kept
        (FBD-WRITE-3); into an ``io.BytesIO`` read straight into its memory; into anything else in
        chunks through ``write``. A reader used before starts again from the file's start, so a
        Cord that holds a piece twice streams it twice from one descriptor."""
        if self._used:
            self._file.seek(0)
            self.remaining = self._size
        self._used = True
        target = _os_file(outfile) if self.is_os_file else None
        if self._size <= SMALL_PIECE and (target is None or self._dense()):
            self.write_small(outfile)
            return
        if target is not None:
            target.flush()  # bytes still buffered by Python go first
            self.send_sparse(target.fileno())  # holes stay holes (FBD-WRITE-3)
            self.send_to(target.fileno())  # moves the position that ``target`` reads back
        elif type(outfile) is io.BytesIO:
            self.read_into(outfile)
        self.stream(lambda chunk: write_all(outfile, chunk))  # what is left, and the end

    def _dense(self) -> bool:
        """Whether the file's allocated blocks cover its size, so it has no hole to keep."""
        return self._status.st_blocks * 512 >= self._size

    def write_small(self, outfile: Writable) -> None:
        """The fast path of FBD-WRITE-1 and CORD-WRITE-1 for a file of at most ``SMALL_PIECE``
        bytes: one ``read``, and the bytes go to ``outfile.write`` like a ``bytes`` piece, so a
        buffered output gathers many small pieces into one system call, where the kernel's copy
        would cost a flush and a dozen calls for each; ``stream`` then reads a short read's rest
        and checks the end (FBD-CHANGE-1). Holes need no care: into a real file this is taken only
        for a file with no hole (``_dense``), and any other output gets zeros anyway."""
        data = self._file.read(self.remaining) or b""
        self.remaining -= len(data)
        write_all(outfile, memoryview(data))
        self.stream(lambda chunk: write_all(outfile, chunk))  # a short read's rest, and the end

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes, fewer only at the end of the file: FBD-READ-1, unbuffered. One
        read call returns at most 2 GiB on Linux, so a larger ``size`` takes several."""
        parts: list[bytes] = []
        while size > 0 and (data := self._file.read(size)):
            parts.append(data)
            size -= len(data)
        self.check_unchanged()
        return b"".join(parts)  # one part: that very object, no copy

    def stream(self, sink: Callable[[memoryview], object]) -> None:
        """Pass what remains to ``sink`` in chunks of at most ``CHUNK_SIZE``, read into one
        reused buffer, then check that the file ends where its recorded size says."""
        buffer = memoryview(bytearray(min(CHUNK_SIZE, max(self.remaining, 1))))
        while self.remaining:
            n = self._file.readinto(buffer[: min(self.remaining, len(buffer))]) or 0
            self._took(n)
            sink(buffer[:n])
        self.check_unchanged()  # grown, or written in place, while it was read (FBD-CHANGE-1)

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
            data = self._next_data(source, at, end)
            if data is None:
                return
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
        self._extend_to_position(fd)

    def _next_data(self, source: int, at: int, end: int) -> int | None:
        """Where the next data at or after ``at`` starts in ``source`` (``end``: a hole to the
        end); None where the filesystem does not tell holes."""
        try:
            return min(os.lseek(source, at, os.SEEK_DATA), end)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # the filesystem does not tell holes
                return None
            self._check_size(os.fstat(source).st_size)  # ENXIO also means past a new end
            return end  # no data after ``at``: a hole to the end

    @staticmethod
    def _extend_to_position(fd: int) -> None:
        """Make ``fd``'s file at least as long as its position: a hole at the end of the copy
        still counts in the size."""
        position = os.lseek(fd, 0, os.SEEK_CUR)
        if os.fstat(fd).st_size < position:
            os.ftruncate(fd, position)

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
        """Read what remains, a byte or more, straight into ``out``'s memory at its position,
        grown once first."""
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
    if sys.platform == "win32" or not hasattr(os, "SEEK_DATA"):  # pragma: no cover - not Linux
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

"""The ownership registry and the release of owned files: one owner per file (FBD-MOVE-9), release
at garbage collection and at interpreter exit (FBD-CLOSE-4, FBD-CLOSE-5), never of another file
(FBD-CLOSE-8), never by a forked child (FBD-FORK-1), and not starved of a descriptor (FBD-EXIT-2)
nor outrun by owners made while the exit release runs (FBD-EXIT-3)."""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import stat
import threading
import warnings
import weakref
from collections.abc import Iterator
from types import FrameType
from typing import Any, Protocol

from .deferral import _atomically, _Handlers, _python_handlers, _replace, _restore
from .location import Identity, Location


class FileBackedData(Protocol):
    """What the registry needs of an owner (a ``file_backed.FileBackedData``), named here so that
    this module does not import the one that imports it."""

    @property
    def path(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def _finalizer(self) -> weakref.finalize[..., Any] | None: ...


class _Entry(weakref.ref["FileBackedData"]):
    """A registry entry: the owner, weakly, and what releases its file (its location and owning
    process), so that the exit release can remove a file whose owner was collected after
    ``weakref.finalize`` had stopped running finalizers (FBD-CLOSE-5)."""

    __slots__ = ("location", "pid")

    location: Location
    pid: int


def _entry(owner: FileBackedData, location: Location, pid: int) -> _Entry:
    entry = _Entry(owner)
    entry.location, entry.pid = location, pid
    return entry


# (st_dev, st_ino, st_mtime_ns) -> the live object that owns that file, so a second owner is
# refused (FBD-MOVE-9); no descriptor is held, a reused inode number has another st_mtime_ns
# (FBD-IDENT-1, FBD-IDENT-2).
_owners: dict[Identity, weakref.ref[FileBackedData]] = {}
_exiting = False
"""Set when the release at exit begins: from then on no object may become an owner (FBD-EXIT-3),
so the release cannot be outrun by threads still running."""
_owners_lock = threading.RLock()
"""Re-entrant (FBD-CLOSE-4): the collector can run a finalizer, whose release unregisters its
owner, at any allocation, so inside a region of this thread that holds the lock; each region
changes ``_owners`` in one step, so a release run inside it finds the registry consistent."""


def _reset_after_fork() -> None:
    """In a forked child: a fresh registry lock, as another thread may have held it at the fork
    (FBD-FORK-2), and owners allowed again: a child forked while its parent exits has not begun
    its own exit."""
    global _owners_lock, _exiting
    _owners_lock = threading.RLock()
    _exiting = False


if hasattr(os, "register_at_fork"):  # pragma: no branch  # every POSIX system has it
    os.register_at_fork(after_in_child=_reset_after_fork)


def _release(location: Location, identity: Identity, pid: int) -> None:
    """Backstop run at garbage collection and interpreter exit: remove the owned file, with no
    interrupt splitting it (one raised in a finalizer would be reported and lost anyway)."""
    _atomically(lambda: _release_now(location, identity, pid), lambda _: None)


def _release_now(location: Location, identity: Identity, pid: int) -> None:
    try:
        if os.getpid() == pid:  # FBD-FORK-1: a forked child never deletes its parent's file
            _remove_with_reserve(location, identity)
    except OSError as exc:  # FBD-CLOSE-6: never raised here; FBD-CLOSE-7: a warning naming it
        warnings.warn(f"could not remove {location.path!r}: {exc}", RuntimeWarning, stacklevel=1)
    finally:
        _unregister(identity)


def _release_all_at_exit(refuse: bool = False) -> None:
    """Release every owned file still open at exit, with every signal that has a Python handler
    ignored throughout (SIGINT's, a SIGTERM handler that raises ``SystemExit``, ...), so that a
    signal while the interpreter exits cannot leave the rest behind (FBD-INTR-1, FBD-CLOSE-5);
    with ``refuse`` (the exit hook), no object may become an owner from then on (FBD-EXIT-3).
    Entries are released until none is left that was not (FBD-EXIT-3)."""
    previous: _Handlers = {}
    with contextlib.suppress(BaseException):  # a signal came as ignoring began: release goes on
        previous = _python_handlers()
        _replace(previous, _ignore)
    try:
        if refuse:
            _refuse_owners()  # pragma: no cover  # the suite's race or fault
        done: set[Identity] = set()
        while entries := [(k, r) for k, r in list(_owners.items()) if k not in done]:
            for identity, ref in entries:  # until no entry is left that was not released
                done.add(identity)
                _release_entry(identity, ref)
    finally:
        _restore(previous)


def _refuse_owners() -> None:
    """From now on no object becomes an owner (FBD-EXIT-3). The registry lock is waited for a
    bounded time only: a daemon thread frozen while it held the lock cannot stop the release."""
    global _exiting
    with _bounded(_owners_lock):
        _exiting = True


@contextlib.contextmanager
def _bounded(lock: threading.RLock) -> Iterator[None]:
    """``lock`` held for the block if it can be had within ``_EXIT_LOCK_WAIT``, else the block
    runs without it: a release must go on even past a daemon thread frozen holding it."""
    locked = lock.acquire(timeout=_EXIT_LOCK_WAIT)
    try:
        yield
    finally:
        if locked:  # pragma: no branch  # the suite's race or fault
            lock.release()


_EXIT_LOCK_WAIT = 5.0
"""Seconds the exit release waits for the registry lock, which a daemon thread may hold."""


def _release_entry(identity: Identity, ref: weakref.ref[FileBackedData]) -> None:
    """Release the file of one registry entry at exit: through its owner's finalizer (detached
    and called, as weakref's own exit hook may have shut finalizers down), or, the owner
    collected since that hook ran, through what the entry records."""
    owner = ref()
    if owner is not None:
        finalizer = owner._finalizer
        pending = finalizer.detach() if finalizer is not None else None
        if pending is not None:  # pragma: no branch  # the suite's race or fault
            _, release, args, _ = pending
            release(*args)  # _release: never raises, warns for a failed removal
    elif isinstance(ref, _Entry):
        _release(ref.location, identity, ref.pid)


def _ignore(signum: int, frame: FrameType | None) -> None:
    """The handler of every signal while owned files are released at exit: nothing to do."""


atexit.register(_release_all_at_exit, refuse=True)


def _remove_if_same(location: Location, identity: Identity) -> None:
    """Unlink the owned file unless it is gone or its name now names some other file, through a
    descriptor of its directory (FBD-CLOSE-8, FBD-CLOSE-9), which a process out of descriptors
    gets by giving up its reserve (FBD-EXIT-2)."""
    _remove_with_reserve(location, identity)


def _remove_with_reserve(location: Location, identity: Identity) -> None:
    """``location.remove_if(identity)``; when no descriptor is free for the directory (``EMFILE``,
    ``ENFILE``), the reserve is closed for it and taken again after (FBD-EXIT-2)."""
    try:
        location.remove_if(identity)
    except OSError as exc:
        if exc.errno not in (errno.EMFILE, errno.ENFILE):
            raise
        with _bounded(_owners_lock):  # one release spends the reserve at a time
            if not _reserve.spend():
                raise
            try:
                location.remove_if(identity)
            finally:
                _reserve.take()
    else:
        if _reserve.fd is None:  # spent when none could be had again: taken when one can
            with _bounded(_owners_lock):
                _reserve.take()


class _Reserve:
    """A descriptor kept for the release: a process that exits, or releases, with every
    descriptor in use (which is how a process that ran out of them ends) closes it to open the
    owned file's directory (FBD-EXIT-2). It is the read end of a pipe whose write end is closed:
    its inode is its own, so a descriptor someone else has since put at its number (a
    ``closerange``) is never closed for it."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.inode: tuple[int, int] | None = None
        self.take()

    def take(self) -> None:
        """Hold a reserve descriptor again, if none is held and one can be had."""
        if self.fd is not None:
            return  # pragma: no cover  # the suite's race or fault
        try:
            read, write = os.pipe()
        except OSError:
            return  # none to be had now: the next release tries again
        os.close(write)
        st = os.fstat(read)
        self.fd, self.inode = read, (st.st_dev, st.st_ino)

    def spend(self) -> bool:
        """Close the reserve, if it is still this process's own; whether one was closed."""
        fd, self.fd = self.fd, None
        if fd is None:
            return False
        try:
            st = os.fstat(fd)
        except OSError:  # pragma: no cover  # the suite's race or fault
            return False
        if (st.st_dev, st.st_ino) != self.inode or not stat.S_ISFIFO(st.st_mode):
            return False  # closed and reused by someone else: not ours to close
        os.close(fd)
        return True


_reserve = _Reserve()


def _unregister(identity: Identity) -> None:
    with _owners_lock:
        _owners.pop(identity, None)


def _register(identity: Identity, owner: FileBackedData, location: Location, pid: int) -> None:
    """Record ``owner`` as the owner of the file ``identity``, unless an open object owns it, or
    the interpreter is exiting (its owned files already released: FBD-EXIT-3)."""
    with _owners_lock:
        _refuse_if_exiting(owner.path)
        current = _live_owner(identity)
        if current is not None:
            raise ValueError(f"{owner.path!r} is already owned by {current!r}")
        _owners[identity] = _entry(owner, location, pid)


def _refuse_if_exiting(path: str) -> None:
    """``RuntimeError`` naming ``path`` once the release at exit has begun (FBD-EXIT-3)."""
    if _exiting:
        raise RuntimeError(
            f"cannot own {path!r}: the interpreter is exiting, and its owned files have been "
            "released"
        )


def _registry_lock() -> threading.RLock:
    """The registry lock of this process (a forked child has its own: FBD-FORK-2)."""
    return _owners_lock


def _owner_of(identity: Identity) -> FileBackedData | None:
    with _owners_lock:
        return _live_owner(identity)


def _live_owner(identity: Identity) -> FileBackedData | None:
    """The open object that owns the file ``identity``, if any; ``_owners_lock`` is held."""
    ref = _owners.get(identity)
    owner = ref() if ref is not None else None
    return owner if owner is not None and not owner.closed else None

"""The ownership registry and the release of owned files: one owner per file (FBD-MOVE-9), release
at garbage collection and at interpreter exit (FBD-CLOSE-4, FBD-CLOSE-5), never of another file
(FBD-CLOSE-8) and never by a forked child (FBD-FORK-1)."""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import warnings
import weakref
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


# (st_dev, st_ino, st_mtime_ns) -> the live object that owns that file, so a second owner is
# refused (FBD-MOVE-9); no descriptor is held, a reused inode number has another st_mtime_ns
# (FBD-IDENT-1, FBD-IDENT-2).
_owners: dict[Identity, weakref.ref[FileBackedData]] = {}
_owners_lock = threading.RLock()
"""Re-entrant (FBD-CLOSE-4): the collector can run a finalizer, whose release unregisters its
owner, at any allocation, so inside a region of this thread that holds the lock; each region
changes ``_owners`` in one step, so a release run inside it finds the registry consistent."""


def _reset_after_fork() -> None:
    """In a forked child: a fresh registry lock, as another thread may have held it at the fork
    (FBD-FORK-2)."""
    global _owners_lock
    _owners_lock = threading.RLock()


if hasattr(os, "register_at_fork"):  # pragma: no branch  # every POSIX system has it
    os.register_at_fork(after_in_child=_reset_after_fork)


def _release(location: Location, identity: Identity, pid: int) -> None:
    """Backstop run at garbage collection and interpreter exit: remove the owned file, with no
    interrupt splitting it (one raised in a finalizer would be reported and lost anyway)."""
    _atomically(lambda: _release_now(location, identity, pid), lambda _: None)


def _release_now(location: Location, identity: Identity, pid: int) -> None:
    try:
        if os.getpid() == pid:  # FBD-FORK-1: a forked child never deletes its parent's file
            _remove_if_same(location, identity)
    except OSError as exc:  # FBD-CLOSE-6: never raised here; FBD-CLOSE-7: a warning naming it
        warnings.warn(f"could not remove {location.path!r}: {exc}", RuntimeWarning, stacklevel=1)
    finally:
        _unregister(identity)


def _release_all_at_exit() -> None:
    """Release every owned file still open at exit, with every signal that has a Python handler
    ignored throughout (SIGINT's, a SIGTERM handler that raises ``SystemExit``, ...), so that a
    signal while the interpreter exits cannot leave the rest behind (FBD-INTR-1, FBD-CLOSE-5)."""
    previous: _Handlers = {}
    with contextlib.suppress(BaseException):  # a signal came as ignoring began: release goes on
        previous = _python_handlers()
        _replace(previous, _ignore)
    try:
        owners = [ref() for ref in list(_owners.values())]  # no lock: a daemon thread may hold it
        for owner in owners:
            # detached and called, as weakref's own exit hook may have shut finalizers down
            finalizer = owner._finalizer if owner is not None else None
            pending = finalizer.detach() if finalizer is not None else None
            if pending is not None:
                _, release, args, _ = pending
                release(*args)  # _release: never raises, warns for a failed removal
    finally:
        _restore(previous)


def _ignore(signum: int, frame: FrameType | None) -> None:
    """The handler of every signal while owned files are released at exit: nothing to do."""


atexit.register(_release_all_at_exit)


def _remove_if_same(location: Location, identity: Identity) -> None:
    """Unlink the owned file unless it is gone or its name now names some other file, through a
    descriptor of its directory (FBD-CLOSE-8, FBD-CLOSE-9)."""
    location.remove_if(identity)


def _unregister(identity: Identity) -> None:
    with _owners_lock:
        _owners.pop(identity, None)


def _register(identity: Identity, owner: FileBackedData) -> None:
    """Record ``owner`` as the owner of the file ``identity``, unless an open object owns it."""
    with _owners_lock:
        current = _live_owner(identity)
        if current is not None:
            raise ValueError(f"{owner.path!r} is already owned by {current!r}")
        _owners[identity] = weakref.ref(owner)


def _owner_of(identity: Identity) -> FileBackedData | None:
    with _owners_lock:
        return _live_owner(identity)


def _live_owner(identity: Identity) -> FileBackedData | None:
    """The open object that owns the file ``identity``, if any; ``_owners_lock`` is held."""
    ref = _owners.get(identity)
    owner = ref() if ref is not None else None
    return owner if owner is not None and not owner.closed else None

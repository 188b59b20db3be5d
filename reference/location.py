"""Where a blob's file is and which file it is: its directory (an absolute path and that directory's
identity), its name there, and the file's identity. Every open, stat and unlink of the file goes
through a descriptor of that directory, checked to be the recorded one, never following a link
(FBD-CLOSE-9, FBD-READ-4); no descriptor is held between calls (FBD-IDENT-2)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["FileChangedError", "Identity", "Location", "identity_of", "locate"]

Identity = tuple[int, int, int]
"""``(st_dev, st_ino, st_mtime_ns)``: the inode, and when its contents last changed, which a file
that reuses a freed inode number has of its own making (FBD-IDENT-1)."""

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
"""Opening the blob: never through a link, and never waiting on a FIFO or device put in its place
(FBD-READ-4); for a regular file ``O_NONBLOCK`` changes nothing."""


class FileChangedError(OSError):
    """The wrapped file is no longer the file, or the size, recorded when it was wrapped."""


def identity_of(st: os.stat_result) -> Identity:
    """The identity of the file ``st`` describes (FBD-IDENT-1)."""
    return st.st_dev, st.st_ino, st.st_mtime_ns


class Location(NamedTuple):
    """A file's directory, by absolute path and ``(st_dev, st_ino)``, and its name in it."""

    directory: str
    name: str
    directory_identity: tuple[int, int]

    @property
    def path(self) -> str:
        return os.path.join(self.directory, self.name)

    @contextlib.contextmanager
    def opened_directory(self) -> Iterator[int]:
        """A descriptor of the recorded directory, closed after the block; FileNotFoundError
        naming the file when the path now leads to another directory (one above it was moved or
        replaced, by a link or otherwise): nothing there is the file (FBD-CLOSE-9)."""
        try:
            fd = os.open(self.directory, _DIRECTORY_FLAGS)
        except OSError as exc:  # FBD-FAULT-2: named by the file's path
            raise OSError(exc.errno, exc.strerror, self.path) from exc
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self.directory_identity:
                raise FileNotFoundError(
                    errno.ENOENT, "the file's directory was moved or replaced", self.path
                )
            yield fd
        finally:
            os.close(fd)

    def stat_in(self, directory: int) -> os.stat_result:
        """The entry's own status in ``directory``, a link not followed."""
        return os.stat(self.name, dir_fd=directory, follow_symlinks=False)

    def open_in(self, directory: int, identity: Identity) -> tuple[int, os.stat_result]:
        """A read-only descriptor of the file at this name in ``directory``, and its status:
        opened without following a link or blocking (FBD-READ-4), then checked to be a regular
        file with the inode of ``identity`` (FileChangedError otherwise). The caller checks the
        size and then the rest of the identity, so that a size change is reported as one."""
        fd = os.open(self.name, _READ_FLAGS, dir_fd=directory)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != identity[:2]:
                raise FileChangedError(
                    errno.ESTALE, "the file was replaced after it was wrapped", self.path
                )
        except BaseException:
            os.close(fd)
            raise
        return fd, st

    def remove_if(self, identity: Identity) -> None:
        """Unlink the file if this name in the recorded directory still names it (FBD-CLOSE-8,
        FBD-CLOSE-9); a file or directory that is gone, or is another now, is left alone."""
        try:
            with self.opened_directory() as directory:
                st = self.stat_in(directory)
                if identity_of(st) == identity:
                    os.unlink(self.name, dir_fd=directory)
        except FileNotFoundError:  # FBD-CLOSE-6: an owned file already gone is no error
            return
        except OSError as exc:  # named by its path, not by its name in the directory
            raise OSError(exc.errno, exc.strerror, self.path) from exc


def locate(path: str, link: bool) -> Location:
    """Where the file at ``path`` is: its directory made absolute (an owner survives
    ``os.chdir``: FBD-INIT-8), with that directory's identity, and its name there; when ``link``,
    where the link ``path`` leads. The directory is looked at by one ``stat``: were it swapped
    between that and the file's own ``stat``, every later use finds no file of the recorded
    identity there, or the same file by another link (FBD-CLOSE-9)."""
    absolute = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
    if link:
        absolute = os.path.realpath(absolute)
    directory, name = os.path.split(absolute)
    held = os.stat(directory)
    return Location(directory, name, (held.st_dev, held.st_ino))

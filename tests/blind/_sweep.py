"""A port's sweep of orphaned placeholders, built from the reference's parts, with the choices a
port makes as parameters: how it judges an owner gone, whether it goes on past a file it may not
remove, how it opens the directory. With the defaults it does what ``reference.sweep`` does."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from reference import sweep as reference_sweep

Judge = Callable[[int | None, int | None], str]


class Sweep:
    """The ``Sweep`` protocol over a sweep made of these choices."""

    def __init__(
        self,
        owner_state: Judge = reference_sweep.owner_state,
        go_on: bool = True,
        open_flags: int = reference_sweep._OPEN_FLAGS,
    ) -> None:
        self.owner_state = owner_state
        self.go_on = go_on
        self.open_flags = open_flags

    def sweep(self, directory: str, dry_run: bool) -> list[str]:
        dirfd = os.open(directory, self.open_flags)
        removed: list[str] = []
        try:
            for entry in sorted(os.scandir(dirfd), key=lambda e: e.name):
                match = reference_sweep._NAME.fullmatch(entry.name)
                if match is None:
                    continue
                try:
                    st = os.stat(entry.name, dir_fd=dirfd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                pid = None if match["pid"] is None else int(match["pid"])
                start = None if match["start"] is None else int(match["start"])
                if self.owner_state(pid, start) != "gone":
                    continue
                if dry_run:
                    removed.append(os.path.join(directory, entry.name))
                    continue
                try:
                    if self._remove(dirfd, entry.name, (st.st_dev, st.st_ino), pid, start):
                        removed.append(os.path.join(directory, entry.name))
                except OSError:
                    if not self.go_on:
                        raise
        finally:
            os.close(dirfd)
        return removed

    def _remove(
        self, dirfd: int, name: str, identity: tuple[int, int], pid: int | None, start: int | None
    ) -> bool:
        try:
            st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if (st.st_dev, st.st_ino) != identity or not stat.S_ISREG(st.st_mode):
            return False
        if self.owner_state(pid, start) != "gone":
            return False
        try:
            os.unlink(name, dir_fd=dirfd)
        except FileNotFoundError:
            return False
        return True

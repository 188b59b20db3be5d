"""Putting a moved file back when the source's name was taken meanwhile (FBD-MOVE-11), and what
goes back when something else sits at the placeholder (FBD-MOVE-5).

Once ``move_from``'s rename has freed the source's name, another process can take it before an
undo puts the file back: a handler of the interrupt that undoes the move takes it here, at each
step of ``move_from``, as another user in a sticky directory could. Nothing may be deleted, nor
the name's new holder replaced: the data is back at the source's name or kept at a name the error
gives, and stays there after a collection.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import os
import shutil
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.helpers import PLACEHOLDER_GLOB, Blobs, placeholders
from conformance.harness.interrupts import forget
from conformance.harness.steps import at_step, count_calls_steps

clause = pytest.mark.clause
requires = pytest.mark.requires

DATA = b"the user's only copy of the weights " * 64
INTRUDER = b"another user's file"
MOVED = pytest.mark.relies_on("FBD-MOVE-1", "FBD-MOVE-2", "FBD-MOVE-6")
"""The data is renamed, beside the source: the put-back has a name to free and an inode to keep."""
OCCUPIERS = pytest.mark.parametrize("occupier", ["directory", "file"])
"""What takes the freed name: a directory (no rename of a file onto it succeeds, not even root's)
or a file (which a replacing rename would destroy)."""

_real_lstat, _real_open, _real_close, _real_write = os.lstat, os.open, os.close, os.write


@dataclass
class Run:
    """One move: its directory, source and source inode, and whether the name was taken."""

    directory: Path
    source: Path
    inode: int
    occupied: bool = False


def _lexists(path: Path) -> bool:
    try:
        _real_lstat(path)
    except FileNotFoundError:
        return False
    return True


def occupy(path: Path, occupier: str) -> None:
    """Take the name ``path`` with a new directory or file (by the functions taken at import, so
    that no step is counted)."""
    if occupier == "directory":
        os.mkdir(path)
        return
    fd = _real_open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _real_write(fd, INTRUDER)
    finally:
        _real_close(fd)


def intact(path: Path, occupier: str) -> bool:
    """Whether what :func:`occupy` put at ``path`` is still there, unchanged."""
    if occupier == "directory":
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    return path.is_file() and path.read_bytes() == INTRUDER


def contexts(error: BaseException) -> Iterator[BaseException]:
    """``error`` and the exceptions it was raised while handling, newest first."""
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__context__


@contextlib.contextmanager
def sigint_raising(run: Run, occupier: str) -> Iterator[None]:
    """SIGINT's handler, over the block: it takes the source's name if it is free (the rename
    has freed it), then raises KeyboardInterrupt as Python's does."""

    def take_then_raise(signum: int, frame: object) -> None:
        if not _lexists(run.source):
            occupy(run.source, occupier)
            run.occupied = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, take_then_raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def judge_kept(run: Run, error: BaseException, occupier: str, where: str) -> None:
    """After a put-back that found the name taken: nothing deleted or replaced, the data at the
    path the OSError names, under no placeholder's name, still there after a collection."""
    gc.collect()
    assert intact(run.source, occupier), (
        f"{where}: the {occupier} that took the source's name was replaced or changed"
    )
    assert isinstance(error, OSError), (
        f"{where}: the source's name was taken before the move was undone, so move_from must "
        f"raise an OSError naming where the data is kept; it raised {error!r}"
    )
    assert error.filename is not None, f"{where}: {error!r} names no path"
    kept = Path(os.fsdecode(error.filename))
    if not kept.is_absolute():
        kept = Path.cwd() / kept
    left = sorted(p.name for p in run.directory.iterdir())
    assert kept.exists(), f"{where}: the data is not at {kept} the error names; found {left}"
    assert kept.parent == run.directory, (
        f"{where}: the data was kept outside the source's directory"
    )
    assert kept.read_bytes() == DATA and kept.stat().st_ino == run.inode, (
        f"{where}: {kept.name} is not the moved file (its inode, its bytes)"
    )
    assert not fnmatch.fnmatch(kept.name, PLACEHOLDER_GLOB), (
        f"{where}: the data was left under a placeholder's name, {kept.name}, which a sweep "
        "removes once this process has exited"
    )
    assert placeholders(run.directory) == [], f"{where}: a placeholder is left: {left}"


@requires("file-backed")
class TestNameTakenBeforeThePutBack:
    @staticmethod
    def fresh(base: Path, n: int) -> Run:
        directory = base / f"run{n}"
        directory.mkdir()
        source = directory / "weights.bin"
        source.write_bytes(DATA)
        return Run(directory, source, source.stat().st_ino)

    @clause("FBD-MOVE-11")
    @MOVED
    @OCCUPIERS
    def test_an_interrupted_move_loses_nothing(
        self, impl: Implementation, tmp_path: Path, occupier: str
    ) -> None:
        """At each step of move_from a SIGINT comes whose handler takes the freed name, then
        raises: the data is back at the source's name or kept, never deleted."""

        def move(run: Run) -> FileBackedData:
            return impl.FileBackedData.move_from(str(run.source))

        probe = self.fresh(tmp_path, -1)
        steps = count_calls_steps(lambda: move(probe).close())
        taken = 0
        for step in range(steps + 1):
            run = self.fresh(tmp_path, step)
            where = f"SIGINT at step {step} of move_from's {steps} (before/after each OS call)"
            error: BaseException | None = None
            made: FileBackedData | None = None
            try:
                with (
                    sigint_raising(run, occupier),
                    at_step(step, lambda: signal.raise_signal(signal.SIGINT)),
                ):
                    made = move(run)
            except (Exception, KeyboardInterrupt) as exc:
                error = forget(exc)
            if made is not None:  # completed: the owner has the data
                assert Path(impl.path_of(made)).read_bytes() == DATA, where
                made.close()
            elif run.occupied:
                taken += 1
                judge_kept(run, error, occupier, where)  # type: ignore[arg-type]  # it raised
            else:
                gc.collect()
                assert run.source.read_bytes() == DATA, f"{where}: the source lost its data"
            shutil.rmtree(run.directory)
        assert taken > 0, "no run had its source's name freed before the handler ran"

    @clause("FBD-MOVE-11")
    @MOVED
    @OCCUPIERS
    def test_a_failed_move_loses_nothing(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        occupier: str,
    ) -> None:
        """The file at the source's path is swapped just before the rename (the move must fail
        and put back what it took), and the name is taken just after it."""
        run = self.fresh(tmp_path, 0)
        swapped = run.directory / "swapped.bin"
        swapped.write_bytes(DATA)
        run.inode = swapped.stat().st_ino  # what the rename takes, and must be kept
        real_replace = os.replace
        calls: list[tuple[Any, Any]] = []

        def racing_replace(src: Any, dst: Any) -> None:
            calls.append((src, dst))
            if len(calls) == 1:
                real_replace(swapped, run.source)  # another inode at the checked path
                real_replace(src, dst)
                occupy(run.source, occupier)
                run.occupied = True
                return
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", racing_replace)
        try:
            blobs.move(run.source)
        except (Exception, KeyboardInterrupt) as exc:
            error: BaseException | None = forget(exc)
        else:
            error = None
        monkeypatch.undo()
        try:
            if error is not None:  # else taken over as it was: nothing was put back
                judge_kept(run, error, occupier, "the source's name taken after a failed rename")
        finally:
            for left in placeholders(tmp_path):  # reported above, not again by the fixture
                left.unlink()


@requires("file-backed")
class TestWhatGoesBack:
    @clause("FBD-MOVE-5")
    @MOVED
    def test_a_file_renamed_onto_the_placeholder_goes_back(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Another file is renamed onto the placeholder just after the rename: the move fails,
        and that file, the one then at the placeholder, goes back to the source's path."""
        source = blobs.file(DATA, "weights.bin")
        other = blobs.file(INTRUDER, "other.bin")
        inode = other.stat().st_ino
        real_replace = os.replace
        calls: list[tuple[Any, Any]] = []

        def replace_then_swap(src: Any, dst: Any) -> None:
            calls.append((src, dst))
            real_replace(src, dst)
            if len(calls) == 1:
                real_replace(other, dst)

        monkeypatch.setattr(os, "replace", replace_then_swap)
        try:
            blobs.move(source)
        except (Exception, KeyboardInterrupt) as exc:
            error: BaseException | None = forget(exc)
        else:
            error = None
        monkeypatch.undo()
        gc.collect()
        if error is None:
            return  # taken over: FBD-MOVE-6's to judge
        left = sorted(p.name for p in tmp_path.iterdir())
        assert source.exists(), f"nothing was put back at the source's path; found {left}"
        assert (source.read_bytes(), source.stat().st_ino) == (INTRUDER, inode), (
            "the file at the placeholder when the move failed was not the one put back"
        )
        assert placeholders(tmp_path) == [], f"a placeholder is left: {left}"

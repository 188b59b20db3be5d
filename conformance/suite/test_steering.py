"""Nothing steers a blob's release or reads elsewhere (FBD-CLOSE-9, FBD-READ-4, FBD-INIT-8), and
no descriptor is held per blob (FBD-IDENT-2).

The attacks are made deterministic, with no second user and no real race: the directory above an
owned file is swapped for a symbolic link by a hook on the implementation's first look at the file
(or before it removes anything); a FIFO is put where the file was before a read, which must raise
at once rather than wait for a writer; a relative path is followed by ``os.chdir``; a child process
holds more blobs than its ``RLIMIT_NOFILE``.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import blame
from conformance.harness.child import child_script, run_child
from conformance.harness.helpers import Blobs
from conformance.harness.threads import in_thread

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on
requires = pytest.mark.requires

OWNED = b"the owner's contents\n" * 64
VICTIM = b"a stranger's file!!!\n" * 64  # the same size
PROMPT = 3.0  # seconds: a read that has not raised by then is waiting on the FIFO

_OWNING = [
    pytest.param(how, marks=relies_on("FBD-CLOSE-1")) for how in ("move_from", "cleanup=True")
]
"""The ways to make an owner, for a test that sees its file gone after ``close()``: the release
its clause asks for is observed through close's (FBD-CLOSE-1)."""
_LOOKS = ("stat", "lstat", "fstat", "open")  # the swap follows the first of these
_REMOVALS = ("unlink", "remove")  # or, when nothing looked first, precedes the removal


def _owned(blobs: Blobs, how: str) -> FileBackedData:
    source = blobs.file(OWNED, directory=_shared(blobs))
    if how == "move_from":
        return blobs.impl.FileBackedData.move_from(str(source))
    return blobs.impl.FileBackedData(str(source), cleanup=True)


def _shared(blobs: Blobs) -> Path:
    """A directory someone else may rename (a group-shared project directory)."""
    shared = blobs.directory / "shared" / "project"
    shared.mkdir(parents=True, exist_ok=True)
    return shared


@contextlib.contextmanager
def _swap_during(project: Path, elsewhere: Path) -> Iterator[list[str]]:
    """For the block: right after the implementation's first ``os.stat``/``lstat``/``fstat``/
    ``open``, or right before its first ``os.unlink``/``remove`` if it looked at nothing, the
    directory ``project`` is renamed away and a symbolic link to ``elsewhere`` put in its place.
    Yields a list that names the call after (or before) which the swap was made."""
    done: list[str] = []
    saved = {name: getattr(os, name) for name in _LOOKS + _REMOVALS}

    def swap(after: str) -> None:
        if not done:
            done.append(after)
            os.rename(project, project.with_name(project.name + ".moved"))
            os.symlink(elsewhere, project)

    def looking(name: str) -> Callable[..., Any]:
        def look(*args: Any, **kwargs: Any) -> Any:
            result = saved[name](*args, **kwargs)
            swap(name)
            return result

        return look

    def removing(name: str) -> Callable[..., Any]:
        def remove(*args: Any, **kwargs: Any) -> Any:
            swap(name)
            return saved[name](*args, **kwargs)

        return remove

    for name in _LOOKS:
        setattr(os, name, looking(name))
    for name in _REMOVALS:
        setattr(os, name, removing(name))
    try:
        yield done
    finally:
        for name in _LOOKS + _REMOVALS:
            setattr(os, name, saved[name])


@contextlib.contextmanager
def _left_where_it_was(blobs: Blobs) -> Iterator[None]:
    """After the block, whatever it did, remove the owned file from the directory that was renamed
    away: an implementation steered elsewhere leaves it there, which is the failure of FBD-CLOSE-9
    this test reports, not a second one of FBD-CLOSE-1 for the placeholder left behind."""
    try:
        yield
    finally:
        moved = _shared(blobs).with_name("project.moved")
        for left in moved.iterdir() if moved.is_dir() else ():
            left.unlink()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
@requires("file-backed")
class TestReleaseThroughTheDirectory:
    """FBD-CLOSE-9: release removes the owned file in the directory it was in, never a file of the
    same name in a directory that a link swapped in above it leads to."""

    def _victim(self, blobs: Blobs, blob: FileBackedData) -> Path:
        """A stranger's directory holding a file with the owned file's name."""
        elsewhere = blobs.directory / "private" / "project"
        elsewhere.mkdir(parents=True)
        victim = elsewhere / blobs.path(blob).name
        victim.write_bytes(VICTIM)
        return victim

    @clause("FBD-CLOSE-9", "FBD-CLOSE-8")
    @relies_on("FBD-CLOSE-1")  # a close() that removes nothing is never steered
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_close_is_not_steered_by_a_directory_swapped_for_a_link(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        blob = blobs.track(_owned(blobs, how))
        victim = self._victim(blobs, blob)
        with _left_where_it_was(blobs), _swap_during(_shared(blobs), victim.parent) as swapped:
            blob.close()
        assert swapped, "close() neither looked at nor removed anything"
        with blame("FBD-CLOSE-9", "FBD-CLOSE-8"):  # a stranger's file removed: theirs, not close's
            assert victim.exists(), (
                f"close() followed a directory swapped for a link (after os.{swapped[0]}) and "
                f"deleted a stranger's file of the same name"
            )
            assert victim.read_bytes() == VICTIM
        victim.unlink()  # the test's own, named like the placeholder

    @clause("FBD-CLOSE-9", "FBD-CLOSE-8")
    def test_collection_is_not_steered_by_a_directory_swapped_for_a_link(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        blob: FileBackedData | None = _owned(blobs, "move_from")
        assert blob is not None
        victim = self._victim(blobs, blob)
        with _left_where_it_was(blobs), _swap_during(_shared(blobs), victim.parent) as swapped:
            del blob
            gc.collect()
        assert swapped, "the release at garbage collection neither looked nor removed"
        assert victim.read_bytes() == VICTIM, "release at GC followed a swapped directory"
        victim.unlink()  # the test's own, named like the placeholder


def _unblock(fifo: Path) -> None:
    """Give a reader waiting on ``fifo`` a writer that closes at once: it reads an end of file."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


_READS: dict[str, Callable[[FileBackedData], object]] = {
    "prefix": lambda blob: blob.prefix(8),
    "sha256": lambda blob: blob.sha256(),
    "to_bytes": lambda blob: blob.to_bytes(),
    "write_to_file": lambda blob: blob.write_to_file(io.BytesIO()),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
@requires("file-backed")
class TestReadsNeverWait:
    """FBD-READ-4: a read opens nothing but the blob's regular file, and never waits to open."""

    def _check(self, blob: FileBackedData, read: str, fifo: Path) -> None:
        raised: list[BaseException] = []
        reader = in_thread(lambda: _READS[read](blob), raised)
        reader.join(PROMPT)
        ended = not reader.is_alive()
        if not ended:
            _unblock(fifo)
        assert ended, f"{read}() waited on a FIFO put in the file's place"
        assert raised and isinstance(raised[0], OSError), (
            f"{read}() of a blob whose file was replaced by a FIFO did not raise OSError: {raised}"
        )

    @clause("FBD-READ-4")
    @pytest.mark.parametrize("read", sorted(_READS))
    def test_a_fifo_in_the_files_place_is_refused_at_once(
        self, impl: Implementation, blobs: Blobs, read: str
    ) -> None:
        path = blobs.file(OWNED)
        blob = blobs.wrap(path)
        path.unlink()
        os.mkfifo(path)
        self._check(blob, read, path)

    @clause("FBD-READ-4")
    def test_a_link_to_a_fifo_in_an_owned_files_place_is_not_followed(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        blob = blobs.moved(OWNED)
        path = blobs.path(blob)
        fifo = blobs.directory / "fifo"
        os.mkfifo(fifo)
        moved_away = blobs.directory / "kept.bin"
        os.rename(path, moved_away)
        os.symlink(fifo, path)
        try:
            self._check(blob, "sha256", fifo)
        finally:
            os.unlink(path)
            os.rename(moved_away, path)  # back, for the release


_LINKED_READS = [*sorted(_READS), "Cord.write_to_file"]
"""Every read of FBD-READ-4: the blob's own, and a Cord's write of it."""


def _linked_read(impl: Implementation, blob: FileBackedData, read: str) -> object:
    if read == "Cord.write_to_file":
        out = io.BytesIO()
        impl.Cord(blob).write_to_file(out)
        return out.getvalue()
    return _READS[read](blob)


def _link_at_the_name(path: Path, target: str) -> None:
    """Put a symbolic link at ``path`` (the blob's file moved aside first): to that very file, to
    another file of the same contents, or to nothing."""
    aside = path.with_name(path.name + ".aside")
    os.rename(path, aside)
    if target == "own-file":
        os.symlink(aside, path)
    elif target == "other-file":
        other = path.with_name(path.name + ".other")
        other.write_bytes(OWNED)
        os.symlink(other, path)
    else:
        os.symlink(path.with_name("nothing-here"), path)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
@requires("file-backed")
class TestReadsNeverFollowALink:
    """FBD-READ-4: a symbolic link at the file's name, or at a directory above it, is refused
    with an OSError by every read, whatever it leads to; a link to the blob's own file passes
    every identity check, so only not following it refuses it."""

    @clause("FBD-READ-4")
    @pytest.mark.parametrize("target", ["own-file", "other-file", "dangling"])
    @pytest.mark.parametrize("read", _LINKED_READS)
    def test_a_link_at_the_files_name_is_not_read_through(
        self, impl: Implementation, blobs: Blobs, read: str, target: str
    ) -> None:
        path = blobs.file(OWNED)
        blob = blobs.wrap(path)
        _link_at_the_name(path, target)
        with pytest.raises(OSError):
            result = _linked_read(impl, blob, read)
            pytest.fail(f"{read}() read through a link to {target} at the file's name: {result!r}")

    @clause("FBD-READ-4")
    @pytest.mark.parametrize("read", _LINKED_READS)
    def test_a_directory_replaced_by_a_link_is_not_read_through(
        self, impl: Implementation, blobs: Blobs, read: str
    ) -> None:
        project = blobs.directory / "project"
        project.mkdir()
        blob = blobs.wrap(blobs.file(OWNED, name="w.bin", directory=project))
        elsewhere = blobs.directory / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "w.bin").write_bytes(OWNED)
        os.rename(project, blobs.directory / "project.moved")
        os.symlink(elsewhere, project)
        with pytest.raises(OSError):
            result = _linked_read(impl, blob, read)
            pytest.fail(f"{read}() read through a directory replaced by a link: {result!r}")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
@requires("file-backed")
class TestReleaseLeavesALink:
    """FBD-CLOSE-8: a symbolic link put at an owned file's name is another file, even when it
    leads to the owned file itself (moved aside): release does not delete it, nor its target."""

    @clause("FBD-CLOSE-8")
    @relies_on("FBD-CLOSE-1")  # a close() that removes nothing never deletes a link
    @pytest.mark.parametrize("target", ["own-file", "other-file", "dangling"])
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_close_leaves_a_link_at_the_name(
        self, impl: Implementation, blobs: Blobs, how: str, target: str
    ) -> None:
        blob = blobs.track(_owned(blobs, how))
        path = blobs.path(blob)
        _link_at_the_name(path, target)
        blob.close()
        assert path.is_symlink(), f"close() deleted a symbolic link to {target} at the owned name"
        if target != "dangling":
            assert path.read_bytes() == OWNED, "close() deleted the file the link leads to"
        for left in path.parent.iterdir():
            left.unlink()  # the test's own: the link, and what was moved aside


@requires("file-backed")
class TestRelativePaths:
    """FBD-INIT-8: a blob made from a relative path keeps its file through ``os.chdir``."""

    @clause("FBD-INIT-8")
    @pytest.mark.parametrize("how", [*_OWNING, "borrowed"])
    def test_a_blob_from_a_relative_path_survives_chdir(
        self,
        impl: Implementation,
        blobs: Blobs,
        how: str,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        path = blobs.file(OWNED, name="relative.bin")
        elsewhere = blobs.directory / "elsewhere"
        elsewhere.mkdir()
        monkeypatch.chdir(blobs.directory)
        if how == "move_from":
            blob = blobs.move("relative.bin")
        else:
            blob = blobs.wrap("relative.bin", cleanup=how == "cleanup=True")
        monkeypatch.chdir(elsewhere)
        with blame("FBD-INIT-8"):  # a read, not the release: no reliance on close()
            assert blob.to_bytes() == OWNED, "the blob read another file after os.chdir"
        blob.close()
        monkeypatch.chdir(blobs.directory)
        if how == "borrowed":
            assert path.read_bytes() == OWNED
        else:
            assert not [p for p in blobs.directory.iterdir() if p.is_file()], (
                "the owned file was left after os.chdir and close()"
            )


_MANY_BLOBS = r"""
import hashlib, resource
held = len(os.listdir("/proc/self/fd"))
limit = held + 48
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
count = 3 * limit
paths = []
for i in range(count):
    path = os.path.join(directory, f"blob{i}.bin")
    with open(path, "wb") as f:
        f.write(i.to_bytes(8, "big") * 8)
    paths.append(path)
if case == "move_from":
    blobs = [impl.FileBackedData.move_from(p) for p in paths]
else:
    blobs = [impl.FileBackedData(p, cleanup=case == "cleanup=True") for p in paths]
right = sum(b.sha256() == hashlib.sha256(i.to_bytes(8, "big") * 8).digest()
            for i, b in enumerate(blobs))
for b in blobs:
    b.close()
print(f"count={count}")
print(f"right={right}")
print(f"left={len(os.listdir(directory))}")
"""


@pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd") or sys.platform == "win32", reason="needs /proc, rlimits"
)
@requires("subprocess")
@requires("file-backed")
class TestDescriptorBound:
    """FBD-IDENT-2: open blobs hold no descriptor, so a process holds more than RLIMIT_NOFILE."""

    @clause("FBD-IDENT-2")
    @pytest.mark.parametrize("how", [*_OWNING, "borrowed"])
    def test_more_blobs_than_the_descriptor_limit(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, how: str
    ) -> None:
        blobs.require_hashing()  # the child's digests are its observation of what it read
        run = run_child(impl, child_script(_MANY_BLOBS), tmp_path, how)
        with blame("FBD-IDENT-2"):  # EMFILE or a wrong read: its own failure, not seen via close
            assert run.returncode == 0, f"the child failed:\n{run.stderr[-2000:]}"
            count = int(run.value("count"))
            assert int(run.value("right")) == count, "a digest was wrong"
        left = int(run.value("left"))
        assert left == (count if how == "borrowed" else 0), f"{left} files left after close()"

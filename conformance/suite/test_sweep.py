"""The implementation's sweep: orphaned placeholders are removed, nothing else (spec section 3.7).

The sweep is an optional part of an implementation (SPEC.md section 1.1): these tests drive the
implementation's own sweep, through the adapter, on its own live placeholders and on placeholder
names of processes that are gone, alive, or whose pid was reused. ``cordspec sweep`` (the
reference's sweep, cordspec's tool) is tested with cordspec's own tests, in tests/.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.api import Implementation, Sweep
from conformance.harness.child import dead_pid
from conformance.harness.helpers import Blobs, tree

clause = pytest.mark.clause

RANDOM = "abcdefgh"  # mkstemp's eight characters


def start_time(pid: int) -> int:
    """Field 22 of ``/proc/<pid>/stat``; the test is skipped where there is none."""
    try:
        line = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        pytest.skip("no /proc/<pid>/stat: process start times are not known here")
    return int(line[line.rfind(b")") + 1 :].split()[19])


def _sweeper(impl: Implementation) -> Sweep:
    assert impl.sweep is not None
    return impl.sweep


def swept_paths(impl: Implementation, directory: Path, dry_run: bool = False) -> set[Path]:
    """The implementation's sweep of ``directory``: the paths it says it removed (or would)."""
    return {Path(p) for p in _sweeper(impl).sweep(str(directory), dry_run)}


@pytest.mark.requires("sweep")
@pytest.mark.requires("file-backed")
class TestSweep:
    @pytest.fixture
    def swept(self, tmp_path: Path) -> Iterator[Path]:
        """A directory to seed, removed at the end with whatever the sweep kept."""
        directory = tmp_path / "swept"
        directory.mkdir()
        yield directory
        shutil.rmtree(directory)

    @clause("FBD-SWEEP-2")
    @pytest.mark.relies_on("FBD-MOVE-2")  # the live placeholder is in the source's directory
    def test_sweep_keeps_a_live_placeholder(self, impl: Implementation, blobs: Blobs) -> None:
        blob = blobs.moved(b"still in use")
        before = tree(blobs.directory)
        assert before, "move_from left no file to sweep"
        removed = swept_paths(impl, blobs.directory)
        assert removed == set(), (
            f"a sweep of a directory holding this process's live placeholder {sorted(before)} "
            f"(owner alive: the sweeping process itself): expected nothing removed; it reported "
            f"{sorted(p.name for p in removed)}"
        )
        assert tree(blobs.directory) == before, (
            f"the sweep reported nothing removed, but the directory went from {sorted(before)} "
            f"to {sorted(tree(blobs.directory))}"
        )
        assert blob.to_bytes() == b"still in use"

    @clause("FBD-SWEEP-1", "FBD-SWEEP-2")
    def test_sweep_removes_exactly_the_orphans(
        self, impl: Implementation, swept: Path, tmp_path: Path
    ) -> None:
        gone, parent = dead_pid(), os.getppid()
        orphans = {
            f".executorch_{gone}-{start_time(parent)}_{RANDOM}.data",  # no such process
            f".executorch_{gone}_{RANDOM}.data",  # no such process, no start time
            f".executorch_{parent}-{start_time(parent) + 1}_{RANDOM}.data",  # a reused pid
        }
        kept = {
            f".executorch_{parent}-{start_time(parent)}_{RANDOM}.data",  # alive
            f".executorch_{parent}_{RANDOM}.data",  # alive, no start time
            f".executorch_{os.getpid()}-1_{RANDOM}.data",  # the sweeping process's own
            f".executorch_{RANDOM}.data",  # no owner tag
            f"{'x' * 8}.data",
            f".executorch_{gone}-1_{RANDOM}.data.part",
        }
        for name in orphans | kept:
            (swept / name).write_bytes(b"x")
        outside = tmp_path / "outside.bin"
        outside.write_bytes(b"outside")
        links = {f".executorch_{gone}-1_link0000.data", f".executorch_{gone}-1_link1111.data"}
        link, dangling = sorted(links)
        (swept / link).symlink_to(outside)
        (swept / dangling).symlink_to(tmp_path / "nowhere")
        (swept / f".executorch_{gone}-1_director.data").mkdir()
        (swept / "sub").mkdir()
        (swept / "sub" / f".executorch_{gone}-1_{RANDOM}.data").write_bytes(b"x")
        before = tree(swept)
        removed = swept_paths(impl, swept)
        after = tree(swept)
        assert after == before - orphans, (
            "a sweep of a directory of orphans (dead pid, dead pid without start time, a reused "
            "pid) and of names it must keep (live owners, its own pid, no owner tag, other names, "
            "links, a directory, a subdirectory): wrongly removed "
            f"{sorted(before - orphans - after)}, wrongly kept {sorted(orphans & after)}"
        )
        assert outside.read_bytes() == b"outside", "the file a link pointed to was changed"
        assert removed == {swept / name for name in orphans}, (
            f"the sweep removed {sorted(orphans)} but reported {sorted(p.name for p in removed)}"
        )

    @clause("FBD-SWEEP-3")
    def test_dry_run_removes_nothing_and_lists_what_would_go(
        self, impl: Implementation, swept: Path
    ) -> None:
        gone = dead_pid()
        orphan = swept / f".executorch_{gone}_{RANDOM}.data"
        orphan.write_bytes(b"x")
        (swept / f".executorch_{RANDOM}.data").write_bytes(b"x")
        before = tree(swept)
        listed = swept_paths(impl, swept, dry_run=True)
        assert listed == {orphan}, (
            f"a dry run over the orphan {orphan.name} and a name without an owner tag: expected "
            f"it to list the orphan alone; it listed {sorted(p.name for p in listed)}"
        )
        assert tree(swept) == before, (
            f"a dry run removed {sorted(before - tree(swept))}: expected nothing removed"
        )
        assert swept_paths(impl, swept) == {orphan}
        assert tree(swept) == before - {orphan.name}, (
            f"the sweep after the dry run: expected exactly {orphan.name} removed; the directory "
            f"went from {sorted(before)} to {sorted(tree(swept))}"
        )

    @clause("FBD-SWEEP-2", "FBD-SWEEP-3")
    @pytest.mark.parametrize("what", ["missing", "file", "symlink"])
    def test_no_directory_is_an_error_that_removes_nothing(
        self, impl: Implementation, swept: Path, tmp_path: Path, what: str
    ) -> None:
        orphan = swept / f".executorch_{dead_pid()}_{RANDOM}.data"
        orphan.write_bytes(b"x")
        target = tmp_path / what
        if what == "file":
            target.write_bytes(b"")
        elif what == "symlink":
            target.symlink_to(swept)
        kind = {"missing": "a path that does not exist", "file": "a regular file"}.get(
            what, "a symbolic link to a directory holding an orphan"
        )
        with pytest.raises(OSError):
            _sweeper(impl).sweep(str(target), False)
        assert orphan.exists(), (
            f"a sweep of {kind} raised, as expected, but the orphan {orphan.name} was removed"
        )

    @clause("FBD-SWEEP-4")
    @pytest.mark.parametrize("dry_run", [False, True])
    def test_a_file_that_vanishes_mid_sweep_is_skipped(
        self, impl: Implementation, swept: Path, monkeypatch: pytest.MonkeyPatch, dry_run: bool
    ) -> None:
        """A live process removes its placeholder between the sweep's listing and its look at it."""
        gone = dead_pid()
        names = [f".executorch_{gone}_{c * 8}.data" for c in "abc"]
        for name in names:
            (swept / name).write_bytes(b"orphan")
        vanishing = names[1]
        real_stat = os.stat

        def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            if os.fspath(path) == vanishing and (swept / vanishing).exists():
                os.unlink(swept / vanishing)  # its owner removed it just now
            return real_stat(path, *args, **kwargs)

        monkeypatch.setattr(os, "stat", stat)
        removed = swept_paths(impl, swept, dry_run=dry_run)
        run = "a dry run" if dry_run else "a sweep"
        assert removed == {swept / names[0], swept / names[2]}, (
            f"{run} of three orphans, the second removed by os.unlink (its owner, say) when the "
            f"sweep first stats it: expected the other two {'listed' if dry_run else 'removed'} "
            f"and the vanished one left out; it reported {sorted(p.name for p in removed)}"
        )
        left = sorted(p.name for p in swept.iterdir())
        assert left == ([names[0], names[2]] if dry_run else []), (
            f"after {run} with one orphan vanishing, the directory holds {left}"
        )

    @clause("FBD-SWEEP-5")
    @pytest.mark.parametrize("refused", [0, 1, 2])
    def test_an_orphan_it_may_not_remove_does_not_stop_the_sweep(
        self, impl: Implementation, swept: Path, monkeypatch: pytest.MonkeyPatch, refused: int
    ) -> None:
        """Another user's orphan in a sticky directory: its unlink raises ``PermissionError``.

        The refusal is injected on the one name (no second user is needed); the sweep must go on
        and remove the orphans before and after it, and must not say it removed the refused one.
        """
        gone = dead_pid()
        names = [f".executorch_{gone}_{c * 8}.data" for c in "abc"]
        for name in names:
            (swept / name).write_bytes(b"orphan")
        foreign = names[refused]
        real_unlink = os.unlink

        def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
            if os.path.basename(os.fspath(path)) == foreign:
                raise PermissionError(errno.EPERM, "Operation not permitted", os.fspath(path))
            real_unlink(path, *args, **kwargs)

        monkeypatch.setattr(os, "unlink", unlink)
        monkeypatch.setattr(os, "remove", unlink)
        removed = swept_paths(impl, swept)
        assert removed == {swept / name for name in names if name != foreign}
        assert sorted(p.name for p in swept.iterdir()) == [foreign]

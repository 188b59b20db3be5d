"""``cordspec sweep``: orphaned placeholders are removed, nothing else (spec section 3.7).

The sweep is cordspec's own tool; these tests run it on the placeholders of the implementation under
test (which must never lose a live placeholder, tagged or not) and on placeholder names of processes
that are gone, alive, or whose pid was reused.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.api import Implementation
from conformance.harness.child import dead_pid
from conformance.harness.helpers import Blobs, tree
from conformance.run.cli import main

clause = pytest.mark.clause

RANDOM = "abcdefgh"  # mkstemp's eight characters


def start_time(pid: int) -> int:
    """Field 22 of ``/proc/<pid>/stat``; the test is skipped where there is none."""
    try:
        line = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        pytest.skip("no /proc/<pid>/stat: process start times are not known here")
    return int(line[line.rfind(b")") + 1 :].split()[19])


class TestSweep:
    @pytest.fixture
    def swept(self, tmp_path: Path) -> Iterator[Path]:
        """A directory to seed, removed at the end with whatever the sweep kept."""
        directory = tmp_path / "swept"
        directory.mkdir()
        yield directory
        shutil.rmtree(directory)

    @clause("FBD-SWEEP-2")
    def test_sweep_keeps_a_live_placeholder(
        self, impl: Implementation, blobs: Blobs, capsys: pytest.CaptureFixture[str]
    ) -> None:
        blob = blobs.moved(b"still in use")
        before = tree(blobs.directory)
        code, lines = cordspec_sweep(capsys, str(blobs.directory))
        assert code == 0
        assert lines[-1].startswith("0 removed, 1 kept"), lines
        assert tree(blobs.directory) == before
        assert blob.to_bytes() == b"still in use"

    @clause("FBD-SWEEP-1", "FBD-SWEEP-2")
    def test_sweep_removes_exactly_the_orphans(
        self, swept: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
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
        code, lines = cordspec_sweep(capsys, str(swept))
        assert code == 0
        assert tree(swept) == before - orphans
        assert outside.read_bytes() == b"outside"
        assert {line for line in lines if line.startswith("removed ")} == {
            f"removed {swept / name} (owner pid {name.split('_')[1].split('-')[0]} gone)"
            for name in orphans
        }

    @clause("FBD-SWEEP-3")
    def test_dry_run_removes_nothing_and_lists_what_would_go(
        self, swept: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        gone = dead_pid()
        orphan = swept / f".executorch_{gone}_{RANDOM}.data"
        orphan.write_bytes(b"x")
        (swept / f".executorch_{RANDOM}.data").write_bytes(b"x")
        before = tree(swept)
        code, lines = cordspec_sweep(capsys, str(swept), "--dry-run")
        assert code == 0
        assert tree(swept) == before
        assert [line for line in lines if line.startswith("would remove ")] == [
            f"would remove {orphan} (owner pid {gone} gone)"
        ]
        code, lines = cordspec_sweep(capsys, str(swept))
        assert tree(swept) == before - {orphan.name}

    @clause("FBD-SWEEP-2", "FBD-SWEEP-3")
    @pytest.mark.parametrize("what", ["missing", "file", "symlink"])
    def test_no_directory_is_an_error_that_removes_nothing(
        self, swept: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
    ) -> None:
        orphan = swept / f".executorch_{dead_pid()}_{RANDOM}.data"
        orphan.write_bytes(b"x")
        target = tmp_path / what
        if what == "file":
            target.write_bytes(b"")
        elif what == "symlink":
            target.symlink_to(swept)
        assert main(["sweep", str(target)]) == 2
        assert capsys.readouterr().err.startswith(f"cordspec: sweep {target}: ")
        assert orphan.exists()

    @clause("FBD-SWEEP-4")
    @pytest.mark.parametrize("dry_run", [False, True])
    def test_a_file_that_vanishes_mid_sweep_is_skipped(
        self,
        swept: Path,
        capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch,
        dry_run: bool,
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
        code, lines = cordspec_sweep(capsys, *(["--dry-run"] if dry_run else []), str(swept))
        assert code == 0, lines
        left = sorted(p.name for p in swept.iterdir())
        assert left == ([names[0], names[2]] if dry_run else [])
        assert lines[-1].startswith("2 would be removed" if dry_run else "2 removed"), lines


def cordspec_sweep(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["sweep", *args])
    return code, capsys.readouterr().out.splitlines()

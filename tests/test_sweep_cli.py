"""``cordspec sweep`` removes exactly the orphans in a directory seeded with live, dead and foreign
files (spec section 3.7), run as a user runs it: in a subprocess."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.harness.helpers import tree
from reference import FileBackedData
from reference.placeholders import process_start_time
from tests.children import python
from tests.owners import Owner


def cordspec(*args: str) -> subprocess.CompletedProcess[str]:
    return python("-m", "conformance", *args)


@dataclass
class Seeded:
    directory: Path
    orphans: dict[str, int]  # name -> pid
    alive: dict[str, int]
    unknown: set[str]
    outside: Path


@pytest.fixture
def seeded(tmp_path: Path) -> Iterator[Seeded]:
    directory = tmp_path / "exports"
    directory.mkdir()
    outside = tmp_path / "precious.bin"
    outside.write_bytes(b"precious")
    children: list[Owner] = []
    orphans: dict[str, int] = {}
    alive: dict[str, int] = {}
    try:
        for i in range(2):  # dead owners: killed after move_from
            (directory / f"dead{i}.bin").write_bytes(b"dead")
            owner = Owner(directory / f"dead{i}.bin", kill=True)
            children.append(owner)
            orphans[owner.placeholder.name] = owner.pid
        (directory / "live.bin").write_bytes(b"live")  # a live owner: another process
        owner = Owner(directory / "live.bin", kill=False)
        children.append(owner)
        alive[owner.placeholder.name] = owner.pid
        parent = os.getppid()  # a reused pid: alive, but started at another time
        start = process_start_time(parent)
        assert start is not None
        orphans[f".executorch_{parent}-{start + 1}_reused00.data"] = parent
        alive[f".executorch_{parent}-{start}_parent00.data"] = parent
        dead = orphans[next(iter(orphans))]
        orphans[f".executorch_{dead}_pidonly0.data"] = dead  # no start time recorded
        for name in orphans:
            (directory / name).touch()
        for name in alive:
            (directory / name).touch()
        unknown = {".executorch_abcdefgh.data"}  # ExecuTorch's: no owner tag
        (directory / ".executorch_abcdefgh.data").write_bytes(b"executorch")
        (directory / "weights.bin").write_bytes(b"weights")
        (directory / f".executorch_{dead}-1_symlink0.data").symlink_to(outside)
        (directory / f".executorch_{dead}-1_dangling.data").symlink_to(tmp_path / "nowhere")
        (directory / f".executorch_{dead}-1_adirecto.data").mkdir()
        (directory / "sub").mkdir()
        (directory / "sub" / f".executorch_{dead}-1_insubdir.data").touch()
        (directory / "mine.bin").write_bytes(b"mine")  # a live owner: this process
        with FileBackedData.move_from(directory / "mine.bin") as own:
            alive[os.path.basename(own.path)] = os.getpid()
            yield Seeded(directory, orphans, alive, unknown, outside)
    finally:
        for owner in children:
            owner.end()


def test_sweep_removes_exactly_the_orphans(seeded: Seeded) -> None:
    directory = seeded.directory
    before = tree(directory)
    assert set(seeded.orphans) <= before and set(seeded.alive) <= before

    dry = cordspec("sweep", str(directory), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert tree(directory) == before
    would = {
        f"would remove {directory / name} (owner pid {pid} gone)"
        for name, pid in seeded.orphans.items()
    }
    kept = {
        f"kept {directory / name} (owner pid {pid} alive)" for name, pid in seeded.alive.items()
    } | {f"kept {directory / name} (unknown owner)" for name in seeded.unknown}
    lines = dry.stdout.splitlines()
    assert set(lines[:-1]) == would | kept and len(lines) == len(would | kept) + 1
    assert lines[-1] == f"{len(would)} would be removed, {len(kept)} kept"

    run = cordspec("sweep", str(directory))
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert tree(directory) == before - set(seeded.orphans)
    lines = run.stdout.splitlines()
    removed = {line.replace("would remove", "removed", 1) for line in would}
    assert set(lines[:-1]) == removed | kept
    assert lines[-1] == f"{len(removed)} removed, {len(kept)} kept"
    assert seeded.outside.read_bytes() == b"precious"

    again = cordspec("sweep", str(directory))
    assert tree(directory) == before - set(seeded.orphans)
    assert again.stdout.splitlines()[-1] == f"0 removed, {len(kept)} kept"


@pytest.mark.parametrize("what", ["missing", "file", "symlink"])
def test_sweep_of_no_directory_is_an_error(tmp_path: Path, what: str) -> None:
    real = tmp_path / "real"
    real.mkdir()
    orphan = real / ".executorch_1-1_abcdefgh.data"  # pid 1 never started at tick 1
    orphan.touch()
    target = tmp_path / what
    if what == "file":
        target.write_bytes(b"")
    elif what == "symlink":
        target.symlink_to(real)
    result = cordspec("sweep", str(target))
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"cordspec: sweep {target}: ")
    assert orphan.exists()


def test_sweep_goes_on_past_an_orphan_it_may_not_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """FBD-SWEEP-5, in process (the refusal is injected; no second user): status 1, named."""
    from conformance.cli import main
    from conformance.harness.child import dead_pid

    gone = dead_pid()
    foreign, own = (tmp_path / f".executorch_{gone}_{c * 8}.data" for c in "ab")
    foreign.write_bytes(b"another user's")
    own.write_bytes(b"mine")
    real_unlink = os.unlink

    def unlink(path: str, *, dir_fd: int | None = None) -> None:
        if path == foreign.name:
            raise PermissionError(1, "Operation not permitted")
        real_unlink(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", unlink)
    assert main(["sweep", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert f"could not remove {foreign} (owner pid {gone} gone): Operation not permitted" in (
        captured.out.splitlines()
    )
    assert captured.err == f"cordspec: sweep {tmp_path}: 1 orphan(s) could not be removed\n"
    assert tree(tmp_path) == {foreign.name}

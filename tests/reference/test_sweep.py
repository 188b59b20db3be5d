"""reference.sweep: orphaned placeholders are removed, and nothing else (spec section 3.7).

Owners are real processes: this one, children that stay alive while the sweep runs, children killed
with SIGKILL after ``move_from``, and names that carry a live pid with a wrong start time (a reused
pid). The directory is always checked by listing it with ``os``, before and after.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import reference.placeholders as placeholders
import reference.sweep as sweep_module
from conformance.harness import child
from conformance.harness.helpers import tree
from reference import FileBackedData
from reference.placeholders import process_start_time
from reference.sweep import Placeholder, find_orphans, owner_state, scan, sweep
from tests.owners import Owner

pytestmark = pytest.mark.mutation  # the mutation run includes every test here

RANDOM = "abcdefgh"  # mkstemp's eight characters


def name_of(pid: int, start: int | None = None, random: str = RANDOM) -> str:
    tag = str(pid) if start is None else f"{pid}-{start}"
    return f".executorch_{tag}_{random}.data"


def dead_pid() -> int:
    """A pid that no process has now, which the sweep sees as gone."""
    pid = child.dead_pid()
    assert owner_state(pid, None) == "gone"
    return pid


def start(pid: int) -> int:
    value = process_start_time(pid)
    assert value is not None
    return value


@pytest.fixture
def owners() -> Iterator[list[Owner]]:
    made: list[Owner] = []
    yield made
    for owner in made:
        owner.end()


@pytest.fixture
def own(make_file) -> Iterator[FileBackedData]:
    """A placeholder of this process."""
    with FileBackedData.move_from(make_file("mine.bin", b"mine")) as blob:
        yield blob


# --- the owner tag in placeholder names (FBD-MOVE-10)


def test_placeholder_names_pid_and_start_time(own) -> None:
    pid = os.getpid()
    assert os.path.basename(own.path).startswith(f".executorch_{pid}-{start(pid)}_")


def test_forked_child_names_itself(tmp_path) -> None:
    source = tmp_path / "child.bin"
    source.write_bytes(b"child")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover  (the child reports through the pipe)
        try:
            blob = FileBackedData.move_from(str(source))
            os.write(write, os.path.basename(blob.path).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        name = pipe.read().decode()
    os.waitpid(pid, 0)
    assert name.startswith(f".executorch_{pid}-"), name
    assert placeholders._owner_tag() == f"{os.getpid()}-{start(os.getpid())}"


def test_owner_tag_is_recomputed_for_another_pid(monkeypatch) -> None:
    monkeypatch.setattr(placeholders, "_tag", (-1, "stale"))
    assert placeholders._owner_tag() == f"{os.getpid()}-{start(os.getpid())}"


def test_without_start_time_the_tag_is_the_pid(monkeypatch, make_file) -> None:
    monkeypatch.setattr(placeholders, "_tag", (-1, "stale"))
    monkeypatch.setattr(placeholders, "process_start_time", lambda pid: None)
    with FileBackedData.move_from(make_file("x.bin")) as blob:
        name = os.path.basename(blob.path)
    assert name.startswith(f".executorch_{os.getpid()}_"), name
    assert owner_state(os.getpid(), None) == "alive"


def test_start_time_of_no_process_is_none() -> None:
    assert process_start_time(dead_pid()) is None


@pytest.mark.parametrize(
    "line", [b"", b"12 (x) S 1 2", b"12 (a) b) S" + b" 0" * 16 + b" notanumber 0"]
)
def test_unreadable_start_time_is_none(line: bytes) -> None:
    assert placeholders._parse_start_time(line) is None


def test_start_time_after_a_name_with_spaces_and_parentheses() -> None:
    line = b"12 (a) (b c) S" + b" 0" * 18 + b" 4242 7 8"
    assert placeholders._parse_start_time(line) == 4242


RENAME = """
import sys
print(flush=True)
sys.stdin.readline()
with open("/proc/self/comm", "w") as comm:
    comm.write(sys.argv[1])
print(flush=True)
sys.stdin.read()
"""


def test_start_time_of_a_process_named_with_parentheses() -> None:
    """A live process that renames itself ``a) b c`` keeps its start time: the fields are counted
    after the last ``)`` of the real ``/proc/<pid>/stat``, so its owner tag and state still hold."""
    with subprocess.Popen(
        [sys.executable, "-c", RENAME, "a) b c"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdin is not None and child.stdout is not None
        try:
            assert child.stdout.readline() == "\n"
            before = start(child.pid)
            child.stdin.write("rename\n")
            child.stdin.flush()
            assert child.stdout.readline() == "\n"
            with open(f"/proc/{child.pid}/stat", "rb") as f:
                assert b"(a) b c) " in f.read()
            assert process_start_time(child.pid) == before
            assert owner_state(child.pid, before) == "alive"
        finally:
            child.kill()


# --- owners


def test_live_owners_are_kept(make_file, tmp_path, own, owners) -> None:
    owners.append(Owner(make_file("theirs.bin", b"theirs"), kill=False))
    before = tree(tmp_path)
    result = sweep(tmp_path)
    assert result.removed == []
    assert sorted(p.name for p in result.kept) == sorted(
        [os.path.basename(own.path), owners[0].placeholder.name]
    )
    assert all(p.owner == "alive" for p in result.kept)
    assert tree(tmp_path) == before
    assert own.to_bytes() == b"mine"


def test_owner_killed_after_the_sweep_leaves_an_orphan(make_file, owners) -> None:
    source = make_file("theirs.bin", b"theirs")
    owner = Owner(source, kill=False)
    owners.append(owner)
    assert find_orphans(source.parent) == []
    owner.proc.kill()
    owner.proc.wait(timeout=60)
    assert [p.path for p in find_orphans(source.parent)] == [str(owner.placeholder)]
    assert [p.path for p in sweep(source.parent).removed] == [str(owner.placeholder)]
    assert tree(source.parent) == set()


def test_dead_owner_is_removed(make_file, owners) -> None:
    source = make_file("theirs.bin", b"theirs")
    owner = Owner(source, kill=True)
    owners.append(owner)
    assert owner.placeholder.read_bytes() == b"theirs"
    assert owner.placeholder.name.startswith(f".executorch_{owner.proc.pid}-")
    result = sweep(source.parent)
    assert [(p.path, p.pid, p.owner) for p in result.removed] == [
        (str(owner.placeholder), owner.proc.pid, "gone")
    ]
    assert result.kept == []
    assert not result.dry_run
    assert tree(source.parent) == set()


def test_reused_pid_is_an_orphan(tmp_path) -> None:
    parent = os.getppid()
    reused = tmp_path / name_of(parent, start(parent) + 1)
    live = tmp_path / name_of(parent, start(parent), "ijklmnop")
    pid_only = tmp_path / name_of(parent, None, "qrstuvwx")
    for path in (reused, live, pid_only):
        path.write_bytes(b"x")
    result = sweep(tmp_path)
    assert [p.name for p in result.removed] == [reused.name]
    assert sorted(p.name for p in result.kept) == sorted([live.name, pid_only.name])
    assert tree(tmp_path) == {live.name, pid_only.name}


def test_this_process_is_never_an_orphan_whatever_the_start_time(tmp_path) -> None:
    pid = os.getpid()
    names = [name_of(pid, start(pid) + 1), name_of(pid, None, "ijklmnop")]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    assert sweep(tmp_path).removed == []
    assert tree(tmp_path) == set(names)


def test_dead_pid_without_start_time_is_an_orphan(tmp_path) -> None:
    path = tmp_path / name_of(dead_pid())
    path.write_bytes(b"")
    assert [p.name for p in sweep(tmp_path).removed] == [path.name]
    assert tree(tmp_path) == set()


def test_owner_of_another_user_is_alive(monkeypatch) -> None:
    def refuse(pid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(sweep_module.os, "kill", refuse)
    assert owner_state(1, None) == "alive"


def test_start_time_unreadable_asks_again(monkeypatch) -> None:
    monkeypatch.setattr(sweep_module, "process_start_time", lambda pid: None)
    parent = os.getppid()
    assert owner_state(parent, 1) == "alive"  # exists, and no start time to compare
    answers = iter([True, False])  # it ends between the two questions
    monkeypatch.setattr(sweep_module, "_exists", lambda pid: next(answers))
    assert owner_state(parent, 1) == "gone"


def test_impossible_pid_is_unknown(tmp_path) -> None:
    path = tmp_path / name_of(1 << 31, 5)
    path.write_bytes(b"")
    [found] = sweep(tmp_path).kept
    assert (found.pid, found.owner) == (1 << 31, "unknown")
    assert tree(tmp_path) == {path.name}


def test_scan_reports_each_owner(tmp_path: Path, own: FileBackedData) -> None:
    """``scan()`` reports every placeholder, sorted by name, with its tag and owner state (the pid
    limit is the first unknown pid), and removes nothing; ``find_orphans()`` is exactly the gone."""
    me, parent, gone, limit = os.getpid(), os.getppid(), dead_pid(), sweep_module._PID_LIMIT
    expected = [
        (os.path.basename(own.path), me, start(me), "alive"),
        (name_of(parent, start(parent)), parent, start(parent), "alive"),
        (name_of(parent), parent, None, "alive"),
        (name_of(parent, start(parent) + 1), parent, start(parent) + 1, "gone"),
        (name_of(gone), gone, None, "gone"),
        (name_of(gone, 1), gone, 1, "gone"),
        (name_of(limit - 1, 1), limit - 1, 1, "gone"),  # a C int, and no process has it
        (name_of(limit, 1), limit, 1, "unknown"),
        (f".executorch_{RANDOM}.data", None, None, "unknown"),
    ]
    for name, *_ in expected[1:]:
        (tmp_path / name).write_bytes(b"x")
    before = tree(tmp_path)
    found = scan(tmp_path)
    assert [(p.name, p.pid, p.start_time, p.owner) for p in found] == sorted(expected)
    for p in found:
        st = os.stat(p.path, follow_symlinks=False)
        assert (p.path, p.identity) == (str(tmp_path / p.name), (st.st_dev, st.st_ino))
    orphans = [p.name for p in find_orphans(str(tmp_path))]
    assert orphans == sorted(name for name, *_, owner in expected if owner == "gone")
    assert tree(tmp_path) == before


# --- what is not a placeholder, or not here


def test_symlinks_named_like_placeholders_survive(tmp_path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "precious.bin"
    outside.write_bytes(b"precious")
    gone = dead_pid()
    (tmp_path / name_of(gone, 1)).symlink_to(outside)
    (tmp_path / name_of(gone, 2)).symlink_to(tmp_path / "nowhere")
    before = tree(tmp_path)
    assert scan(tmp_path) == []  # not even listed: a link is never a placeholder
    planned = sweep(tmp_path, dry_run=True)
    assert (planned.removed, planned.kept) == ([], [])
    result = sweep(tmp_path)
    assert (result.removed, result.kept) == ([], [])
    assert tree(tmp_path) == before
    assert outside.read_bytes() == b"precious"


def test_foreign_files_survive(tmp_path) -> None:
    gone = dead_pid()
    unknown = ".executorch_abcdefgh.data"  # ExecuTorch's: no owner tag
    foreign = [
        unknown,
        ".executorch_x.data",
        ".executorch_.data",
        f"{name_of(gone, 1)}.bak",
        f"x{name_of(gone, 1)}",
        name_of(gone, 1, "abcdefghi"),
        name_of(gone, 1, "ABCDEFGH"),
        f".executorch_{gone}-1-2_{RANDOM}.data",
        f".executorch_0_{RANDOM}.data",
        "weights.bin",
    ]
    for name in foreign:
        (tmp_path / name).write_bytes(b"keep")
    directory = tmp_path / name_of(gone, 3)
    directory.mkdir()
    (directory / "inside.bin").write_bytes(b"keep")
    os.mkfifo(tmp_path / name_of(gone, 4))
    before = tree(tmp_path)
    result = sweep(tmp_path)
    assert result.removed == []
    assert [(p.name, p.pid, p.owner) for p in result.kept] == [(unknown, None, "unknown")]
    assert tree(tmp_path) == before


def test_subdirectories_are_not_swept(tmp_path) -> None:
    inner = tmp_path / "sub"
    inner.mkdir()
    (inner / name_of(dead_pid())).write_bytes(b"")
    before = tree(tmp_path)
    assert sweep(tmp_path) == sweep_module.SweepResult([], [], False)
    assert tree(tmp_path) == before


def test_directory_that_is_a_symlink_is_refused(tmp_path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / name_of(dead_pid())).write_bytes(b"")
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(OSError):
        sweep(tmp_path / "link")
    with pytest.raises(OSError):
        scan(tmp_path / "link")
    assert len(tree(real)) == 1


def test_missing_or_non_directory(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        sweep(tmp_path / "missing")
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(NotADirectoryError):
        sweep(tmp_path / "file", dry_run=True)


# --- dry run


def test_dry_run_removes_nothing_and_lists_what_would_go(tmp_path, own) -> None:
    gone = dead_pid()
    orphans = [name_of(gone), name_of(gone, 7, "ijklmnop")]
    for name in orphans:
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "foreign.bin").write_bytes(b"")
    before = tree(tmp_path)
    result = sweep(str(tmp_path), dry_run=True)
    assert result.dry_run
    assert [p.name for p in result.removed] == sorted(orphans)
    assert [p.path for p in result.removed] == [p.path for p in find_orphans(str(tmp_path))]
    assert [p.name for p in result.kept] == [os.path.basename(own.path)]
    assert tree(tmp_path) == before
    assert [p.name for p in sweep(tmp_path).removed] == sorted(orphans)
    assert tree(tmp_path) == {os.path.basename(own.path), "foreign.bin"}


# --- the checks right before unlinking


def found_in(directory: Path, name: str) -> Placeholder:
    [found] = [p for p in scan(directory) if p.name == name]
    return found


@pytest.fixture
def dirfd(tmp_path) -> Iterator[int]:
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


def test_remove_skips_a_file_that_vanished(tmp_path, dirfd) -> None:
    path = tmp_path / name_of(dead_pid())
    path.write_bytes(b"")
    found = found_in(tmp_path, path.name)
    path.unlink()
    assert not sweep_module._remove(dirfd, found)


def test_remove_skips_a_file_replaced_since(tmp_path, dirfd) -> None:
    path = tmp_path / name_of(dead_pid())
    path.write_bytes(b"old")
    found = found_in(tmp_path, path.name)
    (tmp_path / "other").write_bytes(b"new")  # made while the old file lives: another inode
    (tmp_path / "other").rename(path)
    assert not sweep_module._remove(dirfd, found)
    assert path.read_bytes() == b"new"
    path.unlink()
    path.symlink_to(tmp_path / "other")
    assert not sweep_module._remove(dirfd, found)
    assert path.is_symlink()


def test_remove_skips_an_owner_no_longer_gone(tmp_path, dirfd, monkeypatch) -> None:
    path = tmp_path / name_of(dead_pid())
    path.write_bytes(b"")
    found = found_in(tmp_path, path.name)
    monkeypatch.setattr(sweep_module, "owner_state", lambda pid, start: "alive")
    assert not sweep_module._remove(dirfd, found)
    assert path.exists()


def test_a_file_removed_by_someone_else_meanwhile(tmp_path, monkeypatch) -> None:
    path = tmp_path / name_of(dead_pid())
    path.write_bytes(b"")
    unlink = os.unlink

    def racing_unlink(name: str, *, dir_fd: int) -> None:
        unlink(name, dir_fd=dir_fd)
        raise FileNotFoundError(2, "No such file or directory", name)

    monkeypatch.setattr(sweep_module.os, "unlink", racing_unlink)
    assert sweep(tmp_path) == sweep_module.SweepResult([], [], False)
    assert tree(tmp_path) == set()


def _put_symlink_to_the_orphan(path: Path, moved: Path) -> None:
    path.symlink_to(moved)  # stat() following it would see the orphan itself


def _put_directory(path: Path, moved: Path) -> None:
    path.mkdir()


def _put_other_file(path: Path, moved: Path) -> None:
    path.write_bytes(b"new")


@pytest.mark.parametrize(
    ("put", "is_kind"),
    [
        (_put_symlink_to_the_orphan, stat.S_ISLNK),
        (_put_directory, stat.S_ISDIR),
        (_put_other_file, stat.S_ISREG),
    ],
    ids=["symlink-to-the-orphan", "directory", "other-file"],
)
def test_what_replaced_an_orphan_after_the_scan_is_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    put: Callable[[Path, Path], None],
    is_kind: Callable[[int], bool],
) -> None:
    """``sweep()`` checks the name again right before unlinking (FBD-SWEEP-2): a symbolic link (even
    to the orphan), a directory or another file put there since the scan is kept, unreported."""
    path = tmp_path / name_of(dead_pid())
    path.write_bytes(b"orphan")
    moved = tmp_path / "aside" / "orphan.bin"  # a subdirectory is not swept
    moved.parent.mkdir()
    real_scan = sweep_module._scan

    def scan_then_replace(dirfd: int, directory: str) -> list[Placeholder]:
        found = real_scan(dirfd, directory)
        assert [p.name for p in found] == [path.name]
        path.rename(moved)  # the orphan lives on, so its inode is not reused
        put(path, moved)
        return found

    monkeypatch.setattr(sweep_module, "_scan", scan_then_replace)
    assert sweep(tmp_path) == sweep_module.SweepResult([], [], False)
    assert is_kind(os.lstat(path).st_mode)
    assert tree(tmp_path) == {path.name, "aside", os.path.join("aside", "orphan.bin")}
    assert moved.read_bytes() == b"orphan"


# --- what `cordspec sweep` prints


@pytest.mark.parametrize("dry_run", [False, True], ids=["removing", "dry-run"])
def test_report_lines_name_each_file_and_why(dry_run: bool) -> None:
    gone = Placeholder("/d/.executorch_7-1_a.data", 7, 1, "gone", (1, 2))
    alive = Placeholder("/d/.executorch_8_b.data", 8, None, "alive", (1, 3))
    unknown = Placeholder("/d/.executorch_c.data", None, None, "unknown", (1, 4))
    result = sweep_module.SweepResult([gone], [alive, unknown], dry_run)
    verb, done = ("would remove", "would be removed") if dry_run else ("removed", "removed")
    assert sweep_module.report_lines(result) == [
        f"{verb} /d/.executorch_7-1_a.data (owner pid 7 gone)",
        "kept /d/.executorch_8_b.data (owner pid 8 alive)",
        "kept /d/.executorch_c.data (unknown owner)",
        f"1 {done}, 2 kept",
    ]


def test_report_lines_of_an_empty_sweep() -> None:
    assert sweep_module.report_lines(sweep_module.SweepResult([], [], False)) == [
        "0 removed, 0 kept"
    ]


# --- an orphan the OS will not let the sweep remove (FBD-SWEEP-5)


def refuse_unlink(monkeypatch: pytest.MonkeyPatch, refused: str, error: OSError) -> None:
    """Make ``os.unlink`` of the name ``refused`` raise ``error``, as for another user's file."""
    real_unlink = os.unlink

    def unlink(path: str, *, dir_fd: int | None = None) -> None:
        if os.path.basename(path) == refused:
            raise error
        real_unlink(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", unlink)


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(1, "Operation not permitted"),
        OSError(30, "Read-only file system"),
    ],
    ids=["EPERM", "EROFS"],
)
def test_an_orphan_that_cannot_be_removed_is_reported_and_the_sweep_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError
) -> None:
    gone = dead_pid()
    names = [name_of(gone, random=c * 8) for c in "abc"]
    for name in names:
        (tmp_path / name).write_bytes(b"orphan")
    refuse_unlink(monkeypatch, names[0], error)
    result = sweep(tmp_path)
    assert [p.name for p in result.removed] == names[1:]
    assert [(f.found.name, f.reason) for f in result.failed] == [(names[0], error.strerror)]
    assert tree(tmp_path) == {names[0]}
    lines = sweep_module.report_lines(result)
    assert lines[2] == (
        f"could not remove {tmp_path / names[0]} (owner pid {gone} gone): {error.strerror}"
    )
    assert lines[-1] == "2 removed, 0 kept, 1 could not be removed"

"""The release's reserve descriptor (FBD-EXIT-2), owners refused once the exit release began
(FBD-EXIT-3), what a forked child gets anew (FBD-FORK-2), placeholders made without ``tempfile``'s
lock, and the walk that finds an owner's file (FBD-INIT-9), case by case."""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import re
import resource
import stat
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

import reference.file_backed as file_backed
import reference.location as location
import reference.ownership as ownership
import reference.placeholders as placeholders
from reference import FileBackedData, FileChangedError

DATA = b"exit and fork\n" * 64
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")


def _source(directory: Path, name: str = "source.bin") -> Path:
    path = directory / name
    path.write_bytes(DATA)
    return path


def _in_child(check: str) -> int:
    """The exit status of a forked child that runs ``check`` (a statement over this module's
    globals, with ``blob`` when given), 0 when it holds."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; it must never return into pytest
        code = 1
        try:
            exec(check, globals())
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@contextlib.contextmanager
def _out_of_descriptors() -> Iterator[None]:
    """Every descriptor in use for the block (RLIMIT_NOFILE lowered, then filled)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held: list[int] = []
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 512), hard))
        with contextlib.suppress(OSError):
            while len(held) < 4096:
                held.append(os.open(os.devnull, os.O_RDONLY))
        with pytest.raises(OSError) as full:
            os.close(os.open(os.devnull, os.O_RDONLY))
        assert full.value.errno == errno.EMFILE
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# --- FBD-EXIT-2: the reserve -------------------------------------------------------------------


@pytest.mark.parametrize("release", ["close", "gc"])
def test_release_with_every_descriptor_in_use(tmp_path: Path, release: str) -> None:
    blob = FileBackedData.move_from(str(_source(tmp_path)))
    path = blob.path
    with _out_of_descriptors():
        if release == "close":
            blob.close()
        else:
            del blob
            gc.collect()
        assert not os.path.exists(path)
        assert ownership._reserve.fd is None  # spent, and none to be had while all are in use
    FileBackedData.move_from(str(_source(tmp_path))).close()  # the next release takes it again
    assert ownership._reserve.fd is not None


def test_release_without_a_reserve_raises_as_before(tmp_path: Path) -> None:
    blob = FileBackedData.move_from(str(_source(tmp_path)))
    assert ownership._reserve.spend()  # as a process that closed every descriptor it did not open
    try:
        with _out_of_descriptors(), pytest.raises(OSError) as raised:
            blob.close()
        assert raised.value.errno == errno.EMFILE
        assert raised.value.filename == blob.path
        assert not blob.closed  # FBD-CLOSE-7: open, for a retry
    finally:
        ownership._reserve.take()
    blob.close()
    assert os.listdir(tmp_path) == []


def test_a_reserve_number_reused_by_someone_else_is_not_closed() -> None:
    reserve = ownership._Reserve()
    assert reserve.fd is not None
    os.close(reserve.fd)  # as os.closerange would
    with open(os.devnull, "rb") as other:  # someone else's descriptor, maybe at the same number
        if other.fileno() == reserve.fd:
            assert not reserve.spend()
            os.fstat(other.fileno())  # still open
        else:
            assert not reserve.spend()  # closed already: nothing to close
    assert reserve.fd is None


def test_a_failed_release_other_than_emfile_does_not_spend_the_reserve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = ownership._reserve.fd
    blob = FileBackedData.move_from(str(_source(tmp_path)))

    def refused(self: location.Location, identity: object) -> None:
        raise PermissionError(errno.EACCES, "refused by the test", self.path)

    monkeypatch.setattr(location.Location, "remove_if", refused)
    with pytest.raises(PermissionError):
        blob.close()
    assert ownership._reserve.fd == held
    monkeypatch.undo()
    blob.close()
    assert os.listdir(tmp_path) == []


# --- FBD-EXIT-3: no owner once the exit release began ------------------------------------------


@contextlib.contextmanager
def _exiting() -> Iterator[None]:
    ownership._refuse_owners()
    try:
        yield
    finally:
        ownership._exiting = False


def test_no_owner_once_the_exit_release_began(tmp_path: Path) -> None:
    source = _source(tmp_path)
    with _exiting():
        with pytest.raises(RuntimeError, match=re.escape(repr(str(source))) + ".*exiting"):
            FileBackedData(str(source), cleanup=True)
        with pytest.raises(RuntimeError, match=re.escape(repr(str(source))) + ".*exiting"):
            FileBackedData.move_from(str(source))
        assert os.listdir(tmp_path) == ["source.bin"]  # in place, no placeholder
        assert source.read_bytes() == DATA
        assert ownership._owners == {}
        FileBackedData(str(source)).close()  # borrowing is no ownership
    FileBackedData.move_from(str(source)).close()


def test_a_move_refused_at_its_registration_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exit release began between move_from's early check and its registration."""
    source = _source(tmp_path)
    monkeypatch.setattr(file_backed, "_refuse_if_exiting", lambda path: None)
    with (
        _exiting(),
        pytest.raises(RuntimeError, match=r"\.executorch_.*the interpreter is exiting"),
    ):
        FileBackedData.move_from(str(source))
    assert os.listdir(tmp_path) == ["source.bin"]
    assert source.read_bytes() == DATA
    assert ownership._owners == {}


def test_the_exit_release_removes_a_file_whose_owner_was_collected_after_shutdown(
    tmp_path: Path,
) -> None:
    blob = FileBackedData.move_from(str(_source(tmp_path)))
    path = blob.path
    assert blob._finalizer is not None
    blob._finalizer.detach()  # as weakref's exit hook leaves it: a finalizer that does nothing
    del blob
    gc.collect()
    assert os.path.exists(path) and len(ownership._owners) == 1  # an entry with no live owner
    ownership._release_all_at_exit()
    assert not os.path.exists(path)
    assert ownership._owners == {}


def test_a_refused_owner_leaves_no_finalizer(tmp_path: Path) -> None:
    source = _source(tmp_path)
    owner = FileBackedData(str(source), cleanup=True)
    finalizers = [f for f in gc.get_objects() if type(f) is weakref.finalize and f.alive]
    with pytest.raises(ValueError, match="already owned"):
        FileBackedData(str(source), cleanup=True)
    after = [f for f in gc.get_objects() if type(f) is weakref.finalize and f.alive]
    assert len(after) == len(finalizers)
    owner.close()


@needs_fork
def test_a_child_forked_while_exiting_may_own_again(tmp_path: Path) -> None:
    source = _source(tmp_path)
    with _exiting():
        code = _in_child(
            f"assert not ownership._exiting\nFileBackedData.move_from({str(source)!r}).close()"
        )
    assert code == 0
    assert os.listdir(tmp_path) == []


# --- FBD-FORK-2: what a child gets anew ----------------------------------------------------------


@needs_fork
def test_a_forked_child_has_a_close_lock_of_its_own(tmp_path: Path) -> None:
    global blob
    blob = FileBackedData.move_from(str(_source(tmp_path)))
    inherited = blob._lock
    assert blob._lock is inherited  # one per process: not made again in the same one
    with inherited:  # held at the fork, as by a thread inside close()
        code = _in_child(
            "lock = blob._lock\n"
            "assert not lock.locked() and lock is blob._lock\n"
            "blob.close()\n"
            "assert blob.closed"
        )
    assert code == 0
    assert os.path.exists(blob.path)  # FBD-FORK-1: the child removed nothing
    blob.close()
    assert os.listdir(tmp_path) == []


# --- placeholders without tempfile's lock --------------------------------------------------------


def test_a_placeholder_is_made_exclusively_with_mkstemps_names(tmp_path: Path) -> None:
    fd, path = placeholders.make_placeholder(".p_", ".data", str(tmp_path))
    os.close(fd)
    assert re.fullmatch(r"\.p_[a-z0-9_]{8}\.data", os.path.basename(path))
    assert os.path.isabs(path) and os.path.dirname(path) == str(tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_taken_name_is_drawn_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".p_aaaaaaaa.data").write_bytes(b"someone else's")
    names = iter(["aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(placeholders._RANDOM, "choices", lambda *a, **k: list(next(names)))
    fd, path = placeholders.make_placeholder(".p_", ".data", str(tmp_path))
    os.close(fd)
    assert os.path.basename(path) == ".p_bbbbbbbb.data"
    assert (tmp_path / ".p_aaaaaaaa.data").read_bytes() == b"someone else's"


def test_no_name_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".p_aaaaaaaa.data").write_bytes(b"")
    monkeypatch.setattr(placeholders._RANDOM, "choices", lambda *a, **k: list("aaaaaaaa"))
    monkeypatch.setattr(tempfile, "TMP_MAX", 3)
    with pytest.raises(FileExistsError) as raised:
        placeholders.make_placeholder(".p_", ".data", str(tmp_path))
    assert raised.value.filename == str(tmp_path)


def test_no_directory_is_the_temporary_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fd, path = placeholders.make_placeholder(".p_", ".data", None)
    os.close(fd)
    assert os.path.dirname(path) == str(tmp_path)


def test_move_from_takes_no_tempfile_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Refused:
        def __enter__(self) -> None:
            raise AssertionError("tempfile's lock taken")

        acquire = __enter__

    monkeypatch.setattr(tempfile, "_once_lock", Refused())
    monkeypatch.setattr(tempfile, "_name_sequence", None)  # as in a fresh process
    FileBackedData.move_from(str(_source(tmp_path))).close()


# --- FBD-INIT-9: the walk ------------------------------------------------------------------------


def test_own_links_are_followed_relative_and_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real" / "deeper"
    real.mkdir(parents=True)
    (tmp_path / "absolute").symlink_to(real)
    (tmp_path / "relative").symlink_to(os.path.join("real", "deeper"))
    (tmp_path / "chain").symlink_to("relative")
    for via in ("absolute", "relative", "chain"):
        source = _source(real)
        where, st = location.locate_owned(str(tmp_path / via / "source.bin"))
        assert (st.st_ino, where.name) == (source.stat().st_ino, "source.bin")
        assert where.directory_identity == (real.stat().st_dev, real.stat().st_ino)
        FileBackedData(str(tmp_path / via / "source.bin"), cleanup=True).close()
        assert not source.exists()
    monkeypatch.chdir(tmp_path)
    source = _source(real)
    with FileBackedData.move_from(os.path.join("chain", ".", "source.bin")) as blob:
        assert os.path.dirname(blob.path) == str(tmp_path / "chain")
    assert os.listdir(real) == []


def test_a_link_loop_is_eloop_naming_the_path(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    path = str(tmp_path / "a" / "x.bin")
    with pytest.raises(OSError) as raised:
        FileBackedData(path, cleanup=True)
    assert raised.value.errno == errno.ELOOP


def test_a_file_on_the_way_is_not_a_directory(tmp_path: Path) -> None:
    _source(tmp_path, "plain")
    with pytest.raises(NotADirectoryError):
        location.locate_owned(str(tmp_path / "plain" / "x.bin"))


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = str(tmp_path / "gone" / "x.bin")
    with pytest.raises(FileNotFoundError) as raised:
        location.locate_owned(path)
    assert raised.value.filename == path


def test_another_users_link_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("not testable here: giving a link to another user needs root")
    real = tmp_path / "real"
    real.mkdir()
    source = _source(real)
    (tmp_path / "theirs").symlink_to(real)
    os.lchown(tmp_path / "theirs", 65534, 65534)
    path = str(tmp_path / "theirs" / "source.bin")
    for take in (
        lambda: FileBackedData(path, cleanup=True),
        lambda: FileBackedData.move_from(path),
    ):
        with pytest.raises(ValueError, match=r"owned by uid 65534, another user") as raised:
            take()
        assert repr(path) in str(raised.value)
        assert source.read_bytes() == DATA
    assert os.listdir(real) == ["source.bin"]
    FileBackedData(path).close()  # a borrower follows it (FBD-INIT-7)
    os.lchown(tmp_path / "theirs", 0, 0)  # root's: followed
    FileBackedData(path, cleanup=True).close()
    assert not source.exists()


def test_a_link_swapped_while_it_is_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    _source(real)
    (tmp_path / "link").symlink_to(real)
    readlink = os.readlink

    def swapping(path: str, *, dir_fd: int | None = None) -> str:
        target = readlink(path, dir_fd=dir_fd)
        os.unlink(path, dir_fd=dir_fd)
        os.symlink(target, path, dir_fd=dir_fd)  # another link, maybe to elsewhere
        return target

    monkeypatch.setattr(os, "readlink", swapping)
    with pytest.raises(FileChangedError, match="replaced while it was read"):
        location.locate_owned(str(tmp_path / "link" / "source.bin"))


def test_the_walk_leaves_no_descriptor(tmp_path: Path) -> None:
    before = sorted(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else []
    (tmp_path / "link").symlink_to(tmp_path)
    for path in (tmp_path / "link" / "source.bin", tmp_path / "link" / "none" / "x"):
        with contextlib.suppress(OSError):
            _source(tmp_path)
            location.locate_owned(str(path))
    after = sorted(os.listdir("/proc/self/fd")) if before else []
    assert after == before


def test_a_path_without_links_is_opened_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    fd = location._direct(str(real))
    assert fd is not None
    assert os.fstat(fd).st_ino == real.stat().st_ino
    os.close(fd)
    assert location._direct(str(tmp_path / "link")) is None  # a link: walked instead
    # the kernel's path of what was opened is not the path given (a link swapped in and out)
    monkeypatch.setattr(os, "readlink", lambda path, **kwargs: str(tmp_path / "elsewhere"))
    assert location._direct(str(real)) is None

    def no_proc(path: str, **kwargs: object) -> str:
        raise FileNotFoundError(errno.ENOENT, "no /proc here", path)

    monkeypatch.setattr(os, "readlink", no_proc)
    assert location._direct(str(real)) is None

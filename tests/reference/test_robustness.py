"""The reference's interrupt deferral, held descriptors, fork reset, odd outputs and sweep races
(FBD-INTR-1, FBD-IDENT-1, FBD-FORK-2, FBD-FAULT-3, FBD-SWEEP-4), case by case."""

from __future__ import annotations

import errno
import gc
import io
import os
import signal
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest

import reference.deferral as deferral
import reference.ownership as ownership
import reference.verified_reader as verified_reader
from conformance.harness.child import dead_pid
from conformance.harness.interrupts import (
    deliver_sigint,
    interrupting,
    open_descriptors,
    sigint_handler,
)
from reference import Cord, FileBackedData, FileChangedError
from reference.sweep import sweep

pytestmark = pytest.mark.mutation  # the mutation run includes every test here


def _source(tmp_path: Path, data: bytes = b"data" * 100) -> Path:
    path = tmp_path / "source.bin"
    path.write_bytes(data)
    return path


def test_the_registry_lock_is_new_after_fork() -> None:
    before = ownership._owners_lock
    ownership._reset_after_fork()
    try:
        assert ownership._owners_lock is not before
        with ownership._owners_lock:  # a lock, free
            pass
    finally:
        ownership._owners_lock = before


def test_an_interrupt_after_the_move_puts_the_source_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _source(tmp_path)
    real_replace = os.replace

    def replace(*args: Any) -> None:
        real_replace(*args)
        deliver_sigint()  # SIGINT right after the rename, and again after the rename back

    monkeypatch.setattr(os, "replace", replace)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            FileBackedData.move_from(str(source))
    finally:
        signal.signal(signal.SIGINT, handler)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["source.bin"]
    FileBackedData(str(source), cleanup=True).close()  # nobody owns it


def test_an_interrupt_during_the_release_backstop_comes_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _source(tmp_path)
    blob = FileBackedData(str(source), cleanup=True)
    real_unlink = os.unlink

    def unlink(*args: Any, **kwargs: Any) -> None:
        deliver_sigint()  # deferred: the removal goes on
        real_unlink(*args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            blob._finalizer()  # the backstop garbage collection runs, called here to see it raise
    finally:
        signal.signal(signal.SIGINT, handler)
    assert not source.exists()
    assert not blob._finalizer.alive


def test_an_interrupt_in_the_owning_constructor_leaves_the_file_unowned(tmp_path: Path) -> None:
    source = _source(tmp_path)
    raised = 0
    for step in range(120):  # every line, those after the registration included
        try:
            with interrupting({step}, mode="lines"):
                blob = FileBackedData(str(source), cleanup=True)
        except KeyboardInterrupt:
            raised += 1
            assert ownership._owners == {}
            assert source.exists()
        else:
            blob._disown()  # owned: given up, the file stays for the next step
    assert raised > 20


def test_a_handler_that_does_not_raise_lets_the_call_complete(tmp_path: Path) -> None:
    seen: list[int] = []
    source = _source(tmp_path)
    with interrupting({1}):
        signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
        blob = FileBackedData.move_from(str(source))
    assert seen == [signal.SIGINT]
    assert not source.exists()
    blob.close()


def test_a_failure_while_an_interrupt_is_deferred_raises_the_interrupt() -> None:
    def fail() -> None:
        deliver_sigint()
        raise OSError(errno.EIO, "failed")

    with interrupting():
        handler = signal.getsignal(signal.SIGINT)  # the block's, which raises as Python's does
        with pytest.raises(KeyboardInterrupt) as raised:
            deferral._atomically(fail, lambda _: None)
        after = signal.getsignal(signal.SIGINT)
    assert isinstance(raised.value.__context__, OSError)
    assert after is handler is sigint_handler


def test_nothing_is_deferred_outside_the_main_thread(tmp_path: Path) -> None:
    done: list[object] = []
    source = _source(tmp_path)
    thread = threading.Thread(target=lambda: done.append(FileBackedData.move_from(str(source))))
    thread.start()
    thread.join()
    blob = done.pop()
    assert isinstance(blob, FileBackedData)
    blob.close()
    assert os.listdir(tmp_path) == []


def test_release_at_exit_removes_every_owned_file_and_ignores_sigint(tmp_path: Path) -> None:
    blobs = [FileBackedData.move_from(str(_source(tmp_path, bytes([i])))) for i in range(3)]
    with interrupting(range(1000)):  # SIGINT before and after every call of the release
        handler = signal.getsignal(signal.SIGINT)
        ownership._release_all_at_exit()
        after = signal.getsignal(signal.SIGINT)
    assert after is handler  # put back once the release is over
    assert os.listdir(tmp_path) == []
    assert all(not os.path.exists(b.path) for b in blobs)
    for blob in blobs:
        blob.close()  # already released: nothing to do


def test_release_at_exit_outside_the_main_thread(tmp_path: Path) -> None:
    blob = FileBackedData.move_from(str(_source(tmp_path)))
    thread = threading.Thread(target=ownership._release_all_at_exit)
    thread.start()
    thread.join()
    assert os.listdir(tmp_path) == []
    blob.close()


class _Other:
    """The identity of another file than the one ``st`` describes: the next inode."""

    def __init__(self, st: os.stat_result) -> None:
        self.st_dev, self.st_ino = st.st_dev, st.st_ino + 1
        self.st_mtime_ns = st.st_mtime_ns


class _Full(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> None:
        return None


def test_a_full_non_blocking_output(tmp_path: Path) -> None:
    blob = FileBackedData(str(_source(tmp_path)))
    sink = _Full()
    with pytest.raises(BlockingIOError, match="took none of 400 bytes") as raised:
        Cord(blob).write_to_file(sink)
    assert raised.value.errno == errno.EAGAIN
    with pytest.raises(BlockingIOError, match="took none of 5 bytes"):
        Cord(b"bytes").write_to_file(sink)  # a bytes piece, through the Cord's own loop
    blob.close()


def test_none_is_no_output(tmp_path: Path) -> None:
    blob = FileBackedData(str(_source(tmp_path)))
    with pytest.raises(TypeError, match="not NoneType: None"):
        blob.write_to_file(None)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(TypeError, match=r"write\(\) method, not PosixPath: "):
        Cord(blob).write_to_file(tmp_path)  # type: ignore[arg-type]  # a path is no output
    blob.close()


def test_a_placeholder_that_vanishes_mid_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f".executorch_{dead_pid()}_abcdefgh.data"
    (tmp_path / name).write_bytes(b"orphan")
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if path == name:
            os.unlink(tmp_path / name)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    result = sweep(tmp_path)
    assert (result.removed, result.kept) == ([], [])


def test_release_at_exit_skips_an_entry_whose_owner_is_gone(tmp_path: Path) -> None:
    class Gone:
        pass

    dead = weakref.ref(Gone())  # collected at once: a registry entry no live owner holds
    ownership._owners[(0, 0)] = dead  # type: ignore[assignment]  # any dead reference will do
    try:
        ownership._release_all_at_exit()
    finally:
        del ownership._owners[(0, 0)]


def _sparse(path: Path, size: int, head: bytes, tail: bytes) -> Path:
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size - len(tail))
        f.seek(size - len(tail))
        f.write(tail)
    return path


def _written(blob: FileBackedData, out_path: Path, mode: str = "wb") -> bytes:
    with open(out_path, mode) as out:
        blob.write_to_file(out)
    return out_path.read_bytes()


def test_holes_into_an_append_mode_file_are_written(tmp_path: Path) -> None:
    source = _sparse(tmp_path / "s.bin", 1 << 20, b"h" * 10, b"t" * 10)
    blob = FileBackedData(str(source))
    assert _written(blob, tmp_path / "out.bin", "ab") == source.read_bytes()
    blob.close()


def test_a_filesystem_that_tells_no_holes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _sparse(tmp_path / "s.bin", 1 << 20, b"h" * 10, b"t" * 10)
    blob = FileBackedData(str(source))
    real_lseek = os.lseek

    def lseek(fd: int, pos: int, how: int) -> int:
        if how == os.SEEK_DATA:
            raise OSError(errno.EINVAL, "no SEEK_DATA here")
        return real_lseek(fd, pos, how)

    monkeypatch.setattr(os, "lseek", lseek)
    assert _written(blob, tmp_path / "out.bin") == source.read_bytes()
    blob.close()


def test_a_kernel_copy_that_stops_in_a_data_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _sparse(tmp_path / "s.bin", 1 << 20, b"h" * 10, b"t" * 10)
    blob = FileBackedData(str(source))
    monkeypatch.setattr(verified_reader, "_kernel_copies", lambda: [])
    assert _written(blob, tmp_path / "out.bin") == source.read_bytes()
    blob.close()


def test_a_file_that_shrank_behind_its_holes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _sparse(tmp_path / "s.bin", 1 << 20, b"h" * 10, b"")
    blob = FileBackedData(str(source))
    real_lseek = os.lseek

    def lseek(fd: int, pos: int, how: int) -> int:
        if how == os.SEEK_DATA and pos > 0:
            os.truncate(source, 100)  # shrinks while the hole is being skipped
        return real_lseek(fd, pos, how)

    monkeypatch.setattr(os, "lseek", lseek)
    with pytest.raises(FileChangedError, match="recorded 1048576 bytes, now 100"):
        _written(blob, tmp_path / "out.bin")
    blob.close()


def test_a_pipe_gets_the_zeros(tmp_path: Path) -> None:
    source = _sparse(tmp_path / "s.bin", 1 << 16, b"h", b"t")
    blob = FileBackedData(str(source))
    read_end, write_end = os.pipe()
    with open(write_end, "wb") as out:
        done = threading.Thread(target=blob.write_to_file, args=(out,))
        done.start()
        with open(read_end, "rb") as reader:
            data = reader.read(1 << 16)
        done.join()
    assert data == source.read_bytes()
    blob.close()


@pytest.mark.parametrize("tail", [b"t" * 10, b""], ids=["data-at-the-end", "hole-at-the-end"])
def test_holes_are_skipped_in_a_fresh_file(tmp_path: Path, tail: bytes) -> None:
    source = _sparse(tmp_path / "s.bin", 8 << 20, b"h" * 10, tail)
    if source.stat().st_blocks * 512 > 1 << 20:
        pytest.skip("this filesystem does not keep holes")
    blob = FileBackedData(str(source))
    out_path = tmp_path / "out.bin"
    assert _written(blob, out_path) == source.read_bytes()
    assert out_path.stat().st_blocks * 512 < 1 << 20
    blob.close()


def test_every_hole_of_a_file_with_several_is_skipped(tmp_path: Path) -> None:
    source = tmp_path / "s.bin"
    with open(source, "wb") as f:  # data, hole, data, hole, data: 4 MiB holes
        for offset in (0, 4 << 20, 8 << 20):
            f.seek(offset + 100)
            f.write(bytes([offset >> 20]) * 5000)
    if source.stat().st_blocks * 512 > 1 << 20:
        pytest.skip("this filesystem does not keep holes")
    blob = FileBackedData(str(source))
    out_path = tmp_path / "out.bin"
    assert _written(blob, out_path) == source.read_bytes()
    assert out_path.stat().st_blocks * 512 < 1 << 20  # the second hole too
    blob.close()


def test_a_source_replaced_during_its_move_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _source(tmp_path)
    real_lstat = os.lstat

    def lstat(path: Any) -> object:  # the placeholder, once renamed, is seen as another file
        st = real_lstat(path)
        return _Other(st) if os.path.basename(path).startswith(".executorch_") else st

    monkeypatch.setattr(os, "lstat", lstat)
    before = open_descriptors()
    with pytest.raises(FileChangedError, match="replaced while it was being moved"):
        FileBackedData.move_from(str(source))
    monkeypatch.undo()
    assert open_descriptors() <= before
    assert os.listdir(tmp_path) == ["source.bin"]


def test_a_blob_holds_no_descriptor(tmp_path: Path) -> None:
    # FBD-IDENT-2: neither a borrowed nor an owned blob keeps a descriptor between calls
    before = open_descriptors()
    borrowed = FileBackedData(_source(tmp_path))
    (tmp_path / "owned").mkdir()
    owned = FileBackedData.move_from(_source(tmp_path / "owned"))
    assert (borrowed.sha256(), len(owned.to_bytes())) == (borrowed.sha256(), len(owned))
    assert open_descriptors() == before
    owned.close()
    del borrowed
    gc.collect()
    assert open_descriptors() == before


def test_finalizers_are_left_to_the_release_at_exit(tmp_path: Path) -> None:
    # weakref's own exit hook would run them without SIGINT ignored (FBD-INTR-1)
    (tmp_path / "owned").mkdir()
    with (
        FileBackedData(_source(tmp_path)) as borrowed,
        FileBackedData.move_from(_source(tmp_path / "owned")) as owned,
    ):
        assert borrowed._finalizer is None  # nothing to release
        assert owned._finalizer is not None
        assert not owned._finalizer.atexit


def test_close_forgets_the_owner(tmp_path: Path) -> None:
    blob = FileBackedData.move_from(_source(tmp_path))
    identity = blob._identity
    blob.close()
    assert identity not in ownership._owners  # not kept until the closed object is collected


def test_a_sigint_ignored_stays_ignored_through_a_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace

    def replace_then_interrupt(source: Any, target: Any) -> None:
        real_replace(source, target)
        os.kill(os.getpid(), signal.SIGINT)  # ignored, as in a background job

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        monkeypatch.setattr(os, "replace", replace_then_interrupt)
        blob = FileBackedData.move_from(_source(tmp_path))
        monkeypatch.setattr(os, "replace", real_replace)
        blob.close()
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_handler_put_back_before_the_others_undoes_the_step(monkeypatch) -> None:
    """FBD-INTR-1 with two Python handlers: a SIGTERM that comes right after its handler is put
    back, before SIGINT's is, undoes the completed step; every handler is put back all the same."""

    def graceful(signum, frame):
        raise SystemExit(143)

    before = signal.signal(signal.SIGTERM, graceful)
    sigint = signal.getsignal(signal.SIGINT)
    real = deferral._set_handler

    def put(signum, handler):
        real(signum, handler)
        if handler is graceful:
            graceful(signum, None)  # the signal, at the check right after the C call

    try:
        monkeypatch.setattr(deferral, "_set_handler", put)
        undone: list[str] = []
        with pytest.raises(SystemExit):
            deferral._atomically(lambda: "done", undone.append)
        assert undone == ["done"]
        assert signal.getsignal(signal.SIGTERM) is graceful
        assert signal.getsignal(signal.SIGINT) is sigint
    finally:
        signal.signal(signal.SIGTERM, before)

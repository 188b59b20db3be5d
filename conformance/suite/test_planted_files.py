"""A weights blob written where someone else planted a file first (spec HOOK-MAT-3).

The blob is written beside the ``.wrapper.so``, often in a shared output directory: whatever
another user put at the blob's name (a symbolic link, a FIFO, a file of their own) must be neither
followed, opened nor written into. Each test first learns the name the implementation writes the
blob under (by materializing once in an empty directory), then plants something there. A plant by
another user needs root (to act as ``nobody``); elsewhere those tests are skipped, never passed.
Every wait is bounded: a hook that opens a planted FIFO hangs in a child, which is killed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import select
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from conformance.api import Implementation, LowMemoryWeights
from conformance.harness.helpers import Blobs
from conformance.suite.test_hook_interrupts import implementation_code

clause = pytest.mark.clause
requires = pytest.mark.requires

WEIGHTS = [b"genuine weights " * 4096, b"and the rest of them " * 512]
DIGEST = hashlib.sha256(b"".join(WEIGHTS)).hexdigest()
PLANTED = b"planted by another user: " + bytes(range(256)) * 64
NOBODY = 65534
CHILD_SECONDS = 20.0
"""How long a child materializing over a plant may take: it writes a few hundred kilobytes."""


def _hooks(impl: Implementation) -> LowMemoryWeights:
    assert impl.low_memory is not None  # requires("low-memory-weights")
    return impl.low_memory


@contextlib.contextmanager
def _shared_directory() -> Iterator[Path]:
    """A directory everyone may write in (mode 0777, not sticky), under the system temporary
    directory so that another user can reach it; removed afterwards."""
    directory = Path(tempfile.mkdtemp(prefix="cordspec-shared-"))
    try:
        directory.chmod(0o777)
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _blob_name(impl: Implementation, directory: Path) -> str:
    """The name the implementation gives the blob of ``directory/model.wrapper.so``, learnt by
    materializing once (the blob, taken over by a load, is then gone)."""
    probe = directory / "probe"
    probe.mkdir()
    so_path = probe / "model.wrapper.so"
    so_path.write_bytes(b"\x7fELF")
    blob = Path(_hooks(impl).materialize(str(so_path), iter(WEIGHTS)))
    try:
        assert blob.parent == probe, f"the blob of {so_path} is not beside it: {blob}"
        return blob.name
    finally:
        shutil.rmtree(probe)


def _so(directory: Path) -> str:
    so_path = directory / "model.wrapper.so"
    so_path.write_bytes(b"\x7fELF compiled model")
    return str(so_path)


def _strays(directory: Path, expected: set[str]) -> list[str]:
    """Names in ``directory`` other than ``expected``: temporary files left behind."""
    return sorted(set(os.listdir(directory)) - expected)


def _as_nobody(action: Callable[[], object]) -> None:
    """Run ``action`` in a forked child as uid/gid ``nobody``; raise if it fails."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; it must never return into pytest
        code = 1
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            action()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the plant as nobody failed"


@contextlib.contextmanager
def _sticky_directory() -> Iterator[Path]:
    """A directory everyone may write in, sticky (mode 1777, as ``/tmp``): an entry is its
    owner's, which no one else but root may rename or remove."""
    with _shared_directory() as directory:
        directory.chmod(0o1777)
        yield directory


class _CoUser:
    """A process running as ``nobody`` that plants a file of its own at a path when asked (one
    request at a time over a pipe, each answer awaited at most ``CHILD_SECONDS``)."""

    def __init__(self) -> None:
        self._requests, ask = os.pipe()
        answers, self._answer = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the child; it must never return into pytest
            try:
                os.close(ask)
                os.close(answers)
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                with os.fdopen(self._requests, "rb") as requests:
                    for line in requests:
                        try:
                            fd = os.open(line.rstrip(b"\n"), os.O_WRONLY | os.O_CREAT | os.O_EXCL)
                            os.write(fd, PLANTED)
                            os.close(fd)
                            os.write(self._answer, b"1")
                        except OSError:
                            os.write(self._answer, b"0")
            finally:
                os._exit(0)
        os.close(self._requests)
        os.close(self._answer)
        self._ask, self._answers = ask, answers

    def plant(self, path: Path) -> bool:
        """Whether the co-user made its file at ``path``."""
        os.write(self._ask, os.fsencode(path) + b"\n")
        if not select.select([self._answers], [], [], CHILD_SECONDS)[0]:
            raise AssertionError("the co-user did not answer")
        return os.read(self._answers, 1) == b"1"

    def close(self) -> None:
        os.close(self._ask)
        os.close(self._answers)
        os.waitpid(self.pid, 0)


def _lines_traced(call: Callable[[], object], on_line: Callable[[int], None]) -> int:
    """Run ``call``, calling ``on_line(k)`` at its ``k``-th line event of the implementation's own
    code; the events counted. What ``call`` raises propagates."""
    count = 0

    def local(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        if event == "line":
            count += 1
            on_line(count)
        return local

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        return local if implementation_code(frame.f_code) else None

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


def _need_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("not testable here: planting as another user needs root (to act as nobody)")


def _materialize_in_child(impl: Implementation, so_path: str) -> str:
    """Materialize in a forked child, bounded by ``CHILD_SECONDS``: what it did, as one line
    (``returned <path>``, ``raised <type> <errno>: <message>``), or ``hung`` if it was killed."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; it must never return into pytest
        try:
            os.close(read_end)
            try:
                line = f"returned {_hooks(impl).materialize(so_path, iter(WEIGHTS))}"
            except BaseException as exc:
                number = getattr(exc, "errno", None)
                line = f"raised {type(exc).__name__} {number}: {exc}"
            os.write(write_end, line.encode("utf-8", "replace"))
        finally:
            os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + CHILD_SECONDS
    chunks: list[bytes] = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                return "hung"
            chunk = os.read(read_end, 65536)
            if not chunk:
                return b"".join(chunks).decode()
            chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)


def _check_refused(
    impl: Implementation, directory: Path, name: str
) -> tuple[BaseException | None, str | None]:
    """Materialize over the plant at ``name``: the OSError (HOOK-MAT-3: refused) and ``None``,
    or ``None`` and the returned path if the hook wrote a blob anyway."""
    try:
        path = _hooks(impl).materialize(_so(directory), iter(WEIGHTS))
    except OSError as exc:
        assert str(directory / name) in str(exc) or exc.filename == str(directory / name), (
            f"the refusal does not name the blob path: {exc!r}"
        )
        return exc, None
    return None, str(path)


@requires("low-memory-weights")
class TestPlantedBlob:
    @clause("HOOK-MAT-3")
    def test_a_planted_link_is_not_followed(self, impl: Implementation, tmp_path: Path) -> None:
        name = _blob_name(impl, tmp_path)
        victim = tmp_path / "victim"
        victim.write_bytes(b"the file the link points to")
        (tmp_path / name).symlink_to(victim)
        error, written = _check_refused(impl, tmp_path, name)
        assert victim.read_bytes() == b"the file the link points to", (
            "materialize wrote the weights through a symbolic link planted at the blob's name"
        )
        assert error is not None, f"a symbolic link at the blob's name was not refused: {written}"
        assert os.readlink(tmp_path / name) == str(victim), "the planted link was changed"
        assert _strays(tmp_path, {name, "victim", "model.wrapper.so"}) == []

    @clause("HOOK-MAT-3")
    def test_a_planted_fifo_neither_hangs_nor_is_opened(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        name = _blob_name(impl, tmp_path)
        os.mkfifo(tmp_path / name)
        outcome = _materialize_in_child(impl, _so(tmp_path))
        assert outcome != "hung", (
            f"materialize blocked for {CHILD_SECONDS:.0f} s on a FIFO planted at the blob's name"
        )
        assert outcome.startswith(("raised FileExistsError", "raised OSError")), (
            f"a FIFO at the blob's name was not refused with an OSError: {outcome}"
        )
        assert f" {errno.EEXIST}:" in outcome or "FileExistsError" in outcome, outcome
        assert stat.S_ISFIFO(os.lstat(tmp_path / name).st_mode), "the planted FIFO was replaced"
        assert _strays(tmp_path, {name, "model.wrapper.so"}) == []

    @clause("HOOK-MAT-3")
    def test_the_blob_is_a_new_private_file(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        """Made exclusively with mode 0600: no other user can have it open, or open it later to
        change the weights under the stamp HOOK-LOW-4 checks. An earlier blob of this user's at
        the name is replaced by a new file, never written into."""
        blobs.require_hashing()
        name = _blob_name(impl, tmp_path)
        earlier = tmp_path / name
        earlier.write_bytes(b"an earlier export's blob")
        earlier.chmod(0o644)
        held = os.open(earlier, os.O_RDONLY)  # the earlier file, as someone holding it sees it
        try:
            path = _hooks(impl).materialize(_so(tmp_path), iter(WEIGHTS))
            assert os.pread(held, 64, 0) == b"an earlier export's blob", (
                "the weights were written into the file that was at the blob's name"
            )
        finally:
            os.close(held)
        st = os.lstat(path)
        assert stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid()
        assert stat.S_IMODE(st.st_mode) & 0o077 == 0, (
            f"the blob is mode {stat.S_IMODE(st.st_mode):o}: other users may open it"
        )
        assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == DIGEST
        assert _strays(tmp_path, {name, "model.wrapper.so"}) == []
        data, digest = _hooks(impl).load(path)
        with contextlib.suppress(Exception):
            data.close()  # type: ignore[attr-defined]  # a FileBackedData in low-memory mode
        assert digest == DIGEST


@requires("low-memory-weights")
class TestPlantedByAnotherUser:
    """Plants made as ``nobody`` in a directory everyone may write in; the export runs as root."""

    @clause("HOOK-MAT-3")
    def test_a_file_of_another_user_does_not_receive_the_weights(
        self, impl: Implementation
    ) -> None:
        _need_root()
        with _shared_directory() as directory:
            name = _blob_name(impl, directory)
            planted = directory / name

            def plant() -> None:
                fd = os.open(planted, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                os.write(fd, PLANTED)
                os.fchmod(fd, 0o666)
                os.close(fd)

            _as_nobody(plant)
            error, written = _check_refused(impl, directory, name)
            st = os.lstat(planted) if written is None else os.lstat(written)
            assert not (st.st_uid == NOBODY and st.st_size != len(PLANTED)), (
                "the weights were written into a file another user owns (and may swap them "
                "under an unchanged stamp)"
            )
            assert error is not None, f"a file of another user at the blob's name: {written}"
            assert planted.read_bytes() == PLANTED, "the planted file was written into"

    @clause("HOOK-MAT-3")
    def test_a_link_planted_by_another_user_reaches_no_file_of_roots(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        _need_root()
        victim = tmp_path / "private" / "secret"  # in root's own 0700 directory
        victim.parent.mkdir(mode=0o700)
        victim.write_bytes(b"root's own file")
        with _shared_directory() as directory:
            name = _blob_name(impl, directory)
            _as_nobody(lambda: os.symlink(victim, directory / name))
            error, written = _check_refused(impl, directory, name)
            assert victim.read_bytes() == b"root's own file", (
                "the export overwrote a file of root's through a link another user planted"
            )
            assert error is not None, f"a link of another user at the blob's name: {written}"

    @clause("HOOK-MAT-3")
    def test_weights_swapped_under_a_restored_stamp_are_not_stored_as_genuine(
        self, impl: Implementation
    ) -> None:
        """The steering attack end to end: the planter of the blob's name swaps the weights after
        materialize and restores the modification time; the load must not hand on the digest of
        the genuine weights for the planter's bytes."""
        _need_root()
        with _shared_directory() as directory:
            name = _blob_name(impl, directory)
            planted = directory / name
            _as_nobody(lambda: planted.write_bytes(b""))
            try:
                path = _hooks(impl).materialize(_so(directory), iter(WEIGHTS))
            except OSError:
                return  # refused: nothing was written where the planter can reach it
            before = os.stat(path)
            swapped = b"x" * before.st_size  # same size

            def swap() -> None:
                with open(path, "r+b") as f:
                    f.write(swapped)
                os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

            with contextlib.suppress(AssertionError):  # a private blob cannot be swapped
                _as_nobody(swap)
            data, digest = _hooks(impl).load(path)
            content = data.to_bytes()  # type: ignore[attr-defined]  # a FileBackedData
            with contextlib.suppress(Exception):
                data.close()  # type: ignore[attr-defined]
            assert digest == hashlib.sha256(content).hexdigest(), (
                "the store would key the planter's bytes under the digest of the genuine weights"
            )


@requires("low-memory-weights")
class TestRaceAndSteering:
    """A co-user acting at the worst moment, or steering the blob's directory (as ``nobody``, in a
    sticky directory; the export runs as root)."""

    @clause("HOOK-MAT-3")
    def test_a_file_planted_at_any_moment_is_kept(self, impl: Implementation) -> None:
        """The co-user plants its file at the blob's name at each line event of the
        implementation's own code under one materialize (one moment per run): between the
        last check and the rename among them. Its file must be kept, whatever the hook does."""
        _need_root()
        with _sticky_directory() as directory:
            name = _blob_name(impl, directory)
            planted = directory / name
            so = _so(directory)
            hooks = _hooks(impl)
            total = _lines_traced(lambda: hooks.materialize(so, iter(WEIGHTS)), lambda k: None)
            co_user = _CoUser()
            replaced = []
            try:
                for at in range(1, total + 1):
                    for entry in os.listdir(directory):  # each run meets a free name
                        if entry != "model.wrapper.so":
                            os.unlink(directory / entry)
                    made: list[bool] = []

                    def plant(k: int, at: int = at, made: list[bool] = made) -> None:
                        if k == at and not made:
                            made.append(co_user.plant(planted))

                    with contextlib.suppress(OSError):
                        _lines_traced(lambda: hooks.materialize(so, iter(WEIGHTS)), plant)
                    if made and made[0] and planted.read_bytes() != PLANTED:
                        replaced.append(at)
            finally:
                co_user.close()
            assert not replaced, (
                f"a file another user put at the blob's name at line event(s) {replaced[:10]} "
                f"of {total} was replaced (as root, despite the sticky bit): the check and the "
                "rename are two steps, and the rename replaces what came between"
            )

    @clause("HOOK-MAT-4")
    def test_a_co_users_directory_link_is_not_followed(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        _need_root()
        private = tmp_path / "private"  # root's own 0700 directory
        private.mkdir(mode=0o700)
        with _sticky_directory() as directory:
            name = _blob_name(impl, directory)
            earlier = private / name
            earlier.write_bytes(b"root's earlier blob, of another model")
            _as_nobody(lambda: os.symlink(private, directory / "out"))
            so = directory / "out" / "model.wrapper.so"
            so.write_bytes(b"\x7fELF")  # the compiler wrote it through the link
            try:
                written = _hooks(impl).materialize(str(so), iter(WEIGHTS))
            except (OSError, ValueError) as exc:
                assert str(directory / "out") in str(exc), f"the refusal names no path: {exc!r}"
                written = None
            assert earlier.read_bytes() == b"root's earlier blob, of another model", (
                "through another user's directory link the export replaced root's earlier "
                "blob in a private directory"
            )
            assert written is None, (
                f"the blob was written through another user's directory link: {written}"
            )
            assert sorted(os.listdir(private)) == sorted([name, "model.wrapper.so"]), (
                f"written into the private directory: {os.listdir(private)}"
            )

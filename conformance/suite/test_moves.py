"""FileBackedData.move_from: taking a file over by a rename in its own directory (spec section 3.2).

Same-filesystem moves are checked twice: in a fake filesystem (pyfakefs) with mount points, where
the system temporary directory is a filesystem of its own, and on the real filesystem, in the test
directory and under ``/dev/shm`` when that is another device. Tests with the ``fs`` fixture create
and close every object themselves: an object outliving the fake filesystem would be finalized
against the real one.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from conformance.api import FileBackedData, Implementation
from conformance.harness.checks import blame, check
from conformance.harness.helpers import (
    PLACEHOLDER_GLOB,
    SHM,
    Blobs,
    placeholders,
    shm_directory,
    sparse,
)
from conformance.harness.measure import BIG, READ_BOUND, io_counters
from conformance.harness.observe import unobserved

clause = pytest.mark.clause

RENAMES = pytest.mark.relies_on("FBD-MOVE-1", "FBD-MOVE-6")
"""For a test that makes ``move_from`` fail (or race) in its rename: a move that copies instead
(FBD-MOVE-1: no copy; FBD-MOVE-6: the same inode) never meets the fault."""
RENAME_ERRORS = pytest.mark.relies_on("FBD-MOVE-1", "FBD-MOVE-6", "FBD-FAULT-1")
"""For a test whose rename raises an ``OSError``: as :data:`RENAMES`, and a move that answers the
error otherwise than by raising it (FBD-FAULT-1) never fails where the test looks."""
NON_ROOT = pytest.mark.parametrize("fs", [[None, None, None, False]], indirect=True, ids=["user"])
"""pyfakefs with ``allow_root_user=False``: permissions are enforced although we run as root."""


def placeholder_names(directory: str | Path) -> list[str]:
    """Placeholder-named entries (files or links) directly in ``directory``."""
    return sorted(n for n in os.listdir(directory) if fnmatch.fnmatch(n, PLACEHOLDER_GLOB))


def remove_placeholders(directory: Path) -> None:
    """Remove placeholders an implementation leaked (after the test has judged them)."""
    for leaked in placeholders(directory):
        leaked.unlink()


def describe(path: Path) -> tuple[object, ...]:
    """What is at ``path``, without following a link: enough to tell it was left untouched."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ("absent",)
    if stat.S_ISLNK(st.st_mode):
        return ("link", st.st_ino, os.readlink(path))
    if stat.S_ISDIR(st.st_mode):
        return ("dir", st.st_ino, sorted(os.listdir(path)))
    return ("file", st.st_ino, stat.S_IMODE(st.st_mode), path.read_bytes())


def attempt(
    impl: Implementation, blobs: Blobs, path: str, sha256: Any = None
) -> BaseException | None:
    """Call ``move_from``; return what it raised, or None (the object it made is closed later)."""
    try:
        blobs.track(impl.FileBackedData.move_from(path, sha256=sha256))
    except (Exception, KeyboardInterrupt) as exc:
        return exc
    return None


def fake_mounts(fs: FakeFilesystem) -> None:
    """Two filesystems under /mnt, and the system temporary directory on a third."""
    fs.add_mount_point("/mnt/a")
    fs.add_mount_point("/mnt/b")
    fs.add_mount_point(tempfile.gettempdir(), can_exist=True)


def check_raw_digest(digest: object) -> None:
    """``digest`` has the form of a ``sha256()`` result: 32 bytes (FBD-HASH-1)."""
    check(type(digest) is bytes and len(digest) == 32, f"sha256() gave {digest!r}", "FBD-HASH-1")


def check_placed_beside(moved: str, source: str, dev: int) -> None:
    """``moved`` is a placeholder in the source's directory, on the source's device."""
    assert os.path.dirname(os.path.abspath(moved)) == os.path.dirname(os.path.abspath(source))
    assert fnmatch.fnmatch(os.path.basename(moved), PLACEHOLDER_GLOB), moved
    assert os.stat(moved).st_dev == dev


def _check_moved_on_a_mount(
    impl: Implementation, fs: FakeFilesystem, directory: str, *, other: str, bare: bool
) -> None:
    """``move_from`` of a file in ``directory`` of a fake mount (by its bare name from there, or
    by its whole path) leaves the placeholder beside it, on its device, not on the ``other``
    mount's or the system temporary directory's."""
    fake_mounts(fs)
    os.makedirs(directory)
    source = f"{directory}/x.bin"
    contents = f"on {directory}".encode()
    fs.create_file(source, contents=contents)
    check_control(source)
    dev = os.stat(source).st_dev
    assert dev not in (os.stat(other).st_dev, os.stat(tempfile.gettempdir()).st_dev)
    if bare:
        os.chdir(directory)
    blob = impl.FileBackedData.move_from("x.bin" if bare else source)
    try:
        check_placed_beside(impl.path_of(blob), source, dev)
        assert blob.to_bytes() == contents
        assert placeholder_names(tempfile.gettempdir()) == []
    finally:
        blob.close()


def check_control(source: str) -> None:
    """The negative control: a placeholder in the system temporary directory is caught twice.

    Renaming onto it fails with EXDEV (so the filesystem models devices), and
    ``check_placed_beside`` rejects it (so a move that copied there would fail the tests too).
    """
    fd, placeholder = tempfile.mkstemp(prefix=".executorch_", suffix=".data")
    os.close(fd)
    try:
        with pytest.raises(AssertionError):
            check_placed_beside(placeholder, source, os.stat(source).st_dev)
        with pytest.raises(OSError) as crossing:
            os.replace(source, placeholder)
        assert crossing.value.errno == errno.EXDEV
    finally:
        if os.path.lexists(placeholder):  # pyfakefs unlinks the target before raising EXDEV
            os.unlink(placeholder)


@pytest.mark.requires("file-backed")
class TestTakeOver:
    @clause("FBD-MOVE-1")
    @pytest.mark.relies_on("FBD-CLOSE-1")  # the object owns the file it took: closing deletes it
    def test_takes_the_file(self, impl: Implementation, blobs: Blobs) -> None:
        source = blobs.file(b"multi-GB weights, in miniature")
        blob = blobs.move(source)
        moved = blobs.path(blob)
        assert not os.path.lexists(source)
        assert moved != source
        assert moved.read_bytes() == b"multi-GB weights, in miniature"
        assert (len(blob), blob.to_bytes()) == (30, b"multi-GB weights, in miniature")
        blob.close()
        assert not os.path.lexists(moved), "the object does not own the file it took"

    @clause("FBD-MOVE-1")
    def test_reads_and_copies_nothing(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        source = sparse(tmp_path / "big.bin", BIG)
        read_before, written_before = io_counters()
        blob = blobs.move(source)
        read_after, written_after = io_counters()
        assert len(blob) == BIG
        assert read_after - read_before < READ_BOUND, "move_from read the file"
        assert written_after - written_before < READ_BOUND, "move_from copied the file"

    @clause("FBD-MOVE-2")
    def test_placeholder_in_the_source_directory(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        directory = tmp_path / "deep" / "dir"
        directory.mkdir(parents=True)
        source = blobs.file(b"renamed in place", directory=directory)
        calls: list[tuple[str, str]] = []
        replace = os.replace

        def spy(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            calls.append((os.path.abspath(src), os.path.abspath(dst)))
            replace(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, "replace", spy)
        blob = blobs.move(source)
        check_placed_beside(impl.path_of(blob), str(source), os.stat(directory).st_dev)
        if not calls:
            unobserved("the implementation made no os.replace the harness could see")
        renamed = (str(source), os.path.abspath(impl.path_of(blob))) in calls
        check(renamed, "the source was not renamed onto the placeholder", "FBD-MOVE-6")
        assert placeholder_names(directory) == [blobs.path(blob).name]
        assert placeholder_names(tmp_path) == []

    @clause("FBD-MOVE-2")
    def test_bare_name_in_the_current_directory(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        cwd = tmp_path / "cwd"
        cwd.mkdir()
        (cwd / "x.bin").write_bytes(b"a bare name")
        monkeypatch.chdir(cwd)
        blob = impl.FileBackedData.move_from("x.bin")
        try:  # closed here, while the current directory is still the one it was made in
            check_placed_beside(impl.path_of(blob), str(cwd / "x.bin"), os.stat(cwd).st_dev)
            assert blob.to_bytes() == b"a bare name"
        finally:
            blob.close()

    @clause("FBD-MOVE-2", "FBD-MOVE-3")
    def test_fake_mounts_nested_path(self, impl: Implementation, fs: FakeFilesystem) -> None:
        _check_moved_on_a_mount(impl, fs, "/mnt/b/dir", other="/mnt/a", bare=False)

    @clause("FBD-MOVE-2", "FBD-MOVE-3")
    def test_fake_mounts_bare_name(self, impl: Implementation, fs: FakeFilesystem) -> None:
        _check_moved_on_a_mount(impl, fs, "/mnt/a/dir", other="/mnt/b", bare=True)

    @clause("FBD-MOVE-6")
    def test_same_inode_and_mode(self, impl: Implementation, blobs: Blobs) -> None:
        source = blobs.file(b"keeps its inode")
        source.chmod(0o640)
        before = os.stat(source)
        after = os.stat(blobs.path(blobs.move(source)))
        assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
        assert stat.S_IMODE(after.st_mode) == 0o640


@pytest.mark.requires("file-backed")
class TestAnotherDevice:
    """A source on another filesystem than the test directory (/dev/shm)."""

    @pytest.fixture
    def shm_dir(self, tmp_path: Path) -> Iterator[Path]:
        """A directory under /dev/shm, on another device than the test directory."""
        if not SHM.is_dir():
            pytest.skip("this machine has no /dev/shm: no second filesystem to move within")
        if SHM.stat().st_dev == tmp_path.stat().st_dev:
            pytest.skip("/dev/shm is on the same filesystem as the test directory here")
        with contextlib.ExitStack() as held:
            try:
                directory = held.enter_context(shm_directory())
            except OSError as exc:
                pytest.skip(f"cannot create a directory in /dev/shm here: {exc}")
            yield directory

    @clause("FBD-MOVE-2", "FBD-MOVE-3", "FBD-MOVE-6")
    def test_on_another_device(self, impl: Implementation, tmp_path: Path, shm_dir: Path) -> None:
        control = shm_dir / "control.bin"
        control.write_bytes(b"control")
        with pytest.raises(OSError) as crossing:  # a placeholder in the test dir would fail here
            os.replace(control, tmp_path / "control.bin")
        assert crossing.value.errno == errno.EXDEV
        source = shm_dir / "x.bin"
        source.write_bytes(b"in shared memory")
        source.chmod(0o640)
        before = os.stat(source)
        with blame("FBD-MOVE-2", "FBD-MOVE-3"):  # the rename is where the placeholder is
            blob = impl.FileBackedData.move_from(str(source))
        owned = impl.path_of(blob)
        try:
            with blame("FBD-MOVE-2", "FBD-MOVE-3"):
                check_placed_beside(owned, str(source), before.st_dev)
            after = os.stat(owned)
            same = (after.st_ino, stat.S_IMODE(after.st_mode)) == (before.st_ino, 0o640)
            check(same, "the owned file is not the source (inode, mode)", "FBD-MOVE-6")
            assert blob.to_bytes() == b"in shared memory"
        finally:
            blob.close()
        check(not os.path.lexists(owned), f"close() left the owned file {owned}", "FBD-CLOSE-1")
        assert placeholder_names(shm_dir) == []


@dataclass(frozen=True)
class Failure:
    """A ``move_from`` that must fail: what is passed, and what must be left as it was."""

    path: str
    source: Path
    sha256: Any = None
    renames: list[str] | None = None
    """The calls the failing ``os.replace`` of a ``replace-*`` case saw (None: no such case)."""

    def seen(self, raised: BaseException | None) -> BaseException | None:
        """``raised``, once the case's failing rename is known to have reached the
        implementation; else the test is unobserved (it bound or bypassed ``os.replace``)."""
        if self.renames is not None and not self.renames:
            unobserved(
                "the implementation made no os.replace the harness could see, so the failing "
                "rename never reached it"
            )
        return raised


def make_failure(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Failure:
    directory = tmp_path / "src"
    directory.mkdir()
    if case == "missing":
        return Failure(str(directory / "absent.bin"), directory / "absent.bin")
    if case in ("directory", "directory-slash"):
        named = directory / "dir"
        named.mkdir()
        (named / "inner.bin").write_bytes(b"inside")
        return Failure(str(named) + ("/" if case == "directory-slash" else ""), named)
    source = directory / "x.bin"
    source.write_bytes(b"the user's weights")
    if case == "file-slash":
        return Failure(str(source) + "/", source)
    if case == "live-link":
        target = tmp_path / "target.bin"
        target.write_bytes(b"behind the link")
        link = directory / "link.bin"
        link.symlink_to(target)
        return Failure(str(link), link)
    if case == "hex-digest":
        return Failure(str(source), source, hashlib.sha256(b"the user's weights").hexdigest())
    raised: BaseException = {
        "replace-exdev": OSError(errno.EXDEV, "Invalid cross-device link"),
        "replace-denied": PermissionError(errno.EACCES, "Permission denied"),
        "replace-interrupted": KeyboardInterrupt(),
    }[case]

    renames: list[str] = []

    def failing_replace(*args: Any, **kwargs: Any) -> None:
        renames.append(os.fspath(args[0]))
        raise raised

    monkeypatch.setattr(os, "replace", failing_replace)
    return Failure(str(source), source, renames=renames)


FAILURES = [
    "missing",
    "directory",
    "directory-slash",
    "file-slash",
    "live-link",
    "hex-digest",
    "replace-exdev",
    "replace-denied",
]
"""Failures (when they fail: a live link or an unchecked digest may be taken) to clean up after.
A dangling link and an interrupted rename have tests of their own (ExecuTorch 1.5.1 leaks there)."""

MUST_FAIL = {"missing", "replace-exdev", "replace-denied", "replace-interrupted"}
"""Cases every implementation fails: there is no source, or ``os.replace`` (FBD-MOVE-2, with no
copy fallback: FBD-MOVE-3) raises. The others may succeed outside the strict profile (FBD-MOVE-8):
a link or a directory taken over, a digest accepted unchecked."""

OS_ERRORS = {"replace-exdev", "replace-denied"}
"""Cases whose rename raises an ``OSError`` (``replace-interrupted``'s raises KeyboardInterrupt)."""


def cases(names: list[str]) -> list[Any]:
    """``names`` as parameters; those that fail the rename rely on there being one, and those
    whose rename raises an ``OSError`` on its error being raised."""
    return [
        pytest.param(n, marks=RENAME_ERRORS if n in OS_ERRORS else RENAMES)
        if n.startswith("replace-")
        else n
        for n in names
    ]


def must_raise(case: str, raised: BaseException | None) -> bool:
    """Whether the failure clauses apply: the case raised; a case in MUST_FAIL has to."""
    if case in MUST_FAIL:
        assert raised is not None, f"move_from succeeded for {case!r}"
    return raised is not None


@pytest.mark.requires("file-backed")
class TestFailure:
    @pytest.fixture
    def failure(self, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Failure:
        """The ``move_from`` failure the test's ``case`` parameter names, set up in its
        directory."""
        return make_failure(case, tmp_path, monkeypatch)

    @clause("FBD-MOVE-4")
    @pytest.mark.parametrize("case", cases(FAILURES))
    def test_leaves_no_placeholder(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, failure: Failure, case: str
    ) -> None:
        raised = failure.seen(attempt(impl, blobs, failure.path, failure.sha256))
        if must_raise(case, raised):
            assert placeholders(tmp_path) == []

    @clause("FBD-MOVE-5")
    @pytest.mark.parametrize("case", cases([*FAILURES, "replace-interrupted"]))
    def test_keeps_the_source(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, failure: Failure, case: str
    ) -> None:
        before = describe(failure.source)
        try:
            raised = failure.seen(attempt(impl, blobs, failure.path, failure.sha256))
            if must_raise(case, raised):
                assert describe(failure.source) == before
        finally:
            remove_placeholders(tmp_path)  # judged by the FBD-MOVE-4 tests, not here

    @clause("FBD-MOVE-4")
    @RENAMES
    def test_interrupted_rename_leaves_no_placeholder(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        failure = make_failure("replace-interrupted", tmp_path, monkeypatch)
        try:
            raised = failure.seen(attempt(impl, blobs, failure.path))
            assert isinstance(raised, KeyboardInterrupt)
            assert placeholders(tmp_path) == []
        finally:
            remove_placeholders(tmp_path)

    @staticmethod
    def dangling(tmp_path: Path) -> Path:
        link = tmp_path / "dangling.bin"
        link.symlink_to(tmp_path / "nowhere.bin")
        return link

    @clause("FBD-MOVE-4")
    def test_dangling_link_leaves_no_placeholder(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        link = self.dangling(tmp_path)
        try:
            if attempt(impl, blobs, str(link)) is not None:
                assert placeholders(tmp_path) == []
        finally:
            remove_placeholders(tmp_path)

    @clause("FBD-MOVE-5")
    def test_dangling_link_is_kept(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        link = self.dangling(tmp_path)
        before = describe(link)
        try:
            if attempt(impl, blobs, str(link)) is not None:
                after = describe(link)
                assert after == before, (
                    f"move_from of a dangling link failed, as it should; expected the link kept "
                    f"as it was ({before}), found {after}"
                )
        finally:
            remove_placeholders(tmp_path)

    @clause("FBD-MOVE-4", "FBD-MOVE-5")
    @RENAMES
    def test_source_replaced_just_before_the_rename_is_put_back(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # The failure comes after the rename: the placeholder then holds the file now at the
        # source's path, and cleaning up as after a failed rename (removing it) loses that file.
        source = blobs.file(b"checked before the rename")
        swapped = blobs.file(b"put there meanwhile")
        real_replace = os.replace
        calls: list[tuple[str, str]] = []

        def racing_replace(src: Any, dst: Any) -> None:
            if not calls:
                real_replace(swapped, source)  # another inode at the checked path
            calls.append((os.fspath(src), os.fspath(dst)))
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", racing_replace)
        raised = attempt(impl, blobs, str(source))
        monkeypatch.undo()
        if not calls:
            remove_placeholders(tmp_path)
            unobserved("the implementation made no os.replace the harness could see")
        try:
            if raised is not None:
                assert describe(source) == ("file", *describe(source)[1:3], b"put there meanwhile")
                assert placeholders(tmp_path) == []
            else:  # taken over: whatever it took, nothing is lost or left behind
                assert len(calls) >= 1
        finally:
            remove_placeholders(tmp_path)

    @clause("FBD-MOVE-4", "FBD-MOVE-5")
    @NON_ROOT
    def test_read_only_directory(self, impl: Implementation, fs: FakeFilesystem) -> None:
        fs.create_file("/data/ro/x.bin", contents=b"cannot be renamed")
        os.chmod("/data/ro", 0o555)
        with pytest.raises(PermissionError):  # the fake filesystem enforces it for us
            open("/data/ro/probe.bin", "wb").close()
        made: list[FileBackedData] = []
        try:
            with pytest.raises(OSError):
                made.append(impl.FileBackedData.move_from("/data/ro/x.bin"))
        finally:
            os.chmod("/data/ro", 0o755)
            for blob in made:
                blob.close()
        assert os.listdir("/data/ro") == ["x.bin"]
        with open("/data/ro/x.bin", "rb") as f:
            assert f.read() == b"cannot be renamed"


@pytest.mark.requires("file-backed")
class TestOnlyRegularFiles:
    @clause("FBD-MOVE-8")
    def test_a_fifo_is_refused_naming_it(self, impl: Implementation, tmp_path: Path) -> None:
        fifo = tmp_path / "weights.pipe"
        os.mkfifo(fifo)
        try:
            made = impl.FileBackedData.move_from(str(fifo))
        except ValueError as exc:
            assert str(fifo) in str(exc), exc
        else:
            made.close()
            pytest.fail("move_from took over a FIFO")
        finally:
            left = placeholders(tmp_path)
            for stray in left:
                stray.unlink()
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is not at its path"
        assert not left, f"placeholder(s) made before the FIFO was refused: {left}"

    @clause("FBD-MOVE-8")
    def test_live_link_is_refused(self, impl: Implementation, blobs: Blobs, tmp_path: Path) -> None:
        target = blobs.file(b"behind the link")
        link = tmp_path / "link.bin"
        link.symlink_to(target)
        with pytest.raises(ValueError):
            blobs.move(link)

    @clause("FBD-MOVE-8")
    def test_dangling_link_is_refused(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        link = tmp_path / "dangling.bin"
        link.symlink_to(tmp_path / "nowhere.bin")
        try:
            with pytest.raises(ValueError):
                blobs.move(link)
        finally:
            remove_placeholders(tmp_path)

    @clause("FBD-MOVE-8")
    @pytest.mark.parametrize("case", ["directory", "file-slash"])
    def test_directory(self, impl: Implementation, blobs: Blobs, tmp_path: Path, case: str) -> None:
        if case == "directory":
            (tmp_path / "dir").mkdir()
            path = str(tmp_path / "dir")
        else:
            path = str(blobs.file(b"a file named as a directory")) + "/"
        with pytest.raises((IsADirectoryError, NotADirectoryError)):
            blobs.move(path)

    @clause("FBD-MOVE-8")
    def test_directory_with_a_trailing_slash_is_refused(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        (tmp_path / "dir").mkdir()
        with pytest.raises((IsADirectoryError, NotADirectoryError)):
            blobs.move(str(tmp_path / "dir") + "/")

    @clause("FBD-MOVE-8")
    @NON_ROOT
    @pytest.mark.parametrize(
        ("path", "error"),
        [
            ("/data/dir", (IsADirectoryError, NotADirectoryError)),
            ("/data/dir/", (IsADirectoryError, NotADirectoryError)),
            ("/data/link.bin", ValueError),
            ("/data/dangling.bin", ValueError),
        ],
        ids=["directory", "directory-slash", "live-link", "dangling-link"],
    )
    def test_checked_before_any_placeholder(
        self,
        impl: Implementation,
        fs: FakeFilesystem,
        path: str,
        error: type[Exception] | tuple[type[Exception], ...],
    ) -> None:
        # In read-only directories, making a placeholder first fails with PermissionError.
        fs.create_file("/data/dir/inner.bin", contents=b"inside")
        fs.create_file("/data/target.bin", contents=b"behind the link")
        os.symlink("/data/target.bin", "/data/link.bin")
        os.symlink("/data/nowhere.bin", "/data/dangling.bin")
        os.chmod("/data/dir", 0o555)
        os.chmod("/data", 0o555)
        with pytest.raises(PermissionError):  # the fake filesystem enforces it for us
            open("/data/probe.bin", "wb").close()
        made: list[FileBackedData] = []
        try:
            with pytest.raises(error):
                made.append(impl.FileBackedData.move_from(path))
        finally:
            os.chmod("/data", 0o755)
            os.chmod("/data/dir", 0o755)
            for blob in made:
                blob.close()


@pytest.mark.requires("file-backed")
class TestTrustedDigest:
    SUPPLIED = hashlib.sha256(b"what the writer hashed").digest()

    @staticmethod
    def make(impl: Implementation, blobs: Blobs, how: str, path: Path, digest: bytes) -> Any:
        if how == "move_from":
            return blobs.move(path, sha256=digest)
        return blobs.wrap(path, cleanup=how == "owned", sha256=digest)

    @clause("FBD-MOVE-7")
    @pytest.mark.parametrize("how", ["move_from", "borrowed", "owned"])
    def test_supplied_digest_is_returned(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        path = blobs.file(b"not what the digest says")
        blob = self.make(impl, blobs, how, path, self.SUPPLIED)
        digest = blob.sha256()
        check_raw_digest(digest)
        assert digest == self.SUPPLIED
        assert blob.sha256() == self.SUPPLIED

    @clause("FBD-MOVE-7")
    @pytest.mark.parametrize("how", ["move_from", "borrowed"])
    def test_supplied_digest_reads_nothing(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, how: str
    ) -> None:
        blob = self.make(impl, blobs, how, sparse(tmp_path / "big.bin", BIG), self.SUPPLIED)
        before, _ = io_counters()
        digest = blob.sha256()
        after, _ = io_counters()
        check_raw_digest(digest)
        assert digest == self.SUPPLIED
        assert after - before < READ_BOUND, f"sha256() read {after - before} bytes"


@pytest.mark.requires("file-backed")
class TestOwnership:
    @staticmethod
    def alias(blobs: Blobs, tmp_path: Path, owner: FileBackedData, how: str) -> Path:
        path = blobs.path(owner)
        if how == "same-path":
            return path
        link = tmp_path / "alias.bin"
        os.link(path, link)
        return link

    @clause("FBD-MOVE-9")
    @pytest.mark.parametrize("how", ["same-path", "hard-link"])
    def test_move_from_an_owner_is_refused(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, how: str
    ) -> None:
        owner = blobs.moved(b"owned already")
        before = os.stat(blobs.path(owner))
        with pytest.raises(ValueError):
            blobs.move(self.alias(blobs, tmp_path, owner, how))
        after = os.stat(blobs.path(owner))
        assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
        assert owner.to_bytes() == b"owned already"

    @clause("FBD-MOVE-9")
    @pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_a_forked_child_cannot_take_an_inherited_owners_file(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        owner = blobs.moved(b"owned by the parent")
        path = impl.path_of(owner)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; it must never return into pytest
            code = 3
            try:
                try:
                    taken = (
                        impl.FileBackedData.move_from(path)
                        if how == "move_from"
                        else impl.FileBackedData(path, cleanup=True)
                    )
                except ValueError:
                    code = 0  # refused, as in the parent
                else:  # taken: put the file back where the parent's owner has it, and say so
                    if impl.path_of(taken) != path:
                        os.replace(impl.path_of(taken), path)
                    code = 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        assert code == 0, (
            f"a child forked while the parent's object owned {path}, calling "
            + ("move_from" if how == "move_from" else "FileBackedData(path, cleanup=True)")
            + " on that file, expected ValueError; "
            + ("the child took the file" if code == 1 else f"the child exited with {code}")
        )
        assert owner.to_bytes() == b"owned by the parent"

    @clause("FBD-MOVE-9")
    @pytest.mark.parametrize("how", ["same-path", "hard-link"])
    def test_second_owner_is_refused(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, how: str
    ) -> None:
        owner = blobs.moved(b"owned already")
        with pytest.raises(ValueError):
            blobs.wrap(self.alias(blobs, tmp_path, owner, how), cleanup=True)
        assert owner.to_bytes() == b"owned already"


def start_time(pid: int) -> int | None:
    """Field 22 of ``/proc/<pid>/stat``, or None where the system does not tell."""
    try:
        line = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return int(line[line.rfind(b")") + 1 :].split()[19])


def owner_tag_pattern(pid: int) -> str:
    """The placeholder name FBD-MOVE-10 asks of process ``pid`` (its start time where known)."""
    start = start_time(pid)
    tag = f"{pid}" if start is None else f"{pid}-{start}"
    return rf"\.executorch_{tag}_.{{8}}\.data"  # mkstemp's eight characters


@pytest.mark.requires("file-backed")
class TestPlaceholderName:
    @clause("FBD-MOVE-10")
    def test_placeholder_names_the_process(self, impl: Implementation, blobs: Blobs) -> None:
        name = blobs.path(blobs.moved(b"whose is it")).name
        # the owner tag: <pid>-<start time>, or <pid> where the system tells no start time
        assert re.fullmatch(rf"\.executorch_{os.getpid()}(-[0-9]+)?_.+\.data", name), name

    @clause("FBD-MOVE-10")
    def test_placeholder_names_the_process_with_its_start_time(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        # Where the start time is known it is part of the tag: a pid alone is reused.
        name = blobs.path(blobs.moved(b"whose is it")).name
        assert re.fullmatch(owner_tag_pattern(os.getpid()), name), name

    @clause("FBD-MOVE-10")
    @pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available")
    def test_placeholder_of_a_forked_child_names_the_child(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        source = blobs.file(b"moved in the child")
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; it must never return into pytest
            code = 1
            try:
                os.close(read_end)
                with impl.FileBackedData.move_from(str(source)) as blob:
                    os.write(write_end, os.path.basename(impl.path_of(blob)).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            name = pipe.read().decode()
        expected = owner_tag_pattern(pid)  # read before the child is reaped
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert re.fullmatch(expected, name), f"a child {pid} of {os.getpid()} made {name}"

"""Directory links on an owner's path (FBD-INIT-9): a link that another user put in a shared
directory is not followed by the owning constructor or ``move_from``, so that user cannot choose a
private directory whose file is then owned and deleted; a link of the process's own user is."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.api import Implementation

clause = pytest.mark.clause

SECOND_USER = 65534
"""The uid (and gid) the other user acts as: ``nobody`` on most systems."""
PRIVATE = b"private data of the process's user\n" * 64


def _as_second_user(*argv: str) -> None:
    """Run ``argv`` as the second user, with no supplementary groups."""
    subprocess.run(
        ["setpriv", f"--reuid={SECOND_USER}", f"--regid={SECOND_USER}", "--clear-groups", *argv],
        check=True,
        capture_output=True,
        timeout=60,
    )


@dataclass(frozen=True)
class _Swapped:
    """A shared directory in which the second user put ``sub``, a link to ``private``, a
    directory only this process's user may read, which holds ``x.bin``."""

    root: Path
    shared: Path
    private: Path

    @property
    def through_link(self) -> Path:
        return self.shared / "sub" / "x.bin"

    @property
    def secret(self) -> Path:
        return self.private / "x.bin"


@contextlib.contextmanager
def _swapped() -> Iterator[_Swapped]:
    """A shared directory holding another user's link, ``sub``, to a private directory."""
    if os.geteuid() != 0:
        pytest.skip("not testable here: acting as a second user needs root (setpriv)")
    if shutil.which("setpriv") is None:
        pytest.skip("not testable here: no setpriv to act as a second user")
    # not under pytest's base temporary directory, which only its owner may enter
    root = Path(tempfile.mkdtemp(prefix="cordspec-links-"))
    try:
        root.chmod(0o711)
        shared, private = root / "shared", root / "private"
        shared.mkdir()
        shared.chmod(0o777)  # group-shared in spirit: the second user may change it
        private.mkdir(mode=0o700)
        (private / "x.bin").write_bytes(PRIVATE)
        _as_second_user("ln", "-s", str(private), str(shared / "sub"))
        assert (shared / "sub").lstat().st_uid == SECOND_USER
        yield _Swapped(root, shared, private)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _placeholders(*directories: Path) -> list[str]:
    return [n for d in directories for n in os.listdir(d) if n.startswith(".executorch_")]


@pytest.mark.requires("file-backed")
class TestAnotherUsersDirectoryLink:
    @pytest.fixture
    def swapped(self) -> Iterator[_Swapped]:
        with _swapped() as made:
            yield made

    @clause("FBD-INIT-9")
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_refused(self, impl: Implementation, swapped: _Swapped, how: str) -> None:
        path = str(swapped.through_link)
        with pytest.raises(ValueError) as raised:
            if how == "move_from":
                taken = impl.FileBackedData.move_from(path)
            else:
                taken = impl.FileBackedData(path, cleanup=True)
            # owned, wrongly: the test's own files are put back after the report
            pytest.fail(
                f"{how} of {path}, where 'sub' is a link that another user (uid {SECOND_USER}) "
                f"put in a shared directory, leading to a private directory: expected ValueError, "
                f"it took ownership of the private file ({impl.path_of(taken)}), which its "
                "release would delete"
            )
        assert path in str(raised.value), f"the ValueError does not name {path}: {raised.value}"
        assert swapped.secret.read_bytes() == PRIVATE, "the private file was moved or changed"
        assert _placeholders(swapped.private, swapped.shared) == []


@pytest.mark.requires("file-backed")
@pytest.mark.relies_on("FBD-CLOSE-1")
class TestOwnDirectoryLink:
    @clause("FBD-INIT-9")
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_followed(self, impl: Implementation, tmp_path: Path, how: str) -> None:
        """A link this process's user made on the way is followed, as the OS would."""
        real = tmp_path / "real"
        real.mkdir()
        (real / "x.bin").write_bytes(PRIVATE)
        (tmp_path / "link").symlink_to(real)
        path = str(tmp_path / "link" / "x.bin")
        if how == "move_from":
            blob = impl.FileBackedData.move_from(path)
        else:
            blob = impl.FileBackedData(path, cleanup=True)
        try:
            assert blob.to_bytes() == PRIVATE
        finally:
            blob.close()
        assert os.listdir(real) == [], (
            f"{how} of {path}, through a link of this process's own user: expected the file "
            f"owned and released; left: {os.listdir(real)}"
        )

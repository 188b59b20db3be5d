"""Identity that survives inode reuse (FBD-IDENT-1): a file made after the blob's file was deleted,
reported with its (st_dev, st_ino) whenever the kernel could have reused them
(conformance.harness.reuse), is never deleted, read as the blob, or refused as owned."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from conformance.api import FileBackedData, Implementation
from conformance.harness.helpers import Blobs
from conformance.harness.named import named_path
from conformance.harness.observe import unobserved
from conformance.harness.reuse import Identity, inode_reuse

clause = pytest.mark.clause

OLD = b"the owner's data" * 64
NEW = b"someone else's!!" * 64  # the same size


def _identity(path: Path) -> Identity:
    st = os.lstat(path)
    return st.st_dev, st.st_ino


def _replace_behind(path: Path, contents: bytes = NEW) -> tuple[Identity, Identity]:
    """Someone else deletes ``path`` and makes a new file there; the old and new identities."""
    old = _identity(path)
    os.unlink(path)
    path.write_bytes(contents)
    return old, _identity(path)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
@pytest.mark.requires("file-backed")
class TestInodeReuse:
    """An owned file's identity survives the reuse of its inode number."""

    @clause("FBD-IDENT-1", "FBD-CLOSE-8")
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_close_spares_a_new_file_with_a_reused_inode(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        source = blobs.file(OLD)
        blob = blobs.move(source) if how == "move_from" else blobs.wrap(source, cleanup=True)
        path = blobs.path(blob)
        old, new = _replace_behind(path)
        with inode_reuse(old, new):
            blob.close()
        assert path.read_bytes() == NEW, "close() deleted a file that reused the owned file's inode"
        path.unlink()

    @clause("FBD-IDENT-1", "FBD-CLOSE-8")
    def test_garbage_collection_spares_a_new_file_with_a_reused_inode(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        blob: FileBackedData | None = impl.FileBackedData.move_from(str(blobs.file(OLD)))
        assert blob is not None
        path = Path(impl.path_of(blob))
        old, new = _replace_behind(path)
        with inode_reuse(old, new):
            del blob
            gc.collect()
        assert path.read_bytes() == NEW, "release at GC deleted a file that reused the owned inode"
        path.unlink()

    @clause("FBD-IDENT-1", "FBD-CHANGE-1")
    @pytest.mark.parametrize("owned", [False, True])
    def test_a_same_size_file_with_a_reused_inode_is_not_read(
        self, impl: Implementation, blobs: Blobs, owned: bool
    ) -> None:
        blob = blobs.moved(OLD) if owned else blobs.wrap(blobs.file(OLD))
        path = blobs.path(blob)
        old, new = _replace_behind(path)
        with inode_reuse(old, new), pytest.raises(OSError):
            data = blob.to_bytes()
            assert data != NEW, "a same-size file that reused the inode was read as the blob"
        if owned:
            path.unlink()  # not the owner's: it must be left, and the test removes it

    @clause("FBD-IDENT-1")
    @pytest.mark.parametrize("how", ["move_from", "cleanup=True"])
    def test_a_new_file_with_the_inode_of_a_deleted_owned_file_can_be_owned(
        self, impl: Implementation, blobs: Blobs, how: str
    ) -> None:
        """Someone deleted an owned file; a new file that reuses its inode is nobody's."""
        blob = blobs.moved(OLD)
        path = blobs.path(blob)
        old = _identity(path)
        os.unlink(path)
        other = blobs.file(NEW, name="other.bin")
        # A reused inode number is the new file's for good: the simulation lasts for the new
        # owner's whole life, so that an implementation holding no descriptor (FBD-IDENT-2), which
        # looks at the file again to read and release it, sees the same file each time.
        with inode_reuse(old, _identity(other)):
            taken = blobs.move(other) if how == "move_from" else blobs.wrap(other, cleanup=True)
            assert taken.to_bytes() == NEW
            taken.close()

    @clause("FBD-IDENT-1")
    @pytest.mark.relies_on("FBD-CLOSE-1")  # the file is made while close() unlinks the owned one
    def test_a_file_made_while_close_unlinks_can_be_owned(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        """Between the owner's unlink and the end of its close(), another thread makes a file that
        reuses the inode and owns it: that must not be refused."""
        blob = blobs.moved(OLD)
        path = blobs.path(blob)
        old = _identity(path)
        other = blobs.directory / "other.bin"
        outcome: list[object] = []
        real_unlink, real_remove = os.unlink, os.remove

        def unlink(target: object, *args: object, **kwargs: object) -> None:
            real_unlink(target, *args, **kwargs)  # type: ignore[arg-type]  # os.unlink's own arguments
            if named_path(target, kwargs) == str(path) and not outcome:
                other.write_bytes(NEW)
                with inode_reuse(old, _identity(other)):
                    try:
                        outcome.append(blobs.wrap(other, cleanup=True))
                    except ValueError as exc:
                        outcome.append(exc)

        os.unlink, os.remove = unlink, unlink  # type: ignore[assignment]  # the same calls
        try:
            blob.close()
        finally:
            os.unlink, os.remove = real_unlink, real_remove
        if not outcome:
            unobserved("the implementation made no os.unlink/os.remove the harness could see")
        assert not isinstance(outcome[0], ValueError), f"refused: {outcome[0]}"
        assert not path.exists()

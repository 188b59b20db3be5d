"""Where a blob's file is and which file it is (reference.location): the directory checked on
every use (FBD-CLOSE-9, FBD-READ-4), the modification time in the identity (FBD-IDENT-1), errors
naming the file's path (FBD-FAULT-2)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from reference import FileBackedData, FileChangedError


def _file(directory: Path, data: bytes = b"contents" * 8) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "blob.bin"
    path.write_bytes(data)
    return path


def test_a_removed_directory_is_named_by_the_files_path(tmp_path: Path) -> None:
    path = _file(tmp_path / "gone")
    blob = FileBackedData(path)
    path.unlink()
    (tmp_path / "gone").rmdir()
    with pytest.raises(FileNotFoundError) as raised:
        blob.sha256()
    assert raised.value.filename == str(path)


def test_a_directory_replaced_by_another_is_not_looked_into(tmp_path: Path) -> None:
    path = _file(tmp_path / "project")
    blob = FileBackedData(path, cleanup=True)
    os.rename(tmp_path / "project", tmp_path / "moved")
    stranger = _file(tmp_path / "project")  # another directory, a file of the same name
    with pytest.raises(FileNotFoundError, match="directory was moved or replaced"):
        blob.to_bytes()
    blob.close()  # the file is gone from where it was owned: nothing is removed
    assert stranger.exists()
    assert (tmp_path / "moved" / "blob.bin").exists()


def test_a_same_size_rewrite_with_another_time_is_refused(tmp_path: Path) -> None:
    path = _file(tmp_path)
    blob = FileBackedData(path)
    st = os.stat(path)
    path.write_bytes(b"CONTENTS" * 8)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    with pytest.raises(FileChangedError, match="modified or replaced") as raised:
        blob.to_bytes()
    assert raised.value.errno == errno.ESTALE


def test_a_link_to_a_blob_is_followed_once_at_construction(tmp_path: Path) -> None:
    path = _file(tmp_path / "real")
    link = tmp_path / "link.bin"
    link.symlink_to(path)
    blob = FileBackedData(link)
    link.unlink()
    link.symlink_to(_file(tmp_path / "other", b"other!!!" * 8))
    assert blob.to_bytes() == b"contents" * 8  # the file wrapped, not what the link names now
    assert blob.path == str(link)

"""The reference's fast paths of writing file pieces: a small file read whole and written through
``write``, and a Cord's file pieces each opened once, checked, and streamed from that descriptor
(at most ``READERS_HELD`` of them). Each must give what the plain path gives, errors included."""

from __future__ import annotations

import io
import os
import resource
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import reference.file_backed as file_backed
from reference import Cord, FileBackedData
from reference.file_backed import FileChangedError
from reference.verified_reader import SMALL_PIECE

MakeFile = Callable[..., Path]


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Records the count of each ``os.copy_file_range`` call."""
    real = os.copy_file_range
    counts: list[int] = []

    def spy(source: int, target: int, count: int, *args: Any) -> int:
        counts.append(count)
        return real(source, target, count, *args)

    monkeypatch.setattr(os, "copy_file_range", spy)
    yield counts


@pytest.mark.parametrize("size", [0, 1, 100, SMALL_PIECE])
def test_a_small_file_goes_through_write(
    make_file: MakeFile, tmp_path: Path, copies: list[int], size: int
) -> None:
    data = os.urandom(size)
    with FileBackedData(make_file("a.bin", data)) as blob:
        with open(tmp_path / "out", "wb") as out:
            out.write(b"<")
            blob.write_to_file(out)
            out.write(b">")
        sink = io.BytesIO(b"<")
        sink.seek(1)
        blob.write_to_file(sink)
    assert (tmp_path / "out").read_bytes() == sink.getvalue() + b">" == b"<" + data + b">"
    assert copies == []


def test_a_larger_file_is_copied_by_the_kernel(
    make_file: MakeFile, tmp_path: Path, copies: list[int]
) -> None:
    data = os.urandom(SMALL_PIECE + 1)
    with FileBackedData(make_file("a.bin", data)) as blob, open(tmp_path / "out", "wb") as out:
        blob.write_to_file(out)
    assert (tmp_path / "out").read_bytes() == data
    assert copies[0] == len(data)


def test_a_small_file_with_a_hole_keeps_it(make_file: MakeFile, tmp_path: Path) -> None:
    """A small file whose blocks do not cover its size has a hole: it takes the kernel's way,
    which leaves the hole unwritten (FBD-WRITE-3)."""
    source = make_file("hole.bin")
    os.truncate(source, SMALL_PIECE)
    if os.stat(source).st_blocks:
        pytest.skip("this filesystem does not keep holes")
    block = b"b" * SMALL_PIECE
    out_path = tmp_path / "out"
    with FileBackedData(source) as blob, open(out_path, "wb") as out:
        Cord(block).write_to_file(out)
        Cord(blob).write_to_file(out)
        out.write(block)
    assert out_path.read_bytes() == block + bytes(SMALL_PIECE) + block
    assert os.stat(out_path).st_blocks * 512 <= 2 * SMALL_PIECE


def test_a_small_file_grown_after_its_open_raises(make_file: MakeFile) -> None:
    path = make_file("a.bin", b"0123456789")
    with FileBackedData(path) as blob:
        reader = blob._open()  # checked: 10 bytes
        with open(path, "ab") as grow:
            grow.write(b"more")
        with reader, pytest.raises(FileChangedError, match="recorded 10 bytes, now 14"):
            reader.write_to(io.BytesIO())


@pytest.mark.parametrize("size", [5, SMALL_PIECE + 5], ids=["small", "kernel"])
@pytest.mark.parametrize("out", ["file", "bytesio"])
def test_a_piece_held_twice_is_written_twice(
    make_file: MakeFile, tmp_path: Path, size: int, out: str
) -> None:
    data = os.urandom(size)
    with FileBackedData(make_file("a.bin", data)) as blob:
        cord = Cord(blob)
        cord.append(b"-")
        cord.append(blob)
        cord.append(cord)
        expected = (data + b"-" + data) * 2
        if out == "file":
            with open(tmp_path / "out", "wb") as sink:
                cord.write_to_file(sink)
            assert (tmp_path / "out").read_bytes() == expected
        else:
            buffer = io.BytesIO()
            cord.write_to_file(buffer)
            assert buffer.getvalue() == expected


def test_past_the_readers_held_pieces_are_opened_again(
    make_file: MakeFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three descriptors allowed, for the pieces' directory and two readers: the other pieces are
    checked and closed, then opened again to be streamed (their directory closed once the file is
    open), so that the write holds the two readers and one other file at most."""
    monkeypatch.setattr(file_backed, "READERS_HELD", 3)
    blobs = [FileBackedData(make_file(f"{i}.bin", bytes([i]) * (i + 1))) for i in range(6)]
    cord = Cord()
    for blob in blobs:
        cord.append(blob)
        cord.append(b"|")
    baseline = _open_descriptors()
    most = [0]

    class Counting(io.BytesIO):
        def write(self, data: Any, /) -> int:
            most[0] = max(most[0], _open_descriptors() - baseline)
            return super().write(data)

    sink = Counting()
    cord.write_to_file(sink)
    assert sink.getvalue() == b"".join(bytes([i]) * (i + 1) + b"|" for i in range(6))
    assert most[0] == 3  # the two held and the one streamed
    assert _open_descriptors() == baseline
    for blob in blobs:
        blob.close()


def test_a_bad_piece_past_the_readers_held_writes_nothing(
    make_file: MakeFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_backed, "READERS_HELD", 1)
    paths = [make_file(f"{i}.bin", b"x" * 10) for i in range(3)]
    blobs = [FileBackedData(path) for path in paths]
    cord = Cord(b"head")
    for blob in blobs:
        cord.append(blob)
    paths[2].write_bytes(b"x" * 11)
    sink = io.BytesIO()
    baseline = _open_descriptors()
    with pytest.raises(FileChangedError, match="recorded 10 bytes, now 11"):
        cord.write_to_file(sink)
    assert sink.getvalue() == b""
    assert _open_descriptors() == baseline  # the held reader closed too
    for blob in blobs:
        blob.close()


@pytest.mark.parametrize(
    ("soft", "allowed"),
    [(resource.RLIM_INFINITY, file_backed.READERS_HELD), (80, 10), (1 << 20, 1024)],
)
def test_readers_held_are_a_share_of_the_descriptor_limit(
    monkeypatch: pytest.MonkeyPatch, soft: int, allowed: int
) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda _: (soft, resource.RLIM_INFINITY))
    assert file_backed._readers_allowed() == allowed

"""Cord: pieces by reference, snapshot copies, ordered streaming, files checked before writing."""

from __future__ import annotations

import io
import os

import pytest

from reference import Cord, FileBackedData, FileChangedError
from reference.file_backed import CHUNK_SIZE


@pytest.mark.parametrize("cord", [Cord(), Cord(None)], ids=["no-arg", "None"])
def test_empty(cord: Cord) -> None:
    assert len(cord) == 0
    assert bytes(cord) == b""
    assert cord.pieces == ()
    out = io.BytesIO()
    cord.write_to_file(out)
    assert out.getvalue() == b""


def test_from_bytes() -> None:
    data = b"HelloWorld"
    cord = Cord(data)
    assert len(cord) == 10
    assert bytes(cord) == data
    assert cord.pieces[0] is data


def test_from_file_backed(make_file) -> None:
    with FileBackedData(make_file("a.bin", b"FileBacked")) as blob:
        cord = Cord(blob)
        assert cord.pieces == (blob,) and cord.pieces[0] is blob
        assert len(cord) == 10
        assert bytes(cord) == b"FileBacked"


def test_from_cord_is_a_snapshot_sharing_pieces() -> None:
    hello, world = b"Hello", b"World"
    original = Cord(hello)
    original.append(world)
    copy = Cord(original)
    original.append(b"!")
    assert bytes(copy) == b"HelloWorld" and len(copy) == 10
    assert bytes(original) == b"HelloWorld!" and len(original) == 11
    assert copy.pieces[0] is hello and copy.pieces[1] is world


def test_append_cord_shares_pieces_in_order() -> None:
    hello, world = b"Hello", b"World"
    inner = Cord()
    inner.append(hello)
    inner.append(world)
    outer = Cord(b"Prefix")
    outer.append(inner)
    assert len(outer) == 16
    assert bytes(outer) == b"PrefixHelloWorld"
    assert outer.pieces[1] is hello and outer.pieces[2] is world


def test_append_itself_doubles() -> None:
    cord = Cord(b"ab")
    cord.append(b"c")
    cord.append(cord)
    assert bytes(cord) == b"abcabc"
    assert len(cord) == 6
    assert len(cord.pieces) == 4


def test_pieces_is_a_tuple_not_the_internal_list() -> None:
    cord = Cord(b"x")
    pieces = cord.pieces
    assert isinstance(pieces, tuple)
    cord.append(b"y")
    assert pieces == (b"x",)


@pytest.mark.parametrize(
    ("bad", "name"),
    [
        ("text", "str"),
        (bytearray(b"x"), "bytearray"),
        (memoryview(b"x"), "memoryview"),
        (3, "int"),
        (None, "NoneType"),
        ([b"x"], "list"),
    ],
)
def test_append_rejects_other_types(bad: object, name: str) -> None:
    cord = Cord(b"keep")
    with pytest.raises(TypeError, match=rf"\b{name}\b"):
        cord.append(bad)  # type: ignore[arg-type]  # the wrong type is the point
    assert bytes(cord) == b"keep" and len(cord) == 4


@pytest.mark.parametrize("bad", ["text", bytearray(b"x"), 3, [b"x"]])
def test_constructor_rejects_other_types(bad: object) -> None:
    with pytest.raises(TypeError, match=type(bad).__name__):
        Cord(bad)  # type: ignore[arg-type]  # the wrong type is the point


def test_write_to_bytesio_in_order(make_file) -> None:
    big = os.urandom(CHUNK_SIZE + 3)
    with (
        FileBackedData(make_file("a.bin", b"[file-a]")) as a,
        FileBackedData(make_file("big.bin", big)) as b,
    ):
        cord = Cord(b"head|")
        cord.append(a)
        cord.append(b"")
        cord.append(b"|mid|")
        cord.append(b)
        cord.append(a)
        out = io.BytesIO()
        cord.write_to_file(out)
    expected = b"head|[file-a]|mid|" + big + b"[file-a]"
    assert out.getvalue() == expected
    assert len(cord) == len(expected)


def test_write_to_buffered_real_file_and_bytes(make_file, tmp_path) -> None:
    with FileBackedData.move_from(make_file("a.bin", b"FileBacked")) as blob:
        cord = Cord(b"Prefix")
        cord.append(blob)
        with open(tmp_path / "out.bin", "wb") as out:
            cord.write_to_file(out)
        assert bytes(cord) == b"PrefixFileBacked"
    assert (tmp_path / "out.bin").read_bytes() == b"PrefixFileBacked"


def _close(blob: FileBackedData) -> None:
    blob.close()


def _resize(blob: FileBackedData) -> None:
    with open(blob.path, "ab") as f:
        f.write(b"grown")


@pytest.mark.parametrize(("spoil", "error"), [(_close, ValueError), (_resize, FileChangedError)])
def test_every_file_piece_is_checked_before_the_first_byte(make_file, spoil, error) -> None:
    with (
        FileBackedData(make_file("good.bin", b"good")) as good,
        FileBackedData(make_file("bad.bin", b"bad")) as bad,
    ):
        cord = Cord(b"bytes first")
        cord.append(good)
        cord.append(b"more bytes")
        cord.append(bad)
        spoil(bad)
        out = io.BytesIO()
        with pytest.raises(error):
            cord.write_to_file(out)
        assert out.getvalue() == b""

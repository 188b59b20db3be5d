"""Cord: construction, appending, length, bytes and writing (spec section 2)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from conformance.api import Cord, Implementation
from conformance.harness import bytes_subclasses
from conformance.harness.checks import blame, check
from conformance.harness.child import child_script, run_child
from conformance.harness.classes import CLAIMING, REJECTED, around, names_type
from conformance.harness.helpers import Blobs, shm_directory
from conformance.harness.input_classes import SINKS
from conformance.harness.measure import BIG, READ_BOUND, MiB, bytes_read, peak_memory
from conformance.harness.sinks import ShortWriter

clause = pytest.mark.clause

Test = TypeVar("Test", bound=Callable[..., None])
"""A test function, which a decorator of this module returns as it came (marked)."""
LARGE_BYTES = bytes(16 * MiB)
"""An in-memory piece whose copy would show in the peak memory of the call that takes it."""


def held_memory(call: Callable[[], object]) -> int:
    """Peak memory of ``call()``, keeping what it returns alive until measured."""
    kept: list[object] = []
    return peak_memory(lambda: kept.append(call()))


class TestCordConstruction:
    @clause("CORD-INIT-1")
    @pytest.mark.parametrize("args", [(), (None,)], ids=["no-argument", "None"])
    def test_empty(self, impl: Implementation, args: tuple[None, ...]) -> None:
        cord = impl.Cord(*args)
        out = io.BytesIO()
        cord.write_to_file(out)
        assert (len(cord), bytes(cord), out.getvalue()) == (0, b"", b"")

    @clause("CORD-INIT-2")
    def test_from_bytes_and_file(self, impl: Implementation, blobs: Blobs) -> None:
        blob = blobs.moved(b"file piece")
        assert (len(impl.Cord(b"bytes")), bytes(impl.Cord(b"bytes"))) == (5, b"bytes")
        assert (len(impl.Cord(blob)), bytes(impl.Cord(blob))) == (10, b"file piece")
        big = blobs.wrap(blobs.sparse(BIG))
        with bytes_read() as read:
            cord = impl.Cord(big)
        assert read[0] < READ_BOUND, f"Cord(piece) read {read[0]} bytes of a {BIG}-byte file"
        assert len(cord) == BIG

    @clause("CORD-INIT-3")
    def test_from_cord_is_a_snapshot(self, impl: Implementation) -> None:
        original = impl.Cord(b"Hello")
        copy = impl.Cord(original)
        original.append(b"World")
        copy.append(b"!")
        assert (bytes(original), len(original)) == (b"HelloWorld", 10)
        assert (bytes(copy), len(copy)) == (b"Hello!", 6)

    @clause("CORD-INIT-2")
    def test_bytes_piece_is_held_not_copied(self, impl: Implementation) -> None:
        # Only a large piece shows a copy: by identity is for bytes pieces as for file pieces.
        peak = held_memory(lambda: impl.Cord(LARGE_BYTES))
        assert peak < MiB, f"Cord(bytes of {len(LARGE_BYTES)}) allocated {peak} bytes"


class TestAppend:
    @clause("CORD-APPEND-1", "CORD-LEN-1", "CORD-BYTES-1")
    def test_bytes_and_file_pieces(self, impl: Implementation, blobs: Blobs) -> None:
        cord = impl.Cord()
        cord.append(b"Prefix")
        cord.append(blobs.moved(b"FileBacked"))
        cord.append(b"")
        assert (len(cord), bytes(cord)) == (16, b"PrefixFileBacked")
        big = impl.Cord(b"Prefix")
        big.append(blobs.wrap(blobs.sparse(BIG)))
        with bytes_read() as read:
            length = len(big)
        assert length == 6 + BIG
        assert read[0] < READ_BOUND, f"len(cord) read {read[0]} bytes of a {BIG}-byte file"

    @clause("CORD-APPEND-2")
    def test_cord(self, impl: Implementation, blobs: Blobs) -> None:
        inner = impl.Cord(b"Hello")
        inner.append(blobs.moved(b"World"))
        outer = impl.Cord(b"<")
        outer.append(inner)
        outer.append(b">")
        assert (len(outer), bytes(outer)) == (12, b"<HelloWorld>")

    @clause("CORD-APPEND-3")
    def test_itself_doubles(self, impl: Implementation, blobs: Blobs) -> None:
        cord = impl.Cord(b"ab")
        cord.append(blobs.moved(b"cd"))
        cord.append(cord)
        assert (len(cord), bytes(cord)) == (8, b"abcdabcd")

    @clause("CORD-APPEND-1")
    def test_bytes_piece_is_appended_not_copied(self, impl: Implementation) -> None:
        cord = impl.Cord(b"head")
        peak = held_memory(lambda: cord.append(LARGE_BYTES))
        assert peak < MiB, f"append(bytes of {len(LARGE_BYTES)}) allocated {peak} bytes"
        assert len(cord) == 4 + len(LARGE_BYTES)

    @clause("CORD-TYPE-1")
    @pytest.mark.parametrize(
        "piece",
        ["text", bytearray(b"ba"), memoryview(b"mv"), 7, None, [b"a"]],
        ids=["str", "bytearray", "memoryview", "int", "None", "list"],
    )
    def test_other_types_are_rejected(self, impl: Implementation, piece: object) -> None:
        cord = impl.Cord(b"kept")
        with pytest.raises(TypeError, match=type(piece).__name__):
            cord.append(piece)
        assert (len(cord), bytes(cord)) == (4, b"kept")

    @clause("CORD-TYPE-1", "CORD-APPEND-1")
    def test_a_bytes_subclass_is_a_bytes_piece(self, impl: Implementation) -> None:
        piece = _Bytes(b"subclass")
        cord = impl.Cord(piece)  # accepted, as bytes are, by the constructor and by append
        cord.append(piece)
        out = io.BytesIO()
        cord.write_to_file(out)
        assert (len(cord), bytes(cord), out.getvalue()) == (16, b"subclass" * 2, b"subclass" * 2)

    @clause("CORD-TYPE-1")
    @pytest.mark.relies_on("CORD-WRITE-1")  # what the piece holds is seen in a write of the Cord
    @pytest.mark.parametrize(
        "kind", list(bytes_subclasses.ALL.values()), ids=list(bytes_subclasses.ALL)
    )
    def test_a_bytes_subclass_piece_is_never_copied(
        self, impl: Implementation, kind: type[bytes]
    ) -> None:
        """Held by identity, as bytes are: not copied by the constructor, by append or by a
        write, which writes the piece's own contents (not what its ``__bytes__``, iteration or
        indexing give)."""
        piece = kind(LARGE_BYTES)
        made = held_memory(lambda: impl.Cord(piece))
        cord = impl.Cord(b"<")
        appended = held_memory(lambda: cord.append(piece))
        cord.append(b">")
        sink = bytes_subclasses.HashingSink()
        written = peak_memory(lambda: cord.write_to_file(sink))
        size = len(LARGE_BYTES)
        check(
            max(made, appended, written) < MiB,
            f"a {kind.__name__} piece of {size} bytes: Cord(piece) allocated {made} bytes, "
            f"append {appended}, write_to_file {written}",
            "CORD-TYPE-1",
        )
        assert len(cord) == size + 2
        expected = hashlib.sha256(b"<" + LARGE_BYTES + b">").digest()
        assert (sink.size, sink.digest()) == (size + 2, expected), (
            f"write_to_file wrote other contents for a {kind.__name__} piece"
        )

    @clause("CORD-TYPE-1")
    @pytest.mark.parametrize(
        "piece", ["text", bytearray(b"ba"), 7], ids=["str", "bytearray", "int"]
    )
    def test_constructor_rejects_other_types(self, impl: Implementation, piece: object) -> None:
        with pytest.raises(TypeError, match=type(piece).__name__):
            impl.Cord(piece)


class _Bytes(bytes):
    """A subclass of ``bytes``, which CORD-TYPE-1 and NDS-ADD-1 take as ``bytes``."""


class TestWrite:
    @clause("CORD-WRITE-1")
    def test_order_into_a_real_file(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        cord = impl.Cord(b"[")
        cord.append(blobs.moved(b"one"))
        cord.append(b"|")
        cord.append(blobs.moved(b"two"))
        cord.append(b"]")
        target = tmp_path / "out.bin"
        with target.open("wb") as out:
            out.write(b"header:")
            cord.write_to_file(out)
        assert target.read_bytes() == b"header:[one|two]"

    @clause("CORD-WRITE-1")
    @pytest.mark.parametrize("sink", ["BytesIO", "file"])
    def test_the_pieces_of_an_appended_cord(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, sink: str
    ) -> None:
        # Only bytes appended directly, but a file piece that came in with another Cord: a
        # writer that looks only at what was appended to it sees no file piece to stream.
        inner = impl.Cord(b"<")
        inner.append(blobs.moved(b"file"))
        outer = impl.Cord(inner)
        outer.append(b">")
        if sink == "BytesIO":
            out = io.BytesIO()
            outer.write_to_file(out)
            assert out.getvalue() == b"<file>"
        else:
            target = tmp_path / "out.bin"
            with target.open("wb") as f:
                outer.write_to_file(f)
            assert target.read_bytes() == b"<file>"

    @clause("CORD-WRITE-3")
    @pytest.mark.relies_on("FBD-CLOSED-1")  # a closed piece is known to be closed
    def test_closed_piece_writes_nothing(self, impl: Implementation, blobs: Blobs) -> None:
        cord = impl.Cord(b"before")
        late = blobs.moved(b"closed too early")
        cord.append(late)
        late.close()
        out = io.BytesIO()
        with pytest.raises((ValueError, OSError)):
            cord.write_to_file(out)
        assert out.getvalue() == b""

    @clause("CORD-WRITE-3")
    @pytest.mark.parametrize("contents", [b"", b"late"], ids=["empty", "non-empty"])
    @pytest.mark.parametrize(
        "fault",
        [  # how a piece is known to be bad: it says it is closed, or it sees its file changed
            pytest.param("closed", marks=pytest.mark.relies_on("FBD-CLOSED-1")),
            pytest.param("changed", marks=pytest.mark.relies_on("FBD-CHANGE-1")),
        ],
    )
    @pytest.mark.parametrize("before", ["bytes", "file"])
    def test_a_later_bad_piece_writes_nothing(
        self,
        impl: Implementation,
        blobs: Blobs,
        tmp_path: Path,
        before: str,
        fault: str,
        contents: bytes,
    ) -> None:
        # The bad piece comes after a good file piece, or is empty: a check of the first file
        # piece only, or of the pieces that have bytes to write, lets the output start.
        cord = impl.Cord(b"head")
        cord.append(blobs.moved(b"first") if before == "file" else b"first")
        late = blobs.wrap(blobs.file(contents))
        cord.append(late)
        cord.append(b"tail")
        if fault == "closed":
            late.close()
        else:
            blobs.path(late).write_bytes(contents + b"grown")
        _writes_nothing_into_any_output(cord, tmp_path)


def _writes_nothing_into_any_output(cord: Cord, directory: Path) -> None:
    """``cord.write_to_file`` raises and leaves every kind of output as it was: a buffered file,
    a raw one, one in append mode, at its start, end or inside existing bytes, ``io.BytesIO``, an
    object with only ``write``, one taking a few bytes a call (CORD-WRITE-3: before the first
    byte, whichever path the output takes)."""
    for sink in SINKS:
        head = sink.existing(len(cord))
        with sink.open(directory, len(cord)) as (out, result), pytest.raises((ValueError, OSError)):
            cord.write_to_file(out)
        got = result()
        assert got == (b"" if sink.kind in ("write-only", "short") else head), (
            f"into {sink.name}: {len(got)} bytes, {len(head)} before the write"
        )


class TestWriteToRawSinks:
    """A raw output may take part of a write (FBD-WRITE-1 for a piece): the Cord writes the rest."""

    @clause("CORD-WRITE-1")
    @pytest.mark.parametrize("limit", [1, 3])
    @pytest.mark.parametrize("kind", ["bytes", "mixed"])
    def test_a_sink_taking_part_of_each_write_gets_everything(
        self, impl: Implementation, blobs: Blobs, kind: str, limit: int
    ) -> None:
        pieces: list[bytes] = [b"head:", b"", b"middle", b"x", b":tail"]
        cord = impl.Cord()
        for number, piece in enumerate(pieces):
            cord.append(blobs.moved(piece) if kind == "mixed" and number == 2 else piece)
        sink = ShortWriter(limit)
        cord.write_to_file(sink)
        assert bytes(sink.received) == b"".join(pieces)


# --- more file pieces than the descriptors a write may hold ------------------------------------

HELD_CAP = 1024
"""The most descriptors of its pieces' files a Cord's write may hold (FBD-IDENT-2), whatever
``RLIMIT_NOFILE`` allows."""


@contextlib.contextmanager
def _quick_directory(tmp_path: Path) -> Iterator[Path]:
    """Where a thousand files are made quickly: a directory in ``/dev/shm`` when there is one
    (tmpfs), else ``tmp_path``."""
    try:
        with shm_directory() as directory:
            yield directory
    except OSError:
        yield tmp_path


def _files(directory: Path, count: int) -> list[Path]:
    directory.mkdir()
    made = []
    for i in range(count):
        path = directory / f"piece{i}.bin"
        path.write_bytes(i.to_bytes(4, "big"))
        made.append(path)
    return made


@pytest.mark.requires("file-backed")
class TestPiecesPastTheDescriptorCap:
    @clause("CORD-WRITE-3")
    @pytest.mark.relies_on("FBD-CLOSED-1", "FBD-CHANGE-1")  # a bad piece is known to be bad
    def test_a_bad_last_piece_past_the_cap_writes_nothing(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        """Cords of file pieces on both sides of the cap, each piece its own file, the last one
        closed or changed: a check that covers only the pieces whose files it holds open lets
        the output start."""
        counts = around(HELD_CAP)
        with _quick_directory(tmp_path) as directory:
            files = _files(directory / "pieces", max(counts) - 1)
            good = [blobs.wrap(path) for path in files]
            for count in counts:
                for fault in ("closed", "changed"):
                    bad = blobs.wrap(blobs.file(b"bad", directory=directory))
                    cord = impl.Cord(b"head")
                    for piece in [*good[: count - 1], bad]:
                        cord.append(piece)
                    if fault == "closed":
                        bad.close()
                    else:
                        blobs.path(bad).write_bytes(b"grown past its size")
                    out = io.BytesIO()
                    with pytest.raises((ValueError, OSError)):
                        cord.write_to_file(out)
                    written = len(out.getvalue())
                    assert written == 0, (
                        f"a Cord of {count} file pieces whose last is {fault}: {written} bytes "
                        "written before it"
                    )
            blobs.close_all()


_UNDER_A_LOWERED_LIMIT = r"""
import hashlib, resource
held = len(os.listdir("/proc/self/fd"))
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
limit = held + 128
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
eighth = limit // 8
pieces_dir = os.path.join(directory, "pieces")
os.mkdir(pieces_dir)
made = []
for i in range(2 * limit):
    path = os.path.join(pieces_dir, f"piece{i}.bin")
    with open(path, "wb") as f:
        f.write(i.to_bytes(4, "big"))
    made.append(path)
blobs = [impl.FileBackedData(p) for p in made]

class Sink:
    def __init__(self):
        self.digest = hashlib.sha256()
        self.peak = 0
    def write(self, data):
        self.peak = max(self.peak, len(os.listdir("/proc/self/fd")) - 1)
        self.digest.update(data)
        return len(data)

print(f"limit={limit}")
print(f"eighth={eighth}")
for count in (eighth - 1, eighth, eighth + 1, limit - held - 1, limit + 1, 2 * limit):
    cord = impl.Cord(b"head")
    for blob in blobs[:count]:
        cord.append(blob)
        cord.append(b"|")
    want = hashlib.sha256(b"head" + b"".join(i.to_bytes(4, "big") + b"|" for i in range(count)))
    sink = Sink()
    before = len(os.listdir("/proc/self/fd")) - 1
    try:
        cord.write_to_file(sink)
    except OSError as exc:
        print(f"{count}=failed {exc!r}")
        continue
    right = sink.digest.digest() == want.digest()
    print(f"{count}={'right' if right else 'wrong'} {sink.peak - before}")
"""


@pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd") or sys.platform == "win32", reason="needs /proc, rlimits"
)
@pytest.mark.requires("subprocess")
@pytest.mark.requires("file-backed")
class TestUnderALoweredDescriptorLimit:
    """Run in a child whose soft ``RLIMIT_NOFILE`` is lowered to what it holds plus 128: a Cord
    of pieces on both sides of an eighth of the limit, and of more pieces than the limit."""

    @clause("CORD-WRITE-1", "FBD-IDENT-2")
    def test_a_cord_of_more_files_than_the_limit_is_written(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        with _quick_directory(tmp_path) as directory:
            run = run_child(impl, child_script(_UNDER_A_LOWERED_LIMIT), directory, "lowered")
        with blame("CORD-WRITE-1"):
            assert run.returncode == 0, f"the child failed:\n{run.stderr[-2000:]}"
        eighth = int(run.value("eighth"))
        limit = int(run.value("limit"))
        outcomes = [line.partition("=")[::2] for line in run.lines[2:]]
        for count, outcome in outcomes:  # core first: a failed write is not a strict failure
            check(
                outcome.startswith("right"),
                f"a Cord of {count} file pieces under a limit of {limit} descriptors: {outcome}",
                "CORD-WRITE-1",
            )
        for count, outcome in outcomes:
            extra = int(outcome.split()[1])
            check(
                extra <= eighth + 2,
                f"a Cord of {count} file pieces held {extra} descriptors at once while written, "
                f"more than an eighth of the limit of {limit} ({eighth}) and the 2 of one read",
                "FBD-IDENT-2",
            )


def each_piece_both_ways(pieces: tuple[object, ...]) -> Callable[[Test], Test]:
    """Parametrize a test by ``piece``, each of ``pieces`` (its id the name of its type), and by
    ``how`` it is handed to a Cord: appended, or to the constructor."""
    by_type = pytest.mark.parametrize("piece", pieces, ids=[type(v).__name__ for v in pieces])
    both_ways = pytest.mark.parametrize("how", ["append", "constructor"])
    return lambda test: by_type(both_ways(test))


class TestRejectedPiecesNamed:
    @clause("CORD-TYPE-1")
    @each_piece_both_ways(REJECTED)
    def test_the_message_names_the_type_as_a_word(
        self, impl: Implementation, piece: object, how: str
    ) -> None:
        """``type(piece).__name__``, exactly, as a whole word: a message that describes the type
        in words (``a string``), or names the accepted types only, does not name it."""
        if how == "constructor" and piece is None:
            return  # Cord(None) is an empty Cord (CORD-INIT-1)
        cord = impl.Cord(b"kept")
        with pytest.raises(TypeError) as raised:
            if how == "append":
                cord.append(piece)
            else:
                impl.Cord(piece)
        assert names_type(str(raised.value), piece), (
            f"the message {str(raised.value)!r} does not name {type(piece).__name__!r}"
        )
        assert (len(cord), bytes(cord)) == (4, b"kept")

    @clause("CORD-TYPE-2")
    @each_piece_both_ways(CLAIMING)
    def test_a_piece_that_claims_a_type_is_refused(
        self, impl: Implementation, piece: object, how: str
    ) -> None:
        """An object whose ``__class__`` attribute says ``bytes`` is not ``bytes``: refused,
        named by its own type, the Cord unchanged (CORD-TYPE-2)."""
        self.test_the_message_names_the_type_as_a_word(impl, piece, how)

"""Cord: bytes assembled by reference from in-memory and file-backed pieces, never copied."""

from __future__ import annotations

import io
from typing import TypeAlias, cast

from .file_backed import (
    FileBackedData,
    Writable,
    check_writable,
    checked_readers,
    rest_of,
    write_all,
)
from .verified_reader import _VerifiedReader

__all__ = ["Cord", "CordBuffer"]

CordBuffer: TypeAlias = "bytes | FileBackedData"
"""One piece of a Cord, and one buffer of a NamedDataStore."""

_WHOLE_WRITERS = (io.BytesIO, io.BufferedWriter, io.BufferedRandom)
"""Outputs of exactly these types take all a ``write`` gives them, or raise: a Cord of bytes pieces
goes to them through one ``writelines`` (a loop in C)."""


class Cord:
    """A ``bytes``-like sequence kept as a list of pieces, so large outputs are never joined."""

    def __init__(self, data: CordBuffer | Cord | None = None) -> None:
        self._buffers: list[CordBuffer] = []  # CORD-INIT-1: None or nothing, no pieces
        self._byte_size = 0
        self._files = 0  # file-backed pieces: with none, a write needs no scan of the pieces
        if data is not None:  # CORD-INIT-2, CORD-INIT-3: exactly what append does with it
            self.append(data)

    @property
    def pieces(self) -> tuple[CordBuffer, ...]:
        """The pieces in order, by identity (never copies of them)."""
        return tuple(self._buffers)

    def __len__(self) -> int:
        return self._byte_size  # CORD-LEN-1: kept as pieces are appended; no file is read

    def __bytes__(self) -> bytes:
        # CORD-BYTES-1: every piece in order, file pieces loaded whole (write_to_file streams)
        return b"".join(p if isinstance(p, bytes) else p.to_bytes() for p in self._buffers)

    def append(self, data: CordBuffer | Cord) -> None:
        """Append a piece, or the pieces another Cord holds now (a snapshot of them)."""
        # CORD-APPEND-1: a piece by identity, its length added; CORD-TYPE-1: anything else
        # raises before the Cord changes. CORD-TYPE-2: told by the class, never by a ``__class__``
        # attribute (which isinstance believes): an object claiming to be bytes is refused, named.
        if type(data) is bytes or (isinstance(data, bytes) and issubclass(type(data), bytes)):
            self._byte_size += len(data)  # the usual piece first: one type test
            self._buffers.append(data)
        elif isinstance(data, FileBackedData) and issubclass(type(data), FileBackedData):
            self._byte_size += len(data)  # first: a closed blob raises before anything changes
            self._buffers.append(data)
            self._files += 1
        elif isinstance(data, Cord) and issubclass(type(data), Cord):
            # CORD-APPEND-2, CORD-INIT-3: its pieces now, by identity; CORD-APPEND-3: copied
            # first, so appending a Cord to itself doubles it
            pieces = list(data._buffers)
            self._buffers.extend(pieces)
            self._byte_size += data._byte_size
            self._files += data._files
        else:
            raise TypeError(
                f"Cord pieces must be bytes, FileBackedData or Cord, not {type(data).__name__}"
            )

    def write_to_file(self, outfile: Writable) -> None:
        """Write the pieces in order, streaming file pieces, all checked before the first byte."""
        check_writable(outfile)
        if not self._files:
            if type(outfile) in _WHOLE_WRITERS:
                _write_bytes_whole(outfile, self._buffers)
            else:
                _write_pieces(outfile, self._buffers, {})
            return
        # CORD-WRITE-3: every file piece checked before the first byte, and kept open to stream
        with checked_readers(self._buffers) as readers:
            _write_pieces(outfile, self._buffers, readers)


def _write_pieces(
    outfile: Writable, pieces: list[CordBuffer], readers: dict[int, _VerifiedReader]
) -> None:
    """Each piece once, in order (CORD-WRITE-1): a file piece from its reader in ``readers`` when
    it has one, else by its own ``write_to_file``, streamed through a bounded buffer either way
    (CORD-WRITE-2)."""
    write = outfile.write
    for piece in pieces:
        if not isinstance(piece, bytes):
            reader = readers.get(id(piece))
            if reader is None:
                piece.write_to_file(outfile)
            else:
                piece._check_open()  # FBD-CLOSED-1: closed since the check, by the output's write
                reader.write_to(outfile)
        elif piece:  # one write, which takes all of it but on a raw or odd output
            written = write(piece)
            if written != len(piece):  # CORD-WRITE-1: a short write retried with the rest
                write_all(outfile, rest_of(outfile, memoryview(piece), written))


def _write_bytes_whole(outfile: Writable, pieces: list[CordBuffer]) -> None:
    """The fast path of CORD-WRITE-1 for pieces that are all ``bytes`` (the Cord counts its file
    pieces, so this needs no scan) into an output of one of ``_WHOLE_WRITERS``, which takes all a
    write gives it or raises: one ``writelines``, a loop in C, instead of a write per piece whose
    result is checked."""
    cast(io.BufferedIOBase, outfile).writelines(cast("list[bytes]", pieces))

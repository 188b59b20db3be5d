"""Faults found by the fault-injection tests (spec section 3.8), each pinned on the reference."""

from __future__ import annotations

import errno
import io
from pathlib import Path

import pytest

from conformance.harness.sinks import StuckSink
from reference import Cord, FileBackedData


@pytest.mark.parametrize("room", [0, 5])
def test_blob_into_a_sink_that_takes_nothing_raises(tmp_path: Path, room: int) -> None:
    """FBD-FAULT-3: ``write_all`` looped forever on a sink whose ``write`` returned 0."""
    path = tmp_path / "blob.bin"
    path.write_bytes(b"0123456789")
    with FileBackedData(str(path)) as blob:
        sink = StuckSink(room)
        with pytest.raises(OSError, match="accepted none of") as raised:
            blob.write_to_file(sink)
        assert raised.value.errno == errno.EIO
        assert bytes(sink.data) == b"0123456789"[:room]


def test_cord_bytes_into_a_sink_that_takes_nothing_raises() -> None:
    sink = StuckSink(3)
    with pytest.raises(OSError, match="accepted none of 3 bytes"):
        Cord(b"header").write_to_file(sink)
    assert bytes(sink.data) == b"hea"


def test_a_sink_returning_none_counts_as_all_written() -> None:
    """``write`` returning None (a sink that does not count) is taken as a full write."""
    out = io.BytesIO()

    class Quiet:
        def write(self, data: bytes | memoryview) -> None:
            out.write(data)

    Cord(b"abc").write_to_file(Quiet())
    assert out.getvalue() == b"abc"

"""conformance.harness.measure: where the bytes-read counters cannot be had, a test is untested,
never "not applicable" (which would let the verdict pass without the clause being checked)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.harness import measure


def _no_proc(self: Path, *args: object, **kwargs: object) -> str:
    raise FileNotFoundError(2, "No such file or directory", str(self))


@pytest.mark.parametrize("counter", [measure.io_counters, measure.rchar])
def test_without_proc_self_io_the_test_is_skipped_as_untested(
    monkeypatch: pytest.MonkeyPatch, counter: Callable[[], object]
) -> None:
    monkeypatch.setattr(Path, "read_text", _no_proc)
    with pytest.raises(pytest.skip.Exception) as info:
        counter()
    assert "/proc/self/io" in str(info.value)
    assert not str(info.value).startswith("not applicable")


def test_bytes_read_counts_what_the_block_reads(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(b"x" * 100_000)
    with measure.bytes_read() as read, path.open("rb", buffering=0) as f:
        f.read()
    assert 100_000 <= read[0] < 200_000

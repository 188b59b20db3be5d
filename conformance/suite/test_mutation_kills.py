"""Tests written to reject broken implementations the rest of the suite let through.

Each test here was added because a mutant in ``tests/mutants/`` (or a mutmut mutant of the
reference, see ``docs/mutation.md``) passed every other test of the clause it breaks; its
docstring names the mutant. They check clauses like any other suite test, through the adapter.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from conformance.api import Implementation
from conformance.harness.child import child_script, run_child
from conformance.harness.helpers import PREFIX, Blobs, duplicate_message, sha, sparse, state
from conformance.harness.measure import MEMORY_BOUND, MiB, peak_memory

clause = pytest.mark.clause
requires = pytest.mark.requires

# --- interpreter exit ---------------------------------------------------------------------------

_HELD_BY_A_THREAD = child_script(r"""
import threading

with open(source, "wb") as f:
    f.write(b"held by a thread\n" * 64)
blob = impl.FileBackedData.move_from(source)
print(impl.path_of(blob), flush=True)
never = threading.Event()
threading.Thread(target=lambda held: never.wait(), args=(blob,), daemon=True).start()
del blob  # only the daemon thread, still running at exit, holds the owner now
if case == "sys-exit":
    sys.exit(0)
""")


@pytest.mark.requires("file-backed")
class TestExitBackstop:
    @clause("FBD-CLOSE-5")
    @requires("subprocess")
    @pytest.mark.parametrize("end", ["normal", "sys-exit"])
    def test_owner_held_by_a_running_thread_is_released(
        self, impl: Implementation, tmp_path: Path, end: str
    ) -> None:
        """An owner still alive at exit, because a daemon thread holds it, is released by the
        exit backstop. Kills ``tests/mutants/del_only_cleanup`` (review defect 1): ``__del__``
        never runs for an object that a thread frozen at shutdown still references."""
        run = run_child(impl, _HELD_BY_A_THREAD, tmp_path, end)
        assert run.returncode == 0, run.stderr
        path = run.path
        try:
            assert not path.exists(), f"{end}: the owner held by a thread outlived the process"
            assert "Exception ignored" not in run.stderr, run.stderr
        finally:
            path.unlink(missing_ok=True)


# --- key equality -------------------------------------------------------------------------------


class TestKeyEquality:
    @clause("NDS-KEY-4", "NDS-KEY-3")
    @pytest.mark.parametrize(("old", "new"), [(1, 2), (2, 1)], ids=["longer", "shorter"])
    def test_equal_supplied_digests_of_other_lengths_differ(
        self, impl: Implementation, blobs: Blobs, old: int, new: int
    ) -> None:
        """Equality is length *and* digest: a blob of another length is different contents even
        when its supplied digest equals the stored one. Kills
        ``tests/mutants/key_digest_without_length``."""
        claimed = sha(b"claimed")
        store = impl.NamedDataStore()
        store.add_named_data("key", blobs.wrap(blobs.file(PREFIX + b"X" * old), sha256=claimed))
        before = state(store)
        again = blobs.wrap(blobs.file(PREFIX + b"Y" * new), sha256=claimed)
        message = duplicate_message("key", 32 + old, 32 + new, whole=False)
        with pytest.raises(ValueError, match=message):
            store.add_named_data("key", again)
        assert state(store) == before


# --- a file that changes while it is streamed ---------------------------------------------------


class _ChangingSink:
    """A sink that changes the file at ``path`` to ``size`` bytes (sparse) on its first write, and
    keeps only a count of what it is given."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.size = size
        self.received = 0

    def write(self, data: bytes | memoryview) -> int:
        if not self.received:
            os.truncate(self.path, self.size)
        self.received += len(data)
        return len(data)


class TestChangeWhileStreaming:
    @staticmethod
    def _big(tmp_path: Path) -> Path:
        return sparse(tmp_path / "big.bin", 8 * MiB)

    @clause("FBD-CHANGE-1")
    @pytest.mark.parametrize("change", ["shrink", "grow"])
    def test_a_change_noticed_part_way_names_both_sizes(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, change: str
    ) -> None:
        """A size change noticed part-way through a write names the recorded and the actual
        size. Kills mutmut mutants of the reference that report a wrong size there."""
        path = self._big(tmp_path)
        blob = blobs.wrap(path)
        new_size = MiB if change == "shrink" else 72 * MiB
        with pytest.raises(OSError) as raised:
            blob.write_to_file(_ChangingSink(path, new_size))
        message = str(raised.value)
        assert str(path) in message
        assert str(8 * MiB) in message and str(new_size) in message, message

    @clause("FBD-WRITE-2")
    def test_growth_while_writing_is_not_read_at_once(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        """A file that grows by 64 MiB while it is written is not read into memory, whether the
        write then raises (strict) or not. Kills a mutmut mutant of the reference that reads the
        rest of the file at once to see whether it grew."""
        path = self._big(tmp_path)
        blob = blobs.wrap(path)
        sink = _ChangingSink(path, 72 * MiB)

        def write() -> None:
            with contextlib.suppress(OSError):  # strict raises here: only memory is judged
                blob.write_to_file(sink)

        peak = peak_memory(write)
        assert peak < MEMORY_BOUND, f"writing a file that grew by 64 MiB held {peak} bytes"


# --- externalize ------------------------------------------------------------------------------


@pytest.mark.requires("externalize")
class TestExternalizeBounds:
    @clause("NDS-EXT-1")
    def test_zero_cap_is_refused_with_nothing_inline(self, impl: Implementation) -> None:
        """A zero cap is refused for itself, not because some buffer exceeds it. Kills a mutmut
        mutant of the reference that accepts zero."""
        store = impl.NamedDataStore()
        store.add_named_data("external", b"data", 1, "model")
        before = state(store)
        with pytest.raises(ValueError):
            store.externalize_pte_data(0, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        assert state(store) == before

    @clause("NDS-EXT-1", "NDS-EXT-2")
    def test_a_cap_of_one_byte_is_valid(self, impl: Implementation) -> None:
        """The smallest positive cap is accepted. Kills a mutmut mutant that refuses 1."""
        store = impl.NamedDataStore()
        store.add_named_data("a", b"a")
        store.add_named_data("b", b"b")
        store.externalize_pte_data(1, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        out = store.get_named_data_store_output()
        assert dict(out.pte_data) == {}
        assert sorted(len(entries) for entries in out.external_data.values()) == [1, 1]

    @clause("NDS-EXT-3")
    def test_a_new_shard_starts_empty(self, impl: Implementation) -> None:
        """After a group starts a new shard, groups that fill that shard exactly stay in it.
        Kills a mutmut mutant that counts a byte too many in each new shard."""
        store = impl.NamedDataStore()
        store.add_named_data("a", b"A" * 10)
        store.add_named_data("b", b"B" * 6)
        store.add_named_data("c", b"C" * 4)
        store.externalize_pte_data(10, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        out = store.get_named_data_store_output()
        assert sorted(sorted(entries) for entries in out.external_data.values()) == [
            ["a"],
            ["b", "c"],
        ]


# --- short writes -------------------------------------------------------------------------------


class _OneByteAtATime:
    """A raw sink that takes one byte per call and says so."""

    def __init__(self) -> None:
        self.received = bytearray()

    def write(self, data: bytes | memoryview) -> int:
        self.received += bytes(data[:1])
        return 1


@clause("FBD-WRITE-1")
def test_a_sink_taking_one_byte_per_call_gets_everything(
    impl: Implementation, blobs: Blobs
) -> None:
    """One byte per call is progress, not a sink that takes nothing. Kills a mutmut mutant of the
    reference that gives up on a sink whose writes take a single byte."""
    data = bytes(range(256))
    sink = _OneByteAtATime()
    blobs.moved(data).write_to_file(sink)
    assert bytes(sink.received) == data

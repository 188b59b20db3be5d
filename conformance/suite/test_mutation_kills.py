"""Tests written to reject broken implementations the rest of the suite let through.

Each test here was added because a mutant in ``tests/mutants/`` (or a mutmut mutant of the
reference, see ``docs/mutation.md``) passed every other test of the clause it breaks; its
docstring names the mutant. They check clauses like any other suite test, through the adapter.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from conformance.api import DataEntry, Implementation, NamedDataStore
from conformance.fixtures import Blobs

clause = pytest.mark.clause
requires = pytest.mark.requires

PREFIX = b"P" * 32
CHILD_TIMEOUT = 180  # seconds; a child importing a heavy implementation (torch) takes a few


def _sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _state(store: NamedDataStore) -> tuple[object, ...]:
    """A store's output, deeply: buffers by identity, every entry by value, in order."""
    out = store.get_named_data_store_output()

    def entries(mapping: Mapping[str, DataEntry]) -> tuple[tuple[object, ...], ...]:
        return tuple((k, e.buffer_index, e.alignment, e.tensor_layout) for k, e in mapping.items())

    return (
        tuple(id(b) for b in out.buffers),
        entries(out.pte_data),
        tuple((tag, entries(m)) for tag, m in out.external_data.items()),
    )


def _duplicate_message(key: str, existing: int, new: int) -> str:
    return "^" + re.escape(
        f"Duplicate key {key} with different data. Existing data size: {existing} bytes. "
        f"New data size: {new} bytes."
    )


# --- interpreter exit ---------------------------------------------------------------------------

_HELD_BY_A_THREAD = r"""
import os, sys, threading
from conformance.adapters import load_implementation

spec, directory, case = sys.argv[1:4]
impl = load_implementation(spec)
source = os.path.join(directory, "owned.bin")
with open(source, "wb") as f:
    f.write(b"held by a thread\n" * 64)
blob = impl.FileBackedData.move_from(source)
print(impl.path_of(blob), flush=True)
never = threading.Event()
threading.Thread(target=lambda held: never.wait(), args=(blob,), daemon=True).start()
del blob  # only the daemon thread, still running at exit, holds the owner now
if case == "sys-exit":
    sys.exit(0)
"""


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    entries = [p for p in sys.path if p and os.path.isdir(p)]
    if env.get("PYTHONPATH"):
        entries.insert(0, env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


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
        assert impl.spec is not None
        done = subprocess.run(
            [sys.executable, "-c", _HELD_BY_A_THREAD, impl.spec, str(tmp_path), end],
            cwd=tmp_path,
            env=_child_env(),
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines, f"the child printed nothing; stderr:\n{done.stderr}"
        path = Path(lines[0])
        try:
            assert not path.exists(), f"{end}: the owner held by a thread outlived the process"
            assert "Exception ignored" not in done.stderr, done.stderr
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
        claimed = _sha(b"claimed")
        store = impl.NamedDataStore()
        store.add_named_data("key", blobs.wrap(blobs.file(PREFIX + b"X" * old), sha256=claimed))
        before = _state(store)
        again = blobs.wrap(blobs.file(PREFIX + b"Y" * new), sha256=claimed)
        with pytest.raises(ValueError, match=_duplicate_message("key", 32 + old, 32 + new)):
            store.add_named_data("key", again)
        assert _state(store) == before

"""A raising signal handler in ``load_weights_blob`` (low-memory mode) after it took the blob over
with ``move_from`` and before it returned the owner: the caller never gets the owner, which is
collected and deletes the weights blob (the threat model: "no path through the layer, failing or
not, deletes ... unless the caller asked for its release"; FBD-INTR-1 makes ``move_from`` itself
undo an interrupted move, but the hook that calls it does not).

The same for ``store_weights_blob`` whose ``add_named_data`` is refused (the key already holds
other bytes, or another tag): the loaded owner is dropped, and the blob with it.

Exits 1 when the blob's data is gone from disk after the failed load, 0 when it is kept (at its
path or a kept name)."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import shutil
import signal
import sys
import tempfile

from _campaign import SPECS, Interrupt, file_in, handler, holding, interrupted_at

from reference import hooks
from reference.hooks import FileBackedAotiBackend, Weights
from reference.named_data import NamedDataStore

CODE = FileBackedAotiBackend.load_weights_blob.__func__.__code__  # type: ignore[attr-defined]
WEIGHTS = b"hours of training" * 1000


def attempt(line: int) -> tuple[bool, list[str]]:
    directory = tempfile.mkdtemp(prefix="attack-load-")
    try:
        out = FileBackedAotiBackend.materialize_weights_blob(
            [file_in(directory), Weights([WEIGHTS])], SPECS
        )
        assert isinstance(out, list)
        blob = out[-1]
        with interrupted_at(CODE, [line]) as pending:
            try:
                FileBackedAotiBackend.load_weights_blob(blob, SPECS)
            except Interrupt:
                fired = not pending
            else:
                fired = False  # the load returned its owner: nothing to check
        gc.collect()
        return fired, holding(directory, WEIGHTS)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def refused_store() -> list[str]:
    """Store a blob whose key the store already holds with other bytes; the files holding the
    weights afterwards."""
    directory = tempfile.mkdtemp(prefix="attack-store-")
    try:
        out = FileBackedAotiBackend.materialize_weights_blob(
            [file_in(directory), Weights([WEIGHTS])], SPECS
        )
        assert isinstance(out, list)
        store = NamedDataStore()
        key = hashlib.sha256(WEIGHTS).hexdigest() + hooks.WEIGHTS_BLOB_SUFFIX
        store.add_named_data(key, b"other bytes", 1, None)
        with contextlib.suppress(ValueError):
            FileBackedAotiBackend.store_weights_blob(out[-1], SPECS, store)
        gc.collect()
        return holding(directory, WEIGHTS)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main() -> int:
    signal.signal(signal.SIGUSR1, handler)
    lines = sorted({line for _, _, line in CODE.co_lines() if line is not None})
    lost = []
    for line in lines:
        fired, holding = attempt(line)
        if fired and not holding:
            lost.append(line)
    failed = 0
    if lost:
        print(
            "LOST: an interrupt in load_weights_blob at line(s) "
            f"{lost} of {hooks.__file__} deleted the weights blob: no file holds the weights"
        )
        failed = 1
    if not refused_store():
        print("LOST: store_weights_blob refused by add_named_data deleted the weights blob")
        failed = 1
    if not failed:
        print(f"held: {len(lines)} interrupt points and a refused add, the weights blob kept")
    return failed


if __name__ == "__main__":
    sys.exit(main())

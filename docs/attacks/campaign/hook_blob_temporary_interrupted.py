"""A raising signal handler at each line of the weights hook's blob write, and one inside the
clean-up of a write whose weights failed (the producer raised, as on ENOSPC): no temporary
``.tmp`` file and no descriptor may outlive the failed write (HOOK-MAT-3: "on any failure no
temporary file is left"; the threat model's handler attacker).

Exits 1 naming each leaked temporary file and descriptor, 0 when none is left."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from typing import Any

from _campaign import SPECS, Interrupt, file_in, handler, interrupted_at

from reference import hooks
from reference.hooks import FileBackedAotiBackend, Weights

CODE = hooks._write_blob.__code__
LINES = sorted({line for _, _, line in CODE.co_lines() if line is not None})


class ProducerFailed(Exception):
    """The weights' producer failing half-way."""


def failing_weights() -> Any:
    yield b"w" * 100
    raise ProducerFailed("no space left for the weights")


def attempt(targets: list[int], fail: bool = False) -> tuple[bool, list[str], int]:
    """Materialize once, a signal raised at the first line of ``targets`` reached (the
    producer failing first when ``fail``); whether it fired, the temporary files left,
    descriptors leaked."""
    directory = tempfile.mkdtemp(prefix="attack-hook-")
    so = file_in(directory)
    before = len(os.listdir("/proc/self/fd"))
    with interrupted_at(CODE, targets) as pending:
        try:
            chunks = failing_weights() if fail else [b"w" * 100]
            FileBackedAotiBackend.materialize_weights_blob([so, Weights(chunks)], SPECS)
        except (Interrupt, ProducerFailed):
            pass
    leaked_fds = len(os.listdir("/proc/self/fd")) - before
    left = [n for n in os.listdir(directory) if n.endswith(".tmp")]
    shutil.rmtree(directory)
    return not pending, left, leaked_fds


def main() -> int:
    signal.signal(signal.SIGUSR1, handler)
    failures = []
    cleanup = [line for line in LINES if line > LINES[0] and "unlink" in _source(line)]
    cases = [([line], False) for line in LINES] + [([line], True) for line in cleanup]
    for case, fail in cases:
        fired, left, fds = attempt(case, fail)
        if fired and (left or fds > 0):
            how = "in the clean-up of a failed write" if fail else "during the write"
            failures.append(f"signal at line {case[0]} {how}: left {left}, {fds} descriptor(s)")
    if failures:
        print("LEAKED: a raising handler during materialize_weights_blob leaves its temporary:")
        for failure in failures:
            print("  " + failure)
        return 1
    print(f"held: {len(cases)} interrupt points, no temporary file nor descriptor left")
    return 0


def _source(line: int) -> str:
    import linecache

    return linecache.getline(CODE.co_filename, line)


if __name__ == "__main__":
    sys.exit(main())

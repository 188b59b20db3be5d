"""A raising signal handler at each line of the verified reader's opening (``_VerifiedReader``'s
constructor and ``Location.open_in``, which every ``prefix``, ``sha256``, ``to_bytes`` and
``write_to_file`` goes through): between the ``os.open`` of the blob and the ``open(fd)`` that makes
a file object own it, the raw descriptor is held by nothing, and nothing ever closes it. After the
owner's ``close()`` the descriptor keeps the unlinked weights on disk for as long as the process
lives (the threat model: "a descriptor outliving its owner"; FBD-IDENT-2: no descriptor is held
between calls).

Exits 1 naming the lines where a descriptor is leaked (and still holds the deleted file), 0 when
none is."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import signal
import sys
import tempfile
from types import CodeType

from _campaign import Interrupt, file_in, handler, interrupted_at

from reference import location, verified_reader
from reference.file_backed import FileBackedData

TARGETS: list[CodeType] = [
    verified_reader._VerifiedReader.__init__.__code__,
    location.Location.open_in.__code__,
    location.Location.opened_directory.__wrapped__.__code__,  # type: ignore[attr-defined]
]


def deleted_descriptors() -> list[str]:
    """This process's descriptors of the attack's directories and (deleted) files."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if "attack-read-" in target:
            found.append(f"fd {name} -> {target}")
    return found


def attempt(code: CodeType, line: int) -> tuple[bool, list[str]]:
    directory = tempfile.mkdtemp(prefix="attack-read-")
    try:
        owner = FileBackedData.move_from(file_in(directory, "weights.bin", b"w" * 4096))
        with interrupted_at(code, [line]) as pending, contextlib.suppress(Interrupt):
            owner.prefix(10)
        owner.close()
        gc.collect()
        return not pending, deleted_descriptors()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main() -> int:
    signal.signal(signal.SIGUSR1, handler)
    leaks = []
    for code in TARGETS:
        for line in sorted({n for _, _, n in code.co_lines() if n is not None}):
            fired, held = attempt(code, line)
            if fired and held:
                leaks.append(f"{code.co_name} line {line}: {held}")
                for entry in held:  # closed, so that the next attempt counts its own
                    os.close(int(entry.split()[1]))
    if leaks:
        print("LEAKED: an interrupted read left the blob's descriptor open after close():")
        for leak in leaks:
            print("  " + leak)
        return 1
    print("held: no interrupt point of the reader's opening leaks a descriptor")
    return 0


if __name__ == "__main__":
    sys.exit(main())

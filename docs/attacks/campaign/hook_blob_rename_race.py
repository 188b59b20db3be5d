"""A co-user plants a file of its own at the blob's name in a sticky shared output directory just
after ``materialize_weights_blob`` checked the name the second time and before its rename (here
at that line, by a trace function): the check and the rename are two steps, and the rename, run as
root, replaces the co-user's entry, which the sticky bit protects from everyone else (HOOK-MAT-3:
anything but a regular file of the same user at the name is refused "again before the rename";
this document: the layer deletes only files it owns).

Exits 1 when the co-user's file is gone, 0 when the hook refused or kept it."""

from __future__ import annotations

import linecache
import os
import shutil
import sys
import tempfile
from types import FrameType
from typing import Any

from _campaign import SPECS, as_other, file_in

from reference import hooks
from reference.hooks import FileBackedAotiBackend, Weights

THEIRS = b"the co-user's own file"


def plant(path: str) -> bool:
    """Make the co-user's file at ``path``, as uid 65534; whether it could."""

    def make() -> None:
        with open(path, "xb") as f:
            f.write(THEIRS)

    return as_other(make)


def main() -> int:
    if os.geteuid() != 0:
        print("not testable here: a second uid needs root")
        return 0
    shared = tempfile.mkdtemp(prefix="attack-race-")
    try:
        os.chmod(shared, 0o1777)
        so = file_in(shared)
        blob = os.path.join(shared, "m.wrapper_weights.blob")
        planted = [False]

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
            renames = "os.replace(" in line or "rename_noreplace(" in line
            if event == "line" and renames and not planted[0]:
                planted[0] = plant(blob)
            return local

        # the hook's rename onto the blob's name, in whichever function of the module makes it
        sys.settrace(
            lambda frame, event, arg: local if frame.f_code.co_filename == hooks.__file__ else None
        )
        try:
            FileBackedAotiBackend.materialize_weights_blob([so, Weights([b"w" * 100])], SPECS)
        except OSError as exc:
            print(f"held: refused: {exc}")
            return 0
        finally:
            sys.settrace(None)
        if not planted[0]:
            print("not testable here: the co-user could not plant its file")
            return 0
        with open(blob, "rb") as f:
            if f.read() == THEIRS:
                print("held: the co-user's file kept")
                return 0
        print(
            f"LOST: the hook's rename replaced the co-user's file at {blob!r}, planted after the "
            "second check (its contents are gone)"
        )
        return 1
    finally:
        shutil.rmtree(shared, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

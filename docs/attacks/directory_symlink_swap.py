"""Attack: another user swaps a directory of a shared path for a link to a directory only this
process's user may read; the owning constructor and ``move_from`` of that path must refuse rather
than own (and at release delete) the private file of the same name (FBD-INIT-9).

Needs root, to act as the second user (``setpriv``, uid 65534). Exit 0 when both refuse with
``ValueError`` and the private file is intact; 1 when the defect is present; 2 when not testable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import verdict

from reference import FileBackedData

if os.geteuid() != 0 or shutil.which("setpriv") is None:
    print("not testable here: acting as a second user needs root and setpriv")
    sys.exit(2)

PRIVATE = b"private\n" * 512
root = Path(tempfile.mkdtemp(prefix="attack-links-"))
try:
    root.chmod(0o711)
    shared, private = root / "shared", root / "private"
    shared.mkdir()
    shared.chmod(0o777)
    private.mkdir(mode=0o700)
    (shared / "sub").mkdir()  # the directory the victim means
    subprocess.run(  # the second user swaps it for a link to the private directory
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
         f"mv {shared}/sub {shared}/sub.old && ln -s {private} {shared}/sub"],
        check=True, timeout=60,
    )  # fmt: skip
    taken = []
    for how in ("cleanup=True", "move_from"):
        (private / "x.bin").write_bytes(PRIVATE)
        path = str(shared / "sub" / "x.bin")
        try:
            blob = FileBackedData(path, cleanup=True) if how != "move_from" else (
                FileBackedData.move_from(path))  # fmt: skip
        except ValueError:
            continue
        blob.close()
        if not (private / "x.bin").exists():
            taken.append(f"{how} owned the private file through the link and close() deleted it")
    verdict("; ".join(taken) if taken else None)
finally:
    shutil.rmtree(root, ignore_errors=True)

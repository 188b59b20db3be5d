"""Attack: a process that exits with no free file descriptor, which is how a process that ran out
of them ends, must still release every file it owns (FBD-EXIT-2).

Exit 0 when every owned file is gone after such an exit; 1, naming what was left, otherwise.
"""

from __future__ import annotations

import os
import tempfile

from _common import child, verdict

SCRIPT = r"""
import resource
from reference import FileBackedData
owners = []
for i in range(3):
    path = write(f"weights{i}.bin")
    owners.append(FileBackedData.move_from(path) if i else FileBackedData(path, cleanup=True))
    print(owners[-1].path, flush=True)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 128), hard))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError as exc:
    print("errno", exc.errno, flush=True)
"""

with tempfile.TemporaryDirectory() as directory:
    run = child(SCRIPT, directory)
    owned = [line for line in run.stdout.splitlines() if line.startswith(os.sep)]
    left = sorted(os.listdir(directory))
    if run.returncode != 0 or len(owned) != 3:
        verdict(f"the child failed (status {run.returncode}): {run.stderr}")
    verdict(
        None
        if not left
        else f"{len(left)} of 3 owned files left after an exit with every descriptor in use: "
        f"{left}; stderr: {run.stderr.strip()}"
    )

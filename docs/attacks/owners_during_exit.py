"""Attack: owners that daemon threads make while the release at exit runs must be released too,
or refused (FBD-EXIT-3). The window is forced: the release's first removal lets a daemon thread
make an owner and waits until it has.

Exit 0 when no owned file or placeholder is left after the exit; 1 otherwise.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _common import child, verdict

SCRIPT = r"""
import threading
from _common import harness
from reference import FileBackedData

first = FileBackedData.move_from(write("first.bin"))
begun, made = threading.Event(), threading.Event()

def late():
    begun.wait(60)
    try:
        blob = FileBackedData.move_from(write("late.bin"))
        print("late owned", blob.path, flush=True)
    except Exception as exc:
        print("late refused", type(exc).__name__, exc, flush=True)
    finally:
        made.set()
    threading.Event().wait()

threading.Thread(target=late, daemon=True).start()
# at the exit release's first removal, until the late owner is made
harness("exit_window").pause_the_exit_release(begun, made, 30)
"""

with tempfile.TemporaryDirectory() as directory:
    run = child(SCRIPT, directory)
    left = sorted(p.name for p in Path(directory).iterdir())
    refused = "late refused" in run.stdout
    expected = ["late.bin"] if refused else []
    verdict(
        None
        if run.returncode == 0 and left == expected
        else f"after an exit during whose release a daemon thread made an owner "
        f"({run.stdout.strip()}): left {left}, expected {expected}; stderr: {run.stderr.strip()}"
    )

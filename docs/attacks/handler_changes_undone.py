"""A handler's own change to signal handling undone by the deferral (FBD-INTR-3): "a second Ctrl-C
forces quit". The program's first Ctrl-C handler asks for a graceful stop and installs
``SIG_DFL``, so that a second Ctrl-C ends the process at once. When the first lands inside
``move_from``, ``FileBackedData(path, cleanup=True)`` or ``close()``, whose deferral restored the
saved handlers at its end, the graceful handler came back and the second Ctrl-C was one more polite
request. Each case runs in a child process: the second Ctrl-C must end it by SIGINT, whether it
comes within the same call or after the call has raised.

Run ``python docs/attacks/handler_changes_undone.py [CHECKOUT]`` (the reference of CHECKOUT, by
default of this checkout). Exit 0 when every child ended by the second SIGINT; 1 with a message
for each child that survived it (or hung)."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
"""The checkout whose reference is attacked: the first argument, else this one."""
WAIT = 60.0

CHILD = r"""
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from reference import FileBackedData

call, when, directory = sys.argv[2:5]
source = os.path.join(directory, "weights.bin")
with open(source, "wb") as f:
    f.write(b"weights" * 100)
owner = FileBackedData.move_from(source) if call == "close" else None

def graceful(signum, frame):
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C forces quit
    raise KeyboardInterrupt

signal.signal(signal.SIGINT, graceful)  # also where this runs with SIGINT ignored
name = {"move_from": "replace", "constructor": "getpid", "close": "unlink"}[call]
real = getattr(os, name)
fired = []

def stepped(*args, **kwargs):  # the first Ctrl-C lands inside the call's deferral
    result = real(*args, **kwargs)
    if not fired:
        fired.append(True)
        if when == "same call":
            try:
                os.kill(os.getpid(), signal.SIGINT)
            finally:
                os.kill(os.getpid(), signal.SIGINT)
        else:
            os.kill(os.getpid(), signal.SIGINT)
    return result

setattr(os, name, stepped)
try:
    if call == "move_from":
        FileBackedData.move_from(source).close()
    elif call == "constructor":
        FileBackedData(source, cleanup=True).close()
    else:
        owner.close()
except KeyboardInterrupt:
    print("the first Ctrl-C: stopping gracefully", flush=True)
setattr(os, name, real)
try:
    if when == "later":
        os.kill(os.getpid(), signal.SIGINT)  # the impatient second Ctrl-C
except KeyboardInterrupt:  # the graceful handler again (uncaught, Python would exit by SIGINT)
    print("the second Ctrl-C reached the graceful handler", flush=True)
print(f"survived the second Ctrl-C; SIGINT's handler is {signal.getsignal(signal.SIGINT)}")
"""


def main() -> int:
    failures: list[str] = []
    for call in ("move_from", "constructor", "close"):
        for when in ("same call", "later"):
            with tempfile.TemporaryDirectory() as directory:
                argv = [sys.executable, "-c", CHILD, str(REPO), call, when, directory]
                try:
                    done = subprocess.run(argv, capture_output=True, timeout=WAIT)
                except subprocess.TimeoutExpired:
                    failures.append(f"{call}, second Ctrl-C {when}: the child hung")
                    continue
            said = " / ".join(done.stdout.decode().splitlines()) or done.stderr.decode()[-300:]
            line = f"first Ctrl-C inside {call}, the second {when}"
            if done.returncode == -signal.SIGINT:
                print(f"ok   {line}: ended by SIGINT")
            else:
                failures.append(f"{line}: exit status {done.returncode}, {said}")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

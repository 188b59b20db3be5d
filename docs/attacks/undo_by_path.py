"""Attack on move_from's undo (FBD-MOVE-11): while a raising signal handler undoes an interrupted
move, another user takes the source's name, which the rename has just freed, in a sticky
directory. The undo must neither lose the data (to the finalizer of the object the caller never
got, or to a sweep of an unowned placeholder) nor replace what the other user put there.

Run ``python docs/attacks/undo_by_path.py [CHECKOUT]`` (the reference of CHECKOUT, by default of
this checkout). As root with a second uid
(65534, through ``setpriv``) it plays both sides: root's move against a directory of the other
user's (no rename of a file onto a directory succeeds, not even root's), and the other user's move
against a file of root's (which a non-root process cannot replace in a sticky directory). Without
root, the same user takes the name with a directory. The victim's handler tells the attacker when
the name is free and waits for it, so the race is won every time. Exit 0 when nothing was lost or
replaced, 1 with a message for each scenario where something was."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
"""The checkout whose reference is attacked: the first argument, else this one."""
OTHER = 65534
SETPRIV = ["setpriv", f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups"]
DATA = b"the user's only copy of the weights\n" * 1000
INTRUDER = b"another user's file\n"
WAIT = 60.0

VICTIM = r"""
import gc, os, signal, sys
sys.path.insert(0, sys.argv[1])
from reference import FileBackedData

source = sys.argv[2]

def ctrl_c(signum, frame):  # the program's handler: it runs after the rename freed the name
    print("freed", flush=True)
    sys.stdin.readline()  # the attacker has taken the name
    raise KeyboardInterrupt

signal.signal(signal.SIGINT, ctrl_c)
real_replace = os.replace

def replace(src, dst, **kwargs):
    real_replace(src, dst, **kwargs)
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C lands just after the rename

os.replace = replace
try:
    FileBackedData.move_from(source).close()
    print("completed", flush=True)
except BaseException as exc:
    print(f"raised {type(exc).__name__}: {exc}", flush=True)
os.replace = real_replace
del exc
gc.collect()  # the object the caller never got, if it still owns the file, releases it now
print("collected", flush=True)
"""


def python_for(uid: int) -> str:
    """An interpreter that user ``uid`` can run (pyenv's may live under /root)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        argv = [*SETPRIV, candidate] if uid != os.getuid() else [candidate]
        try:
            done = subprocess.run([*argv, "-c", "pass"], capture_output=True, timeout=WAIT)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return candidate
    raise SystemExit(f"no Python interpreter that uid {uid} can run")


def occupy(path: Path, what: str, as_other: bool) -> None:
    """Take the name ``path`` with a directory or a file, as the other user or as this one."""
    if not as_other:
        if what == "directory":
            os.mkdir(path)
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(INTRUDER)
        return
    argv = (
        ["mkdir", str(path)] if what == "directory" else ["sh", "-c", 'cat > "$1"', "sh", str(path)]
    )
    subprocess.run([*SETPRIV, *argv], input=INTRUDER, check=True, timeout=WAIT)


def intact(path: Path, what: str) -> bool:
    if what == "directory":
        return path.is_dir() and not path.is_symlink() and not any(path.iterdir())
    return path.is_file() and path.read_bytes() == INTRUDER


def scenario(name: str, victim_other: bool, attacker_other: bool, what: str) -> str | None:
    """Run one attack; None when nothing was lost or replaced, else what went wrong."""
    base = Path(tempfile.mkdtemp(prefix="undo-attack-"))
    try:
        os.chmod(base, 0o755)
        sticky = base / "shared"
        sticky.mkdir()
        os.chmod(sticky, 0o1777)  # like /tmp: anyone may create, only owners may remove
        source = sticky / "weights.bin"
        source.write_bytes(DATA)
        if victim_other:
            os.chown(source, OTHER, OTHER)
        uid = OTHER if victim_other else os.getuid()
        argv = [python_for(uid), "-c", VICTIM, str(REPO), str(source)]
        victim = subprocess.Popen(
            [*SETPRIV, *argv] if victim_other else argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=base,
        )
        assert victim.stdout is not None and victim.stdin is not None
        ready, _, _ = select.select([victim.stdout], [], [], WAIT)
        first = victim.stdout.readline().decode().strip() if ready else ""
        if first == "freed":
            occupy(source, what, attacker_other)
        victim.stdin.write(b"\n")
        victim.stdin.flush()
        try:
            out, err = victim.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            victim.kill()
            return f"{name}: the victim hung"
        said = " / ".join(line for line in [first, *out.decode().splitlines()] if line)
        if first != "freed":
            return f"{name}: the handler never ran after the rename ({said}; {err.decode()})"
        holders = [
            p
            for p in sticky.iterdir()
            if p.is_file() and not p.is_symlink() and p.read_bytes() == DATA
        ]
        if not intact(source, what):
            return f"{name}: the other user's {what} at the source's name was replaced ({said})"
        if not holders:
            return f"{name}: the data is gone, deleted by the undo or a collection ({said})"
        if all(p.name.startswith(".executorch_") for p in holders):
            return (
                f"{name}: the data was left only in the unowned placeholder "
                f"{holders[0].name}, which a sweep removes once the process has exited ({said})"
            )
        kept = [p.name for p in holders]
        print(f"ok   {name}: the data is kept at {kept}; the victim said: {said}")
        return None
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    root = os.getuid() == 0 and shutil.which("setpriv") is not None
    scenarios = [("same user, a directory at the freed name", False, False, "directory")]
    if root:
        scenarios += [
            ("root's move, another user's directory at the freed name", False, True, "directory"),
            ("another user's move, root's file at the freed name", True, False, "file"),
        ]
    else:
        print("not testable here: the scenarios with a second uid need root and setpriv")
    failures = [f for f in (scenario(*one) for one in scenarios) if f is not None]
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

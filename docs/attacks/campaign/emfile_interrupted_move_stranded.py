"""A process with two free descriptors (what ``move_from``'s walk of the path needs), one of which
another thread takes just after the rename (the threat model's exhaustion attacker), and whose
``move_from`` is then interrupted by a raising handler: the put-back opens the source's directory
twice (once as the placeholder's, once as the source's: the same directory), the second open fails
with EMFILE, and the caller's only copy of the data is left at the placeholder, a name the sweep
removes once the process has exited (FBD-MOVE-11: "under a name that no sweep removes ... the
placeholder itself only where no rename can be made there"; one descriptor, or the reserve kept for
the exit release, FBD-EXIT-2, makes the rename).

Exits 1 when the data ends at a name the sweep removes (and shows the sweep removing it), 0 when it
is back at the source or at a kept name."""

from __future__ import annotations

import os
import sys
import textwrap

from _campaign import file_in, scratch, stranded, victim

from reference import sweep

DATA = b"the caller's only copy" * 500

VICTIM = textwrap.dedent(
    """
    import linecache, os, resource, signal, sys
    from reference.file_backed import FileBackedData

    source = sys.argv[1]
    code = FileBackedData._move_held.__func__.__code__

    class Interrupt(Exception):
        pass

    def handler(signum, frame):
        raise Interrupt()

    signal.signal(signal.SIGUSR1, handler)

    def local(frame, event, arg):
        if event == "line" and "moved = os.lstat(move.placeholder)" in linecache.getline(
            frame.f_code.co_filename, frame.f_lineno
        ):
            taken.append(os.open("/dev/null", os.O_RDONLY))  # another thread's open
            signal.raise_signal(signal.SIGUSR1)  # deferred by move_from, then delivered
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code is code else None

    linecache.getline(code.co_filename, 1)  # read now, not at the descriptor limit
    highest = max(int(n) for n in os.listdir("/proc/self/fd"))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 64, hard))
    filler = []
    try:
        while True:
            filler.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
    os.close(filler.pop())  # two descriptors free
    os.close(filler.pop())
    taken = []
    sys.settrace(tracer)
    try:
        FileBackedData.move_from(source)
    except Interrupt:
        print("interrupted; no error from the put-back")
    except OSError as exc:
        print("put-back failed:", exc.filename, exc)
    finally:
        sys.settrace(None)
    """
)


def main() -> int:
    with scratch("attack-emfile-") as directory:
        source = file_in(directory, "weights.bin", DATA)
        run = victim(VICTIM, source)
        said = (run.stdout + run.stderr).strip().splitlines()
        if os.path.exists(source):
            print("held: the source is back in place:", said[-1:] if said else "")
            return 0
        holding, doomed = stranded(directory, DATA)
        if doomed:
            sweep.sweep(directory)
            print(
                f"LOST: with one descriptor left after the rename, an interrupted move_from left "
                f"the caller's only copy at the placeholder {doomed} ({said[-1:]}); "
                f"once the process exited the sweep deleted it, left: {os.listdir(directory)}"
            )
            return 1
        if not holding:
            print(f"LOST: no file holds the data: {said}")
            return 1
        print(f"held: the data is kept at {holding}, a name no sweep removes")
        return 0


if __name__ == "__main__":
    sys.exit(main())

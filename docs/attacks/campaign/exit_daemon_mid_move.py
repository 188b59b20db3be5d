"""A daemon thread inside ``move_from``, between the rename that takes the source and the
registration of its owner, when the main thread ends the interpreter normally: the daemon thread is
frozen there, and the caller's only copy of the data is left at a placeholder name whose owner is
gone, which the sweep (``python -m reference sweep``) then deletes (FBD-EXIT-3: a move at exit
either is released or fails leaving "the source in place ..., no placeholder"; FBD-MOVE-11 keeps
data that cannot go back under a name no sweep matches).

The thread is held at that step by a trace function (the scheduler may leave it there as well).
Exits 1 when the data ends up where the sweep deletes it, 0 when the source is back in place or
kept under a name no sweep matches."""

from __future__ import annotations

import os
import sys
import textwrap

from _campaign import file_in, scratch, stranded, victim

from reference import sweep

DATA = b"the caller's only copy of the weights" * 100

VICTIM = textwrap.dedent(
    """
    import sys, threading
    from reference import file_backed
    from reference.file_backed import FileBackedData

    source = sys.argv[1]
    code = FileBackedData._move_held.__func__.__code__
    taken = threading.Event()

    def local(frame, event, arg):
        # the rename has happened: the next line looks at the placeholder
        if event == "line" and "moved = os.lstat(move.placeholder)" in _line(frame):
            taken.set()
            threading.Event().wait(30)  # descheduled here until the interpreter is gone
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code is code else None

    def _line(frame):
        import linecache
        return linecache.getline(frame.f_code.co_filename, frame.f_lineno)

    def worker():
        sys.settrace(tracer)
        FileBackedData.move_from(source)

    threading.Thread(target=worker, daemon=True).start()
    if not taken.wait(10):
        print("never reached the step", file=sys.stderr)
        sys.exit(3)
    # the main module ends normally: atexit's release runs, then the daemon thread is frozen
    """
)


def main() -> int:
    with scratch("attack-exit-") as directory:
        source = file_in(directory, "weights.bin", DATA)
        run = victim(VICTIM, source)
        if run.returncode == 3:
            print("not testable here: the daemon thread never reached the step")
            return 0
        if os.path.exists(source):
            print("held: the source is back in place after the exit")
            return 0
        holding, doomed = stranded(directory, DATA)
        if not holding:
            print("LOST: the source is gone after the exit and no file holds its data")
            return 1
        if doomed:
            sweep.sweep(directory)
            left = [n for n in os.listdir(directory)]
            print(
                f"LOST: a daemon thread's move_from at exit left the caller's only copy at the "
                f"orphaned placeholder {doomed}, source gone; the sweep then deleted it "
                f"(left after the sweep: {left})"
            )
            return 1
        print(f"held: the data is kept, unowned, at {holding}, a name no sweep matches")
        return 0


if __name__ == "__main__":
    sys.exit(main())

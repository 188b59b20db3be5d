"""A path that is a subclass of ``str`` (a ``str`` by FBD-INIT-5) whose ``startswith`` lies: the
layer asks the value's own methods (``os.path.isabs`` and ``os.path.join`` call ``startswith``)
where the OS reads its text, so the owning constructor owns, and ``close`` deletes, another file
than the one the path's text names (a relative name under the current directory), and
``move_from`` puts the caller's data back into that other directory (FBD-INIT-5: a subclass of
``str`` is a ``str``; FBD-INIT-10: no method of the value is called; FBD-CLOSE-8: the release
never removes another file; FBD-MOVE-5: the source stays at its path).

Exits 1 naming what was deleted or moved elsewhere, 0 when only the named file is touched."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from reference.file_backed import FileBackedData


class LyingPath(str):
    """A ``str`` whose ``startswith`` always says no."""

    def startswith(self, *args: object, **kwargs: object) -> bool:
        return False


def main() -> int:
    root = tempfile.mkdtemp(prefix="attack-lying-")
    here = os.getcwd()
    failures = []
    try:
        named = os.path.join(root, "named", "weights.bin")
        cwd = os.path.join(root, "cwd")
        other = cwd + named  # what the relative reading of the text names
        for path in (named, other):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        for attempt in ("constructor", "move_from"):
            with open(named, "wb") as f:
                f.write(b"named")
            with open(other, "wb") as f:
                f.write(b"other")
            os.chdir(cwd)
            try:
                if attempt == "constructor":
                    FileBackedData(LyingPath(named), cleanup=True).close()
                else:
                    FileBackedData.move_from(LyingPath(named)).close()
            except (OSError, ValueError, TypeError) as exc:
                print(f"{attempt}: raised {type(exc).__name__}")
            finally:
                os.chdir(here)
            if attempt == "constructor" and not os.path.exists(other):
                failures.append(
                    f"the owning constructor of {named!r} owned and close() deleted {other!r}"
                )
            if attempt == "move_from":
                moved = [n for n in os.listdir(os.path.dirname(other)) if ".kept-" in n]
                if moved and not os.path.exists(named):
                    failures.append(
                        f"move_from of {named!r} failed and put the data in another directory, "
                        f"{os.path.dirname(other)!r}: {moved}"
                    )
            for path in (named, other):
                if os.path.exists(path):
                    os.unlink(path)
            for name in os.listdir(os.path.dirname(other)):
                os.unlink(os.path.join(os.path.dirname(other), name))
    finally:
        os.chdir(here)
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        for failure in failures:
            print("STEERED:", failure)
        return 1
    print("held: a lying str subclass touches only the file its text names")
    return 0


if __name__ == "__main__":
    sys.exit(main())

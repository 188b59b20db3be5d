"""A file planted at the weights blob's name before a low-memory export (spec HOOK-MAT-3).

Runs the reference's ``FileBackedAotiBackend.materialize_weights_blob`` over three plants made
before it in the blob's directory, ``<stem>_weights.blob``:

1. a symbolic link to a file of the exporting user's: the export must not write through it;
2. a FIFO: the export must not block opening it (run in a child, killed after 20 s);
3. as root only: a file that ``nobody`` owns in a directory everyone may write in; ``nobody``
   swaps the weights after the export and restores the modification time. The load must not hand
   on the digest of the genuine weights for ``nobody``'s bytes.

Exit status 0 when nothing was followed, hung or steered; 1 with a message for each defect found.
Run from anywhere: ``python docs/attacks/planted_weights_blob.py`` (it imports the reference of the
checkout it is in).
"""

from __future__ import annotations

import hashlib
import os
import select
import shutil
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _common import report

from reference.hooks import CompileSpec, FileBackedAotiBackend, Weights

ON = (CompileSpec("low_memory_mode", b"ON"),)
WEIGHTS = b"the genuine weights " * 4096
NOBODY = 65534
FIFO_SECONDS = 20.0


def materialize(directory: Path) -> str:
    so_path = directory / "model.wrapper.so"
    so_path.write_bytes(b"\x7fELF")
    paths = FileBackedAotiBackend.materialize_weights_blob([str(so_path), Weights([WEIGHTS])], ON)
    assert isinstance(paths, list)
    blob: str = paths[-1]  # as handed on: it carries the digest to the load (HOOK-LOW-2)
    return blob


def blob_of(directory: Path) -> Path:
    return directory / "model.wrapper_weights.blob"


def planted_link(directory: Path) -> str | None:
    victim = directory / "victim.txt"
    victim.write_bytes(b"a file of the exporting user's")
    blob_of(directory).symlink_to(victim)
    try:
        materialize(directory)
    except OSError as exc:
        print(f"  link: refused ({type(exc).__name__}: {exc})")
    if victim.read_bytes() != b"a file of the exporting user's":
        return "the export wrote the weights through a symbolic link planted at the blob's name"
    return None


def planted_fifo(directory: Path) -> str | None:
    os.mkfifo(blob_of(directory))
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            try:
                materialize(directory)
                os.write(write_end, b"written")
            except OSError as exc:
                os.write(write_end, f"refused ({type(exc).__name__}: {exc})".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    ready = select.select([read_end], [], [], FIFO_SECONDS)[0]
    outcome = os.read(read_end, 4096).decode() if ready else ""
    if not ready:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(read_end)
    if not ready:
        return f"the export hung for {FIFO_SECONDS:.0f} s opening a FIFO planted at the blob's name"
    print(f"  FIFO: {outcome}")
    return None


def as_nobody(action: object) -> bool:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            action()  # type: ignore[operator]
            code = 0
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def planted_file_of_another_user() -> str | None:
    if os.geteuid() != 0:
        print("  another user's file: not testable here: acting as nobody needs root")
        return None
    directory = Path(tempfile.mkdtemp(prefix="planted-blob-"))
    try:
        directory.chmod(0o777)
        blob = blob_of(directory)
        assert as_nobody(lambda: blob.write_bytes(b"")), "could not plant as nobody"
        try:
            path = materialize(directory)
        except OSError as exc:
            print(f"  another user's file: refused ({type(exc).__name__}: {exc})")
            return None
        before = os.stat(path)

        def swap() -> None:
            with open(path, "r+b") as f:
                f.write(b"x" * before.st_size)
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

        swapped = as_nobody(swap)
        data, digest = FileBackedAotiBackend.load_weights_blob(path, ON)
        content = data.to_bytes() if hasattr(data, "to_bytes") else bytes(data)  # type: ignore[arg-type]
        data.close()  # type: ignore[union-attr]
        if digest != hashlib.sha256(content).hexdigest():
            return (
                "nobody swapped the weights under a restored stamp and the load handed on the "
                "digest of the genuine weights: the store would key nobody's bytes under it"
            )
        if swapped and content != WEIGHTS:
            print("  another user's file: swapped, but the digest is that of the swapped bytes")
        return None
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main() -> int:
    defects = []
    for name, attack in [("link", planted_link), ("fifo", planted_fifo)]:
        directory = Path(tempfile.mkdtemp(prefix=f"planted-{name}-"))
        try:
            found = attack(directory)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        if found:
            defects.append(found)
    found = planted_file_of_another_user()
    if found:
        defects.append(found)
    return report("planted_weights_blob", defects, "nothing followed, hung or steered")


if __name__ == "__main__":
    sys.exit(main())

"""Tools several direct proofs (``scenario``) of the mutants share: blobs in a temporary
directory, writes over the middle of a buffer, a store filled in one call, failing removals, a
lowering that records what its copy hook and preprocess see, and Cords judged in a child process
allowed few descriptors. Nothing here is broken; each tool runs against any implementation."""

from __future__ import annotations

import contextlib
import copy
import errno
import io
import os
import posix
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from conformance.api import Implementation
from tests.blind._support import child_says, directory, make_file

__all__ = [
    "Program",
    "blob",
    "changed_while_written",
    "cord_under_descriptor_limit",
    "empty_grown_written",
    "lowered",
    "materialized",
    "owned",
    "patched",
    "removal_failure_reported",
    "spoiled_cord_written",
    "store_of",
    "unlink_failing",
    "written_over",
]

CHUNK = 1 << 20
"""The spec's chunk size: a file larger than it is read in more than one piece."""


def blob(impl: Implementation, tmp: str, name: str, data: bytes, **kwargs: Any) -> Any:
    """A file ``name`` holding ``data`` in ``tmp``, wrapped by ``impl.FileBackedData``."""
    return impl.FileBackedData(make_file(os.path.join(tmp, name), data), **kwargs)


def owned(impl: Implementation, tmp: str) -> tuple[Any, str]:
    """An owner of a new file "w" in ``tmp`` holding b"weights", and the path it owns."""
    owner = blob(impl, tmp, "w", b"weights", cleanup=True)
    return owner, impl.path_of(owner)


def written_over(piece: Any, before: bytes = b"0123456789", at: int = 2) -> bytes:
    """What an ``io.BytesIO`` holding ``before`` holds once ``piece`` (a blob or a Cord) is written
    at position ``at``: the spec writes at the position, over what is there, and keeps the rest."""
    out = io.BytesIO(before)
    out.seek(at)
    piece.write_to_file(out)
    return out.getvalue()


def store_of(impl: Implementation, *adds: tuple[str, object]) -> Any:
    """A new store's output once each (key, data) was added in order."""
    store = impl.NamedDataStore()
    for key, data in adds:
        store.add_named_data(key, data)
    return store.get_named_data_store_output()


@contextlib.contextmanager
def patched(owner: object, name: str, replacement: object) -> Iterator[None]:
    """``owner.name`` is ``replacement`` inside the block, and what it was after."""
    real = getattr(owner, name)
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        setattr(owner, name, real)


@contextlib.contextmanager
def unlink_failing(code: int = errno.EIO, took_effect: bool = False) -> Iterator[None]:
    """Every removal of a file by name (``os``'s and ``posix``'s, as a port may call either) fails
    with ``code`` inside the block; with ``took_effect``, after the file is gone."""
    real = posix.unlink

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        if took_effect:
            real(path, *args, **kwargs)
        raise OSError(code, os.strerror(code), path)

    with contextlib.ExitStack() as stack:
        for module in (os, posix):
            for name in ("unlink", "remove"):
                stack.enter_context(patched(module, name, unlink))
        yield


def removal_failure_reported(impl: Implementation) -> str | None:
    """FBD-CLOSE-7: an owner's ``close()`` whose removal fails with EIO raises, and the file stays
    for a retry; the retry (removal working again) removes it."""
    with directory() as tmp:
        owner, path = owned(impl, tmp)
        try:
            with unlink_failing():
                owner.close()
        except OSError:
            failed = None
        else:
            failed = "close() of an owner whose removal failed with EIO returned without an error"
        there = os.path.exists(path)
        with contextlib.suppress(OSError, ValueError):
            owner.close()
        return failed or (None if there else "a failed removal left no file behind")


def empty_grown_written(impl: Implementation, wrap: Callable[[Any], Any]) -> str | None:
    """A blob of an empty file, held by ``wrap(blob)`` (the blob itself, or a Cord of it), is
    written after the file grew: FBD-CHANGE-1 and CORD-WRITE-3 want the write to fail, an empty
    file being checked like any other."""
    with directory() as tmp:
        empty = blob(impl, tmp, "empty", b"")
        held = wrap(empty)
        with open(impl.path_of(empty), "ab") as f:
            f.write(b"grown since")
        out = io.BytesIO()
        try:
            held.write_to_file(out)
        except (OSError, ValueError):
            return None
        return f"an empty file that grew since it was wrapped was written as {out.getvalue()!r}"


def spoiled_cord_written(impl: Implementation, into_file: bool) -> str | None:
    """CORD-WRITE-3: a Cord of a ``bytes`` piece and two file pieces, the last closed, writes
    nothing (into an ``io.BytesIO``, or a file from ``open()`` when ``into_file``)."""
    with directory() as tmp:
        pieces = [blob(impl, tmp, f"p{i}", b"piece %d" % i) for i in range(2)]
        cord = impl.Cord(b"head")
        for piece in pieces:
            cord.append(piece)
        pieces[-1].close()
        target = os.path.join(tmp, "out")
        with open(target, "wb") if into_file else contextlib.nullcontext(io.BytesIO()) as out:
            try:
                cord.write_to_file(out)
            except (OSError, ValueError):
                raised = True
            else:
                raised = False
            written = out.getvalue() if isinstance(out, io.BytesIO) else b""
        if into_file:
            with open(target, "rb") as f:
                written = f.read()
        if not raised:
            return "a Cord whose last file piece is closed was written without an error"
        if written:
            return f"a Cord whose last file piece is closed wrote {written!r} before it raised"
        return None


_CHANGED_SIZE = CHUNK + 4096


def changed_while_written(impl: Implementation, change: Callable[[str], None]) -> str | None:
    """FBD-CHANGE-1: a file of two chunks, changed by ``change(path)`` while its blob is written
    (when the output takes the first chunk), makes the write fail. Its modification time is set
    far back first, so that a change that touches it moves it."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), b"a" * _CHANGED_SIZE)
        os.utime(path, ns=(10**18, 10**18))
        wrapped = impl.FileBackedData(path)
        taken: list[bytes] = []

        class Sink:
            def write(self, data: Any) -> int:
                if not taken:
                    change(path)
                taken.append(bytes(data))
                return len(data)

        try:
            wrapped.write_to_file(Sink())
        except OSError:
            return None
        got = b"".join(taken)
        return (
            f"a file changed while it was written gave no error: {got.count(b'a')} bytes as "
            f"they were, {len(got) - got.count(b'a')} as changed"
        )


def materialized(impl: Implementation, where: str, chunks: Sequence[bytes]) -> str:
    """The blob path the low-memory weights hand on for ``m.wrapper.so`` in ``where``."""
    low_memory = impl.low_memory
    if low_memory is None:
        raise ValueError(f"{impl.name} has no low-memory weights")
    return low_memory.materialize(os.path.join(where, "m.wrapper.so"), chunks)


class Program:
    """A program to lower: a name and the weights mappings a program has."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.state_dict: dict[str, object] = {"weight": [1.0, 2.0]}
        self.constants: dict[str, object] = {}


def lowered(
    impl: Implementation, specs: Sequence[bytes]
) -> tuple[list[tuple[object, object, list[object]]], list[tuple[object, list[object]]], list[Any]]:
    """Lower one method of a submodule per value of ``specs`` (each its own compile spec) with a
    copy hook that deep-copies: (original, copy, specs) per hook call, (program, specs) per
    preprocess call, and the specs made."""
    lowering = impl.lowering
    if lowering is None:
        raise ValueError(f"{impl.name} has no lowering")
    made = [lowering.compile_spec("probe", value) for value in specs]
    hooked: list[tuple[object, object, list[object]]] = []
    seen: list[tuple[object, list[object]]] = []

    def hook(program: object, compile_specs: Sequence[object]) -> object:
        hooked.append((program, copy.deepcopy(program), list(compile_specs)))
        return hooked[-1][1]

    lowering.lower(
        {"forward": [(Program(f"part {i}"), [spec]) for i, spec in enumerate(made)]},
        hook,
        lambda program, compile_specs: seen.append((program, list(compile_specs))),
    )
    return hooked, seen, made


_DESCRIPTORS = """
import io, os, resource, tempfile
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, hard))
with tempfile.TemporaryDirectory() as tmp:
    blobs = []
    for i in range({files}):
        path = os.path.join(tmp, f"p{{i}}")
        with open(path, "wb") as f:
            f.write(b"piece")
        blobs.append(impl.FileBackedData(path))
    cord = impl.Cord(b"head")
    for piece in blobs:
        cord.append(piece)
    if {close_last}:
        blobs[-1].close()
    out = io.BytesIO()
    try:
        cord.write_to_file(out)
        print(f"wrote {{len(out.getvalue())}} bytes")
    except (OSError, ValueError) as exc:
        print(f"raised {{type(exc).__name__}} ({{exc}}) after {{len(out.getvalue())}} bytes")
"""


def cord_under_descriptor_limit(
    impl: Implementation, soft: int, files: int, close_last: bool
) -> str:
    """In a child allowed ``soft`` descriptors: a Cord of ``b"head"`` and ``files`` file pieces
    (the last closed when ``close_last``) written into an ``io.BytesIO``; what the write did."""
    code = _DESCRIPTORS.format(soft=soft, files=files, close_last=close_last)
    return child_says(impl, code) or "the child printed OK"

"""What several mutants' own proofs (``scenario``) share: a fault injected at one ``os`` call, a
read that fails once, a low-memory blob rewritten behind its stamp, a child process whose exit is
judged by what it leaves on disk. Nothing here is broken; each tool runs against any
implementation."""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import os
import posix
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

from conformance.api import Implementation
from tests.blind._support import directory, in_child, make_file, read_file, sha

__all__ = [
    "Action",
    "ReadFault",
    "after_rename",
    "eio",
    "eio_after",
    "empty_then_grown",
    "exit_leaves",
    "failing_read",
    "kept_layout",
    "key_refused",
    "known_digest_after_removal",
    "load_after_rewrite",
    "loaded_hex",
    "materialized",
    "move_under",
    "on_call",
    "raised",
    "refused",
    "restamped",
    "stale_text_load",
]

Action = Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]
"""What an injected call does instead of the real one: given the real function and the arguments."""


def raised(call: Callable[[], object]) -> BaseException | None:
    """The exception ``call`` raised (its traceback dropped, so that no frame of the call keeps an
    object alive), or None when it returned."""
    try:
        call()
    except BaseException as exc:  # an interrupt or exit is an outcome to judge here
        return exc.with_traceback(None)
    return None


def eio(real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """An injected ``EIO`` in place of the call, which does not happen."""
    raise OSError(errno.EIO, "injected I/O error", args[0] if args else None)


@contextlib.contextmanager
def on_call(
    names: tuple[str, ...],
    action: Action,
    when: Callable[[tuple[Any, ...]], bool] = lambda args: True,
    once: bool = True,
) -> Iterator[list[tuple[Any, ...]]]:
    """``os.<name>`` (and ``posix.<name>``, the same function) for each of ``names`` doing
    ``action`` at its first call whose arguments ``when`` accepts (at every such call unless
    ``once``), looked up at call time as any implementation's call is; the block gets the list of
    the arguments of the calls it changed."""
    hits: list[tuple[Any, ...]] = []
    with contextlib.ExitStack() as patches:
        for name in names:
            real = getattr(os, name)

            def call(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
                if (once and hits) or not when(args):
                    return _real(*args, **kwargs)
                hits.append(args)
                return action(_real, args, kwargs)

            patches.enter_context(mock.patch.object(os, name, call))
            if getattr(posix, name, None) is real:
                patches.enter_context(mock.patch.object(posix, name, call))
        yield hits


def eio_after(real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The call, taking effect, and then an injected ``EIO`` (as a network filesystem can)."""
    real(*args, **kwargs)
    eio(real, args, kwargs)


@contextlib.contextmanager
def after_rename(
    names: tuple[str, ...],
    action: Action,
    meanwhile: Callable[[tuple[Any, ...]], None] = lambda args: None,
) -> Iterator[list[tuple[Any, ...]]]:
    """The first call of ``names`` after a rename (``os.replace`` or ``os.rename``) took effect
    does ``action``; ``meanwhile(the rename's arguments)`` runs just after the rename."""
    renamed: list[tuple[Any, ...]] = []

    def rename(real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = real(*args, **kwargs)
        meanwhile(args)
        renamed.append(args)
        return result

    with on_call(("replace", "rename"), rename), on_call(names, action, lambda _: bool(renamed)):
        yield renamed


def move_under(
    impl: Implementation,
    fault: contextlib.AbstractContextManager[list[tuple[Any, ...]]],
    expected: type[BaseException],
) -> str | None:
    """``move_from`` of a file under ``fault``: it must raise ``expected`` (an ``OSError`` with
    ``EIO``, for an injected one), leaving the file at its path with its data and nothing else in
    its directory (FBD-FAULT-1, FBD-MOVE-4, FBD-MOVE-5)."""
    with directory() as tmp:
        source = make_file(os.path.join(tmp, "weights.bin"), b"the only copy of the weights")
        with fault as hits:
            error = raised(lambda: impl.FileBackedData.move_from(source).close())
        if not hits:
            raise RuntimeError("move_from made none of the calls the fault was injected at")
        left = {name: read_file(os.path.join(tmp, name)) for name in sorted(os.listdir(tmp))}
        if left != {"weights.bin": b"the only copy of the weights"}:
            done = "returned an owner" if error is None else f"raised {error!r}"
            return f"move_from under a fault {done}, and left in the directory {left!r}"
        code = getattr(error, "errno", errno.EIO) if expected is OSError else errno.EIO
        if not isinstance(error, expected) or code != errno.EIO:
            return f"move_from under a fault raised {error!r}, not the {expected.__name__}"
        return None


def refused(
    call: Callable[[], object],
    expected: type[BaseException] | tuple[type[BaseException], ...],
    what: str,
    naming: str | None = None,
    code: int | None = None,
) -> str | None:
    """None when ``call`` raises ``expected``, whose message holds ``naming`` and whose
    ``errno`` is ``code`` when given; else a line saying what ``what`` did instead."""
    error = raised(call)
    if (
        isinstance(error, expected)
        and (naming is None or naming in str(error))
        and (code is None or getattr(error, "errno", None) == code)
    ):
        return None
    kinds = expected if isinstance(expected, tuple) else (expected,)
    wanted = " or ".join(kind.__name__ for kind in kinds)
    if naming is not None:
        wanted += f" naming {naming!r}"
    if code is not None:
        wanted += f" with {errno.errorcode.get(code, code)}"
    return f"{what} gave {error!r}, not {wanted}"


class ReadFault:
    """The first read of a file's data, through a file ``open`` made for reading or an
    ``os.read``-like call, fails with ``EIO``."""

    def __init__(self) -> None:
        self.fired = False

    def fire(self) -> None:
        if not self.fired:
            self.fired = True
            raise OSError(errno.EIO, "injected read error")


class _FailingFile(io.FileIO):
    fault: ReadFault

    def readinto(self, buffer: Any) -> int | None:
        self.fault.fire()
        return super().readinto(buffer)

    def read(self, size: int | None = -1) -> bytes:
        self.fault.fire()
        return super().read(size)

    def readall(self) -> bytes:
        self.fault.fire()
        return super().readall()


@contextlib.contextmanager
def failing_read() -> Iterator[ReadFault]:
    """While the block runs, the first read of file data fails with ``EIO`` (see ``ReadFault``)."""
    fault = ReadFault()
    real_open = builtins.open

    def opening(file: Any, mode: str = "r", buffering: int = -1, *args: Any, **kwargs: Any) -> Any:
        if mode not in ("rb", "br") or args or set(kwargs) - {"closefd", "opener"}:
            return real_open(file, mode, buffering, *args, **kwargs)
        raw = _FailingFile(file, "rb", **kwargs)
        raw.fault = fault
        return raw if buffering == 0 else io.BufferedReader(raw)

    def reading(real: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        fault.fire()
        return real(*args, **kwargs)

    reads = ("read", "readv", "pread", "preadv")
    with mock.patch.object(builtins, "open", opening), on_call(reads, reading):
        yield fault


def empty_then_grown(impl: Implementation, read: Callable[[Any], object], what: str) -> str | None:
    """A blob of an empty file that has since grown: ``read`` of it must raise an ``OSError``
    (FBD-CHANGE-1), not answer as if the file were still empty."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "empty"), b"")
        blob = impl.FileBackedData(path)
        make_file(path, b"grown since")
        error = raised(lambda: read(blob))
        if not isinstance(error, OSError):
            return f"{what} of an empty file that has since grown raised {error!r}, no OSError"
        return None


def known_digest_after_removal(impl: Implementation, supplied: bool) -> str | None:
    """A digest known (supplied, or computed once) answers again with no read, also when the
    file is gone since (FBD-HASH-2, FBD-MOVE-7)."""
    data = b"weights hashed once"
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), data)
        blob = impl.FileBackedData(path, sha256=sha(data) if supplied else None)
        first = blob.sha256()
        os.remove(path)
        digests: list[bytes] = []
        error = raised(lambda: digests.append(blob.sha256()))
        how = "supplied" if supplied else "computed"
        if error is not None or digests != [first]:
            return f"sha256() of a {how} digest, its file removed since, gave {error or digests!r}"
        return None


def materialized(impl: Implementation, tmp: str, data: bytes) -> str:
    """The blob ``impl``'s low-memory ``materialize`` wrote of ``data`` in ``tmp``, as handed on."""
    assert impl.low_memory is not None, f"{impl.name} has no low-memory weights"
    return impl.low_memory.materialize(os.path.join(tmp, "model.wrapper.so"), [data])


def loaded_hex(impl: Implementation, blob_path: str) -> str:
    """The hex digest low-memory ``load`` gives ``blob_path``; the owner it gets is closed."""
    assert impl.low_memory is not None, f"{impl.name} has no low-memory weights"
    data, hexdigest = impl.low_memory.load(blob_path)
    close = getattr(data, "close", None)
    if callable(close):
        close()
    return hexdigest


def key_refused(impl: Implementation, key: object, what: str, naming: str) -> str | None:
    """NDS-ADD-6, NDS-ADD-9: adding under ``key``, no ``str``, raises ``TypeError`` whose message
    holds ``naming``, whatever the key's own methods do."""
    store = impl.NamedDataStore()
    return refused(lambda: store.add_named_data(key, b"weights"), TypeError, what, naming)


def load_after_rewrite(
    impl: Implementation, rewrite: Callable[[str, os.stat_result], None], how: str
) -> str | None:
    """HOOK-LOW-4: a blob rewritten between materialize and load (``rewrite(path, its status)``)
    is loaded with the digest of what it holds then."""
    with directory() as tmp:
        path = materialized(impl, tmp, b"weights as written")
        rewrite(path, os.stat(path))
        now = read_file(path)
        if loaded_hex(impl, path) != sha(now).hex():
            return f"a blob {how} between materialize and load was loaded with a stale digest"
        return None


def kept_layout(store: Any, how: str) -> str | None:
    """Whether the entry ``w`` of ``store`` kept the ``tensor_layout`` ``"layout"`` it came with
    (NDS-ADD-7, NDS-MERGE-1): None, or what it has instead."""
    layout = store.get_named_data_store_output().pte_data["w"].tensor_layout
    return None if layout == "layout" else f"a key {how} tensor_layout 'layout' has {layout!r}"


def restamped(path: str, data: bytes, mtime_ns: int | None = None) -> None:
    """Rewrite ``path`` in place (same inode) with ``data``, then stamp it ``mtime_ns`` (its
    modification time before the rewrite when None: a change its stamp does not show)."""
    st = os.stat(path)
    with open(path, "r+b") as f:
        f.write(data)
        f.truncate(len(data))
    stamp = st.st_mtime_ns if mtime_ns is None else mtime_ns
    os.utime(path, ns=(st.st_atime_ns, stamp))
    if os.stat(path).st_mtime_ns != stamp:  # a coarser clock: what the proof needs is not there
        raise RuntimeError(f"the filesystem of {path!r} does not keep the stamp {stamp} ns")


def stale_text_load(impl: Implementation, first: Callable[[str], str] | None) -> str | None:
    """HOOK-LOW-2, HOOK-LOW-4: a digest travels with the path object ``materialize`` returned, or
    with state that ends with its load. A materialized blob, loaded first through
    ``first(the path returned)`` when given (and then put back as the same inode), then rewritten
    behind its stamp, and loaded by its path's text alone: that load has no digest handed on, so
    it must hash what is there."""
    old, new = b"weights as written", b"WEIGHTS AS WRITTEN"
    with directory() as tmp:
        returned = materialized(impl, tmp, old)
        text = str.__str__(returned)
        keep = os.path.join(tmp, "same inode")
        os.link(text, keep)
        if first is not None:
            loaded_hex(impl, first(returned))
            os.rename(keep, text)
        restamped(text, new)
        if loaded_hex(impl, text) != sha(new).hex():
            before = f"loaded before as {first(returned)!r}" if first else "never loaded before"
            return (
                f"a load given only the blob path's text ({before}) used a digest kept in "
                "process-wide state: stale for the blob rewritten since"
            )
        return None


def exit_leaves(impl: Implementation, tmp: str, code: str) -> tuple[list[str], str]:
    """Run ``code`` in a child with ``tmp`` defined and let it exit: the names left in ``tmp``
    afterwards, and what the child printed. A child that fails raises."""
    done = in_child(impl, f"tmp = {tmp!r}\n{code}")
    if done.returncode != 0:
        raise RuntimeError(f"the child exited with {done.returncode}: {done.stderr[-500:]}")
    return sorted(os.listdir(tmp)), done.stdout.strip()

"""What the broken implementations share: adapters of their hooks, the small tools their
scenarios use (temporary directories, files, read and memory accounting, child processes), and the
cases several scenarios set up and judge alike."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import subprocess
import sys
import tempfile
import textwrap
import tracemalloc
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar, cast

from conformance.api import Implementation
from reference import hooks

T = TypeVar("T")
_LOW_MEMORY = (hooks.CompileSpec(hooks.LOW_MEMORY_MODE, b"ON"),)
_names = itertools.count()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def low_memory_backend(blob_class: type) -> type[hooks.FileBackedAotiBackend]:
    """The reference's low-memory backend, taking blobs over with ``blob_class``: the reference's
    own load (its digest handed on, the file given back when the take-over fails or is
    interrupted), so that a broken ``FileBackedData`` fails only what its own bug breaks."""
    return type("Backend", (hooks.FileBackedAotiBackend,), {"blob_class": blob_class})


class LowMemory:
    """The ``LowMemoryWeights`` of a low-memory backend class (the reference adapter's, for any
    backend)."""

    def __init__(self, backend: type[hooks.FileBackedAotiBackend]) -> None:
        self.backend = backend

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        paths = self.backend.materialize_weights_blob([so_path, hooks.Weights(chunks)], _LOW_MEMORY)
        if not isinstance(paths, list):
            raise TypeError(f"materialize_weights_blob returned {paths!r}, not a list of paths")
        return next(p for p in paths if isinstance(p, str) and p.endswith(".blob"))

    def load(self, blob_path: str) -> tuple[object, str]:
        return self.backend.load_weights_blob(blob_path, _LOW_MEMORY)

    def mode(self, values: Sequence[bytes]) -> bool:
        return hooks.is_low_memory_mode(hooks.CompileSpec(hooks.LOW_MEMORY_MODE, v) for v in values)


@contextlib.contextmanager
def directory() -> Iterator[str]:
    """A fresh temporary directory, its real path (no link on the way)."""
    with tempfile.TemporaryDirectory(prefix="cordspec-blind-") as path:
        yield os.path.realpath(path)


@contextlib.contextmanager
def wrapped(impl: Implementation, data: bytes, **kwargs: object) -> Iterator[tuple[str, Any]]:
    """In a fresh directory (``directory``), a file ``w`` holding ``data``: its path, and a blob of
    ``impl`` made over it with ``kwargs``."""
    with directory() as tmp:
        path = make_file(os.path.join(tmp, "w"), data)
        yield path, impl.FileBackedData(path, **kwargs)


@contextlib.contextmanager
def linked(data: bytes) -> Iterator[tuple[str, str]]:
    """In a fresh directory (``directory``), a file ``data`` holding ``data`` and a symbolic link
    ``link`` to it: their paths."""
    with directory() as tmp:
        target = make_file(os.path.join(tmp, "data"), data)
        link = os.path.join(tmp, "link")
        os.symlink(target, link)
        yield target, link


def read_as_blob(blob: Any, what: str) -> str | None:
    """None when ``blob.to_bytes()`` raises ``OSError``, as a read of ``what`` (a file that is no
    longer the blob's) must; else what it read."""
    try:
        data = blob.to_bytes()
    except OSError:
        return None
    return f"{what} was read as the blob: {data!r}"


def accepted(make: Callable[[], Any], refusal: type[Exception]) -> bool:
    """Whether ``make()`` returned a blob rather than raising ``refusal``; the blob is closed."""
    try:
        blob = make()
    except refusal:
        return False
    blob.close()
    return True


def make_file(path: str, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return path


def read_file(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def read_hashed(path: str) -> tuple[bytes, str]:
    """A blob file's bytes and their hex SHA-256, as ``load_weights_blob`` returns them; the file
    is left where it is."""
    data = read_file(path)
    return data, hashlib.sha256(data).hexdigest()


def prefix_wrong(impl: Implementation, data: bytes, size: int, expected: bytes) -> str | None:
    """What is wrong with ``prefix(size)`` of a blob of ``impl`` over ``data``: it raised, or gave
    other than ``expected``; None when nothing is. The blob is closed."""
    with wrapped(impl, data) as (_, blob):
        try:
            got = blob.prefix(size)
        except Exception as exc:
            return f"prefix({size}) of a {len(data)}-byte blob raised {exc!r}"
        finally:
            blob.close()
    return None if got == expected else f"prefix({size}) of a {len(data)}-byte blob gave {got!r}"


def externalize_refused(impl: Implementation, cap: object) -> str | None:
    """What is wrong with ``externalize_pte_data(cap, ...)`` on a new store of ``impl`` holding key
    ``"w"`` inline (one byte, within any cap of one or more): it was accepted, or refused otherwise
    than with a ``ValueError``, or the refusal changed the store; None when nothing is."""
    store = impl.NamedDataStore()
    store.add_named_data("w", b"x")
    try:
        store.externalize_pte_data(cap, "shard")
    except ValueError:
        if "w" not in store.get_named_data_store_output().pte_data:
            return f"a refused externalize (cap {cap!r}) changed the store"
        return None
    except TypeError:
        return f"a shard cap of {cap!r} raised TypeError, not ValueError"
    return f"externalize_pte_data accepted {cap!r} as the shard cap"


def alignment_stored(impl: Implementation, alignment: object, stored: int) -> str | None:
    """What is wrong with adding key ``"k"`` inline with ``alignment`` to a new store of ``impl``:
    refused (``ValueError`` or ``TypeError``), or stored with another alignment than ``stored``;
    None when nothing is."""
    store = impl.NamedDataStore()
    try:
        store.add_named_data("k", b"abc", alignment)
    except (ValueError, TypeError) as exc:
        return f"alignment {alignment!r} was refused: {exc!r}"
    got = store.get_named_data_store_output().pte_data["k"].alignment
    return None if got == stored else f"alignment {alignment!r} was stored as {got!r}"


def inline_then_tagged(impl: Implementation, first: bytes, second: bytes) -> tuple[Any, bool]:
    """Add key ``"k"`` inline with ``first``, then under tag ``"t"`` with ``second``, to a new store
    of ``impl``: the store's output, and whether the second add was refused (``ValueError``)."""
    store = impl.NamedDataStore()
    store.add_named_data("k", first)
    try:
        store.add_named_data("k", second, external_tag="t")
    except ValueError:
        return store.get_named_data_store_output(), True
    return store.get_named_data_store_output(), False


def append_refused(impl: Implementation, value: object, name: str) -> str | None:
    """What is wrong with appending ``value`` to a Cord of ``impl`` holding ``b"ab"``: it was
    accepted, or refused with a ``TypeError`` that does not name ``name`` (the type), or the
    refusal changed the Cord; None when nothing is."""
    cord = impl.Cord(b"ab")
    try:
        cord.append(value)
    except TypeError as exc:
        if name not in str(exc):
            return f"appending a {name} raised a TypeError that does not name it: {exc}"
        return None if len(cord) == 2 else f"a refused {name} changed the Cord's length"
    return f"a {name} was appended: the Cord's length is now {len(cord)}"


def merge_refused(impl: Implementation, other: object, key: str, what: str) -> str | None:
    """What is wrong with merging ``other`` into a new store of ``impl``: it was accepted (as
    ``what``), or refused with a ``ValueError`` that does not name ``key``, or the refusal changed
    the store; None when nothing is."""
    store = impl.NamedDataStore()
    try:
        store.merge_named_data_store(other)
    except ValueError as exc:
        if repr(key) not in str(exc):
            return f"the ValueError does not name the key {key!r}: {exc}"
        if store.get_named_data_store_output().buffers:
            return "a refused merge changed the store"
        return None
    return f"{what} was merged without an error"


def flag_refused(impl: Implementation, value: bytes) -> str | None:
    """None when ``low_memory_mode`` ``value`` (neither ON nor OFF) raises ``ValueError``; else
    how it was read."""
    assert impl.low_memory is not None
    try:
        on = impl.low_memory.mode([value])
    except ValueError:
        return None
    return f"low_memory_mode {value!r} was read as {'ON' if on else 'OFF'}"


def bytes_read() -> int:
    """Bytes this process has read through ``read``-like system calls (Linux ``rchar``)."""
    with open("/proc/self/io", "rb") as f:
        for line in f:
            if line.startswith(b"rchar:"):
                return int(line.split()[1])
    raise OSError("no rchar in /proc/self/io")


def read_cost(action: Callable[[], object]) -> int:
    """Bytes read by ``action`` (with the few hundred of reading ``/proc/self/io`` once)."""
    before = bytes_read()
    action()
    return bytes_read() - before


def peak_memory(action: Callable[[], object]) -> int:
    """The most memory Python held during ``action`` above what it held before."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        action()
        _, peak = tracemalloc.get_traced_memory()
        return peak - base
    finally:
        if not tracing:
            tracemalloc.stop()


def in_child(
    impl: Implementation, code: str, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh Python process where ``impl`` is loaded again by its target as
    ``impl``; its stdout, stderr and status come back."""
    if impl.target is None:
        raise ValueError(f"{impl.name} cannot be loaded again in a child process")
    prelude = (
        "from conformance.adapters import load_implementation\n"
        f"impl = load_implementation({impl.target!r})\n"
    )
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
        check=False,
    )


def forked_says(action: Callable[[], str]) -> str:
    """What ``action()`` returns in a child made by ``fork``, which then leaves at once, without
    clean-up (nothing when ``action`` raises)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, action().encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        said = f.read()
    os.waitpid(pid, 0)
    return said


def child_says(impl: Implementation, code: str, timeout: float = 30) -> str | None:
    """Run ``code`` in a child (``in_child``); it prints ``OK`` when it saw no violation, or a
    description of the one it saw. A child that fails otherwise is a violation too."""
    try:
        done = in_child(impl, code, timeout)
    except subprocess.TimeoutExpired:
        return f"the child process did not finish within {timeout} s"
    out = done.stdout.strip()
    if done.returncode != 0:
        return f"the child exited with status {done.returncode}: {out} {done.stderr.strip()[-500:]}"
    return None if out == "OK" else out


class Weights:
    """The ``WeightsHooks`` and ``WeightsStore`` of a backend class (the reference adapter's, for
    any backend)."""

    def __init__(self, backend: type[hooks.AotiBackend]) -> None:
        self.backend = backend

    def materialize(self, paths: T, compile_specs: Sequence[object]) -> T:
        specs = tuple(cast(hooks.CompileSpec, s) for s in compile_specs)
        return cast(T, self.backend.materialize_weights_blob(paths, specs))

    def load(self, blob_path: str, compile_specs: Sequence[object]) -> tuple[object, str]:
        specs = tuple(cast(hooks.CompileSpec, s) for s in compile_specs)
        return self.backend.load_weights_blob(blob_path, specs)

    def store(self, blob_path: str, store: Any) -> str:
        return self.backend.store_weights_blob(blob_path, (), store)

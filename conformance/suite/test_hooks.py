"""Backend hooks: the program copy before preprocess, and weights blobs (spec section 5)."""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

import pytest

from conformance.api import (
    FileBackedData,
    Implementation,
    Lowering,
)
from conformance.harness.checks import check
from conformance.harness.gc_freeze import all_objects
from conformance.harness.helpers import Blobs, content
from conformance.harness.measure import MiB, bytes_read, peak_memory
from conformance.harness.torch_program import (
    NO_TORCH,
    exported_program,
    program_shape,
    torch_missing,
)
from conformance.run.report import NOT_APPLICABLE_PREFIX

clause = pytest.mark.clause
requires = pytest.mark.requires

H = TypeVar("H")
LARGE = 64 * MiB
HOOK_MEMORY_BOUND = 32 * MiB
"""Half of LARGE: holding the blob exceeds it; streaming in bounded chunks stays below it, even
ExecuTorch's 8 MiB hashing chunks (FBD-HASH-3), which peak at 16 MiB with the read buffer."""
HOOK_READ_BOUND = 8 * MiB  # an eighth of LARGE: rereading the blob would exceed it eightfold
BLOB_ALIGNMENT = 64
"""AOTInductor's ``ALIGN_BYTES``: host-resident weights are zero-padded to it (HOOK-BLOB-1)."""
HANDED_ON = ("FBD-MOVE-1", "FBD-MOVE-7")
"""What a digest handed to ``move_from`` saves a read by: it reads nothing, and uses the digest."""
TAKEN_OVER = ("FBD-MOVE-1", "FBD-MOVE-6", "FBD-CLOSE-1", "FBD-HASH-1")
"""What a blob taken over with ``move_from`` is seen by: the path gone, the same inode, closing
the object deletes the file (HOOK-LOW-1 is defined by ``move_from``); the load's digest is the
object's ``sha256()``, in hex."""


def _hook(hook: H | None) -> H:
    """One of the implementation's hooks, which the test's ``requires`` mark says it has."""
    assert hook is not None
    return hook


def _check_loads_as(
    impl: Implementation, blobs: Blobs, blob_path: str, now: bytes, why: str
) -> None:
    """The low-memory load of ``blob_path`` gives the digest of ``now``, what it holds now (else
    ``why``), and an object of the same digest."""
    data, digest = _hook(impl.low_memory).load(blob_path)
    blob = blobs.track(cast(FileBackedData, data))
    expected = hashlib.sha256(now).hexdigest()
    assert digest == expected, why
    assert blob.sha256().hex() == expected


def _program(name: str) -> dict[str, Any]:
    """A stand-in program: nested mutable containers, as a graph and its state are."""
    return {
        "name": name,
        "graph": [{"op": "linear", "args": [1, 2]}, {"op": "relu", "args": []}],
        "state": {"weight": [0.5, 1.5], "bias": [0.0]},
    }


class _Submodule:
    """A submodule to lower: a program object distinct from every other, with its own specs."""

    def __init__(self, lowering: Lowering, method: str, index: int) -> None:
        self.program = _program(f"{method}/{index}")
        self.specs = [
            lowering.compile_spec("partition", f"{method}/{index}".encode()),
            lowering.compile_spec("method", method.encode()),
        ]


def _submodules(lowering: Lowering) -> dict[str, list[_Submodule]]:
    """Two methods with two submodules each, every one with distinct compile specs."""
    return {m: [_Submodule(lowering, m, i) for i in range(2)] for m in ("forward", "decode")}


def _lower_input(subs: dict[str, list[_Submodule]]) -> dict[str, list[tuple[object, list[object]]]]:
    return {m: [(s.program, s.specs) for s in ss] for m, ss in subs.items()}


class _Undeepcopyable:
    """A program the default hook cannot copy: proof that an override ran instead."""

    def __deepcopy__(self, memo: dict[int, object]) -> NoReturn:
        raise AssertionError("the default deep-copy hook ran")


class _Copied:
    """What the probe hook returns for a program."""

    def __init__(self, program: object) -> None:
        self.program = program


class _FalsyCopy(_Copied):
    """A copy that is false, as an empty container is: not "nothing returned"."""

    def __bool__(self) -> bool:
        return False

    def __len__(self) -> int:
        return 0


class _EqualCopy(_Copied):
    """A copy that says it equals anything, the original program among them."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = _Copied.__hash__


COPIES: dict[str, Callable[[object], _Copied]] = {
    "a-copy": _Copied,
    "falsy": _FalsyCopy,
    "equal-to-its-program": _EqualCopy,
}
"""What a copy hook may return, each of which preprocess gets by identity (HOOK-COPY-3): whether
the object is false or equal to another never decides it."""


# --- 5.1 program copy --------------------------------------------------------------------------


@requires("copy-hook")
@pytest.mark.hooks
class TestProgramCopy:
    @clause("HOOK-COPY-1")
    def test_default_is_a_deep_copy(self, impl: Implementation) -> None:
        lowering = _hook(impl.lowering)
        original = _program("forward/0")
        pristine = _program("forward/0")
        copied = lowering.default_copy(original, [lowering.compile_spec("k", b"v")])
        assert copied is not original
        assert copied == original
        assert copied["graph"] is not original["graph"]
        assert copied["graph"][0] is not original["graph"][0]
        assert copied["state"]["weight"] is not original["state"]["weight"]
        copied["graph"][0]["args"].append(3)
        copied["graph"].append({"op": "added"})
        copied["state"]["weight"][0] = -1.0
        copied["state"]["extra"] = [9]
        copied["name"] = "changed"
        assert original == pristine

    @clause("HOOK-COPY-1")
    def test_lowering_with_the_default_leaves_the_original(self, impl: Implementation) -> None:
        lowering = _hook(impl.lowering)
        subs = _submodules(lowering)
        pristine = {m: [_program(f"{m}/{i}") for i in range(2)] for m in subs}
        received: list[object] = []

        def preprocess(program: object, compile_specs: Sequence[object]) -> None:
            received.append(program)
            changed = cast(dict[str, Any], program)
            changed["graph"].clear()
            changed["state"]["weight"][0] = -1.0

        lowering.lower(_lower_input(subs), None, preprocess)
        assert len(received) == 4
        originals = [s.program for ss in subs.values() for s in ss]
        assert not any(r is o for r in received for o in originals)
        assert {m: [s.program for s in ss] for m, ss in subs.items()} == pristine

    @clause("HOOK-COPY-2")
    @pytest.mark.lowering
    def test_called_once_per_submodule_with_its_own_specs(self, impl: Implementation) -> None:
        lowering = _hook(impl.lowering)
        subs = _submodules(lowering)
        calls: list[tuple[object, list[object]]] = []

        def copy_hook(program: object, compile_specs: Sequence[object]) -> object:
            calls.append((program, list(compile_specs)))
            return _Copied(program)

        lowering.lower(_lower_input(subs), copy_hook, lambda program, specs: None)
        every = [s for ss in subs.values() for s in ss]
        assert len(calls) == len(every)
        for sub in every:
            mine = [specs for program, specs in calls if program is sub.program]
            assert len(mine) == 1, f"{sub.program['name']}: copied {len(mine)} times"
            assert mine[0] == sub.specs

    @clause("HOOK-COPY-3")
    @pytest.mark.lowering
    @pytest.mark.parametrize("returned", list(COPIES))
    def test_preprocess_receives_exactly_the_copies(
        self, impl: Implementation, returned: str
    ) -> None:
        lowering = _hook(impl.lowering)
        subs = _submodules(lowering)
        made: list[tuple[_Copied, list[object]]] = []
        received: list[tuple[object, list[object]]] = []

        def copy_hook(program: object, compile_specs: Sequence[object]) -> object:
            copied = COPIES[returned](program)
            made.append((copied, list(compile_specs)))
            return copied

        def preprocess(program: object, compile_specs: Sequence[object]) -> None:
            received.append((program, list(compile_specs)))

        lowering.lower(_lower_input(subs), copy_hook, preprocess)
        assert len(received) == len(made) == 4
        for copied, specs in made:
            got = [s for program, s in received if program is copied]
            assert got == [specs], (
                f"{copied.program!r}: preprocess got the {returned} object its copy hook returned "
                f"{len(got)} time(s)"
            )
        every = {id(s.program): s.specs for ss in subs.values() for s in ss}
        for copied, specs in made:
            assert specs == every[id(copied.program)]

    @clause("HOOK-COPY-4")
    @pytest.mark.lowering
    def test_an_override_replaces_the_default(self, impl: Implementation) -> None:
        lowering = _hook(impl.lowering)
        compile_spec = lowering.compile_spec("k", b"v")
        program = _Undeepcopyable()
        with pytest.raises(AssertionError, match="default deep-copy hook ran"):
            lowering.default_copy(program, [compile_spec])  # the premise: it cannot copy it
        calls: list[object] = []
        received: list[object] = []

        def copy_hook(program: object, compile_specs: Sequence[object]) -> object:
            calls.append(program)
            return _Copied(program)

        lowering.lower(
            {"forward": [(program, [compile_spec])], "decode": [(program, [compile_spec])]},
            copy_hook,
            lambda program, specs: received.append(program),
        )
        assert calls == [program, program]
        assert [cast(_Copied, r).program for r in received] == [program, program]


class _Exported:
    """A stand-in for an exported program as a backend's copy hook sees it: a graph, a graph
    signature and the mappings of its tensors (``state_dict``, ``constants``)."""

    def __init__(self) -> None:
        self.graph: list[dict[str, Any]] = [{"op": "linear", "args": ["w", "b"]}, {"op": "relu"}]
        self.graph_signature: dict[str, list[str]] = {"parameters": ["w", "b"], "buffers": []}
        self.state_dict: dict[str, object] = {"w": bytearray(b"weights"), "b": bytearray(b"bias")}
        self.constants: dict[str, object] = {"c": bytearray(b"constant")}

    def shape(self) -> tuple[object, ...]:
        """Everything the copy must keep independent, as plain values."""
        return (
            [dict(n, args=list(n.get("args", []))) for n in self.graph],
            {k: list(v) for k, v in self.graph_signature.items()},
            sorted(self.state_dict),
            sorted(self.constants),
        )


@requires("copy-hook")
@pytest.mark.hooks
class TestCopyKeepsTheProgram:
    @clause("HOOK-COPY-5")
    @pytest.mark.parametrize("low_memory", [False, True], ids=["default-mode", "low-memory"])
    def test_changes_through_the_copy_never_reach_the_original(
        self, impl: Implementation, low_memory: bool
    ) -> None:
        lowering = _hook(impl.lowering)
        specs = [lowering.compile_spec("low_memory_mode", b"ON")] if low_memory else []
        original = _Exported()
        before = original.shape()
        tensors = {**original.state_dict, **original.constants}
        copied = lowering.default_copy(original, specs)
        assert copied is not original
        assert copied.shape() == before, "the copy is not the program"
        copied.graph.append({"op": "to_device"})
        copied.graph[0]["args"].append("extra")
        copied.graph_signature["buffers"].append("kv_cache")
        copied.state_dict["w"] = bytearray(b"moved to the device")
        del copied.state_dict["b"]
        copied.constants["new"] = bytearray(b"added")
        assert original.shape() == before, "a change through the copy reached the original"
        assert {**original.state_dict, **original.constants} == tensors
        assert all(original.state_dict[k] is tensors[k] for k in original.state_dict)

    @clause("HOOK-COPY-5")
    @pytest.mark.parametrize("low_memory", [False, True], ids=["default-mode", "low-memory"])
    def test_a_real_exported_program_is_kept(self, impl: Implementation, low_memory: bool) -> None:
        """The same, on a ``torch.export`` program: its graph module, signature and mappings."""
        if torch_missing():
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}{NO_TORCH}")
        lowering = _hook(impl.lowering)
        specs = [lowering.compile_spec("low_memory_mode", b"ON")] if low_memory else []
        original = exported_program()
        before = program_shape(original)
        tensors = {**original.state_dict, **original.constants}
        copied = lowering.default_copy(original, specs)
        assert copied is not original
        assert program_shape(copied) == before, "the copy is not the program"
        graph = copied.graph_module.graph
        first = next(iter(graph.nodes))
        with graph.inserting_after(first):
            graph.call_function(abs, (first,))
        copied.graph_signature.input_specs.append(copied.graph_signature.input_specs[0])
        weight, bias = sorted(k for k in copied.state_dict if k.startswith("linear."))[::-1][:2]
        copied.state_dict[weight] = copied.state_dict[weight] * 0
        del copied.state_dict[bias]
        copied.constants["added"] = next(iter(tensors.values()))
        assert program_shape(original) == before, "a change through the copy reached the original"
        kept = {**original.state_dict, **original.constants}
        assert kept.keys() == tensors.keys() and all(kept[k] is tensors[k] for k in kept)


# --- 5.2 weights blob: default hooks -----------------------------------------------------------


@requires("weights-hooks")
@pytest.mark.hooks
class TestDefaultWeightsHooks:
    @clause("HOOK-MAT-1")
    @pytest.mark.parametrize("with_specs", [False, True], ids=["no-specs", "specs"])
    def test_materialize_returns_paths_unchanged(
        self, impl: Implementation, tmp_path: Path, with_specs: bool
    ) -> None:
        so_path = tmp_path / "model.wrapper.so"
        so_path.write_bytes(b"\x7fELF")
        paths: list[object] = [str(so_path), str(tmp_path / "model_weights.blob")]
        snapshot = list(paths)
        specs: list[object] = []
        if with_specs and impl.lowering is not None:
            specs = [impl.lowering.compile_spec("low_memory_mode", b"OFF")]
        assert _hook(impl.weights).materialize(paths, specs) is paths
        assert paths == snapshot

    @clause("HOOK-LOAD-1")
    @pytest.mark.parametrize("size", [0, 1, MiB + 7], ids=["empty", "one-byte", "1MiB+7"])
    def test_load_returns_bytes_and_hex_digest_and_removes_the_blob(
        self, impl: Implementation, tmp_path: Path, size: int
    ) -> None:
        contents = (hashlib.sha256(b"weights").digest() * (size // 32 + 1))[:size]
        blob = tmp_path / "model_weights.blob"
        blob.write_bytes(contents)
        data, digest = _hook(impl.weights).load(str(blob), [])
        assert type(data) is bytes
        assert data == contents
        assert digest == hashlib.sha256(contents).hexdigest()
        assert re.fullmatch(r"[0-9a-f]{64}", digest), digest
        assert not blob.exists()


@requires("weights-key")
@pytest.mark.hooks
class TestWeightsKey:
    @clause("HOOK-LOAD-2")
    def test_stored_under_hex_digest_key(self, impl: Implementation, tmp_path: Path) -> None:
        store = impl.NamedDataStore()
        expected: dict[str, bytes] = {}
        for n, contents in enumerate([b"partition one weights", b"partition two weights"]):
            blob = tmp_path / f"p{n}_weights.blob"
            blob.write_bytes(contents)
            key = _hook(impl.weights_store).store(str(blob), store)
            assert key == hashlib.sha256(contents).hexdigest() + "_weights_blob"
            expected[key] = contents
        assert len(expected) == 2, "different weights must get distinct keys"
        output = store.get_named_data_store_output()
        places = dict(output.pte_data)
        for tag, entries in output.external_data.items():
            for key in entries:
                assert re.fullmatch(r"aoti_.+_blob", tag), f"{key} stored under tag {tag!r}"
                places[key] = entries[key]
        for key, contents in expected.items():
            assert key in places, f"{key} is not in the store's output"
            buffer = output.buffers[places[key].buffer_index]
            assert content(buffer) == contents


# --- 5.2 weights blob: low-memory mode ---------------------------------------------------------


def _pattern(index: int, size: int) -> bytes:
    """Chunk ``index`` of a generated blob: cheap to make, different at every index."""
    seed = hashlib.sha256(index.to_bytes(8, "little")).digest()
    whole, rest = divmod(size, len(seed))
    return seed * whole + seed[:rest] if rest else seed * whole


class _Chunks:
    """Chunks made one at a time by a generator, hashed by the suite as they are handed out."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = list(sizes)
        self.digest = hashlib.sha256()
        self.length = 0

    def __iter__(self) -> Iterator[bytes]:
        for index, size in enumerate(self.sizes):
            chunk = _pattern(index, size)
            self.digest.update(chunk)
            self.length += len(chunk)
            yield chunk
            del chunk

    @property
    def hexdigest(self) -> str:
        return self.digest.hexdigest()

    def laid_out(self, size: int) -> str:
        """The hex digest of a blob of ``size`` bytes holding these chunks as HOOK-BLOB-1 lays
        them out: the bytes, then zero padding to 1 or to ``BLOB_ALIGNMENT``."""
        padding = size - self.length
        allowed = _paddings(self.length)
        check(
            padding in allowed,
            f"a blob of {self.length} bytes of weights is {size} bytes, not the weights plus "
            f"{' or '.join(map(str, sorted(allowed)))} bytes of padding",
            "HOOK-BLOB-1",
        )
        digest = self.digest.copy()
        digest.update(bytes(padding))
        return digest.hexdigest()


def _paddings(length: int) -> set[int]:
    """The padding HOOK-BLOB-1 allows after ``length`` bytes of weights: none, or up to the next
    multiple of ``BLOB_ALIGNMENT``."""
    return {0, -length % BLOB_ALIGNMENT}


def _laid_out(path: Path | str, chunks: _Chunks) -> str:
    """Check that the blob at ``path`` is ``chunks`` laid out as HOOK-BLOB-1 allows (the weights,
    then only zero padding); return the hex digest of the file as written."""
    weights = hashlib.sha256()
    whole = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        left = chunks.length
        while left and (chunk := f.read(min(MiB, left))):
            weights.update(chunk)
            whole.update(chunk)
            size += len(chunk)
            left -= len(chunk)
        rest = f.read(BLOB_ALIGNMENT + 1)
    whole.update(rest)
    blob = "HOOK-BLOB-1"
    check(size == chunks.length, f"the blob holds {size} bytes of {chunks.length} of weights", blob)
    check(
        weights.hexdigest() == chunks.hexdigest, "the blob's first bytes are not the weights", blob
    )
    check(
        len(rest) in _paddings(chunks.length),
        f"{len(rest)} bytes follow {chunks.length} bytes of weights (allowed: "
        f"{' or '.join(map(str, sorted(_paddings(chunks.length))))})",
        blob,
    )
    check(
        rest == bytes(len(rest)), f"the padding after the weights is not zeros: {rest[:16]!r}", blob
    )
    return whole.hexdigest()


def _file_digest(path: Path | str) -> tuple[str, int]:
    """The hex digest and size of the file at ``path``, read here."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(MiB):
            digest.update(chunk)
    return digest.hexdigest(), os.stat(path).st_size


_watching: list[tuple[tuple[int, int], int, list[str]]] = []
"""What :func:`reads_of` watches: a file's identity, the thread, and the opens seen."""


def _audit_opens(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook: record each open for reading of a watched file, by this thread (a path,
    or a descriptor wrapped by ``open(fd)``; a path relative to a directory descriptor is seen
    when its descriptor is wrapped or read through Python)."""
    if event != "open" or not _watching or len(args) != 3:
        return
    path, _, flags = args
    if isinstance(flags, int) and flags & os.O_ACCMODE == os.O_WRONLY:
        return
    try:
        if isinstance(path, int):
            st = os.fstat(path)
        elif isinstance(path, (str, bytes, os.PathLike)):
            st = os.stat(path)
        else:
            return
    except (OSError, ValueError):  # not there yet (a file being made), or not a path
        return
    for identity, thread, seen in _watching:
        if identity == (st.st_dev, st.st_ino) and thread == threading.get_ident():
            seen.append(str(path) if isinstance(path, int) else os.fsdecode(path))


_hooked: list[bool] = []


@contextmanager
def reads_of(path: Path | str) -> Iterator[list[str]]:
    """The paths under which this thread opened the file now at ``path`` (that inode, wherever
    it is moved to) to read it inside the block: an audit hook sees every ``open``, Python's and
    ``os.open`` alike. The hook cannot be removed, so it is added once and watches nothing
    outside these blocks."""
    if not _hooked:
        sys.addaudithook(_audit_opens)
        _hooked.append(True)
    st = os.stat(path)
    seen: list[str] = []
    watched = ((st.st_dev, st.st_ino), threading.get_ident(), seen)
    _watching.append(watched)
    try:
        yield seen
    finally:
        _watching.remove(watched)


def _large() -> _Chunks:
    return _Chunks([2 * MiB] * (LARGE // (2 * MiB)))


def _so(tmp_path: Path) -> str:
    so_path = tmp_path / "model.wrapper.so"
    so_path.write_bytes(b"\x7fELF compiled model")
    return str(so_path)


def _peak_during(action: Any) -> tuple[Any, int]:
    """Run ``action()``; return its result and the peak of traced memory above the start."""
    results: list[Any] = []
    peak = peak_memory(lambda: results.append(action()))
    return results[0], peak


@requires("low-memory-weights")
@pytest.mark.hooks
class TestLowMemory:
    @clause("HOOK-MAT-2")
    @pytest.mark.relies_on("HOOK-BLOB-1")  # compared with the weights modulo its padding
    def test_materialize_writes_the_concatenation(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        chunks = _Chunks([3 * MiB + 5, 1, 0, MiB + 1, 2 * MiB])
        blob = Path(_hook(impl.low_memory).materialize(_so(tmp_path), chunks))
        try:
            _laid_out(blob, chunks)
        finally:
            blob.unlink(missing_ok=True)

    @clause("HOOK-BLOB-1")
    @pytest.mark.parametrize(
        "sizes", [[3 * MiB + 5, 1, 0, 61], [64, 128], [7]], ids=["padded", "aligned", "small"]
    )
    def test_the_blob_is_the_weights_and_only_zero_padding(
        self, impl: Implementation, tmp_path: Path, sizes: list[int]
    ) -> None:
        chunks = _Chunks(sizes)
        blob = Path(_hook(impl.low_memory).materialize(_so(tmp_path), chunks))
        try:
            written = _laid_out(blob, chunks)
            assert written == chunks.laid_out(blob.stat().st_size)
        finally:
            blob.unlink(missing_ok=True)

    @clause("HOOK-MAT-2")
    @pytest.mark.relies_on("HOOK-BLOB-1")
    def test_materialize_holds_bounded_memory(self, impl: Implementation, tmp_path: Path) -> None:
        chunks = _large()
        blob, peak = _peak_during(
            lambda: Path(_hook(impl.low_memory).materialize(_so(tmp_path), chunks))
        )
        try:
            assert peak < HOOK_MEMORY_BOUND, f"materializing 64 MiB peaked at {peak / MiB:.1f} MiB"
            _laid_out(blob, chunks)
        finally:
            blob.unlink(missing_ok=True)

    @clause("HOOK-MAT-2")
    @pytest.mark.relies_on(*HANDED_ON, "FBD-HASH-1", "HOOK-BLOB-1")
    def test_materialize_hashes_while_writing(self, impl: Implementation, tmp_path: Path) -> None:
        chunks = _large()
        so_path = _so(tmp_path)
        blob: Path | None = None
        try:
            with bytes_read() as read:
                # as returned: it may carry the digest to load (HOOK-LOW-2)
                blob_path = _hook(impl.low_memory).materialize(so_path, chunks)
                blob = Path(blob_path)
                size = os.stat(blob_path).st_size  # reads nothing
                data, digest = _hook(impl.low_memory).load(blob_path)
            cast(FileBackedData, data).close()
            assert read[0] < HOOK_READ_BOUND, (
                f"materialize and load read {read[0] / MiB:.1f} MiB of a 64 MiB blob"
            )
            assert digest == chunks.laid_out(size)
        finally:
            if blob is not None:
                blob.unlink(missing_ok=True)

    @clause("HOOK-LOW-1")
    @pytest.mark.relies_on(*TAKEN_OVER, "HOOK-BLOB-1")
    def test_load_takes_over_the_materialized_file(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        chunks = _Chunks([MiB + 3, MiB])
        blob_path = _hook(impl.low_memory).materialize(_so(tmp_path), chunks)
        before = os.stat(blob_path)
        data, digest = _hook(impl.low_memory).load(blob_path)
        owned = self._check_taken_over(impl, blobs, data, blob_path, before)
        assert digest == _laid_out(owned, chunks)
        blobs.track(cast(FileBackedData, data)).close()
        assert not owned.exists()

    @clause("HOOK-LOW-1")
    @pytest.mark.relies_on(*TAKEN_OVER, "FBD-HASH-3")  # a blob handed no digest is hashed
    def test_load_takes_over_a_large_file_in_bounded_memory(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        chunks = _large()
        blob_path = tmp_path / "model_weights.blob"
        with blob_path.open("wb") as f:
            for chunk in chunks:
                f.write(chunk)
        before = os.stat(blob_path)
        (data, digest), peak = _peak_during(lambda: _hook(impl.low_memory).load(str(blob_path)))
        owned = self._check_taken_over(impl, blobs, data, str(blob_path), before)
        assert peak < HOOK_MEMORY_BOUND, f"loading 64 MiB peaked at {peak / MiB:.1f} MiB"
        assert digest == chunks.hexdigest
        assert len(cast(FileBackedData, data)) == LARGE
        blobs.track(cast(FileBackedData, data)).close()
        assert not owned.exists()

    @staticmethod
    def _check_taken_over(
        impl: Implementation, blobs: Blobs, data: object, blob_path: str, before: os.stat_result
    ) -> Path:
        assert isinstance(data, cast(type, impl.FileBackedData)), type(data)
        blob = blobs.track(cast(FileBackedData, data))
        owned = blobs.path(blob)
        assert not os.path.lexists(blob_path), "the blob path still exists"
        now = os.stat(owned)
        assert (now.st_dev, now.st_ino) == (before.st_dev, before.st_ino), "not the same file"
        return owned

    @clause("HOOK-LOW-2")
    @pytest.mark.relies_on(*HANDED_ON, "FBD-HASH-1")
    def test_load_does_not_reread_the_blob_to_hash_it(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        """Neither the load nor the loaded object's ``sha256()`` reads the blob materialize wrote,
        whatever it holds: opening it to read it is a reread even when it is empty (its layout
        is HOOK-BLOB-1's, checked on its own; the digest expected is that of the file as
        written)."""
        chunks = _large()
        blob_path = _hook(impl.low_memory).materialize(_so(tmp_path), chunks)
        expected, size = _file_digest(blob_path)
        with reads_of(blob_path) as opened, bytes_read() as read:
            data, digest = _hook(impl.low_memory).load(blob_path)
            blob = blobs.track(cast(FileBackedData, data))
            rehashed = blob.sha256().hex()
        check(
            read[0] < HOOK_READ_BOUND and not opened,
            f"the load and sha256() read {read[0] / MiB:.1f} MiB of a blob of {size} bytes and "
            f"opened it {len(opened)} time(s) to read it: the digest computed while writing was "
            "not handed to move_from",
            "HOOK-LOW-2",
        )
        assert digest == expected, "the load's digest is not that of the file as written"
        assert rehashed == expected, "sha256() is not that of the file as written"

    @clause("HOOK-LOW-4")
    @pytest.mark.relies_on("FBD-HASH-1")  # a digest is seen stale against SHA-256 of the contents
    @pytest.mark.parametrize("change", ["replaced", "rewritten-same-size", "resized"])
    def test_a_changed_blob_is_rehashed(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path, change: str
    ) -> None:
        blob_path = _hook(impl.low_memory).materialize(_so(tmp_path), _Chunks([4096, 4096]))
        now = b"changed after materialize".ljust(8192 if change != "resized" else 100, b"!")
        if change == "replaced":
            other = tmp_path / "other.blob"
            other.write_bytes(now)
            os.replace(other, blob_path)
        else:
            stamp = os.stat(blob_path)
            with open(blob_path, "r+b") as f:
                f.write(now)
                f.truncate()
            # whatever the clock granularity, the modification time moves
            os.utime(blob_path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))
        _check_loads_as(
            impl, blobs, blob_path, now, "a digest computed before the blob changed was used"
        )

    @clause("HOOK-LOW-4")
    @pytest.mark.relies_on("FBD-HASH-1")  # a digest is seen stale against SHA-256 of the contents
    def test_no_digest_outlives_its_load(
        self, impl: Implementation, blobs: Blobs, tmp_path: Path
    ) -> None:
        so_path = _so(tmp_path)
        blob_path = str(_hook(impl.low_memory).materialize(so_path, _Chunks([4096])))
        spelled = os.path.join(os.path.dirname(blob_path), ".", os.path.basename(blob_path))
        first, _ = _hook(impl.low_memory).load(spelled)  # another spelling of the same path
        blobs.track(cast(FileBackedData, first))
        assert not os.path.exists(blob_path)
        later = b"a later blob at the same path, not materialized".ljust(4096, b"!")
        Path(blob_path).write_bytes(later)
        _check_loads_as(
            impl, blobs, blob_path, later, "a digest handed on by an earlier materialize was reused"
        )

    @clause("HOOK-LOW-4")
    def test_nothing_names_the_blob_once_its_load_is_over(
        self, impl: Implementation, tmp_path: Path
    ) -> None:
        # A process-wide map of digests that checks each entry against the file never hands on a
        # wrong one: it shows only as state that still names the blob after the load.
        marker = f"handover-{uuid.uuid4().hex}"
        (tmp_path / marker).mkdir()
        blob_path = _hook(impl.low_memory).materialize(_so(tmp_path / marker), _Chunks([4096]))
        data, _ = _hook(impl.low_memory).load(blob_path)
        cast(FileBackedData, data).close()
        del data, blob_path
        holders = [type(o).__name__ for o in all_objects() if _names(o, marker)]
        assert holders == [], f"after the load, containers still name the blob: {holders}"


def _names(container: object, marker: str) -> bool:
    """Whether ``container`` (a dict, list, tuple or set) holds a string containing ``marker``."""
    if isinstance(container, dict):
        items: Iterable[object] = [*container.keys(), *container.values()]
    elif isinstance(container, (list, tuple, set, frozenset)):
        items = container
    else:
        return False
    return any(isinstance(item, str) and marker in item for item in items)


def _near_misses() -> list[Any]:
    """Values one slip away from ``ON`` or ``OFF``, one of each kind a lenient reading takes for
    a mode: padded, cut, joined with a NUL, undecodable, or a boolean's spelling."""
    slips: list[tuple[str, Callable[[bytes], bytes]]] = [
        ("leading-space", lambda v: b" " + v),
        ("trailing-newline", lambda v: v + b"\n"),
        ("tab-inside", lambda v: v[:1] + b"\t" + v[1:]),
        ("nul-suffix", lambda v: v + b"\0"),
        ("last-letter-cut", lambda v: v[:-1]),
        ("letter-doubled", lambda v: v + v[-1:]),
        ("not-utf8", lambda v: b"\xff" + v),
    ]
    values = [
        (f"{word.decode().lower()}-{kind}", slip(word))
        for word in (b"ON", b"OFF")
        for kind, slip in slips
    ]
    values += [(f"word-{w.decode() or 'empty'}", w) for w in (b"1", b"0", b"true", b"no", b"")]
    return [pytest.param([v], _named(v), id=name) for name, v in values]


def _named(value: bytes) -> str:
    """A pattern for a message naming ``value``: its text in either case, as it is or escaped as
    Python's repr escapes it, or its bytes repr."""
    names = [repr(value)]
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        names += [text, repr(text)[1:-1]]
    return "(?i)(?:" + "|".join(map(re.escape, names)) + ")"


@requires("low-memory-weights")
@pytest.mark.hooks
class TestLowMemoryFlag:
    @clause("HOOK-LOW-3")
    @pytest.mark.parametrize(
        ("values", "on"),
        [
            pytest.param([], False, id="absent"),
            pytest.param([b"ON"], True, id="ON"),
            pytest.param([b"on"], True, id="on"),
            pytest.param([b"OFF"], False, id="OFF"),
            pytest.param([b"ON", b"ON"], True, id="repeated"),
            pytest.param([b"oN"], True, id="oN"),
            pytest.param([b"oFf"], False, id="oFf"),
            pytest.param([b"On", b"oN"], True, id="repeated-in-two-cases"),
        ],
    )
    def test_one_reading(self, impl: Implementation, values: list[bytes], on: bool) -> None:
        assert _hook(impl.low_memory).mode(values) is on

    @clause("HOOK-LOW-3")
    @pytest.mark.parametrize(
        ("values", "named"),
        [
            # an invalid value named as its text in either case, or as its bytes repr (b'maybe')
            pytest.param([b"maybe"], "(?i)maybe", id="invalid"),
            pytest.param([b"ON", b"OFF"], "OFF", id="on-then-off"),
            pytest.param([b"OFF", b"ON"], "ON", id="off-then-on"),
            *_near_misses(),
        ],
    )
    def test_invalid_or_conflicting_raise(
        self, impl: Implementation, values: list[bytes], named: str
    ) -> None:
        with pytest.raises(ValueError, match=named):
            _hook(impl.low_memory).mode(values)

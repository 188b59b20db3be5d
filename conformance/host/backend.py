"""cordspec's own backend: its preprocess hands the partition's weights over as a file, through the
backend hooks, so that a real ``to_executorch`` streams a FileBackedData into the ``.ptd``.

Like AOTInductor's backend it writes a ``.wrapper.so`` (here a small description of the partition)
and a ``*_weights.blob`` beside it, then loads the blob through ``load_weights_blob``: in
low-memory mode (compile spec ``low_memory_mode=ON``) as ``FileBackedData.move_from`` with the
digest computed while the blob was written, otherwise as bytes read and deleted. The default hooks
are the implementation's when it has them, else this module's own; the low-memory path is this
module's, and calls ``FileBackedData`` as ExecuTorch's module holds it (so the implementation's),
as ExecuTorch's CUDA backend does. ExecuTorch's runtime has no kernel for this
backend: a method lowered to it loads as a program but cannot be run.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
from executorch.exir._serialize import _cord, _named_data_store
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.canonical_partitioners.all_node_partitioner import (
    AllNodePartitioner,
)
from executorch.exir.backend.compile_spec_schema import CompileSpec

from ..api import Implementation

__all__ = [
    "BACKEND_ID",
    "EXTERNAL_TAG",
    "BlobHooks",
    "CordspecFileBackend",
    "hooks_for",
    "partitioner",
    "using",
]

BACKEND_ID = "CordspecFileBackend"
EXTERNAL_TAG = "cordspec_blob"
"""The external tag (so the ``.ptd`` file name) of the weights blobs."""
LOW_MEMORY = "low_memory_mode"
_CHUNK = 1 << 16


@dataclass(frozen=True)
class BlobHooks:
    """The four steps of handing a weights blob over, and whose they are."""

    materialize: Callable[[list[str]], list[str]]
    """Default ``materialize_weights_blob``: the compiled paths, possibly rewritten."""
    load: Callable[[str], tuple[object, str]]
    """Default ``load_weights_blob``: (data, sha256 hex); deletes the blob."""
    low_memory_materialize: Callable[[str, Iterable[bytes]], str]
    """Low-memory ``materialize_weights_blob``: write the blob beside the ``.so``, hashing it."""
    low_memory_load: Callable[[str], tuple[object, str]]
    """Low-memory ``load_weights_blob``: the blob taken over as a FileBackedData, and its digest."""
    source: str
    """Whose hooks these are, for the report."""


def _unchanged(paths: list[str]) -> list[str]:
    return paths


def _own_load(blob_path: str) -> tuple[object, str]:
    with open(blob_path, "rb") as f:
        data = f.read()
    os.remove(blob_path)
    return data, hashlib.sha256(data).hexdigest()


class _OwnLowMemory:
    """Writes while hashing; hands the digest on to ``move_from`` by path."""

    def __init__(self) -> None:
        self._digests: dict[str, bytes] = {}

    def materialize(self, so_path: str, chunks: Iterable[bytes]) -> str:
        blob_path = os.path.splitext(so_path)[0] + "_weights.blob"
        digest = hashlib.sha256()
        with open(blob_path, "wb") as f:
            for chunk in chunks:
                digest.update(chunk)
                f.write(chunk)
        self._digests[blob_path] = digest.digest()
        return blob_path

    def load(self, blob_path: str) -> tuple[object, str]:
        digest = self._digests.pop(blob_path)
        data = _cord.FileBackedData.move_from(blob_path, sha256=digest)
        return data, digest.hex()


def hooks_for(impl: Implementation) -> BlobHooks:
    """The implementation's default hooks where it has them, else this module's own; the
    low-memory path is always this module's, so that it reaches the class in ExecuTorch's place."""
    own = _OwnLowMemory()
    weights = impl.weights
    whose = []
    if weights is not None:
        w = weights

        def materialize(paths: list[str]) -> list[str]:
            return list(w.materialize(paths, []))

        def load(blob_path: str) -> tuple[object, str]:
            return w.load(blob_path, [])

        whose.append(f"default hooks: {impl.name}'s")
    else:
        materialize, load = _unchanged, _own_load
        whose.append("default hooks: cordspec's backend's own")
    # As ExecuTorch's CUDA backend does, the low-memory path calls FileBackedData.move_from as
    # ExecuTorch's module holds it: so the implementation's class, whatever its adapter's hooks.
    whose.append(
        "low-memory hooks: cordspec's backend's own, calling the implementation's "
        "FileBackedData.move_from as ExecuTorch's module holds it"
    )
    return BlobHooks(materialize, load, own.materialize, own.load, "; ".join(whose))


_current: list[tuple[BlobHooks, str]] = []


@contextmanager
def using(hooks: BlobHooks, directory: str) -> Iterator[None]:
    """Within the block, the backend's preprocess uses ``hooks`` and writes in ``directory``."""
    _current.append((hooks, directory))
    try:
        yield
    finally:
        _current.pop()


def _weights(edge_program: Any) -> list[tuple[str, torch.Tensor]]:
    tensors = {**edge_program.state_dict, **edge_program.constants}
    return sorted((k, v) for k, v in tensors.items() if isinstance(v, torch.Tensor))


def _chunks(weights: Sequence[tuple[str, torch.Tensor]]) -> Iterator[bytes]:
    for _, tensor in weights:
        data = tensor.detach().contiguous().numpy().tobytes()
        for at in range(0, len(data), _CHUNK):
            yield data[at : at + _CHUNK]


def _blob(
    hooks: BlobHooks, so_path: str, weights: Sequence[tuple[str, torch.Tensor]], low: bool
) -> tuple[object, str]:
    if low:
        blob_path = hooks.low_memory_materialize(so_path, _chunks(weights))
        return hooks.low_memory_load(blob_path)
    blob_path = os.path.splitext(so_path)[0] + "_weights.blob"
    with open(blob_path, "wb") as f:
        for chunk in _chunks(weights):
            f.write(chunk)
    paths = hooks.materialize([so_path, blob_path])
    blob = next(p for p in paths if p.endswith("_weights.blob"))
    return hooks.load(blob)


class CordspecFileBackend(BackendDetails):  # type: ignore[misc]  # torch and executorch are not analysed: Any
    """A backend whose weights blob reaches the program's named data as a file."""

    @staticmethod
    def preprocess(edge_program: Any, compile_specs: list[CompileSpec]) -> PreprocessResult:
        if not _current:
            raise RuntimeError(f"{BACKEND_ID}.preprocess runs only inside backend.using(...)")
        hooks, directory = _current[-1]
        low = any(s.key == LOW_MEMORY and s.value == b"ON" for s in compile_specs)
        weights = _weights(edge_program)
        fd, so_path = tempfile.mkstemp(prefix="cordspec_", suffix=".wrapper.so", dir=directory)
        description = "\n".join(f"{k} {tuple(v.shape)} {v.dtype}" for k, v in weights)
        with os.fdopen(fd, "wb") as f:
            f.write(f"{BACKEND_ID}\n{description}\n".encode())
        try:
            data, hexdigest = _blob(hooks, so_path, weights, low)
            with open(so_path, "rb") as f:
                so_data = f.read()
        finally:
            os.remove(so_path)
        store = _named_data_store.NamedDataStore()
        so_key = hashlib.sha256(so_data).hexdigest() + "_so_blob"
        weights_key = hexdigest + "_weights_blob"
        store.add_named_data(so_key, so_data, 1, None)
        store.add_named_data(weights_key, data, 1, EXTERNAL_TAG)
        return PreprocessResult(
            processed_bytes=f"{so_key}\n{weights_key}".encode(),
            debug_handle_map={},
            data_store_output=store.get_named_data_store_output(),
        )


def partitioner(low_memory: bool) -> AllNodePartitioner:
    """Lower a whole method to cordspec's backend, in low-memory mode or not."""
    value = b"ON" if low_memory else b"OFF"
    return AllNodePartitioner(BACKEND_ID, [CompileSpec(LOW_MEMORY, value)])

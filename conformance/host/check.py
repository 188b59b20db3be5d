"""One model of the zoo, exported with ExecuTorch's own classes and with the implementation's:
files and their digests, time and peak memory, files left behind, and a run in ExecuTorch's
runtime compared with eager PyTorch."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path

import torch
from executorch.exir._serialize import _cord
from executorch.exir.backend.utils import is_same_node
from torch._subclasses.fake_tensor import FakeTensorMode

from ..harness.child import CHILD_TIMEOUT, child_env
from . import backend, tensors
from .report import Export, ModelResult, Run
from .zoo import Method, Model

__all__ = ["check_model", "export", "run_program"]

PTE = "model.pte"
RTOL, ATOL = 1e-4, 1e-5
"""How close the runtime's outputs must be to eager PyTorch's (float32)."""


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def _temporary_dir(directory: Path) -> Iterator[None]:
    """Python's temporary files (``tempfile``) go to ``directory`` within the block."""
    saved = tempfile.tempdir
    tempfile.tempdir = str(directory)
    try:
        yield
    finally:
        tempfile.tempdir = saved


def _file_backed() -> int:
    """How many FileBackedData objects (of the class now in ExecuTorch's place) are alive."""
    cls = _cord.FileBackedData
    return sum(issubclass(type(o), cls) for o in gc.get_objects())  # type(): proxies too


def _placeholders(directory: Path) -> list[str]:
    """The placeholders (``.executorch_*.data``) below ``directory``, relative to it."""
    return sorted(
        os.path.relpath(p, directory) for p in directory.rglob(".executorch_*.data") if p.is_file()
    )


def _left(directory: Path, outputs: set[str]) -> list[str]:
    found = []
    for root, dirs, files in os.walk(directory):
        for name in files + [d for d in dirs if not os.listdir(os.path.join(root, d))]:
            rel = os.path.relpath(os.path.join(root, name), directory)
            if rel not in outputs:
                found.append(rel)
    return sorted(found)


def _release() -> None:
    """Drop what the pipeline still holds of the last export. Two caches keep the lowered modules
    (and with them their named data, file-backed blobs included) alive until they are cleared or
    the interpreter exits: torch's FakeTensor dispatch cache, and the ``lru_cache`` of
    ``executorch.exir.backend.utils.is_same_node``, which holds graph nodes."""
    FakeTensorMode.cache.clear()
    is_same_node.cache_clear()
    gc.collect()


def export(
    model: Model,
    methods: Mapping[str, Method],
    directory: Path,
    classes: Callable[[], AbstractContextManager[object]],
    hooks: backend.BlobHooks,
) -> Export:
    """Export ``model`` into ``directory`` (a fresh one) with the classes ``classes()`` puts in
    place; Python's temporary files go to ``directory/tmp`` so that a leftover shows. Time covers
    the whole export; peak memory is traced over ``to_executorch`` and the writing of the files,
    where this layer does its work (tracing the lowering too would make it many times slower)."""
    out, tmp, work = directory / "out", directory / "tmp", directory / "backend"
    out.mkdir(parents=True)
    tmp.mkdir()
    work.mkdir()
    error, peak, misplaced, alive = "", 0, [], 0
    with classes(), _temporary_dir(tmp), backend.using(hooks, str(work)):
        _release()
        start = time.perf_counter()
        try:
            edge = model.lower(methods)
            tracemalloc.start()
            try:
                program = edge.to_executorch(model.config())
                with (out / PTE).open("wb") as f:
                    program.write_to_file(f)
                if program._tensor_data:  # no public way to ask for data files
                    program.write_tensor_data_to_file(str(out))
            finally:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
            alive = _file_backed()
            misplaced = [
                p for p in _placeholders(directory) if not p.startswith("backend" + os.sep)
            ]
        except Exception as exc:  # the export failed: a result, not a crash of the command
            error = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        edge = program = None
        _release()
    files = {p.name: _digest(p) for p in sorted(out.iterdir()) if p.is_file()}
    outputs = {os.path.join("out", name) for name in files} | {"out", "tmp", "backend"}
    return Export(files, seconds, peak, _left(directory, outputs), error, misplaced, alive)


def run_program(
    directory: Path, files: Mapping[str, str], model: Model, methods: Mapping[str, Method]
) -> list[Run]:
    """Load the program (with its .ptd) in ExecuTorch's runtime and run each method against
    eager PyTorch's outputs, in a child process (``runtime_child``): a crash is a result."""
    data = sorted(name for name in files if name.endswith(".ptd"))
    if len(data) > 1:
        return [Run("*", False, f"the runtime takes one .ptd, the export wrote {data}")]
    io: dict[str, tuple[list[torch.Tensor], list[torch.Tensor]]] = {}
    with torch.no_grad():
        for name, method in methods.items():
            io[name] = (list(method.inputs), tensors.outputs(method.module(*method.inputs)))
    io_path, spec_path = directory.parent / "runtime-io.pt", directory.parent / "runtime.json"
    torch.save(io, io_path)
    spec = {
        "pte": str(directory / PTE),
        "ptd": str(directory / data[0]) if data else None,
        "io": str(io_path),
        "not_runnable": dict(model.not_runnable),
        "rtol": RTOL,
        "atol": ATOL,
    }
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    try:
        child = subprocess.run(
            [sys.executable, "-m", "conformance.host.runtime_child", str(spec_path)],
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=CHILD_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return [Run("*", False, f"ExecuTorch's runtime did not finish in {CHILD_TIMEOUT} s")]
    finally:
        io_path.unlink(missing_ok=True)
        spec_path.unlink(missing_ok=True)
    runs = [Run(*json.loads(line)) for line in child.stdout.splitlines() if line.startswith("[")]
    if child.returncode != 0:
        code = child.returncode
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        runs.append(Run("*", False, f"ExecuTorch's runtime crashed ({how})"))
    return runs


def check_model(
    model: Model,
    directory: Path,
    baseline: tuple[Callable[[], AbstractContextManager[object]], backend.BlobHooks],
    candidate: tuple[Callable[[], AbstractContextManager[object]], backend.BlobHooks] | None,
    reference: Export | None = None,
) -> ModelResult:
    """Export with ExecuTorch's classes twice (the first warms the pipeline up and shows the export
    is deterministic), then with the candidate's (None: ExecuTorch is the candidate, its export is
    the baseline), then run the candidate's files. ``reference``: a baseline already made."""
    methods = model.make()
    if reference is None:
        warm = export(model, methods, directory / "warm-up", *baseline)
        reference = export(model, model.make(), directory / "executorch", *baseline)
        if warm.files != reference.files and not reference.error:
            reference = replace(
                reference, error="ExecuTorch's own export differs between two runs: not comparable"
            )
    if candidate is None:
        cand, where = reference, directory / "executorch" / "out"
    else:
        cand = export(model, model.make(), directory / "candidate", *candidate)
        where = directory / "candidate" / "out"
    runs = [] if cand.error else run_program(where, cand.files, model, methods)
    return ModelResult(model.name, model.covers, reference, cand, runs, model.file_backed)

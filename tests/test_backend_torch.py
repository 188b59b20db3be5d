"""``cordspec run --backend`` on ExecuTorch's own AOTInductor backends (needs torch, executorch
and torchao: tox -e host): MetalBackend, which overrides no hook, is judged on its bases' hooks and
said so; CudaBackend, which overrides all three, on its own, its low-memory hooks driven under the
``triton`` stand-in. Skipped, with the reason, where they are not installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.host import prerequisites
from tests.children import python, subprocess_env

_missing = prerequisites.missing()
if _missing:
    pytest.skip(
        f"needs {', '.join(_missing)} (tox -e host installs them: {prerequisites.INSTALL})",
        allow_module_level=True,
    )

METAL = "executorch.backends.apple.metal.metal_backend:MetalBackend"
CUDA = "executorch.backends.cuda.cuda_backend:CudaBackend"


def _run(spec: str, tmp_path: Path) -> tuple[str, int, dict[str, str]]:
    report = tmp_path / "report.json"
    args = ("-m", "conformance", "run", "--backend", spec, "--report", str(report))
    proc = python(*args, timeout=1800, env=subprocess_env(COLUMNS="200"))
    data = json.loads(report.read_text(encoding="utf-8"))
    statuses = {c["id"]: c["status"] for c in data["clauses"] if c["id"].startswith("HOOK-")}
    assert data["implementation"]["name"].startswith(spec.rpartition(":")[2] + " (")
    return proc.stdout, proc.returncode, statuses


def test_metal_is_judged_on_the_hooks_it_inherits_and_says_so(tmp_path: Path) -> None:
    out, status, statuses = _run(METAL, tmp_path)
    assert status == 0, out
    assert "backend MetalBackend (executorch.backends.apple.metal.metal_backend, version" in out
    assert "load_weights_blob: inherited from AotiBackend" in out
    assert "copy_exported_program_for_preprocess: inherited from BackendDetails" in out
    assert ": own" not in out, "MetalBackend has no hook of its own"
    assert statuses["HOOK-MAT-1"] == statuses["HOOK-LOAD-1"] == "passed"
    assert statuses["HOOK-LOW-1"] == "not applicable"
    for lowering in ("HOOK-COPY-2", "HOOK-COPY-3", "HOOK-COPY-4"):
        assert statuses[lowering] == "not run"


def test_cuda_is_judged_on_its_own_hooks(tmp_path: Path) -> None:
    out, status, statuses = _run(CUDA, tmp_path)
    assert status == 0, out
    assert "backend CudaBackend (executorch.backends.cuda.cuda_backend, version" in out
    for hook in ("copy_exported_program_for_preprocess", "materialize_weights_blob"):
        assert f"{hook}: own" in out
    assert "inherited" not in out
    assert statuses["HOOK-COPY-1"] == statuses["HOOK-LOAD-1"] == "passed"
    assert statuses["HOOK-MAT-2"] == "expected deviation"  # executorch.deviations
    assert statuses["HOOK-LOW-4"] == "passed"

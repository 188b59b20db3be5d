"""Smoke tests of bench/: every worker operation on tiny files, and the report of a tiny run."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from bench import report
from bench.__main__ import main
from bench.cases import CASES, write_files
from bench.run import parse_size, sizes_up_to
from bench.scaling import fit, predicted

WORKER = Path(__file__).resolve().parents[1] / "bench" / "worker.py"


def ask(variant: str, request: dict[str, object]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(WORKER), variant, "--once", json.dumps(request)],
        capture_output=True,
        text=True,
        check=True,
    )
    answer: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    assert answer["ok"], answer
    return answer


def test_sizes() -> None:
    assert parse_size("4G") == 4 << 30
    assert parse_size("64MiB") == 64 << 20
    assert sizes_up_to(16 << 20) == [1 << 20, 4 << 20, 16 << 20]
    with pytest.raises(Exception, match="not a size"):
        parse_size("lots")


@pytest.mark.parametrize("variant", ["floor", "reference"])
def test_worker_operations(tmp_path: Path, variant: str) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 64)
    other = tmp_path / "other.bin"
    other.write_bytes(b"other")
    path, target = str(blob), str(tmp_path / "out.bin")
    for request in (
        {"op": "hash", "path": path, "inner": 2},
        {"op": "copy", "path": path, "target": target},
        {"op": "bytesio", "path": path},
        {"op": "dedup_files", "paths": [path]},
        {"op": "dedup_bytes", "count": 3, "size": 64},
        {"op": "move", "directory": str(tmp_path), "count": 2},
        {"op": "end_to_end", "paths": [path, str(other)], "target": target},
        {"op": "memory", "path": path, "target": target},
    ):
        assert isinstance(ask(variant, request)["seconds"], float)
    assert ask(variant, {"op": "dedup_bytes", "count": 3, "size": 64})["hash_calls"] == 3


def test_executorch_that_cannot_be_imported_is_not_measured(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "no-python"
    args = ["--size", "1M", "--reps", "1", "--dedup-count", "3", "--dir", str(tmp_path)]
    json_path, markdown_path = tmp_path / "r.json", tmp_path / "r.md"
    args += ["--executorch-python", str(missing), "--json", str(json_path), "--plot", ""]
    args += ["--markdown", str(markdown_path)]
    assert main(args) == 0
    result = json.loads(json_path.read_text())
    assert result["why"]["executorch"].startswith("not measured: ")
    text = markdown_path.read_text()
    assert "| SHA-256, warm cache (1 MiB) |" in text
    assert "not measured" in text
    met = {target: ok for target, _, ok in report.targets(result)}
    assert met["file → file at least 1.25x faster than ExecuTorch"] is None
    assert list(tmp_path.glob("cordspec-bench-*")) == []  # the workspace is removed


def test_every_scaling_case_runs(tmp_path: Path) -> None:
    write_files(str(tmp_path), 20)
    for case in CASES:
        request = {"op": "scale", "case": case, "n": 20, "inner": 2, "directory": str(tmp_path)}
        assert ask("reference", request)["seconds"] >= 0


def test_fitted_exponents() -> None:
    assert fit([(10, 1.0), (100, 100.0), (1000, 10_000.0)]) == pytest.approx(2.0)
    assert fit([(10, 3.0), (1000, 3.0)]) == pytest.approx(0.0)
    assert fit([(10, 1.0)]) is None
    assert predicted([(10, 1.0), (100, 100.0)], 1000) == pytest.approx(10_000.0)
    assert predicted([(10, 1.0), (100, 1.0)], 1000) == pytest.approx(10.0)  # at least linear


def test_cases_of_n_files_run_past_the_descriptor_limit(tmp_path: Path) -> None:
    """The reference holds no descriptor per open blob (FBD-IDENT-2): N files wrapped and output
    at an N above the worker's ``RLIMIT_NOFILE``."""
    json_path = tmp_path / "s.json"
    args = ["--scaling", "--sizes", "10,100", "--reps", "1", "--cases", "output_files,fbd_init"]
    args += ["--executorch-python", str(tmp_path / "no-python"), "--dir", str(tmp_path)]
    args += ["--json", str(json_path), "--markdown", str(tmp_path / "s.md"), "--plot", ""]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))  # inherited by the worker
    try:
        assert main(args) == 0
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    result = json.loads(json_path.read_text())
    for case in ("output_files", "fbd_init"):
        assert [p["n"] for p in result["series"][case]["reference"]] == [10, 100]
        assert "reference" not in result["skipped"][case]


def test_a_scaling_run_without_executorch(tmp_path: Path) -> None:
    json_path, markdown_path = tmp_path / "s.json", tmp_path / "s.md"
    args = ["--scaling", "--sizes", "10,20", "--reps", "1", "--cases", "add,merge_many"]
    args += ["--executorch-python", str(tmp_path / "no-python"), "--dir", str(tmp_path)]
    args += ["--json", str(json_path), "--markdown", str(markdown_path), "--plot", ""]
    assert main(args) == 0
    result = json.loads(json_path.read_text())
    assert set(result["series"]) == {"add", "merge_many"}
    assert [p["n"] for p in result["series"]["add"]["reference"]] == [10, 20]
    assert result["summary"]["add"]["reference_exponent"] is not None
    assert result["summary"]["add"]["ratio"] is None  # ExecuTorch not measured
    assert "| N adds of distinct blobs |" in markdown_path.read_text()
    assert list(tmp_path.glob("cordspec-bench-*")) == []
    with pytest.raises(SystemExit, match="unknown cases: nope"):
        main(["--scaling", "--cases", "nope"])

"""``python -m reference``: the end-to-end demo, run in-process."""

from __future__ import annotations

import os
import runpy
import sys
import tempfile

import pytest

import reference.__main__ as demo
from reference import Cord

CHECKS = [
    "move_from renamed each source, in place, without reading it",
    "store B keeps one buffer for equal file-backed and bytes contents",
    "merging B twice into A dedups everything to 2 buffers",
    "merge left B's output and its file untouched",
    "streamed 3145738 bytes to model.ptd in order",  # 3 MiB of weights + b"\0program-a"
    "closing the blobs removed their files",
]


@pytest.fixture
def demo_dir(tmp_path, monkeypatch) -> str:
    """Make the demo's temporary directory land under tmp_path, to look at it afterwards."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return str(tmp_path)


def test_demo_passes(capsys, demo_dir) -> None:
    assert demo.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"cordspec reference demo in {demo_dir}{os.sep}cordspec-demo-")
    assert lines[1:-1] == [f"  [ok] {check}" for check in CHECKS]
    assert lines[-1] == "demo: all checks held"
    assert os.listdir(demo_dir) == []  # its directory and every file in it are gone


def test_demo_reports_a_failed_check(capsys, demo_dir, monkeypatch) -> None:
    monkeypatch.setattr(Cord, "write_to_file", lambda self, outfile: None)
    assert demo.main() == 1
    out = capsys.readouterr().out
    assert f"  [FAILED] {CHECKS[4]}" in out
    assert out.count("[ok]") == len(CHECKS) - 1
    assert out.splitlines()[-1] == "demo: 1 check(s) FAILED"


def test_run_as_module_exits_with_the_demo_status(capsys, demo_dir, monkeypatch) -> None:
    monkeypatch.delitem(sys.modules, "reference.__main__")  # run it afresh, as ``python -m`` does
    monkeypatch.setattr(sys, "argv", ["python -m reference"])
    with pytest.raises(SystemExit) as caught:
        runpy.run_module("reference", run_name="__main__")
    assert caught.value.code == 0
    assert capsys.readouterr().out.splitlines()[-1] == "demo: all checks held"


def test_help_prints_help_and_runs_nothing(capsys, demo_dir) -> None:
    """``python -m reference sweep --help`` and ``--help`` print help; no demo runs."""
    for argv in (["sweep", "--help"], ["--help"]):
        with pytest.raises(SystemExit) as caught:
            demo.cli(argv)
        assert caught.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: python -m reference"), out
        assert "demo:" not in out
    assert os.listdir(demo_dir) == []


def test_sweep_command(capsys, tmp_path) -> None:
    from conformance.harness.child import dead_pid

    orphan = tmp_path / f".executorch_{dead_pid()}_abcdefgh.data"
    orphan.write_bytes(b"left")
    foreign = tmp_path / ".executorch_abcdefgh.data"
    foreign.write_bytes(b"kept")
    assert demo.cli(["sweep", "--dry-run", str(tmp_path)]) == 0
    assert orphan.exists()
    assert capsys.readouterr().out.splitlines()[-1] == "1 would be removed, 1 kept"
    assert demo.cli(["sweep", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"removed {orphan} (owner pid {orphan.name.split('_')[1]} gone)"
    assert out[1] == f"kept {foreign} (unknown owner)"
    assert not orphan.exists() and foreign.read_bytes() == b"kept"


def test_sweep_command_of_no_directory(capsys, tmp_path) -> None:
    assert demo.cli(["sweep", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err
    assert err == f"python -m reference sweep: {tmp_path / 'absent'}: No such file or directory\n"


def test_sweep_command_reports_an_orphan_it_may_not_remove(capsys, tmp_path, monkeypatch) -> None:
    """FBD-SWEEP-5: the others are removed, the refused one is named, and the status is 1."""
    from conformance.harness.child import dead_pid

    gone = dead_pid()
    foreign, own = (tmp_path / f".executorch_{gone}_{c * 8}.data" for c in "ab")
    foreign.write_bytes(b"another user's")
    own.write_bytes(b"mine")
    real_unlink = os.unlink

    def unlink(path, *args, **kwargs):
        if path == foreign.name:
            raise PermissionError(1, "Operation not permitted")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    assert demo.cli(["sweep", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"removed {own} (owner pid {gone} gone)",
        f"could not remove {foreign} (owner pid {gone} gone): Operation not permitted",
        "1 removed, 0 kept, 1 could not be removed",
    ]
    assert captured.err == (
        f"python -m reference sweep: {tmp_path}: 1 orphan(s) could not be removed\n"
    )
    assert foreign.exists() and not own.exists()

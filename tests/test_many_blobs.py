"""The reference at scale: one process holds ten times more owned blobs than
its descriptor limit allows files open, reads each digest and releases them all, nothing left.

The suite's FBD-IDENT-2 test (``conformance/suite/test_steering.py``) states the clause for any
implementation with a few hundred blobs; this is the reference's own scale check. It runs 10,000
blobs of 64 bytes under ``RLIMIT_NOFILE`` 1,000 (10 to 20 s here), a tenth of the 100,000 the scale
is meant for, to stay within a meta run's time: most of it is the filesystem creating and removing
files in one directory (100,000 took 2.5 to 4 minutes in ext4's ``/tmp`` on this loaded machine, 30
s in tmpfs). ``CORDSPEC_MANY_BLOBS=100000`` runs the full count, under a limit of 10,000.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import environment
from tests.children import subprocess_env

pytestmark = [
    pytest.mark.meta,
    pytest.mark.skipif(
        not os.path.isdir("/proc/self/fd") or sys.platform == "win32", reason="needs /proc, rlimits"
    ),
]

COUNT = environment.MANY_BLOBS.get()
LIMIT = COUNT // 10
"""The child's soft ``RLIMIT_NOFILE``: a process may lower it, not raise it past the hard one."""

_CHILD = r"""
import gc, hashlib, os, resource, sys
from reference import FileBackedData

directory, count, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == limit


def contents(i):
    return i.to_bytes(8, "big") * 8  # 64 bytes of its own


blobs = []
for i in range(count):  # owned both ways: taken over by a rename, or by the owning constructor
    path = os.path.join(directory, f"blob{i}.bin")
    with open(path, "wb") as f:
        f.write(contents(i))
    blobs.append(FileBackedData.move_from(path) if i % 2 else FileBackedData(path, cleanup=True))
print(f"open={len(os.listdir('/proc/self/fd'))}")
wrong = sum(b.sha256() != hashlib.sha256(contents(i)).digest() for i, b in enumerate(blobs))
print(f"wrong={wrong}")
for b in blobs[: count // 2]:  # half closed, half dropped to the collector
    b.close()
del b, blobs
gc.collect()
print(f"left={len(os.listdir(directory))}")
"""


def test_many_owned_blobs_under_a_low_descriptor_limit(tmp_path: Path) -> None:
    """Owned blobs, ten for each descriptor the process may open, are all held at once, each
    digest is right, and closing half and dropping the rest leaves nothing in the directory."""
    directory = tmp_path / "blobs"
    directory.mkdir()
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(directory), str(COUNT), str(LIMIT)],
        cwd=tmp_path,  # the reference of REPO (subprocess_env), not one in the caller's directory
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert run.returncode == 0, f"the child failed:\n{run.stderr[-2000:]}"
    values = dict(line.split("=", 1) for line in run.stdout.splitlines())
    assert int(values["open"]) < LIMIT // 10, f"{values['open']} descriptors held by open blobs"
    assert values["wrong"] == "0", f"{values['wrong']} of {COUNT} digests were wrong"
    assert values["left"] == "0", f"{values['left']} of {COUNT} owned files left after release"
    assert list(directory.iterdir()) == []

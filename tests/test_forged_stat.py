"""Tests of the forged stat result the block-size and inode-reuse hooks report."""

from __future__ import annotations

import os
from pathlib import Path

from conformance.harness.forged_stat import ForgedStat


def test_a_forged_field_reads_forged_by_name_and_by_index(tmp_path: Path) -> None:
    real = os.stat(tmp_path)
    forged = ForgedStat(real, st_ino=real.st_ino + 1)
    assert (forged.st_ino, forged[1]) == (real.st_ino + 1, real.st_ino + 1)
    assert forged[1:3] == (real.st_ino + 1, real.st_dev)


def test_every_other_field_is_the_real_one(tmp_path: Path) -> None:
    real = os.stat(tmp_path)
    forged = ForgedStat(real, st_blksize=4 << 20)
    assert forged.st_blksize == 4 << 20
    assert (forged.st_size, forged.st_mtime, forged.st_mode) == (
        real.st_size,
        real.st_mtime,
        real.st_mode,
    )
    assert len(forged) == len(real)
    assert [forged[i] for i in range(len(forged))] == list(real)
    assert forged[-1] == real[-1]

"""Placeholder names: the prefix and suffix of ``move_from``'s placeholders, and the owner tag
(``<pid>-<start time>``) that lets a sweep tell whether their owner is gone (FBD-MOVE-10)."""

from __future__ import annotations

import os

__all__ = ["PLACEHOLDER_PREFIX", "PLACEHOLDER_SUFFIX", "process_start_time"]

PLACEHOLDER_PREFIX = ".executorch_"
PLACEHOLDER_SUFFIX = ".data"


def process_start_time(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (field 22 of ``/proc/<pid>/stat``);
    None where the system does not tell (no ``/proc``, no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            line = f.read()
    except OSError:
        return None
    return _parse_start_time(line)


def _parse_start_time(line: bytes) -> int | None:
    fields = line[line.rfind(b")") + 1 :].split()  # the name in parentheses may hold spaces
    try:
        return int(fields[19])  # field 3 (state) is fields[0]
    except (IndexError, ValueError):
        return None


def _make_tag(pid: int) -> tuple[int, str]:
    start = process_start_time(pid)
    return pid, str(pid) if start is None else f"{pid}-{start}"


_tag = _make_tag(os.getpid())


def _owner_tag() -> str:
    """``<pid>-<start time>`` of this process (``<pid>`` where the start time is not known), for
    placeholder names (spec FBD-MOVE-10); computed once per process, again in a forked child."""
    global _tag
    if _tag[0] != os.getpid():
        _tag = _make_tag(os.getpid())
    return _tag[1]

"""Sinks for ``write_to_file``: raw ones that take part of what they are given, or nothing, and
the least object a sink can be."""

from __future__ import annotations

__all__ = ["Looping", "ShortWriter", "StuckSink", "WriteOnly"]


class ShortWriter:
    """A raw sink that takes at most ``limit`` bytes per call and says how many it took."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.received = bytearray()
        self.calls = 0

    def write(self, data: bytes | memoryview) -> int:
        self.calls += 1
        taken = bytes(data[: self.limit])
        self.received += taken
        return len(taken)


class WriteOnly:
    """The least a sink can be: an object with a ``write`` method and nothing else."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes | memoryview) -> None:
        self.parts.append(bytes(data))


class Looping(Exception):
    """The sink was asked again and again to take bytes it refuses: ``write_to_file`` loops."""


class StuckSink:
    """A raw sink that takes ``room`` bytes, then accepts none (``write`` returns 0); raises
    :class:`Looping` when asked more than 100 times after that."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.data = bytearray()
        self.zeros = 0

    def write(self, data: bytes | memoryview) -> int:
        n = min(len(data), self.room - len(self.data))
        if n <= 0:
            self.zeros += 1
            if self.zeros > 100:
                raise Looping
            return 0
        self.data += bytes(data[:n])
        return n

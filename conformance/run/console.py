"""What ``cordspec run`` shows on the console: pytest's whole output goes to a file, and the
console gets all of it but the sections the clause report already explains (every failure's
traceback, the warnings, the short summary), so that a port with one bug gets a short answer."""

from __future__ import annotations

import io
import re
from typing import TextIO

__all__ = ["HIDDEN_SECTIONS", "Tee"]

HIDDEN_SECTIONS = ("FAILURES", "ERRORS", "warnings summary", "short test summary info", "XFAILURES")
"""pytest's sections left out of the console (they are in the file)."""

_SECTION = re.compile(r"^=+ (.+?) =+$")


class Tee(io.TextIOBase):
    """A text stream writing everything to ``full`` and, line by line, all but the
    :data:`HIDDEN_SECTIONS` of pytest's output to ``console``."""

    def __init__(self, console: TextIO, full: TextIO) -> None:
        super().__init__()
        self.console = console
        self.full = full
        self.hiding = False
        self.hidden: list[str] = []
        """The sections left out so far, by title."""
        self._line = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]  # a plain attribute in TextIOBase
        return "utf-8"

    def isatty(self) -> bool:
        return False  # no colour codes in the file

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.full.write(text)
        self._line += text
        *complete, self._line = self._line.split("\n")
        for line in complete:
            self._console_line(line)
        if not self.hiding and self._line and not _SECTION.match(self._line):
            self.console.write(self._line)  # a line in progress (pytest's dots)
            self._line = ""
        return len(text)

    def _console_line(self, line: str) -> None:
        found = _SECTION.match(line.strip())
        if found:
            self.hiding = found[1] in HIDDEN_SECTIONS
            if self.hiding:
                self.hidden.append(found[1])
                return
        if not self.hiding:
            self.console.write(line + "\n")

    def flush(self) -> None:
        self.full.flush()
        self.console.flush()

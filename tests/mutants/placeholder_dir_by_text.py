"""Breaks: FBD-MOVE-2

``move_from`` that finds the source's directory by the text of its path (``os.path.abspath``,
which drops ``name/..`` without asking the OS): for a path through a linked directory and ``..``
the placeholder is made in another directory than the source's, and the source is renamed there.
"""

from __future__ import annotations

import os

from . import implementation
from ._base import Owners


class FileBackedData(Owners):
    @staticmethod
    def _placeholder_dir(source: str) -> str:
        return os.path.dirname(os.path.abspath(source))


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)

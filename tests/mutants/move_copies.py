"""Breaks: FBD-MOVE-6, FBD-MOVE-1

``move_from`` that copies the source onto the placeholder and deletes the source, instead of
renaming it: the data is read and written in full, and the owned file is another inode.
"""

from __future__ import annotations

import os
import shutil

import reference

from . import implementation


class FileBackedData(reference.FileBackedData):
    @staticmethod
    def _take(source: str, placeholder: str) -> None:
        shutil.copyfile(source, placeholder)
        os.remove(source)


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)

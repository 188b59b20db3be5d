"""The reference implementation of ExecuTorch's file-backed serialization layer (stdlib only).

Names and signatures follow ``executorch.exir._serialize`` so code written against ExecuTorch runs
unchanged; behaviour follows every clause of spec/SPEC.md, core and strict profiles.
"""

from .cord import Cord, CordBuffer
from .file_backed import FileBackedData, FileChangedError
from .named_data import DataEntry, NamedDataStore, NamedDataStoreOutput

__all__ = [
    "Cord",
    "CordBuffer",
    "DataEntry",
    "FileBackedData",
    "FileChangedError",
    "NamedDataStore",
    "NamedDataStoreOutput",
]

__version__ = "0.1.0"

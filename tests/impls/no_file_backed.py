"""A user implementation without file-backed data: the reference's Cord, NamedDataStore,
NamedDataStoreOutput and DataEntry, and nothing else (like ExecuTorch before 1.5.0).

``cordspec run --impl tests.impls.no_file_backed`` must conform, with no clause that needs
file-backed data credited as passed (tests/test_optional_parts.py).
"""

from reference import Cord, DataEntry, NamedDataStore, NamedDataStoreOutput

__all__ = ["Cord", "DataEntry", "NamedDataStore", "NamedDataStoreOutput"]

"""A user implementation without backend hooks: the reference's five classes and nothing else.

``cordspec run --impl tests.impls.nohooks`` must conform, with every HOOK-* clause not applicable.
"""

from reference import Cord, DataEntry, FileBackedData, NamedDataStore, NamedDataStoreOutput

__all__ = ["Cord", "DataEntry", "FileBackedData", "NamedDataStore", "NamedDataStoreOutput"]

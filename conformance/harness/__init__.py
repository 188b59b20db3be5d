"""The suite's own harness: what its tests share, importable by tests of any implementation."""

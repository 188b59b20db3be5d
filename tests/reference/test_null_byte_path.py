"""A path with a null byte is refused with a message naming it (found by the suite's hypothesis
test test_any_path_to_move_from_is_named; the OS's own error does not name the path)."""

from __future__ import annotations

import pytest

from reference import FileBackedData


@pytest.mark.parametrize("make", [FileBackedData, FileBackedData.move_from], ids=["init", "move"])
def test_null_byte_in_path_is_named(make: object) -> None:
    with pytest.raises(ValueError, match=r"null byte: 'a\\x00b'"):
        make("a\0b")  # type: ignore[operator]  # both are callables taking a path

"""A path-like object of any type: the suite and the reference's own tests hand one over where a
path is taken, to see a path-like that is not an ``os.PathLike[str]`` refused or followed."""

from __future__ import annotations


class PathLikeOf:
    """An ``os.PathLike`` whose ``__fspath__`` gives ``value`` as it was given (``bytes``, a
    ``str``, or any other object)."""

    def __init__(self, value: object) -> None:
        self.value = value

    def __fspath__(self) -> object:
        return self.value

    def __repr__(self) -> str:
        return f"PathLikeOf({self.value!r})"

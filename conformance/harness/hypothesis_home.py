"""Where Hypothesis keeps its files in a ``cordspec run``: apart from the hypothesis plugin, so that
the command can say so without importing Hypothesis before pytest starts (pytest could then not
rewrite its asserts)."""

from __future__ import annotations

import os
from pathlib import Path

from .. import environment

__all__ = ["HOME_VARIABLE", "default_home"]

HOME_VARIABLE = environment.HYPOTHESIS_HOME.name
"""Where Hypothesis keeps its files (example database, caches) in a run: ``cordspec run`` sets it
to :func:`default_home`, so a run leaves no ``.hypothesis/`` in the directory it starts in."""


def default_home() -> Path:
    """The per-user cache directory for Hypothesis' files: ``$XDG_CACHE_HOME/cordspec/hypothesis``
    (``~/.cache`` without it), so that a run leaves nothing in the directory it starts in."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "cordspec" / "hypothesis"

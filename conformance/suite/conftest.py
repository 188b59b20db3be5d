"""What the suite's tests share beyond the plugin: a fake filesystem that a port calling ``posix``
directly reaches too."""

from __future__ import annotations

import posix
from collections.abc import Iterator

import pytest
from pyfakefs.fake_os import FakeOsModule

from conformance.harness.os_faults import OS_CALLS


@pytest.fixture(autouse=True)
def _posix_on_the_fake_filesystem(request: pytest.FixtureRequest) -> Iterator[None]:
    """In a test on pyfakefs's fake filesystem, the functions of :mod:`posix` act on it as those
    of ``os`` do: pyfakefs swaps the ``os`` that modules name, so a port that calls ``posix``
    would otherwise act on the real filesystem and fail there, a failure the test would wrongly
    report as the clause's (a port bound to the real functions by name is still out of reach)."""
    if "fs" not in request.fixturenames:
        yield
        return
    fake = FakeOsModule(request.getfixturevalue("fs"))
    with pytest.MonkeyPatch.context() as patch:  # undone when the test ends, however it ends
        for name in OS_CALLS:
            if hasattr(posix, name) and hasattr(fake, name):
                patch.setattr(posix, name, getattr(fake, name))
        yield

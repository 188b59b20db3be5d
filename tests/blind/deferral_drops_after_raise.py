"""Breaks: FBD-INTR-2
Profile: strict
Bug: when a signal deferred during ``move_from`` is handed to a handler that raises, the signals
still queued behind it are dropped (the call is being abandoned), so their handlers never run.
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import deferral, file_backed

from . import implementation


class _Deferral(deferral._Deferral):
    def deliver(self) -> None:
        while self.pending:
            signum, frame = self.pending.pop(0)
            try:
                self._hand(signum, frame)
            except BaseException:
                self.pending.clear()  # the call is abandoned: nothing more to hand on
                raise
            finally:
                self._adopt()


class FileBackedData(file_backed.FileBackedData):
    _deferral = _Deferral


IMPLEMENTATION = implementation(__name__, FileBackedData=FileBackedData)


def scenario(impl: Implementation) -> str | None:
    from ._support import child_says

    return child_says(
        impl,
        """
        import os, shutil, signal, tempfile
        ran = []
        def on_usr1(signum, frame):
            ran.append(signum)
        signal.signal(signal.SIGUSR1, on_usr1)
        d = tempfile.mkdtemp(prefix="cordspec-blind-")
        source = os.path.join(d, "w")
        with open(source, "wb") as f:
            f.write(b"weights")
        real_replace = os.replace
        def replace(a, b):
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGUSR1)
            return real_replace(a, b)
        os.replace = replace
        try:
            impl.FileBackedData.move_from(source).close()
            outcome = "move_from returned although SIGINT came during it"
        except KeyboardInterrupt:
            outcome = None
        finally:
            os.replace = real_replace
        back = os.path.exists(source)
        shutil.rmtree(d)
        if outcome is None and not ran:
            outcome = "SIGUSR1, deferred behind a raising SIGINT, never reached its handler"
        elif outcome is None and not back:
            outcome = "the interrupted move_from did not put the source back"
        print(outcome or "OK")
        """,
    )

"""Signals lost by the deferral (FBD-INTR-2): SIGINT and SIGUSR1 arrive together while
``move_from``, ``FileBackedData(path, cleanup=True)`` or ``close()`` defers signals, and SIGINT's
handler raises. Plain CPython runs both handlers (the second while the first's exception
unwinds); so must the deferral, in the order they came. The same with SIGINT then SIGTERM, both
raising: both run, and SystemExit propagates with the KeyboardInterrupt as its context.

Run ``python docs/attacks/lost_signals.py [CHECKOUT]`` (the reference of CHECKOUT, by default of
this checkout). Exit 0 when every handler ran, in order, in every case; 1 with a message for each
case where one was dropped or the order or the exception was another than CPython's."""

from __future__ import annotations

import gc
import os
import signal
import sys
import tempfile
from pathlib import Path

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
"""The checkout whose reference is attacked: the first argument, else this one."""
sys.path.insert(0, str(REPO))

from reference import FileBackedData  # noqa: E402  # the checkout chosen above

seen: list[str] = []


def interrupt(signum: int, frame: object) -> None:
    seen.append("SIGINT")
    raise KeyboardInterrupt


def terminate(signum: int, frame: object) -> None:
    seen.append("SIGTERM")
    raise SystemExit(143)


def usr1(signum: int, frame: object) -> None:
    seen.append("SIGUSR1")  # a profiler's dump, a log rotation: it must not be dropped


def raise_in_sequence(signals: list[int]) -> None:
    """Each signal for real, the next while the previous handler's exception unwinds."""
    if signals:
        try:
            signal.raise_signal(signals[0])
        finally:
            raise_in_sequence(signals[1:])


def during(call: str, directory: Path, signals: list[int]) -> BaseException | None:
    """Run ``call`` with ``signals`` raised just after an OS call inside its deferral (the
    rename of move_from, the unlink of close, the ``getpid`` the constructor records its owner
    by); what it raised."""
    source = directory / f"{call}.bin"
    source.write_bytes(b"weights" * 100)
    owner = FileBackedData.move_from(str(source)) if call == "close" else None
    name = {"move_from": "replace", "constructor": "getpid", "close": "unlink"}[call]
    real = getattr(os, name)
    fired: list[bool] = []

    def stepped(*args: object, **kwargs: object) -> object:
        result = real(*args, **kwargs)
        if not fired:
            fired.append(True)
            raise_in_sequence(signals)
        return result

    setattr(os, name, stepped)
    try:
        if call == "move_from":
            FileBackedData.move_from(str(source)).close()
        elif call == "constructor":
            FileBackedData(str(source), cleanup=True).close()
        else:
            assert owner is not None
            owner.close()
    except BaseException as exc:
        return exc
    finally:
        setattr(os, name, real)
        gc.collect()
    return None


def plain(signals: list[int]) -> tuple[list[str], BaseException | None]:
    """What plain CPython does with the same signals raised in the same way."""
    seen.clear()
    try:
        raise_in_sequence(signals)
    except BaseException as exc:
        return list(seen), exc
    return list(seen), None


def describe(error: BaseException | None) -> str:
    if error is None:
        return "nothing raised"
    context = error.__context__
    return type(error).__name__ + (f" (context {type(context).__name__})" if context else "")


def main() -> int:
    signal.signal(signal.SIGINT, interrupt)  # also where this runs with SIGINT ignored
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGUSR1, usr1)
    cases: list[list[int]] = [
        [signal.SIGINT, signal.SIGUSR1],
        [signal.SIGUSR1, signal.SIGINT],
        [signal.SIGINT, signal.SIGTERM],
    ]
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        for signals in cases:
            expected_seen, expected = plain(signals)
            for call in ("move_from", "constructor", "close"):
                seen.clear()
                error = during(call, Path(scratch), signals)
                names = "+".join(signal.Signals(s).name for s in signals)
                got = (list(seen), describe(error))
                want = (expected_seen, describe(expected))
                line = f"{names} during {call}: handlers {got[0]}, {got[1]}"
                if got != want:
                    failures.append(f"{line}; plain CPython: handlers {want[0]}, {want[1]}")
                else:
                    print(f"ok   {line}")
                for left in Path(scratch).iterdir():
                    left.unlink()
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The reference's signal deferral (FBD-INTR-2, FBD-INTR-3) and its put-back of a moved file
(FBD-MOVE-11), case by case: signals raised for real in the deferred step, names taken in the
put-back's window, both ways of renaming without replacing."""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reference.deferral as deferral
import reference.renames as renames
from reference import FileBackedData
from reference.location import locate
from reference.placeholders import KEPT_INFIX, _Move, put_back

DATA = b"the user's weights" * 100


@contextlib.contextmanager
def handlers(**installed: Any) -> Iterator[list[str]]:
    """SIGINT (``int``), SIGUSR1 (``usr1``), SIGUSR2 (``usr2``) and SIGTERM (``term``) handlers
    over the block; each name installed as a handler that records it (and raises what is given);
    every handler before put back after. The list of names seen is yielded."""
    numbers = {"int": signal.SIGINT, "usr1": signal.SIGUSR1, "usr2": signal.SIGUSR2}
    numbers["term"] = signal.SIGTERM
    saved = {n: signal.getsignal(n) for n in numbers.values()}
    seen: list[str] = []

    def recording(name: str, raises: BaseException | None) -> Any:
        def handle(signum: int, frame: object) -> None:
            seen.append(name)
            if raises is not None:
                raise raises

        return handle

    try:
        for name, raises in installed.items():
            signal.signal(numbers[name], recording(name, raises))
        yield seen
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


def in_sequence(*signals: int) -> None:
    if signals:
        try:
            signal.raise_signal(signals[0])
        finally:
            in_sequence(*signals[1:])


def test_every_deferred_signal_runs_in_order_when_the_first_raises() -> None:
    undone: list[str] = []
    with (
        handlers(int=KeyboardInterrupt(), usr1=None, usr2=None) as seen,
        pytest.raises(KeyboardInterrupt),
    ):
        deferral._atomically(
            lambda: in_sequence(signal.SIGINT, signal.SIGUSR2, signal.SIGUSR1) or "done",
            undone.append,
        )
    assert seen == ["int", "usr2", "usr1"]
    assert undone == ["done"]  # undone once, after every handler ran


def test_a_second_raising_handler_propagates_chained_to_the_first() -> None:
    with (
        handlers(int=KeyboardInterrupt(), term=SystemExit(143)) as seen,
        pytest.raises(SystemExit) as raised,
    ):
        deferral._atomically(lambda: in_sequence(signal.SIGINT, signal.SIGTERM), print)
    assert seen == ["int", "term"]
    assert isinstance(raised.value.__context__, KeyboardInterrupt)


def test_signals_deferred_when_the_step_fails_all_run() -> None:
    def fail() -> None:
        in_sequence(signal.SIGUSR1, signal.SIGINT)
        raise OSError(errno.EIO, "failed")

    with (
        handlers(int=KeyboardInterrupt(), usr1=None) as seen,
        pytest.raises(KeyboardInterrupt) as raised,
    ):
        deferral._atomically(fail, print)
    assert seen == ["usr1", "int"]
    assert isinstance(raised.value.__context__, OSError)


def test_signals_during_the_undo_are_not_lost() -> None:
    def undo(_: object) -> None:
        signal.raise_signal(signal.SIGUSR1)  # comes while the undo runs, still deferred

    with handlers(int=KeyboardInterrupt(), usr1=None) as seen, pytest.raises(KeyboardInterrupt):
        deferral._atomically(lambda: signal.raise_signal(signal.SIGINT), undo)
    assert seen == ["int", "usr1"]


def test_a_handler_installing_sig_ign_is_kept_and_the_next_signal_ignored() -> None:
    seen: list[str] = []

    def first(signum: int, frame: object) -> None:
        seen.append("first")
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    with handlers():
        signal.signal(signal.SIGINT, first)
        with pytest.raises(KeyboardInterrupt):
            deferral._atomically(lambda: in_sequence(signal.SIGINT, signal.SIGINT), print)
        after = signal.getsignal(signal.SIGINT)
    assert seen == ["first"]
    assert after == signal.SIG_IGN


def test_a_handler_put_on_a_signal_not_deferred_is_deferred_for_the_rest_and_kept() -> None:
    seen: list[str] = []

    def late(signum: int, frame: object) -> None:
        seen.append("late")
        raise SystemExit(1)

    def first(signum: int, frame: object) -> None:
        seen.append("first")
        signal.signal(signal.SIGUSR2, late)  # SIGUSR2 had no Python handler when the step began

    def undo_free(_: object) -> None:
        pass

    def step() -> None:
        signal.raise_signal(signal.SIGINT)

    with handlers():
        signal.signal(signal.SIGUSR2, signal.SIG_DFL)
        signal.signal(signal.SIGINT, first)
        deferral._atomically(step, undo_free)
        assert signal.getsignal(signal.SIGUSR2) is late
        assert signal.getsignal(signal.SIGINT) is first
        with pytest.raises(SystemExit):
            signal.raise_signal(signal.SIGUSR2)
    assert seen == ["first", "late"]


def test_a_handler_that_puts_back_what_it_replaced_restores_the_original() -> None:
    """``signal.signal`` returned the deferral where the original handler stood: put back after
    the step, it hands signals to that original."""
    kept: list[object] = []
    seen: list[str] = []

    def original(signum: int, frame: object) -> None:
        seen.append("original")
        if not kept:
            kept.append(signal.signal(signal.SIGINT, lambda s, f: seen.append("temporary")))

    with handlers():
        signal.signal(signal.SIGINT, original)
        deferral._atomically(lambda: signal.raise_signal(signal.SIGINT), print)
        signal.signal(signal.SIGINT, kept[0])  # type: ignore[arg-type]  # a handler it was given
        signal.raise_signal(signal.SIGINT)
    assert seen == ["original", "original"]


def _move(tmp_path: Path) -> tuple[_Move, Path]:
    """A move as far as the rename: the data at a placeholder, the source's name free."""
    source = tmp_path / "weights.bin"
    source.write_bytes(DATA)
    placeholder = tmp_path / ".executorch_1-1_abcdefgh.data"
    os.rename(source, placeholder)
    move = _Move(str(source), (0, 0, 0), locate(str(source), False))
    move.placeholder, move.where = str(placeholder), locate(str(placeholder), False)
    return move, source


@pytest.mark.parametrize("way", ["renameat2", "link"])
def test_put_back_renames_to_the_free_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    if way == "link":
        monkeypatch.setattr(renames, "_renameat2", None)
    move, source = _move(tmp_path)
    inode = os.stat(move.placeholder).st_ino
    put_back(move)
    assert os.listdir(tmp_path) == ["weights.bin"]
    assert (source.read_bytes(), source.stat().st_ino) == (DATA, inode)


@pytest.mark.parametrize("way", ["renameat2", "link"])
@pytest.mark.parametrize("taker", ["directory", "file", "link"])
def test_a_taken_name_keeps_the_data_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: str, taker: str
) -> None:
    if way == "link":
        monkeypatch.setattr(renames, "_renameat2", None)
    move, source = _move(tmp_path)
    if taker == "directory":
        source.mkdir()
    elif taker == "file":
        source.write_bytes(b"another's")
    else:
        source.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(FileExistsError) as raised:
        put_back(move)
    kept = Path(raised.value.filename)
    assert kept.parent == tmp_path and kept.name.startswith("weights.bin" + KEPT_INFIX)
    assert kept.read_bytes() == DATA
    assert raised.value.filename2 == str(source)
    assert str(kept) in str(raised.value)
    assert sorted(os.listdir(tmp_path)) == sorted(["weights.bin", kept.name])
    assert not (tmp_path / "elsewhere").exists()  # a link at the name is never followed
    if taker == "file":
        assert source.read_bytes() == b"another's"


def test_a_directory_moved_away_leaves_the_data_where_it_is(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    move, _ = _move(tmp_path / "d")
    os.rename(tmp_path / "d", tmp_path / "moved")
    (tmp_path / "d").mkdir()  # the same path, another directory
    with pytest.raises(OSError) as raised:
        put_back(move)
    assert raised.value.filename == move.placeholder  # where it was, by its old path
    assert (tmp_path / "moved" / Path(move.placeholder).name).read_bytes() == DATA
    assert os.listdir(tmp_path / "d") == []


def test_renameat2_errors_other_than_unsupported_are_raised(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(FileNotFoundError):
            renames.rename_noreplace(fd, "missing", fd, "new")
    finally:
        os.close(fd)


def test_an_interrupted_move_whose_name_was_taken_is_disowned_and_kept(tmp_path: Path) -> None:
    """The whole path: SIGINT after the rename, its handler takes the name with a directory."""
    source = tmp_path / "weights.bin"
    source.write_bytes(DATA)
    real_replace = os.replace

    def take_then_interrupt(signum: int, frame: object) -> None:
        source.mkdir()
        raise KeyboardInterrupt

    def replace(src: Any, dst: Any) -> None:
        real_replace(src, dst)
        signal.raise_signal(signal.SIGINT)

    with handlers():
        signal.signal(signal.SIGINT, take_then_interrupt)
        os.replace = replace
        try:
            with pytest.raises(FileExistsError) as raised:
                FileBackedData.move_from(str(source))
        finally:
            os.replace = real_replace
    assert isinstance(raised.value.__context__, KeyboardInterrupt)
    raised.value.__traceback__ = None
    gc.collect()
    kept = Path(raised.value.filename)
    assert kept.read_bytes() == DATA
    assert sorted(os.listdir(tmp_path)) == sorted(["weights.bin", kept.name])

"""The answers' journal (SQLite, ``bot.store.journal``): an answer acknowledged once its line is
synced survives a kill before its transaction commits; the journal is replayed once, leaves
out a torn line, stays small, and an answer it cannot take is refused."""

from __future__ import annotations

import contextlib
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.store import Attempt, Change, WindowRecord
from bot.store.journal import AnswerJournal, journal_paths, replay
from bot.store.sqlite import SqliteStore
from tests.bot.conftest import PLAYERS, HostEnv
from tests.bot.test_faults import locked
from tests.bot.test_store import new_match

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.sqlite_only  # the journal is the SQLite store's


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """The database's file; the journal's files go beside it."""
    return tmp_path / "host.db"


async def store_with_a_window(path: Path) -> tuple[SqliteStore, int]:
    """A match whose step 1 window is open for seats 0 and 1."""
    store = await SqliteStore.open(path)
    match_id = await store.create_match(new_match(), {"s": 0}, 1.0, [])
    window = WindowRecord(match_id, 1, (0, 1), 1e12, None, False)
    assert await store.apply(Change(match_id, 2.0, open_window=window))
    return store, match_id


@contextlib.asynccontextmanager
async def a_window(path: Path) -> AsyncIterator[tuple[SqliteStore, int]]:
    """``store_with_a_window``, closed when the block ends."""
    store, match_id = await store_with_a_window(path)
    try:
        yield store, match_id
    finally:
        await store.close()


def answer(match_id: int, seat: int, raw: str, at: float) -> Attempt:
    return Attempt(match_id, 1, seat, PLAYERS[seat], raw, "accepted", f"You say {raw}.", raw, at)


ANSWER_THEN_WAIT = """
import asyncio, sys
from bot.database import open_store
from bot.store import Attempt

async def main() -> None:
    store = await open_store(sys.argv[1])
    print("open", flush=True)
    sys.stdin.readline()  # the test holds the database's write lock now
    attempt = Attempt(int(sys.argv[2]), 1, 1, 12, "b2", "accepted", "You say b2.", "b2", 3.0)
    assert await store.add_attempt(attempt)
    print("acknowledged", flush=True)
    await asyncio.sleep(60)  # killed before its transaction can commit

asyncio.run(main())
"""


async def test_an_answer_acknowledged_survives_a_kill_before_its_commit(path: Path) -> None:
    store, match_id = await store_with_a_window(path)
    await store.close()
    child = subprocess.Popen(
        [sys.executable, "-c", ANSWER_THEN_WAIT, str(path), str(match_id)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline() == "open\n"
        with locked(path):  # another process's write lock: the answer cannot commit
            child.stdin.write("go\n")
            child.stdin.flush()
            assert child.stdout.readline() == "acknowledged\n"
            assert raw_attempts(path) == []  # only the journal has it
            child.send_signal(signal.SIGKILL)
            child.wait(10)
    finally:
        child.kill()
        child.wait(10)
    store = await SqliteStore.open(path)  # replays the journal
    try:
        assert [a.raw for a in await store.attempts(match_id)] == ["b2"]
        window = await store.open_window(match_id)
        assert window is not None and window.moves == {1: "b2"}
    finally:
        await store.close()
    assert all(p.stat().st_size == 0 for p in journal_paths(path))  # replayed, then emptied


def raw_attempts(path: Path) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT raw FROM attempts").fetchall()


async def test_a_journal_replayed_again_adds_nothing_and_a_torn_line_is_left_out(
    path: Path,
) -> None:
    store, match_id = await store_with_a_window(path)
    assert await store.add_attempt(answer(match_id, 0, "a1", 3.0))
    assert await store.add_attempt(answer(match_id, 0, "a2", 4.0))  # a revision
    kept = [p.read_bytes() for p in journal_paths(path)]
    await store.close()  # all committed: the journal is emptied
    assert all(p.stat().st_size == 0 for p in journal_paths(path))
    # as if the process had died after the commits, before the journal was emptied, while
    # writing a third line (never synced, never acknowledged)
    for journal, lines in zip(journal_paths(path), kept, strict=True):
        journal.write_bytes(lines)
    with journal_paths(path)[0].open("ab") as torn:
        torn.write(b'[3, %d, 1, 1, 12, "b' % match_id)
    assert [a.raw for a in replay(path)] == ["a1", "a2"]
    store = await SqliteStore.open(path)
    try:
        assert [a.raw for a in await store.attempts(match_id)] == ["a1", "a2"]
        window = await store.open_window(match_id)
        assert window is not None and window.moves == {0: "a2"}
    finally:
        await store.close()


async def test_the_journal_is_emptied_once_its_answers_are_in_the_database(path: Path) -> None:
    async with a_window(path) as (store, match_id):
        for n in range(200):
            assert await store.add_attempt(answer(match_id, n % 2, f"r{n}", 3.0 + n))
        assert sum(p.stat().st_size for p in journal_paths(path)) > 200 * 50
        # a read goes after the answers' transactions queued before it: they are committed
        assert len(await store.attempts(match_id)) == 200
        for _ in range(3):  # the checkpoints' ticks: turn to the other file, empty this one
            await store._tend_journal()
        assert [p.stat().st_size for p in journal_paths(path)] == [0, 0]


async def test_an_answer_for_a_closed_window_is_refused_without_a_journal_line(path: Path) -> None:
    async with a_window(path) as (store, match_id):
        assert await store.apply(Change(match_id, 3.0, close_window=1, close_reason="deadline"))
        assert not await store.add_attempt(answer(match_id, 0, "late", 4.0))
        assert [p.stat().st_size for p in journal_paths(path)] == [0, 0]
        assert await store.attempts(match_id) == []


@contextlib.contextmanager
def file_size_limit() -> Iterator[None]:
    """Writes past a file's first byte fail (EFBIG), as on a disk with no room left; the
    signal that would kill the process for it is ignored meanwhile."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def test_a_line_cut_short_is_taken_back(path: Path) -> None:
    journal = AnswerJournal(path)
    try:
        with file_size_limit(), pytest.raises(OSError):
            journal.write(answer(1, 0, "x" * 100, 3.0))  # one byte of it fits
        assert [p.stat().st_size for p in journal.paths] == [0, 0]
    finally:
        journal.close()


async def test_an_answer_the_journal_cannot_take_is_refused_and_the_match_goes_on(
    env: HostEnv,
) -> None:
    record = await env.new_match(config={"rounds": 1})
    with file_size_limit():
        refused = await env.host.submit(record.id, PLAYERS[0], "3")
    assert not refused.accepted and "could not be saved" in refused.text
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "4")).accepted
    await env.host.wait_over(record.id)
    steps = await env.host.store.steps(record.id)
    assert steps[1].moves == {0: 4, 1: 4}

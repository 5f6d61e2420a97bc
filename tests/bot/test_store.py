"""The SQLite store: schema versioning, pragmas, guarded changes."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from pathlib import Path

import pytest

from bot.store import Attempt, Change, NewMatch, StepRecord, Taken, WindowRecord
from bot.store.faults import UnusableDatabase
from bot.store.schema import LATEST_VERSION, MIGRATIONS
from bot.store.sqlite import SqliteStore
from tests.bot.conftest import eventually


def new_match() -> NewMatch:
    return NewMatch("toy", 1, 2, (11, 12), ("A", "B"), (9,), {"x": 1}, 5, None)


async def test_schema_is_versioned_and_migrated_once(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "sub" / "h.db")
    assert await store.schema_version() == LATEST_VERSION == 7
    await store.close()
    store = await SqliteStore.open(tmp_path / "sub" / "h.db")  # reopening migrates nothing
    assert await store.schema_version() == 7
    pragmas = [await store._fetch(f"PRAGMA {name}") for name in ("journal_mode", "synchronous")]
    assert [next(iter(rows))[0] for rows in pragmas] == ["wal", 1]  # 1: NORMAL
    await store.close()


async def test_a_version_1_database_gains_timer_kinds_and_reads_old_matches_as_before(
    tmp_path: Path,
) -> None:
    path = tmp_path / "h.db"
    with sqlite3.connect(path) as db:  # as floral-host wrote it before timer kinds
        db.executescript(MIGRATIONS[0][1])
        db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
        db.execute("INSERT INTO schema_migrations VALUES (1, 'before')")
        db.execute(
            "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators, config,"
            " seed, window_s, status, step, created_at, updated_at)"
            " VALUES ('toy', 1, 2, '[11,12]', '[\"A\",\"B\"]', '[9]', '{}', 5, 30.0,"
            " 'running', 3, 1.0, 1.0)"
        )
    db.close()
    store = await SqliteStore.open(path)
    assert await store.schema_version() == LATEST_VERSION
    old = await store.get_match(1)
    assert old is not None and (old.window_s, old.timers, old.step) == (30.0, {}, 3)
    new = dataclasses.replace(new_match(), timers={"reaction": 20.0})
    record = await store.get_match(await store.create_match(new, {"s": 0}, 2.0, []))
    assert record is not None and (record.window_s, record.timers) == (None, {"reaction": 20.0})
    await store.close()


async def test_a_version_2_database_gains_practice_and_ratings_keeping_when_matches_ended(
    tmp_path: Path,
) -> None:
    path = tmp_path / "h.db"
    with sqlite3.connect(path) as db:  # as floral-host wrote it before ratings
        for _, sql in MIGRATIONS[:2]:
            db.executescript(sql)
        db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
        db.execute("INSERT INTO schema_migrations VALUES (1, 'before'), (2, 'before')")
        for status, updated in (("finished", 50.0), ("aborted", 40.0), ("running", 70.0)):
            db.execute(
                "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators,"
                " config, seed, window_s, status, step, outcome, created_at, updated_at, timers)"
                " VALUES ('toy', 1, 2, '[11,12]', '[\"A\",\"B\"]', '[9]', '{}', 5, 30.0, ?, 3,"
                " '{\"winners\":[1]}', 1.0, ?, '{}')",
                (status, updated),
            )
    db.close()
    store = await SqliteStore.open(path)
    assert await store.schema_version() == LATEST_VERSION
    old = [await store.get_match(match_id) for match_id in (1, 2, 3)]
    assert [(r.status, r.practice, r.ended_at, r.ended_seq) for r in old if r] == [
        ("finished", False, 50.0, 2),  # ends numbered in the order of their last update
        ("aborted", False, 40.0, 1),
        ("running", False, None, None),
    ]
    assert old[0] is not None and old[0].outcome == {"winners": [1]}
    assert await store.ratings(None) == []
    practice = dataclasses.replace(new_match(), practice=True)
    record = await store.get_match(await store.create_match(practice, {"s": 0}, 80.0, []))
    assert record is not None and (record.practice, record.ended_at) == (True, None)
    assert await store.apply(Change(record.id, 90.0, status="finished", outcome={"winners": []}))
    record = await store.get_match(record.id)
    assert record is not None and (record.status, record.ended_at) == ("finished", 90.0)
    assert record.ended_seq == 3
    await store.close()


async def test_a_window_closes_once_and_a_failed_guard_writes_nothing(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "h.db")
    match_id = await store.create_match(new_match(), {"s": 0}, 1.0, [])
    window = WindowRecord(match_id, 1, (0, 1), 100.0, None, False)
    assert await store.apply(Change(match_id, 2.0, status="running", open_window=window))

    def resolve(at: float) -> Change:
        step = StepRecord(match_id, 1, "resolve", {0: "a", 1: None}, {"s": 1})
        return Change(match_id, at, close_window=1, close_reason="deadline", new_step=step)

    assert await store.apply(resolve(3.0))
    assert not await store.apply(resolve(4.0))  # a second resolution of step 1
    assert [s.step for s in await store.steps(match_id)] == [0, 1]
    late = Attempt(match_id, 1, 0, 11, "b", "accepted", "", "b", 5.0)
    assert not await store.add_attempt(late)
    assert await store.attempts(match_id) == []
    await store.close()


async def test_records_round_trip(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "h.db")
    match_id = await store.create_match(new_match(), {"s": 0}, 1.0, [])
    record = await store.get_match(match_id)
    assert record is not None
    assert (record.players, record.names, record.moderators) == ((11, 12), ("A", "B"), (9,))
    assert (record.config, record.seed, record.status, record.step) == ({"x": 1}, 5, "setup", 0)
    await store.apply(
        Change(match_id, 2.0, open_window=WindowRecord(match_id, 1, (1,), 9.5, None, False))
    )
    assert await store.add_attempt(Attempt(match_id, 1, 1, 12, "z", "accepted", "ok", [1], 3.0))
    window = await store.open_window(match_id)
    assert window is not None and (window.seats, window.moves) == ((1,), {1: [1]})
    assert (await store.latest_step(match_id)).snapshot == {"s": 0}
    await store.close()


async def test_a_newer_schema_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    await (await SqliteStore.open(path)).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_migrations VALUES (?, 'later')", (LATEST_VERSION + 1,))
    db.close()
    before = path.read_bytes()
    for readonly in (False, True):
        with pytest.raises(UnusableDatabase, match="written by a newer floral-host"):
            await SqliteStore.open(path, readonly=readonly)
    assert path.read_bytes() == before


async def test_a_read_only_open_makes_no_file_and_no_folder(tmp_path: Path) -> None:
    path = tmp_path / "absent" / "h.db"
    with pytest.raises(UnusableDatabase, match="no database here"):
        await SqliteStore.open(path, readonly=True)
    assert not path.parent.exists()
    await (await SqliteStore.open(path)).close()  # the host's open makes both
    store = await SqliteStore.open(path, readonly=True)
    with pytest.raises(Exception, match="readonly database"):  # WriteFailed wraps it
        await store.create_match(new_match(), {"s": 0}, 1.0, [])
    await store.close()


async def test_a_failed_open_leaves_no_connection_thread_behind(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"not sqlite at all" * 100)
    before = set(threading.enumerate())
    with pytest.raises(UnusableDatabase, match="not a usable SQLite database"):
        await SqliteStore.open(path)
    await eventually(lambda: set(threading.enumerate()) <= before)


async def test_a_rematch_is_claimed_once_in_the_transaction_that_creates_it(
    tmp_path: Path,
) -> None:
    """``NewMatch.rematch_of``: the old match's log names its one rematch; a second claim
    raises Taken naming it and writes nothing."""
    store = await SqliteStore.open(tmp_path / "h.db")
    old = await store.create_match(new_match(), {"s": 0}, 1.0, [])
    again = dataclasses.replace(new_match(), rematch_of=old)
    first = await store.create_match(again, {"s": 0}, 2.0, [])
    with pytest.raises(Taken) as taken:
        await store.create_match(again, {"s": 0}, 3.0, [])
    assert taken.value.match_id == first
    assert await store.match_count() == 2
    entries = [e for e in await store.match_log(old) if e.kind == "rematch"]
    assert [e.data for e in entries] == [{"match": first}]
    await store.close()


async def test_a_tables_last_seat_and_its_match_are_one_transaction(tmp_path: Path) -> None:
    """``NewMatch.table``: the match and the full table are written together; a table no
    longer open raises Taken and no match is written."""
    store = await SqliteStore.open(tmp_path / "h.db")
    table = await store.create_table(1, 2, "toy", 9, 2, 1.0)
    assert [t.id for t in await store.open_tables()] == [table.id]
    filling = dataclasses.replace(new_match(), table=table.id)
    match_id = await store.create_match(filling, {"s": 0}, 2.0, [])
    full = await store.get_table(table.id)
    assert full is not None and (full.status, full.match_id) == ("full", match_id)
    assert full.players == ((11, "A"), (12, "B")) and await store.open_tables() == []
    with pytest.raises(Taken):
        await store.create_match(filling, {"s": 0}, 3.0, [])
    assert await store.match_count() == 1
    await store.close()

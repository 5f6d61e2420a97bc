"""The store, on both backends: schema versioning and upgrades, guarded changes, refusals."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.database import is_postgres, open_store
from bot.store import Attempt, Change, NewMatch, StepRecord, Taken, WindowRecord
from bot.store.faults import UnusableDatabase
from bot.store.postgres import PostgresStore
from bot.store.schema import LATEST_VERSION, MIGRATIONS, POSTGRES_MIGRATIONS
from bot.store.sql import fetch
from bot.store.sqlite import CHANGES_BATCH_S, SqliteStore
from tests import postgres
from tests.bot.conftest import eventually


@pytest.fixture
def database(backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty database: these tests make its schema (or an older one) themselves."""
    if backend == "sqlite":
        yield str(tmp_path / "host.db")
        return
    url = postgres.new_database(schema=False)
    yield url
    postgres.drop_database(url)


def new_match() -> NewMatch:
    return NewMatch("toy", 1, 2, (11, 12), ("A", "B"), (9,), {"x": 1}, 5, None)


def raw(database: str, *statements: str) -> list[tuple[Any, ...]]:
    """Run SQL on the database itself, as another program would; the last statement's rows."""
    if is_postgres(database):
        for statement in statements[:-1]:
            postgres.fetch(database, statement)
        return postgres.fetch(database, statements[-1])
    with contextlib.closing(sqlite3.connect(database)) as db:
        for statement in statements[:-1]:
            db.executescript(statement)
        rows = db.execute(statements[-1]).fetchall()
        db.commit()
        return rows


def as_version(database: str, version: int, *inserts: str) -> None:
    """The database as a floral-host of schema ``version`` wrote it, holding ``inserts``."""
    migrations = POSTGRES_MIGRATIONS if is_postgres(database) else MIGRATIONS
    raw(
        database,
        *(sql for _, sql in migrations[:version]),
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)",
        *(f"INSERT INTO schema_migrations VALUES ({n}, 'before')" for n in range(1, version + 1)),
        *inserts,
        "SELECT 1",
    )


def test_each_migration_is_written_for_both_backends() -> None:
    assert [n for n, _ in POSTGRES_MIGRATIONS] == [n for n, _ in MIGRATIONS] == [*range(1, 9)]


async def test_schema_is_versioned_and_migrated_once(database: str) -> None:
    store = await open_store(database)
    assert await store.schema_version() == LATEST_VERSION == 8
    await store.close()
    store = await open_store(database)  # reopening migrates nothing
    assert await store.schema_version() == 8
    assert len(await store.read(fetch("SELECT * FROM schema_migrations"))) == 8
    if isinstance(store, SqliteStore):
        pragmas = [await store.read(fetch(f"PRAGMA {n}")) for n in ("journal_mode", "synchronous")]
        assert [rows[0][0] for rows in pragmas] == ["wal", 1]  # 1: NORMAL
    else:  # an acknowledgement's commit returns once durable, whatever the server's default
        assert isinstance(store, PostgresStore)
        assert await store._durable.fetchval("SHOW synchronous_commit") == "on"
        assert await store._pool.fetchval("SHOW synchronous_commit") == "off"  # sync() waits
        postgres.admin("ALTER SYSTEM SET synchronous_commit = off")
        postgres.admin("SELECT pg_reload_conf()")
        try:
            reopened = await open_store(database)
            assert isinstance(reopened, PostgresStore)
            assert await reopened._durable.fetchval("SHOW synchronous_commit") == "local"
            await reopened.close()
        finally:
            postgres.admin("ALTER SYSTEM RESET synchronous_commit")
            postgres.admin("SELECT pg_reload_conf()")
    await store.close()


async def test_a_version_1_database_gains_timer_kinds_and_reads_old_matches_as_before(
    database: str,
) -> None:
    as_version(  # as floral-host wrote it before timer kinds
        database,
        1,
        "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators, config,"
        " seed, window_s, status, step, created_at, updated_at)"
        " VALUES ('toy', 1, 2, '[11,12]', '[\"A\",\"B\"]', '[9]', '{}', 5, 30.0,"
        " 'running', 3, 1.0, 1.0)",
    )
    store = await open_store(database)
    assert await store.schema_version() == LATEST_VERSION
    old = await store.get_match(1)
    assert old is not None and (old.window_s, old.timers, old.step) == (30.0, {}, 3)
    new = dataclasses.replace(new_match(), timers={"reaction": 20.0})
    record = await store.get_match(await store.create_match(new, {"s": 0}, 2.0, []))
    assert record is not None and (record.window_s, record.timers) == (None, {"reaction": 20.0})
    await store.close()


async def test_a_version_2_database_gains_practice_and_ratings_keeping_when_matches_ended(
    database: str,
) -> None:
    as_version(  # as floral-host wrote it before ratings
        database,
        2,
        *(
            "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators,"
            " config, seed, window_s, status, step, outcome, created_at, updated_at, timers)"
            " VALUES ('toy', 1, 2, '[11,12]', '[\"A\",\"B\"]', '[9]', '{}', 5, 30.0,"
            f" '{status}', 3, '{{\"winners\":[1]}}', 1.0, {updated}, '{{}}')"
            for status, updated in (("finished", 50.0), ("aborted", 40.0), ("running", 70.0))
        ),
    )
    store = await open_store(database)
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


async def test_a_window_closes_once_and_a_failed_guard_writes_nothing(database: str) -> None:
    store = await open_store(database)
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


@pytest.mark.parametrize("budget_s, transactions", [(CHANGES_BATCH_S, 1), (0.0, 5)])
async def test_changes_due_together_are_one_transaction_and_a_refused_one_is_undone_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget_s: float, transactions: int
) -> None:
    """SQLite's group commit of changes: the resolutions queued while the connection waits (here
    for another program's write lock) commit in one transaction, each in its own savepoint; one
    transaction takes changes for ``CHANGES_BATCH_S`` (none: one change each)."""
    monkeypatch.setattr("bot.store.sqlite.CHANGES_BATCH_S", budget_s)
    path = tmp_path / "host.db"
    store = await open_store(path)
    assert isinstance(store, SqliteStore)
    matches = [await store.create_match(new_match(), {"s": 0}, 1.0, []) for _ in range(5)]
    for match_id in matches:
        window = WindowRecord(match_id, 1, (0, 1), 100.0, None, False)
        assert await store.apply(Change(match_id, 2.0, status="running", open_window=window))

    def resolve(match_id: int) -> Change:
        step = StepRecord(match_id, 1, "resolve", {0: "a", 1: None}, {"s": match_id})
        return Change(match_id, 3.0, close_window=1, close_reason="deadline", new_step=step)

    assert await store.apply(resolve(matches[0]))  # so that its second is refused
    statements: list[str] = []
    await store._db.set_trace_callback(statements.append)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")  # another program's write lock, held a moment
        applied = asyncio.gather(*(store.apply(resolve(match_id)) for match_id in matches))
        await asyncio.sleep(0.3)
        other.execute("ROLLBACK")
    assert await applied == [False, True, True, True, True]
    assert statements.count("BEGIN IMMEDIATE") == statements.count("COMMIT") == transactions
    assert statements.count("ROLLBACK TO change") == 1
    for match_id in matches:
        (_, step) = await store.steps(match_id)
        assert step.snapshot == {"s": match_id}
    await store.close()


async def test_records_round_trip(database: str) -> None:
    store = await open_store(database)
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


async def test_a_users_dm_channel_is_stored_once_and_forgotten_only_if_still_the_same(
    database: str,
) -> None:
    store = await open_store(database)
    assert await store.dm_channel(2**62) is None
    await store.set_dm_channel(2**62, 2**61)  # Discord's ids need 64 bits
    await store.set_dm_channel(12, 500)
    await store.set_dm_channel(12, 501)  # another replaces it
    await store.forget_dm_channel(12, 500)  # an older one: kept
    assert (await store.dm_channel(2**62), await store.dm_channel(12)) == (2**61, 501)
    await store.close()
    store = await open_store(database)
    assert await store.dm_channel(12) == 501
    await store.forget_dm_channel(12, 501)
    assert await store.dm_channel(12) is None
    await store.close()


async def test_a_newer_schema_is_refused_before_anything_is_written(database: str) -> None:
    await (await open_store(database)).close()
    later = f"INSERT INTO schema_migrations VALUES ({LATEST_VERSION + 1}, 'later')"
    everything = "SELECT * FROM schema_migrations ORDER BY version"
    before = raw(database, later, everything)
    path = None if is_postgres(database) else Path(database)
    size = None if path is None else path.read_bytes()
    for readonly in (False, True):
        with pytest.raises(UnusableDatabase, match="written by a newer floral-host"):
            await open_store(database, readonly=readonly)
    assert raw(database, everything) == before
    assert path is None or path.read_bytes() == size


@pytest.mark.sqlite_only
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
    database: str,
) -> None:
    """``NewMatch.rematch_of``: the old match's log names its one rematch; a second claim,
    at once or later, raises Taken naming it and writes nothing."""
    store = await open_store(database)
    old = await store.create_match(new_match(), {"s": 0}, 1.0, [])
    again = dataclasses.replace(new_match(), rematch_of=old)
    results = await asyncio.gather(
        *(store.create_match(again, {"s": 0}, 2.0, []) for _ in range(3)),
        return_exceptions=True,
    )
    created = [r for r in results if isinstance(r, int)]
    assert len(created) == 1, results
    taken_ids = [r.match_id for r in results if isinstance(r, Taken)]
    assert taken_ids == [created[0]] * 2, results
    with pytest.raises(Taken) as taken:
        await store.create_match(again, {"s": 0}, 3.0, [])
    assert taken.value.match_id == created[0]
    assert await store.match_count() == 2
    entries = [e for e in await store.match_log(old) if e.kind == "rematch"]
    assert [e.data for e in entries] == [{"match": created[0]}]
    await store.close()


async def test_a_tables_last_seat_and_its_match_are_one_transaction(database: str) -> None:
    """``NewMatch.table``: the match and the full table are written together; a table no
    longer open (claimed at once, or before) raises Taken and no match is written."""
    store = await open_store(database)
    table = await store.create_table(1, 2, "toy", 9, 2, 1.0)
    assert [t.id for t in await store.open_tables()] == [table.id]
    filling = dataclasses.replace(new_match(), table=table.id)
    results = await asyncio.gather(
        *(store.create_match(filling, {"s": 0}, 2.0, []) for _ in range(3)),
        return_exceptions=True,
    )
    created = [r for r in results if isinstance(r, int)]
    assert len(created) == 1 and sum(isinstance(r, Taken) for r in results) == 2, results
    full = await store.get_table(table.id)
    assert full is not None and (full.status, full.match_id) == ("full", created[0])
    assert full.players == ((11, "A"), (12, "B")) and await store.open_tables() == []
    with pytest.raises(Taken):
        await store.create_match(filling, {"s": 0}, 3.0, [])
    assert await store.match_count() == 1
    await store.close()

"""``floral-host copy-db``, both ways, real processes: an SQLite database holding a finished match
of every game, a running match, ratings and tables goes to PostgreSQL and back, row for row, in
one transaction; the copy's audit is clean, its counters go on where the source's stood, and the
running match plays on from the copy. A target holding anything is refused and left as it was."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.audit import audit_store
from bot.copydb import TABLES
from bot.database import is_postgres, open_store
from bot.store import NewMatch, TableRecord
from bot.store.sql import fetch
from games import registry
from tests import postgres
from tests.bot.conftest import CHANNEL, GUILD, OffsetClock, RecordingTransport, start_host
from tests.bot.storage_helpers import built_once, cli, simulated
from tests.bot.test_store_upgrade import PLAYERS, play


@pytest.fixture(scope="module")
def community(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished match of every game, one running (step 12), ratings, and tables."""

    async def write(db: Path) -> None:
        for name in registry.names():
            await simulated(db, name, registry.get(name).game.min_seats, seed=5)
        host = await start_host(db, RecordingTransport(), OffsetClock())
        record = await host.create_match(
            "floral-extract", guild_id=GUILD, channel_id=CHANNEL, players=PLAYERS, seed=4
        )
        await host.start_match(record.id)
        await play(host, record.id, windows=12)
        store = host.store
        table = await store.create_table(GUILD, CHANNEL, "potioncraft", PLAYERS[0], 2, 5.0)
        await store.update_table(
            TableRecord(
                table.id,
                GUILD,
                CHANNEL,
                "potioncraft",
                PLAYERS[0],
                2,
                ((PLAYERS[0], "Ada"), (PLAYERS[1], "Bo")),
                "full",
                record.id,
                5.0,
            )
        )
        await store.create_table(GUILD, CHANNEL, "floral-extract", PLAYERS[1], 2, 6.0)
        await store.set_thread(record.id, 777)
        await store.set_dm_channel(PLAYERS[0], 778)
        await host.close()

    def build(db: Path) -> None:
        asyncio.run(write(db))
        done = cli("ratings", "--rebuild", "--db", str(db))
        assert done.returncode == 0, done.stderr

    return built_once(tmp_path_factory, "community.db", build)


def every_row(database: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in key order, as Python values."""

    def query(table: str) -> str:
        return f"SELECT * FROM {table} ORDER BY {', '.join(TABLES[table])}"

    if is_postgres(database):
        return {table: postgres.fetch(database, query(table)) for table in TABLES}
    with contextlib.closing(sqlite3.connect(database)) as db:
        return {table: db.execute(query(table)).fetchall() for table in TABLES}


def copied(source: str, target: str) -> dict[str, int]:
    done = cli("copy-db", "--from", source, "--to", target)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("copied 6 matches (") and lines[0].endswith("one transaction")
    summary: dict[str, int] = json.loads(lines[-1])
    return summary


async def test_a_community_goes_to_postgresql_and_back_row_for_row(
    community: Path, tmp_path: Path
) -> None:
    url = postgres.new_database()
    try:
        source = every_row(str(community))
        assert all(source[table] for table in TABLES if table != "forgotten")
        assert copied(str(community), url) == {"matches": 6, "finished": 5, "mismatches": 0}
        assert every_row(url) == source

        back = tmp_path / "back.db"
        assert copied(url, str(back)) == {"matches": 6, "finished": 5, "mismatches": 0}
        assert every_row(str(back)) == source

        for copy in (url, str(back)):
            store = await open_store(copy)
            new = NewMatch("toy", 1, 2, (11, 12), ("A", "B"), (9,), {}, 5, None)
            assert await store.create_match(new, {"s": 0}, 1.0, []) == 7  # after the source's
            await store.close()
    finally:
        postgres.drop_database(url)


async def test_the_running_match_plays_on_from_the_copy(community: Path) -> None:
    url = postgres.new_database()
    try:
        copied(str(community), url)
        host = await start_host(url, RecordingTransport(), OffsetClock())
        try:
            running = await host.store.list_matches(statuses=("running",))
            assert len(running) == 1
            await play(host, running[0].id)
            assert await audit_store(host.store) == (
                {"matches": 6, "finished": 6, "mismatches": 0},
                [],
            )
        finally:
            await host.close()
    finally:
        postgres.drop_database(url)


def test_a_target_holding_anything_is_refused_and_left_as_it_was(
    community: Path, tmp_path: Path
) -> None:
    url = postgres.new_database()
    try:
        copied(str(community), url)
        before = every_row(url)
        again = cli("copy-db", "--from", str(community), "--to", url)
        assert again.returncode == 1 and again.stdout == ""
        (line,) = again.stderr.splitlines()
        assert line.startswith(f"floral-host copy-db: {url}: not empty (its matches table holds")
        assert every_row(url) == before
        into_itself = cli("copy-db", "--from", url, "--to", url)
        assert into_itself.returncode == 1 and "is the source itself" in into_itself.stderr
    finally:
        postgres.drop_database(url)
    other = tmp_path / "other.db"
    asyncio.run(simulated(other, "floral-extract", 2))
    refused = cli("copy-db", "--from", str(community), "--to", str(other))
    assert refused.returncode == 1 and "not empty" in refused.stderr
    assert len(every_row(str(other))["matches"]) == 1


async def test_a_failed_copy_leaves_the_target_empty(community: Path, tmp_path: Path) -> None:
    """A row the target refuses (SQLite kept a word where a number belongs) rolls the whole
    copy back, and says which table in one line."""
    url = postgres.new_database()
    broken = tmp_path / "broken.db"
    try:
        broken.write_bytes(community.read_bytes())
        with contextlib.closing(sqlite3.connect(broken)) as db:
            db.execute(
                "UPDATE ratings SET mu = 'not a number'"
                " WHERE user_id = (SELECT MIN(user_id) FROM ratings)"
            )
            db.commit()
        done = cli("copy-db", "--from", str(broken), "--to", url)
        assert done.returncode == 1 and done.stdout == "", done.stderr
        (line,) = done.stderr.splitlines()[-1:]
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert "a row of the ratings table does not fit" in line and "nothing was copied" in line
        store = await open_store(url, readonly=True)
        try:
            assert await store.read(fetch("SELECT count(*) FROM matches")) == [(0,)]
        finally:
            await store.close()
    finally:
        postgres.drop_database(url)
        broken.unlink(missing_ok=True)

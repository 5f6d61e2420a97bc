"""``floral-host prune``: matches ended before a date go, in one transaction, then VACUUM; with
``--keep-results`` their results stay, so stats and ratings stay true."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from bot.ratings import refresh
from bot.store import Rating
from bot.store.owner import own
from bot.store.sqlite import SqliteStore
from tests import postgres
from tests.bot.storage_helpers import built_once, cli, connect, simulated

OLD = 1_600_000_000.0  # 2020-09-13: matches 1 and 2 ended then
MATCH_TABLES = ("steps", "windows", "attempts", "match_log", "outbox_archive")


@pytest.fixture(scope="module")
def three_matches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three finished Floral Extract matches; the first two ended in 2020."""

    def build(db: Path) -> None:
        asyncio.run(simulated(db, "floral-extract", 2, matches=3))
        with connect(db) as connection:
            connection.execute("UPDATE matches SET ended_at = ? WHERE id IN (1, 2)", (OLD,))
            connection.commit()

    return built_once(tmp_path_factory, "three.db", build)


@pytest.fixture
def db(three_matches: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "h.db"
    shutil.copy(three_matches, copy)
    return copy


def rows_of(db: Path, match_ids: tuple[int, ...]) -> dict[str, int]:
    marks = ", ".join("?" * len(match_ids))
    with connect(db) as connection:
        return {
            table: connection.execute(
                f"SELECT count(*) FROM {table} WHERE match_id IN ({marks})", match_ids
            ).fetchone()[0]
            for table in MATCH_TABLES
        }


def ratings(db: Path, *flags: str) -> list[str]:
    done = cli("ratings", "--db", str(db), *flags)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


async def stored_ratings(db: Path) -> list[Rating]:
    """The ratings table: what /stats shows."""
    store = await SqliteStore.open(db, readonly=True)
    try:
        return await store.ratings(None)
    finally:
        await store.close()


async def test_prune_drops_everything_of_the_matches_ended_before_the_date(db: Path) -> None:
    ratings(db, "--rebuild")
    before = await stored_ratings(db)
    assert len(before) == 2
    assert all(rows_of(db, (1, 2)).values())
    dry = cli("prune", "--finished-before", "2021-01-01", "--dry-run", "--db", str(db))
    assert dry.returncode == 0 and dry.stdout.startswith("would prune 2 matches"), dry.stdout
    size = db.stat().st_size
    done = cli("prune", "--finished-before", "2021-01-01", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("pruned 2 matches ended before 2021-01-01 00:00 UTC")
    assert set(rows_of(db, (1, 2)).values()) == {0}
    assert all(rows_of(db, (3,)).values())
    with connect(db) as connection:
        assert [row[0] for row in connection.execute("SELECT id FROM matches")] == [3]
    assert db.stat().st_size < size * 0.5  # compacted: the space went back to the disk
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0
    assert json.loads(audit.stdout.splitlines()[-1]) == {
        "matches": 1,
        "finished": 1,
        "mismatches": 0,
    }
    assert await stored_ratings(db) == before  # folded already: they stay till a --rebuild


async def test_a_match_ending_after_everything_was_pruned_is_still_rated(db: Path) -> None:
    ratings(db, "--rebuild")  # the three folded into the stored ratings
    done = cli("prune", "--finished-before", "2100-01-01", "--db", str(db))
    assert done.returncode == 0 and done.stdout.startswith("pruned 3 matches"), done.stdout
    await simulated(db, "floral-extract", 2, seed=9)
    store = await SqliteStore.open(db)
    try:
        assert await refresh(store) == 1  # what /stats folds before it shows the ratings
        assert {rating.matches for rating in await store.ratings(None)} == {4}
    finally:
        await store.close()
    with connect(db) as connection:  # after the ends pruned away, never one of theirs
        assert connection.execute("SELECT ended_seq FROM matches").fetchall() == [(4,)]


async def test_keep_results_keeps_stats_and_ratings_true(db: Path) -> None:
    folded, rebuilt = ratings(db), ratings(db, "--rebuild")
    store = await SqliteStore.open(db, readonly=True)
    stats = await store.finished_matches(0, 1001)
    await store.close()
    done = cli("prune", "--finished-before", "2021-01-01", "--keep-results", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "pruned 2 matches" in done.stdout and "results kept" in done.stdout
    assert set(rows_of(db, (1, 2)).values()) == {0}
    assert ratings(db) == folded and ratings(db, "--rebuild") == rebuilt
    store = await SqliteStore.open(db, readonly=True)
    kept, total = await store.finished_matches(0, 1001)
    await store.close()
    assert total == stats[1] == 3
    assert [(r.id, r.players, r.names, r.outcome, r.ended_seq) for r in kept] == [
        (r.id, r.players, r.names, r.outcome, r.ended_seq) for r in stats[0]
    ]
    assert {r.id: r.pruned_at is not None for r in kept} == {1: True, 2: True, 3: False}
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout.splitlines()[-1])["pruned"] == 2
    export = cli("export", "1", "--db", str(db))
    assert export.returncode == 2 and "match 1's log was pruned" in export.stderr
    again = cli("prune", "--finished-before", "2021-01-01", "--keep-results", "--db", str(db))
    assert again.stdout.startswith("pruned 0 matches")  # pruned once


def test_prune_is_refused_while_the_bot_runs(db: Path) -> None:
    with own(db, "floral-host run"):
        done = cli("prune", "--finished-before", "2021-01-01", "--db", str(db))
    assert done.returncode == 1
    assert "in use by floral-host run (pid" in done.stderr and len(done.stderr.splitlines()) == 1
    assert all(rows_of(db, (1, 2)).values())


def test_prune_refuses_a_date_it_cannot_read(db: Path) -> None:
    done = cli("prune", "--finished-before", "last tuesday", "--db", str(db))
    assert done.returncode == 2
    assert "expected a date like 2025-01-31" in done.stderr
    missing = cli("prune", "--finished-before", "2021-01-01", "--db", str(db.with_name("x.db")))
    assert missing.returncode == 1 and "no database here" in missing.stderr
    assert not db.with_name("x.db").exists()


async def test_prune_on_postgresql_as_on_sqlite(three_matches: Path) -> None:
    """The same prune of the same matches, copied to PostgreSQL: the same rows go, the ratings
    stay, the audit is clean, and the database is compacted (VACUUM FULL)."""
    url = postgres.new_database(schema=False)
    try:
        assert cli("copy-db", "--from", str(three_matches), "--to", url).returncode == 0
        assert cli("ratings", "--rebuild", "--db", url).returncode == 0
        before = postgres.fetch(url, "SELECT * FROM ratings ORDER BY user_id")
        kept = cli("prune", "--finished-before", "2021-01-01", "--keep-results", "--db", url)
        assert kept.returncode == 0 and kept.stdout.startswith("pruned 2 matches"), kept.stderr
        assert postgres.fetch(url, "SELECT id FROM matches WHERE pruned_at IS NOT NULL") == [
            (1,),
            (2,),
        ]
        done = cli("prune", "--finished-before", "2021-01-01", "--db", url)
        assert done.returncode == 0 and done.stdout.startswith("pruned 2 matches"), done.stderr
        assert f"{url.split('?')[0]}" in done.stdout and "MB before" in done.stdout
        assert postgres.fetch(url, "SELECT id FROM matches") == [(3,)]
        for table in MATCH_TABLES:
            assert postgres.fetch(url, f"SELECT count(*) FROM {table} WHERE match_id < 3") == [
                (0,)
            ], table
        assert postgres.fetch(url, "SELECT * FROM ratings ORDER BY user_id") == before
        audit = cli("audit", "--db", url)
        assert audit.returncode == 0, audit.stdout
        assert json.loads(audit.stdout.splitlines()[-1]) == {
            "matches": 1,
            "finished": 1,
            "mismatches": 0,
        }
    finally:
        postgres.drop_database(url)

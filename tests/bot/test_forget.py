"""``floral-host forget USER_ID``: a user's names, messages and ratings go, in one transaction;
their seats become "a former player" and every match's audit stays true."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from bot.database import open_store
from bot.forget import FORMER, FORMER_PLAIN, StillPlaying, forget_user, former_name, replacer
from bot.simulate import FIRST_USER_ID
from bot.store.sql import fetchvalue
from bot.store.sqlite import SqliteStore
from tests import postgres
from tests.bot.conftest import MODERATOR, PLAYERS, HostEnv
from tests.bot.storage_helpers import built_once, cli, connect, every_value, simulated

USER, OTHER = FIRST_USER_ID, FIRST_USER_ID + 1
# Potioncraft's moves name other players ("pile Ada"); Floral Extract's do not; Flaky Flasks
# shuffles a seat's deck by its name (its scripts give decks by name): under a new name its
# log plays another match, so only its result can stay
GAMES = (("potioncraft", 2, 2), ("floral-extract", 2, 1), ("flaky-flasks", 2, 1))
ID_COLUMNS = ("user_id", "by_user", "opener")
FORGET_TABLES = ("steps", "attempts", "match_log", "ratings", "outbox", "outbox_archive", "tables")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four finished matches between the same two users, and their ratings folded."""

    def build(db: Path) -> None:
        for game, seats, matches in GAMES:
            asyncio.run(simulated(db, game, seats, seed=3, matches=matches))
        assert cli("ratings", "--rebuild", "--db", str(db)).returncode == 0

    return built_once(tmp_path_factory, "played.db", build)


@pytest.fixture
def db(played: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "h.db"
    shutil.copy(played, copy)
    return copy


async def their_traces(db: Path) -> tuple[set[str], list[str]]:
    """The user's names (each game's), and the direct messages to them that nobody else got."""
    store = await SqliteStore.open(db, readonly=True)
    try:
        records = await store.list_matches()
        rows = [row for record in records for row in await store.outbox(record.id)]
        named = {record.game: record.names[record.players.index(USER)] for record in records}
    finally:
        await store.close()
    seat_of = {record.id: f"seat{record.players.index(USER)}" for record in records}
    theirs = {r.message.text for r in rows if r.message.audience == seat_of[r.message.match_id]}
    others = {r.message.text for r in rows if r.message.audience != seat_of[r.message.match_id]}
    assert len(named) == 3  # a name in each game
    return set(named.values()), sorted(text for text in theirs - others if len(text) >= 20)


def ratings(db: Path, *flags: str) -> list[dict[str, object]]:
    """Each rating as stored or folded; its place among the others is left out (it changes
    when the forgotten player's own rating goes)."""
    done = cli("ratings", "--db", str(db), *flags)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    return [{key: value for key, value in row.items() if key != "place"} for row in rows]


async def test_forget_removes_every_trace_and_keeps_the_audit_true(db: Path) -> None:
    names, dms = await their_traces(db)
    assert names and dms
    assert all(any(n in str(v) for _, _, v in every_value(db)) for n in names)
    refused = "SELECT count(*) FROM attempts WHERE user_id = ? AND verdict != 'accepted'"
    with connect(db) as connection:
        assert connection.execute(refused, (USER,)).fetchone()[0] > 0
        dm_channels = "INSERT INTO dm_channels (user_id, channel_id) VALUES (?, ?)"
        connection.executemany(dm_channels, [(USER, 4242), (OTHER, 4343)])
        connection.commit()
    others = [r for r in ratings(db, "--rebuild") if r["user_id"] == OTHER]

    done = cli("forget", str(USER), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"forgot user {USER}: 4 matches held them (their seats now: '{FORMER}', '{FORMER_PLAIN}';"
        " their id: -1), 3 ratings removed",
        "logs that do not replay under the new names were dropped, results kept: m4",
    ]

    for table, column, value in every_value(db):
        where = f"{table}.{column}"
        assert not any(n.casefold() in str(value).casefold() for n in names), where
        assert not any(text in str(value) for text in dms), where
        if column in ID_COLUMNS:
            assert value != USER, where
        if column in ("players", "moderators"):
            assert USER not in json.loads(value), where
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout.splitlines()[-1]) == {
        "matches": 4,
        "finished": 4,
        "mismatches": 0,
        "pruned": 1,
    }
    with connect(db) as connection:
        names = connection.execute("SELECT game, names FROM matches ORDER BY id").fetchall()
        kept = connection.execute("SELECT user_id, channel_id FROM dm_channels").fetchall()
    assert kept == [(OTHER, 4343)]  # their DM channel went (every_value above), not the other's
    assert [(game, json.loads(seats)[0]) for game, seats in names] == [
        ("potioncraft", FORMER_PLAIN),  # Potioncraft's scripts take names without spaces
        ("potioncraft", FORMER_PLAIN),
        ("floral-extract", FORMER),
        ("flaky-flasks", FORMER),
    ]
    for match_id in (1, 3):
        export = cli("export", str(match_id), "--db", str(db))
        assert export.returncode == 0, export.stderr
    # the other player's ratings as before, folded again or not; none for the stand-in
    assert [r for r in ratings(db) if r["user_id"] == OTHER] == others
    assert [r for r in ratings(db, "--rebuild") if r["user_id"] == OTHER] == others
    assert {r["user_id"] for r in ratings(db)} == {OTHER}
    again = cli("forget", str(USER), "--db", str(db))
    assert again.stdout == f"nothing stored names user {USER}\n"


async def test_forget_is_refused_while_the_user_plays(env: HostEnv) -> None:
    record = await env.new_match(window_s=3600)
    await env.host.close()
    store = await open_store(env.target)
    try:
        for user in (PLAYERS[0], MODERATOR):
            with pytest.raises(StillPlaying, match=f"in match m{record.id}, not over yet"):
                await store.transaction(forget_user(store.dialect, user, 1.0))
        assert await store.read(fetchvalue("SELECT count(*) FROM forgotten")) == 0
    finally:
        await store.close()
    done = cli("forget", str(PLAYERS[0]), "--db", env.target)
    assert done.returncode == 1
    assert done.stderr == (
        f"floral-host forget: user {PLAYERS[0]} is in match m{record.id}, not over yet:"
        " end it first; nothing was changed\n"
    )
    await env.reopen()


def test_a_second_former_player_and_names_as_whole_words() -> None:
    assert former_name(["Ada", "Bo"]) == FORMER
    assert former_name([FORMER, "Bo"]) == f"{FORMER} 2"
    assert former_name([FORMER_PLAIN], FORMER_PLAIN) == f"{FORMER_PLAIN}2"
    rename = replacer({"Al": FORMER}, 42)
    assert rename("Al, Alan and <@42> (Al.)") == f"{FORMER}, Alan and {FORMER} ({FORMER}.)"
    assert replacer({"Al": FORMER}, 42, any_case=True)("pile al") == f"pile {FORMER}"


async def test_forget_on_postgresql_as_on_sqlite(played: Path, tmp_path: Path) -> None:
    """The same forget on the same matches copied to PostgreSQL: the same result (its JSON
    queries are PostgreSQL's own), and every value the same as SQLite's afterwards."""
    url = postgres.new_database(schema=False)
    sqlite_db = tmp_path / "h.db"
    shutil.copy(played, sqlite_db)
    try:
        assert cli("copy-db", "--from", str(played), "--to", url).returncode == 0
        on_sqlite = cli("forget", str(USER), "--db", str(sqlite_db))
        on_postgres = cli("forget", str(USER), "--db", url)
        assert on_postgres.returncode == on_sqlite.returncode == 0, on_postgres.stderr
        assert on_postgres.stdout == on_sqlite.stdout
        audit = cli("audit", "--db", url)
        assert audit.returncode == 0, audit.stdout
        back = tmp_path / "back.db"
        assert cli("copy-db", "--from", url, "--to", str(back)).returncode == 0
        # every value but when each forget ran (a dropped log's pruned_at, forgotten.at)
        queries = [f"SELECT * FROM {table} ORDER BY 1, 2" for table in FORGET_TABLES]
        queries += [
            "SELECT id, players, names, moderators, outcome, pruned_at IS NULL FROM matches",
            "SELECT id FROM forgotten",
        ]
        with connect(sqlite_db) as a, connect(back) as b:
            for query in queries:
                assert a.execute(query).fetchall() == b.execute(query).fetchall(), query
    finally:
        postgres.drop_database(url)

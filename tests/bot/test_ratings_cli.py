"""``floral-host ratings [--rebuild] [--guild ID] [--game GAME] [--db PATH]``: the ratings as
JSON lines, computed read-only from the results or rebuilt into the store; storage faults and
bad arguments in one line."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.store import Change, NewMatch, Rating
from bot.store.schema import MIGRATIONS
from bot.store.sqlite import SqliteStore

GUILD, OTHER = 101, 202
ANN, BEN, CAT = 11, 12, 13


async def _fill(
    path: Path, results: Sequence[tuple[int, str, Sequence[int], Sequence[int]]]
) -> None:
    store = await SqliteStore.open(path)
    for at, (guild, game, players, winners) in enumerate(results, start=1):
        names = tuple({ANN: "Ann", BEN: "Ben", CAT: "Cat"}[p] for p in players)
        new = NewMatch(game, guild, 5, tuple(players), names, (), {}, 1, None)
        match_id = await store.create_match(new, {"s": 0}, float(at), [])
        outcome = {"winners": list(winners), "reason": "score", "detail": ""}
        await store.apply(Change(match_id, at + 0.5, status="finished", outcome=outcome))
    await store.close()


RESULTS = [
    (GUILD, "toy", (ANN, BEN), (0,)),
    (GUILD, "toy", (BEN, ANN, CAT), (1,)),
    (GUILD, "other", (CAT, BEN), (0,)),
    (OTHER, "toy", (BEN, ANN), (0,)),
]


def make_db(path: Path) -> Path:
    asyncio.run(_fill(path, RESULTS))
    return path


async def _stored(path: Path) -> list[Rating]:
    store = await SqliteStore.open(path)
    try:
        return await store.ratings(None)
    finally:
        await store.close()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[Any], str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_ratings_are_read_from_the_results_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = make_db(tmp_path / "h.db")
    code, lines, err = run(["ratings", "--db", str(db)], capsys)
    assert code == 0 and err == ""
    groups = [(line["guild_id"], line["game"], line["place"], line["name"]) for line in lines]
    assert groups == [
        (GUILD, "other", 1, "Cat"),
        (GUILD, "other", 2, "Ben"),
        (GUILD, "toy", 1, "Ann"),  # won both of hers
        (GUILD, "toy", 2, "Cat"),
        (GUILD, "toy", 3, "Ben"),
        (OTHER, "toy", 1, "Ben"),
        (OTHER, "toy", 2, "Ann"),
    ]
    ann = lines[2]
    assert (ann["matches"], ann["wins"], ann["losses"]) == (2, 2, 0)
    assert ann["rating"] == pytest.approx(ann["mu"] - 3 * ann["sigma"], abs=1e-3)
    assert [line["rating"] for line in lines[2:5]] == sorted(
        (line["rating"] for line in lines[2:5]), reverse=True
    )
    assert asyncio.run(_stored(db)) == []  # nothing was written


def test_rebuild_stores_what_the_read_computes_and_filters_pick_a_guild_and_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = make_db(tmp_path / "h.db")
    _, computed, _ = run(["ratings", "--db", str(db)], capsys)
    code, rebuilt, err = run(["ratings", "--rebuild", "--db", str(db)], capsys)
    assert code == 0 and rebuilt == computed
    assert err.strip() == "floral-host ratings: rebuilt from 4 finished matches"
    stored = asyncio.run(_stored(db))
    assert {(r.guild_id, r.game, r.user_id, r.mu, r.sigma) for r in stored} == {
        (line["guild_id"], line["game"], line["user_id"], line["mu"], line["sigma"])
        for line in computed
    }
    _, only, _ = run(["ratings", "--guild", str(OTHER), "--db", str(db)], capsys)
    assert [line["name"] for line in only] == ["Ben", "Ann"]
    _, toy, _ = run(["ratings", "--guild", str(GUILD), "--game", "other", "--db", str(db)], capsys)
    assert [(line["game"], line["name"]) for line in toy] == [("other", "Cat"), ("other", "Ben")]
    code, none, err = run(["ratings", "--game", "chess", "--db", str(db)], capsys)
    assert (code, none, err) == (0, [], "no ratings yet\n")  # said beside the JSON, not in it


def test_a_missing_database_is_one_line_and_nothing_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none" / "h.db"
    assert main(["ratings", "--db", str(missing)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("floral-host ratings: ") and "no database here" in err
    assert not missing.parent.exists()


def test_an_older_database_is_read_after_an_upgrade_that_rebuild_makes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "h.db"
    with sqlite3.connect(path) as db:  # schema 2 with one finished match
        for _, sql in MIGRATIONS[:2]:
            db.executescript(sql)
        db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
        db.execute("INSERT INTO schema_migrations VALUES (1, 'x'), (2, 'x')")
        db.execute(
            "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators, config,"
            " seed, window_s, status, step, outcome, created_at, updated_at, timers) VALUES"
            " ('toy', 7, 2, '[11,12]', '[\"A\",\"B\"]', '[]', '{}', 5, NULL, 'finished', 3,"
            " '{\"winners\":[1]}', 1.0, 2.0, '{}')"
        )
    db.close()
    assert main(["ratings", "--db", str(path)]) == 1
    _, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "schema version 2 is older" in err
    code, lines, err = run(["ratings", "--rebuild", "--db", str(path)], capsys)
    assert code == 0 and [(line["name"], line["wins"]) for line in lines] == [("B", 1), ("A", 0)]
    assert "rebuilt from 1 finished matches" in err


@pytest.mark.parametrize("guild", ["x", "-3", "0", "9" * 30, "１２"])
def test_a_bad_server_id_is_refused_in_one_line(
    guild: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["ratings", "--guild", guild])
    assert exit_.value.code == 2
    _, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "expected a server id" in err

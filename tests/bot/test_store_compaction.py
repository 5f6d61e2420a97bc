"""Storage that stays small (issue 18): a finished match is its move log, a few snapshots and
its messages compressed; the audit still replays it, and an active match still resumes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from bot import history
from bot.audit import audit_store
from bot.store import SNAPSHOT_EVERY, archive
from bot.store.archive import ARCHIVE_EVERY
from bot.store.sql import fetch, fetchvalue
from bot.store.sqlite import SqliteStore
from games.registry import PictureHooks
from pictures import hooks
from tests.bot import toy_game
from tests.bot.conftest import PLAYERS, HostEnv
from tests.bot.storage_helpers import cli, connect, simulated, vacuumed_size


@pytest.mark.parametrize(
    ("game", "seats", "goal"),
    [("floral-extract", 2, 150_000), ("flaky-flasks", 3, 600_000)],
)
async def test_a_finished_match_takes_little_room_and_the_audit_replays_it(
    tmp_path: Path, game: str, seats: int, goal: int
) -> None:
    """Today 0.6–1.2 MB (Floral Extract) and 5.8 MB (Flaky Flasks, 3 seats) a match."""
    empty, db = tmp_path / "empty.db", tmp_path / "one.db"
    await simulated(empty, game, seats, matches=0)
    await simulated(db, game, seats)
    assert vacuumed_size(db) - vacuumed_size(empty) <= goal
    with connect(db) as connection:
        (last,) = connection.execute("SELECT step FROM matches WHERE id = 1").fetchone()
        kept = [
            row[0]
            for row in connection.execute(
                "SELECT step FROM steps WHERE snapshot IS NOT NULL ORDER BY step"
            )
        ]
        left = connection.execute("SELECT count(*) FROM outbox").fetchone()[0]
        chunks = connection.execute("SELECT count(*) FROM outbox_archive").fetchone()[0]
    assert last > SNAPSHOT_EVERY
    assert kept == [*range(0, last, SNAPSHOT_EVERY), last]
    assert left == 0 and chunks >= 1  # every message delivered, and archived
    audit = cli("audit", "--db", str(db))
    assert audit.returncode == 0, audit.stdout
    assert json.loads(audit.stdout.splitlines()[-1])["mismatches"] == 0


async def play_rounds(env: HostEnv, match_id: int, rounds: int) -> list[object]:
    """Both seats answer ``rounds`` rounds; the snapshot after each step, as it was latest."""
    seen = []
    for round_ in range(rounds):
        for seat, player in enumerate(PLAYERS):
            assert (await env.host.submit(match_id, player, str((round_ + seat) % 10))).accepted
        await env.host.wait_idle()
        seen.append((await env.host.store.latest_step(match_id)).snapshot)
    return seen


async def test_a_long_match_keeps_few_snapshots_derives_the_rest_and_resumes(
    env: HostEnv,
) -> None:
    record = await env.new_match(window_s=3600, config={"rounds": 40})
    seen = [(await env.host.store.latest_step(record.id)).snapshot]
    seen += await play_rounds(env, record.id, 35)
    steps = await env.host.store.steps(record.id)
    assert [s.step for s in steps if s.snapshot is not None] == [0, 32, 35]
    assert [history.snapshot_at(toy_game.GAME, steps, s.step) for s in steps] == seen

    await env.reopen()  # the active match resumes from its latest snapshot
    seen += await play_rounds(env, record.id, 5)
    finished = await env.host.store.get_match(record.id)
    assert finished is not None and finished.status == "finished"
    steps = await env.host.store.steps(record.id)
    assert [s.step for s in steps if s.snapshot is not None] == [0, 32, 40]
    assert history.snapshots(toy_game.GAME, finished, steps) == seen
    # the end card's chart from the replayed states, as from every state the match went through
    charted = dataclasses.replace(
        toy_game.GAME_INFO, pictures=PictureHooks(scores=lambda state: state["scores"])
    )
    replayed = [state for _, state, _ in history.replay(toy_game.GAME, finished, steps)]
    card = hooks.end_card_of_states(charted, finished.names, finished.outcome, replayed)
    assert card == hooks.end_card_data(charted, finished.names, finished.outcome, seen)
    assert len(card.scores) == 41 and card.scores[-1] != card.scores[0]
    assert await audit_store(env.host.store) == ({"matches": 1, "finished": 1, "mismatches": 0}, [])


async def test_messages_are_archived_as_they_settle_and_read_back_as_sent(env: HostEnv) -> None:
    record = await env.new_match(window_s=3600, config={"rounds": 60})
    await play_rounds(env, record.id, 59)
    store = env.host.store
    # a running match archives what was delivered
    live = await store.read(fetchvalue("SELECT count(*) FROM outbox"))
    chunks = await store.read(fetchvalue("SELECT count(*) FROM outbox_archive"))
    assert chunks >= 1 and live < ARCHIVE_EVERY
    await play_rounds(env, record.id, 1)
    rows = await store.outbox(record.id)
    sent = sorted(
        (d for d in env.transport.sent if d.match_id == record.id), key=lambda d: d.message_id
    )
    assert len(rows) == len(sent) > ARCHIVE_EVERY
    assert [(d.message_id, str(d.audience), d.text) for d in sent] == [
        (row.id, row.message.audience, row.message.text) for row in rows
    ]
    assert {row.status for row in rows} == {"sent"}
    assert await store.read(fetchvalue("SELECT count(*) FROM outbox")) == 0
    blobs = [row[0] for row in await store.read(fetch("SELECT messages FROM outbox_archive"))]
    packed = sum(len(blob) for blob in blobs)
    unpacked = sum(len(json.dumps(archive.unpack(blob))) for blob in blobs)
    assert packed * 5 < unpacked


async def test_an_upgraded_database_archives_its_ended_matches_at_start(tmp_path: Path) -> None:
    """Messages of matches over but not archived (the outbox before schema 7) are archived
    when a writable store opens; a reader still reads them all."""
    db = tmp_path / "h.db"
    await simulated(db, "floral-extract", 2)
    store = await SqliteStore.open(db, readonly=True)
    before = await store.outbox(1)
    await store.close()
    with connect(db) as connection:  # as it was before the archive
        connection.execute("DELETE FROM outbox_archive")
        connection.executemany(
            "INSERT INTO outbox (id, match_id, audience, text, payload, status, tries, next_try,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.id,
                    1,
                    r.message.audience,
                    r.message.text,
                    json.dumps(r.message.payload),
                    r.status,
                    r.tries,
                    r.next_try,
                    r.created_at,
                )
                for r in before
            ],
        )
        connection.commit()
    size = vacuumed_size(db)
    store = await SqliteStore.open(db)
    assert await store.outbox(1) == before
    await store.close()
    with connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
    assert vacuumed_size(db) < size / 3

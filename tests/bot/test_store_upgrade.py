"""Schema 7 on a database an older floral-host wrote (schema 5 and 6, real matches: finished
ones and one still running): the snapshots between checkpoints go, the delivered messages are
archived, everything reads back as it was, the audit is clean and the running match goes on."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot import history
from bot.audit import audit_store
from bot.host import Host
from bot.store import SNAPSHOT_EVERY
from bot.store.schema import LATEST_VERSION
from bot.store.sqlite import SqliteStore
from games import registry
from tests.bot.conftest import CHANNEL, GUILD, OffsetClock, RecordingTransport, start_host
from tests.bot.storage_helpers import (
    as_older_schema,
    built_once,
    connect,
    simulated,
    vacuumed_size,
)

PLAYERS = (201, 202)


async def play(host: Host, match_id: int, windows: int | None = None) -> None:
    """The random AI answers every prompt of the match, for ``windows`` windows or to its end."""
    info = registry.get("floral-extract")
    agents = [info.agents["random"](seat, random.Random(seat)) for seat in range(2)]
    store, played = host.store, 0
    while match_id in host.active_match_ids() and windows != played:
        state = info.game.load((await store.latest_step(match_id)).snapshot)
        for request in info.game.requests(state):
            view = info.game.view(state, request.seat)
            answer = agents[request.seat].act(request, view)
            await host.submit(match_id, PLAYERS[request.seat], answer)
        await host.wait_idle()
        played += 1


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two finished matches (Floral Extract, Potioncraft) and one that runs (step 40)."""

    async def write(db: Path) -> None:
        await simulated(db, "floral-extract", 2)
        await simulated(db, "potioncraft", 2)
        host = await start_host(db, RecordingTransport(), OffsetClock())
        record = await host.create_match(
            "floral-extract", guild_id=GUILD, channel_id=CHANNEL, players=PLAYERS, seed=4
        )
        await host.start_match(record.id)
        await play(host, record.id, windows=40)
        await host.close()

    return built_once(tmp_path_factory, "now.db", lambda db: asyncio.run(write(db)))


def full_steps(db: Path) -> dict[int, list[tuple[int, str, Any, Any]]]:
    with connect(db) as connection:
        rows = connection.execute(
            "SELECT match_id, step, kind, moves, snapshot FROM steps ORDER BY match_id, step"
        ).fetchall()
    steps: dict[int, list[tuple[int, str, Any, Any]]] = {}
    for match_id, *step in rows:
        steps.setdefault(match_id, []).append(tuple(step))  # type: ignore[arg-type]
    return steps


@pytest.mark.parametrize("version", [5, 6])
async def test_an_older_database_upgrades_and_reads_back_as_it_was(
    written: Path, tmp_path: Path, version: int
) -> None:
    old = tmp_path / f"v{version}.db"
    await as_older_schema(written, old, version)
    before_steps, before_size = full_steps(old), vacuumed_size(old)
    with connect(old) as connection:
        before_outbox = connection.execute(
            "SELECT id, match_id, audience, text, payload, status FROM outbox ORDER BY id"
        ).fetchall()
        assert connection.execute("SELECT MAX(version) FROM schema_migrations").fetchone() == (
            version,
        )
    assert all(s[3] is not None for steps in before_steps.values() for s in steps)

    store = await SqliteStore.open(old)
    assert await store.schema_version() == LATEST_VERSION
    records = await store.list_matches()
    assert [r.status for r in records] == ["finished", "finished", "running"]
    outbox = [row for r in records for row in await store.outbox(r.id)]
    assert sorted(
        (row.id, row.message.match_id, row.message.audience, row.message.text, row.status)
        for row in outbox
    ) == [(*row[:4], row[5]) for row in before_outbox]
    payloads = {row.id: row.message.payload for row in outbox}
    assert payloads == {row[0]: json.loads(row[4]) for row in before_outbox}
    for record in records:
        steps, kept = await store.steps(record.id), before_steps[record.id]
        assert [(s.step, s.kind) for s in steps] == [(step, kind) for step, kind, _, _ in kept]
        last = steps[-1].step
        assert [s.step for s in steps if s.snapshot is not None] == sorted(
            {*range(0, last, SNAPSHOT_EVERY), last}
        )
        game = registry.get(record.game).game  # the states between, replayed as they were
        assert history.snapshots(game, record, steps) == [
            json.loads(snapshot) for _, _, _, snapshot in kept
        ]
    assert await audit_store(store) == ({"matches": 3, "finished": 2, "mismatches": 0}, [])
    await store.close()
    assert vacuumed_size(old) < before_size / 3

    host = await start_host(old, RecordingTransport(), OffsetClock())
    try:
        await play(host, records[-1].id)  # the running match resumes and plays to its end
        assert await audit_store(host.store) == (
            {"matches": 3, "finished": 3, "mismatches": 0},
            [],
        )
    finally:
        await host.close()

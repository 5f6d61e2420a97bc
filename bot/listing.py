"""``floral-host list``: the stored matches with their status, a table on a terminal, one JSON
object a line otherwise (``--json`` forces it)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from bot.database import command_database, open_store
from bot.report import emit, wants_json
from bot.store import MatchRecord
from games.protocol import JSON

COLUMNS = (
    ("match", "Match"),
    ("game", "Game"),
    ("players", "Players"),
    ("status", "Status"),
    ("step", "Step"),
    ("created", "Created"),
)


def match_row(record: MatchRecord) -> dict[str, JSON]:
    return {
        "match": f"m{record.id}",
        "game": record.game,
        "players": list(record.names),
        "status": record.status,
        "step": record.step,
        "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(record.created_at)),
    }


async def list_matches(db: str | None) -> list[dict[str, JSON]]:
    store = await open_store(command_database(db), readonly=True)
    try:
        records = await store.list_matches()
    finally:
        await store.close()
    return [match_row(record) for record in records]


def main(args: argparse.Namespace) -> int:
    rows = asyncio.run(list_matches(args.db))
    as_json = wants_json(args.json, sys.stdout)
    emit(rows, COLUMNS, as_json=as_json, title="Stored matches", empty="no matches stored yet")
    return 0

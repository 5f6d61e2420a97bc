"""``floral-host list``: the stored matches with their status, one line each."""

from __future__ import annotations

import argparse
import asyncio
import time

from bot.database import command_db_path
from bot.store import MatchRecord
from bot.store.sqlite import SqliteStore


def match_line(record: MatchRecord) -> str:
    created = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(record.created_at))
    players = " vs ".join(record.names)
    return f"m{record.id}  {record.game}  {players}  {record.status}  step {record.step}  {created}"


async def list_matches(db: str | None) -> list[str]:
    store = await SqliteStore.open(command_db_path(db), readonly=True)
    try:
        records = await store.list_matches()
    finally:
        await store.close()
    return [match_line(record) for record in records]


def main(args: argparse.Namespace) -> int:
    lines = asyncio.run(list_matches(args.db))
    print("\n".join(lines) if lines else "no matches stored yet")
    return 0

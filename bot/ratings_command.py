"""``floral-host ratings``: every player's rating, one JSON object a line.

Without ``--rebuild`` the database is only read: the ratings are computed from the stored
results, as ``--rebuild`` would store them (so it works on a backup or while the bot runs).
``--rebuild`` clears the stored ratings and folds every finished match again, in one
transaction, then prints them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterable

from bot import ratings
from bot.database import command_db_path
from bot.store import Rating
from bot.store.sqlite import SqliteStore


async def read_ratings(db: str | None, *, rebuild: bool = False) -> tuple[list[Rating], int | None]:
    """The ratings of every guild and game, and with ``rebuild`` how many matches were folded."""
    path = command_db_path(db)
    if rebuild:
        store = await SqliteStore.open(path)
        try:
            folded = await ratings.rebuild(store)
            return await store.ratings(None), folded
        finally:
            await store.close()
    store = await SqliteStore.open(path, readonly=True)
    try:
        records = await store.list_matches()
    finally:
        await store.close()
    return list(ratings.fold(records).values()), None


def rating_lines(
    found: Iterable[Rating], guild: int | None = None, game: str | None = None
) -> list[str]:
    """One JSON object a line: each guild and game in turn, its players by their place."""
    groups: dict[tuple[int, str], list[Rating]] = {}
    for rating in found:
        if guild in (None, rating.guild_id) and game in (None, rating.game):
            groups.setdefault((rating.guild_id, rating.game), []).append(rating)
    lines = []
    for key in sorted(groups):
        for standing in ratings.board(groups[key]):
            r = standing.rating
            line = {
                "guild_id": r.guild_id,
                "game": r.game,
                "place": standing.place,
                "user_id": r.user_id,
                "name": r.name,
                "rating": round(ratings.shown(r), 3),
                "mu": r.mu,
                "sigma": r.sigma,
                "matches": r.matches,
                "wins": r.wins,
                "losses": r.losses,
            }
            lines.append(json.dumps(line, ensure_ascii=False))
    return lines


def main(args: argparse.Namespace) -> int:
    found, folded = asyncio.run(read_ratings(args.db, rebuild=args.rebuild))
    lines = rating_lines(found, args.guild, args.game)
    if lines:
        print("\n".join(lines))
    if folded is not None:
        print(f"floral-host ratings: rebuilt from {folded} finished matches", file=sys.stderr)
    return 0

"""``floral-host ratings``: every player's rating, a table per server and game on a terminal,
one JSON object a line otherwise (``--json`` forces it).

Without ``--rebuild`` the database is only read: the ratings are computed from the stored
results, as ``--rebuild`` would store them (so it works on a backup or while the bot runs).
``--rebuild`` clears the stored ratings and folds every finished match again, in one
transaction, then prints them.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable

from bot import ratings
from bot.database import command_database, open_store
from bot.report import emit, wants_json
from bot.store import Rating
from games.protocol import JSON


async def read_ratings(db: str | None, *, rebuild: bool = False) -> tuple[list[Rating], int | None]:
    """The ratings of every guild and game, and with ``rebuild`` how many matches were folded."""
    target = command_database(db)
    if rebuild:
        store = await open_store(target, journal=False)  # may run beside the host
        try:
            folded = await ratings.rebuild(store)
            return await store.ratings(None), folded
        finally:
            await store.close()
    store = await open_store(target, readonly=True)
    try:
        records = await store.list_matches()
    finally:
        await store.close()
    return list(ratings.fold(records).values()), None


COLUMNS = (
    ("guild_id", "Server"),
    ("game", "Game"),
    ("place", "#"),
    ("name", "Player"),
    ("user_id", "User id"),
    ("rating", "Rating"),
    ("matches", "Matches"),
    ("wins", "Won"),
    ("losses", "Lost"),
)


def rating_rows(
    found: Iterable[Rating], guild: int | None = None, game: str | None = None
) -> list[dict[str, JSON]]:
    """Each guild and game in turn, its players by their place."""
    groups: dict[tuple[int, str], list[Rating]] = {}
    for rating in found:
        if guild in (None, rating.guild_id) and game in (None, rating.game):
            groups.setdefault((rating.guild_id, rating.game), []).append(rating)
    lines = []
    for key in sorted(groups):
        for standing in ratings.board(groups[key]):
            r = standing.rating
            line: dict[str, JSON] = {
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
            lines.append(line)
    return lines


def main(args: argparse.Namespace) -> int:
    found, folded = asyncio.run(read_ratings(args.db, rebuild=args.rebuild))
    rows = rating_rows(found, args.guild, args.game)
    as_json = wants_json(args.json, sys.stdout)
    emit(rows, COLUMNS, as_json=as_json, title="Ratings (mu - 3 sigma)", empty="no ratings yet")
    if folded is not None:
        print(f"floral-host ratings: rebuilt from {folded} finished matches", file=sys.stderr)
    return 0

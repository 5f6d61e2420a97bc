"""``floral-host export MATCH``: a stored match as the game's replayable script (JSON)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence

from bot.audit import open_existing
from bot.games import load_game_info
from bot.store import Attempt, MatchRecord, StepRecord, Store
from games.protocol import JSON
from games.registry import GameInfo
from games.scripts import Leave


async def export_match(store: Store, match_id: int) -> JSON:
    """The game's script of the match: per resolved window, each seat's raw attempts in order."""
    record = await store.get_match(match_id)
    if record is None:
        raise LookupError(f"there is no match {match_id}")
    if record.pruned_at is not None:
        raise LookupError(f"match {match_id}'s log was pruned: only its result is kept")
    info = load_game_info(record.game)
    steps, attempts = await store.steps(match_id), await store.attempts(match_id)
    return script_of(info, record, steps, attempts)


def script_of(
    info: GameInfo, record: MatchRecord, steps: Sequence[StepRecord], attempts: Sequence[Attempt]
) -> JSON:
    """The script of a stored match (the audit replays it too): per resolved window, each
    seat's raw attempts in arrival order; the game's writer marks where windows closed. A
    leave is a ``Leave`` among the windows (the attempts of the window it closed were never
    applied, so they are left out)."""
    windows: list[dict[int, list[str]] | Leave] = []
    for step in steps:
        if step.kind == "leave":
            windows.append(Leave(next(iter(step.moves or {}))))
        if step.kind != "resolve":
            continue
        window: dict[int, list[str]] = {}
        mine = [attempt for attempt in attempts if attempt.step == step.step]
        # seats in the order their first accepted answers arrived: the order resolve got
        for attempt in sorted(mine, key=lambda attempt: attempt.verdict != "accepted"):
            window.setdefault(attempt.seat, [])
        for attempt in mine:
            window[attempt.seat].append(attempt.raw)
        windows.append(window)
    return info.export_script(record.config, record.seed, list(record.names), windows)


async def _main(args: argparse.Namespace) -> int:
    store = await open_existing(args.db)
    try:
        script = await export_match(store, int(args.match))
    finally:
        await store.close()
    print(json.dumps(script, indent=2))
    return 0


def main(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_main(args))
    except (FileNotFoundError, LookupError, KeyError, ValueError) as error:
        print(f"floral-host export: {error}", file=sys.stderr)
        return 2

"""``floral-host audit``: replay every stored match from (config, seed, move log) through its
engine and compare with the snapshots the store keeps (checkpoints and the latest step, see
``bot.store.SNAPSHOT_EVERY``); also check that each logged move is the one its window's
attempts give, and that the match's export replays it window by window. A match whose log was
pruned (``prune --keep-results``) has nothing left to replay: it is counted, not checked. The
last stdout line is a JSON summary; exit 1 on any mismatch."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from bot.database import command_database, open_store
from bot.games import load_game_info
from bot.history import replay
from bot.report import emit, wants_json
from bot.store import Attempt, MatchRecord, StepRecord, Store
from bot.store.common import SqlStore
from games.moves import judge
from games.protocol import JSON, ConfigError, Game
from games.registry import GameInfo

__all__ = [
    "audit_match",
    "audit_store",
    "check_export",
    "first_difference",
    "judged_moves",
    "main",
    "open_existing",
    "replay",
]


def audit_match(
    game: Game[Any], record: MatchRecord, steps: Sequence[StepRecord], attempts: Sequence[Attempt]
) -> list[str]:
    """Every way the stored match disagrees with its replay."""
    problems = []
    numbers = [step.step for step in steps]
    if numbers != list(range(len(steps))) or numbers[-1:] != [record.step]:
        problems.append(f"match {record.id}: steps {numbers} are not 0..{record.step}")
    if steps and steps[-1].snapshot is None:  # the host resumes a match from it
        problems.append(f"match {record.id} step {steps[-1].step}: the latest step lost its state")
    before = None
    for step, state, _ in replay(game, record, steps):
        if step.kind == "resolve" and before is not None:
            window = [a for a in attempts if a.step == step.step]
            problems += _check_moves(game, record.id, before, step, window)
        if step.snapshot is not None:
            replayed = json.loads(json.dumps(game.dump(state)))
            if replayed != step.snapshot:
                where = first_difference(step.snapshot, replayed)
                problems.append(f"match {record.id} step {step.step}: snapshot differs at {where}")
        before = state
    return problems


def _check_moves(
    game: Game[Any], match_id: int, state: Any, step: StepRecord, attempts: Sequence[Attempt]
) -> list[str]:
    """Each stored attempt gets the ruling ``games.moves`` gives it now, and the logged move is
    the one that stands."""
    expected, problems = judged_moves(game, match_id, state, step, attempts)
    if expected != (step.moves or {}):
        problems.append(
            f"match {match_id} step {step.step}: logged moves {step.moves}"
            f" but the attempts give {expected}"
        )
    return problems


def judged_moves(
    game: Game[Any], match_id: int, state: Any, step: StepRecord, attempts: Sequence[Attempt]
) -> tuple[dict[int, JSON], list[str]]:
    """The moves a resolve step's window gets from its attempts judged now (None for a seat
    asked that has none accepted), and each attempt whose stored ruling is not the one now."""
    revisable = {request.seat: request.revisable for request in game.requests(state)}
    problems: list[str] = []
    expected: dict[int, JSON] = {seat: None for seat in step.moves or {}}
    answered: set[int] = set()
    for attempt in attempts:
        judged = judge(
            attempt.raw,
            partial(game.submit, state, attempt.seat),
            answered=attempt.seat in answered,
            revisable=revisable.get(attempt.seat, False),
        )
        if judged.ruling != attempt.verdict:
            problems.append(
                f"match {match_id} step {step.step}: {attempt.raw!r} from seat"
                f" {attempt.seat} was {attempt.verdict}, the engine says otherwise"
            )
        elif judged.accepted:
            answered.add(attempt.seat)
            expected[attempt.seat] = json.loads(json.dumps(judged.move))
    return expected, problems


def check_export(
    info: GameInfo, record: MatchRecord, steps: Sequence[StepRecord], attempts: Sequence[Attempt]
) -> list[str]:
    """The match's export, read back by its game's script reader, replays the stored match:
    window by window, the same moves and the same seats leaving (a game without
    ``replay_script`` is not checked)."""
    if info.replay_script is None:
        return []
    from bot.export import script_of  # bot.export imports this module

    try:
        script = json.loads(json.dumps(script_of(info, record, steps, attempts)))  # as a file
        replayed = list(info.replay_script(script))
    except ConfigError as error:
        return [f"match {record.id}: its export does not replay: {error}"]
    resolved = [step for step in steps if step.kind in ("resolve", "leave")]
    if len(replayed) != len(resolved):
        return [
            f"match {record.id}: its export replays {len(replayed)} windows,"
            f" the match stored {len(resolved)}"
        ]
    problems = []
    for step, again in zip(resolved, replayed, strict=True):
        left = next(iter(step.moves or {})) if step.kind == "leave" else None
        if again.left != left:
            problems.append(
                f"match {record.id} step {step.step}: its export replays seat {again.left}"
                f" leaving, the match stored seat {left} leaving"
            )
        elif left is None and _moves_made(again.moves) != _moves_made(step.moves or {}):
            problems.append(
                f"match {record.id} step {step.step}: its export replays the moves"
                f" {_moves_made(again.moves)}, the match stored {_moves_made(step.moves or {})}"
            )
    return problems


def _moves_made(moves: Mapping[Any, JSON]) -> dict[int, JSON]:
    """The seats that made a move, and their moves as JSON carries them (no timeouts)."""
    made = {int(seat): move for seat, move in moves.items() if move is not None}
    return dict(json.loads(json.dumps(sorted(made.items()))))


def first_difference(stored: JSON, replayed: JSON, path: str = "$") -> str:
    if isinstance(stored, dict) and isinstance(replayed, dict):
        for key in sorted(set(stored) | set(replayed), key=str):
            if stored.get(key) != replayed.get(key):
                return first_difference(stored.get(key), replayed.get(key), f"{path}.{key}")
    if isinstance(stored, list) and isinstance(replayed, list) and len(stored) == len(replayed):
        for index, (a, b) in enumerate(zip(stored, replayed, strict=True)):
            if a != b:
                return first_difference(a, b, f"{path}[{index}]")
    return f"{path} (stored {json.dumps(stored)[:60]}, replayed {json.dumps(replayed)[:60]})"


async def audit_store(store: Store) -> tuple[dict[str, int], list[str]]:
    matches = await store.list_matches()
    problems: list[str] = []
    for record in matches:
        if record.pruned_at is not None:
            continue
        try:
            info = load_game_info(record.game)
        except KeyError as error:
            problems.append(f"match {record.id}: cannot load game: {error}")
            continue
        steps, attempts = await store.steps(record.id), await store.attempts(record.id)
        problems += audit_match(info.game, record, steps, attempts)
        problems += check_export(info, record, steps, attempts)
    summary = {
        "matches": len(matches),
        "finished": sum(record.status == "finished" for record in matches),
        "mismatches": len(problems),
    }
    pruned = sum(record.pruned_at is not None for record in matches)
    if pruned:  # said only where there are some
        summary["pruned"] = pruned
    return summary, problems


async def open_existing(db: str | None) -> SqlStore:
    """The stored database, read-only: a missing, empty or unusable one raises
    UnusableDatabase."""
    return await open_store(command_database(db), readonly=True)


async def _main(args: argparse.Namespace) -> int:
    store = await open_existing(args.db)
    try:
        summary, problems = await audit_store(store)
    finally:
        await store.close()
    if wants_json(args.json, sys.stdout):
        for problem in problems:
            print(problem)
        print(json.dumps(summary))
    else:
        show_audit(summary, problems)
    return 1 if problems else 0


def show_audit(summary: Mapping[str, int], problems: Sequence[str]) -> None:
    """The audit for a person: each problem, then the counts in a table."""
    for problem in problems:
        print(f"✖ {problem}")
    columns = [(key, key.title()) for key in summary]
    emit([dict(summary)], columns, as_json=False, title="Audit", empty="")
    print("Every match replays as stored." if not problems else "✖ Mismatches found (above).")


def main(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_main(args))
    except FileNotFoundError as error:
        print(f"floral-host audit: {error}", file=sys.stderr)
        return 2

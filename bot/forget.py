"""``floral-host forget USER_ID``: remove what the database holds of one user, in one
transaction, keeping every match's audit true.

In each match they played, their seats are renamed "a former player" ("a former player 2" for a
second one in the same match) and take a stand-in id, -N for the N-th user forgotten (the same
in every match, so ``ratings --rebuild`` still folds the others' ratings as before). Their name
is replaced by the new one wherever it was written (names, outcome, messages, moves, the state
snapshots: the log is replayed through the engine under the new names, each move judged again,
so ``audit`` checks it as before); the direct messages the bot sent them and the answers it
refused from them are deleted; their ratings rows go. A match whose log does not replay under
the new names keeps only its result, as ``prune --keep-results`` leaves it, and is named.
Their id goes from every match they moderated, every log entry and every table.

A user in a match not over yet, or at an open table, is refused: the match must end first.
Like ``prune``, it owns the database while it runs (``bot.store.owner``): stop the bot first.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.audit import audit_match, check_export, judged_moves
from bot.database import command_database, open_store, require_database
from bot.games import load_game_info
from bot.history import advance, dumped
from bot.prune import MATCH_TABLES
from bot.store import ACTIVE_STATUSES, Attempt, MatchRecord, StepRecord, archive
from bot.store.owner import owning
from bot.store.sql import (
    Dialect,
    Work,
    changed,
    dumps,
    execute,
    execute_many,
    fetch,
    fetchone,
    insert,
    marks,
)
from bot.store.transactions import read_match, read_steps
from games.protocol import JSON, Game, Setup
from games.registry import GameInfo

FORMER = "a former player"
# the name where a game's names take no spaces (Potioncraft's scripts: letters, digits and _)
FORMER_PLAIN = "former_player"


class StillPlaying(Exception):
    """The user is in a match not over yet, or at an open table; ``str()`` says where."""


@dataclass(frozen=True, slots=True)
class Forgotten:
    stand_in: int  # the id their seats carry now
    matches: list[int]  # the matches that named them, renamed
    logs_dropped: list[int]  # of those, the ones whose log could not be renamed faithfully
    ratings: int  # ratings rows removed
    names: list[str]  # the names their seats took


def former_name(taken: Sequence[str], base: str = FORMER) -> str:
    """The new name of a forgotten seat, distinct from the match's other names."""
    name, number = base, 2
    while name in taken:
        name, number = f"{base} {number}" if " " in base else f"{base}{number}", number + 1
    return name


def renamed_seats(
    record: MatchRecord, seats: Sequence[int], swap: Mapping[int, int], base: str = FORMER
) -> MatchRecord:
    """The match with the user's id swapped for the stand-in and their seats renamed."""
    names = list(record.names)
    for seat in seats:
        names[seat] = former_name(names, base)
    return dataclasses.replace(
        record,
        players=tuple(swap.get(player, player) for player in record.players),
        moderators=tuple(swap.get(moderator, moderator) for moderator in record.moderators),
        names=tuple(names),
    )


def replacer(
    renames: Mapping[str, str], user_id: int, *, any_case: bool = False
) -> Callable[[str], str]:
    """A text with each old name (as a whole word) and each mention of the user replaced."""
    mention = f"<@!?{user_id}>"
    longest_first = sorted(filter(None, renames), key=len, reverse=True)  # "Al" after "Alan"
    words = [rf"(?<!\w){re.escape(old)}(?!\w)" for old in longest_first]
    pattern = re.compile("|".join([mention, *words]), re.IGNORECASE if any_case else 0)
    fallback = next(iter(renames.values()), FORMER)
    lookup = {old.casefold(): new for old, new in renames.items()}

    def replace(text: str) -> str:
        return pattern.sub(lambda m: lookup.get(m[0].casefold(), fallback), text)

    return replace


def in_strings(value: JSON, replace: Callable[[str], str]) -> JSON:
    """``value`` with ``replace`` applied to every string in it, keys included."""
    if isinstance(value, str):
        return replace(value)
    if isinstance(value, list):
        return [in_strings(item, replace) for item in value]
    if isinstance(value, dict):
        return {replace(key): in_strings(item, replace) for key, item in value.items()}
    return value


# --- the transaction ------------------------------------------------------------------------


def forget_user(dialect: Dialect, user_id: int, at: float) -> Work[Forgotten | None]:
    """Forget ``user_id`` in the transaction this work runs in; None when nothing names them."""
    yield from _refuse_while_playing(dialect, user_id)
    matches = yield from _matches_naming(dialect, user_id)
    tables = yield from fetch(
        f"SELECT id FROM tables WHERE opener = ? OR {dialect.pairs_have('players')}",
        user_id,
        user_id,
    )
    ratings = yield from changed("DELETE FROM ratings WHERE user_id = ?", user_id)
    if not (matches or tables or ratings):
        return None
    stand_in = -(yield from insert("INSERT INTO forgotten (at) VALUES (?) RETURNING id", at))
    dropped, names = [], set()
    for match_id in matches:
        kept, taken = yield from _forget_in_match(match_id, user_id, stand_in, at)
        names.update(taken)
        if not kept:
            dropped.append(match_id)
    for (table_id,) in tables:
        yield from _forget_at_table(table_id, user_id, stand_in)
    return Forgotten(stand_in, matches, dropped, ratings, sorted(names))


def _refuse_while_playing(dialect: Dialect, user_id: int) -> Work[None]:
    row = yield from fetchone(
        f"SELECT id FROM matches WHERE status IN ({marks(ACTIVE_STATUSES)})"
        f" AND ({dialect.list_has('players')} OR {dialect.list_has('moderators')})"
        " ORDER BY id LIMIT 1",
        *ACTIVE_STATUSES,
        user_id,
        user_id,
    )
    if row is not None:
        raise StillPlaying(f"user {user_id} is in match m{row[0]}, not over yet: end it first")
    row = yield from fetchone(
        f"SELECT id FROM tables WHERE status = 'open' AND {dialect.pairs_have('players')}"
        " ORDER BY id LIMIT 1",
        user_id,
    )
    if row is not None:
        raise StillPlaying(f"user {user_id} sits at open table {row[0]}: it must fill or close")


def _matches_naming(dialect: Dialect, user_id: int) -> Work[list[int]]:
    """Every match that holds the user's id: as a player, a moderator, in its log."""
    rows = yield from fetch(
        f"SELECT id FROM matches WHERE {dialect.list_has('players')}"
        f" OR {dialect.list_has('moderators')}"
        " UNION SELECT match_id FROM attempts WHERE user_id = ?"
        " UNION SELECT match_id FROM match_log"
        f" WHERE by_user = ? OR {dialect.field_is('data', 'user')}",
        *(user_id,) * 5,
    )
    return sorted(int(row[0]) for row in rows)


def _forget_in_match(
    match_id: int, user_id: int, stand_in: int, at: float
) -> Work[tuple[bool, list[str]]]:
    """Rename the user's seats in one match: whether its log was kept (False: dropped), and
    the names their seats took. "a former player" where the log replays under it, else
    "former_player" (a game whose names take no spaces)."""
    record = yield from read_match(match_id)
    if record is None:  # a log entry of a match pruned away
        yield from _forget_in_log(match_id, user_id, stand_in, lambda text: text)
        return True, []
    seats = [seat for seat, player in enumerate(record.players) if player == user_id]
    swap = {user_id: stand_in}
    renamed, kept = renamed_seats(record, seats, swap), True
    if seats and record.pruned_at is None:
        found = None
        for base in (FORMER, FORMER_PLAIN):
            again = renamed_seats(record, seats, swap, base)
            if (yield from _rename_log(record, again, user_id, stand_in)):
                found = again
                break
        kept, renamed = found is not None, found or renamed
        if not kept:
            yield from _drop_log(match_id, at)
    replace = replacer(_renames(record, renamed), user_id)
    yield from execute(
        "UPDATE matches SET players = ?, moderators = ?, names = ?, outcome = ? WHERE id = ?",
        dumps(list(renamed.players)),
        dumps(list(renamed.moderators)),
        dumps(list(renamed.names)),
        dumps(in_strings(record.outcome, replace)),
        match_id,
    )
    yield from _forget_in_log(match_id, user_id, stand_in, replace)
    yield from _forget_in_messages(match_id, {f"seat{seat}" for seat in seats}, replace)
    return kept, [renamed.names[seat] for seat in seats]


def _renames(record: MatchRecord, renamed: MatchRecord) -> dict[str, str]:
    return {old: new for old, new in zip(record.names, renamed.names, strict=True) if old != new}


def _rename_log(
    record: MatchRecord, renamed: MatchRecord, user_id: int, stand_in: int
) -> Work[bool]:
    """Rewrite the match's steps and attempts under the new names, replayed and judged again by
    the engine; False (nothing written) when the result would not pass the audit."""
    rows = yield from fetch(
        "SELECT id, match_id, step, seat, user_id, raw, verdict, reason, move, at FROM attempts"
        " WHERE match_id = ? ORDER BY id",
        record.id,
    )
    renames = _renames(record, renamed)
    any_case, exact = replacer(renames, user_id, any_case=True), replacer(renames, user_id)
    seats = [seat for seat, player in enumerate(record.players) if player == user_id]
    ids, attempts, moves = [], [], []
    for id_, match_id, step, seat, by, raw, verdict, reason, move, when in rows:
        if seat in seats and verdict != "accepted":
            continue  # their own words, refused: nothing of the match stands on them
        judged = None if move is None else in_strings(json.loads(move), exact)
        ids.append(id_)
        moves.append(judged)
        attempts.append(
            Attempt(
                match_id,
                step,
                seat,
                stand_in if by == user_id else by,
                any_case(raw),
                verdict,
                any_case(reason),
                judged,
                when,
            )
        )
    logged = yield from read_steps(record.id)
    steps = _replayed(load_game_info(record.game), renamed, logged, attempts)
    if steps is None:
        return False
    yield from execute_many(
        "UPDATE steps SET moves = ?, snapshot = ? WHERE match_id = ? AND step = ?",
        [(_moves_text(s.moves), _snapshot_text(s), s.match_id, s.step) for s in steps],
    )
    yield from execute("DELETE FROM attempts WHERE match_id = ?", record.id)
    yield from execute_many(
        "INSERT INTO attempts (id, match_id, step, seat, user_id, raw, verdict, reason, move, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (id_, a.match_id, a.step, a.seat, a.user_id, a.raw, a.verdict, a.reason, _json(m), a.at)
            for id_, a, m in zip(ids, attempts, moves, strict=True)
        ],
    )
    yield from execute("DELETE FROM moves WHERE match_id = ?", record.id)  # the match is over
    return True


def _replayed(
    info: GameInfo, record: MatchRecord, steps: Sequence[StepRecord], attempts: Sequence[Attempt]
) -> list[StepRecord] | None:
    """The steps as the engine plays them under ``record``'s names: each window's moves as its
    attempts give them, the snapshots kept where the store kept them; None when the engine
    refuses any of it or the audit would find fault."""
    game: Game[Any] = info.game
    out: list[StepRecord] = []
    try:
        state, _ = game.new_match(
            Setup(record.config, len(record.players), record.seed, record.names)
        )
        for step in steps:
            if step.kind == "resolve":
                window = [attempt for attempt in attempts if attempt.step == step.step]
                moves, problems = judged_moves(game, record.id, state, step, window)
                if problems:
                    return None
                step = dataclasses.replace(step, moves=moves)
            if step.kind != "start":
                state, _ = advance(game, state, step)
            kept = step.snapshot is not None
            out.append(dataclasses.replace(step, snapshot=dumped(game, state) if kept else None))
    except Exception:  # an engine refusing the new names in any way: the log cannot be kept
        return None
    faults = audit_match(game, record, out, attempts) + check_export(info, record, out, attempts)
    return None if faults else out


def _drop_log(match_id: int, at: float) -> Work[None]:
    for table in MATCH_TABLES:
        yield from execute(f"DELETE FROM {table} WHERE match_id = ?", match_id)
    yield from execute("UPDATE matches SET pruned_at = ? WHERE id = ?", at, match_id)


def _forget_in_log(
    match_id: int, user_id: int, stand_in: int, replace: Callable[[str], str]
) -> Work[None]:
    rows = yield from fetch("SELECT id, by_user, data FROM match_log WHERE match_id = ?", match_id)
    updates = []
    for id_, by_user, data in rows:
        value = in_strings(json.loads(data) if data is not None else None, replace)
        if isinstance(value, dict) and value.get("user") == user_id:
            value["user"] = stand_in  # kicked
        updates.append((stand_in if by_user == user_id else by_user, dumps(value), id_))
    yield from execute_many("UPDATE match_log SET by_user = ?, data = ? WHERE id = ?", updates)


def _forget_in_messages(
    match_id: int, their_dms: set[str], replace: Callable[[str], str]
) -> Work[None]:
    """Delete the direct messages to the user's seats; rename them in every other message."""
    rows = yield from fetch(
        "SELECT id, audience, text, payload FROM outbox WHERE match_id = ?", match_id
    )
    for id_, audience, text, payload in rows:
        if audience in their_dms:
            yield from execute("DELETE FROM outbox WHERE id = ?", id_)
        else:
            new_payload = dumps(in_strings(json.loads(payload), replace))
            yield from execute(
                "UPDATE outbox SET text = ?, payload = ? WHERE id = ?",
                replace(text),
                new_payload,
                id_,
            )
    chunks = yield from fetch(
        "SELECT id, messages FROM outbox_archive WHERE match_id = ?", match_id
    )
    for id_, blob in chunks:
        kept = [
            [row[0], row[1], replace(row[2]), dumps(in_strings(row[3], replace)), *row[4:]]
            for row in archive.unpack(blob)
            if row[1] not in their_dms
        ]
        yield from execute(
            "UPDATE outbox_archive SET messages = ? WHERE id = ?", archive.pack(kept), id_
        )


def _forget_at_table(table_id: int, user_id: int, stand_in: int) -> Work[None]:
    row = yield from fetchone("SELECT opener, players FROM tables WHERE id = ?", table_id)
    assert row is not None
    opener, players = row
    seated = [
        [stand_in, FORMER] if user == user_id else [user, name]
        for user, name in json.loads(players)
    ]
    yield from execute(
        "UPDATE tables SET opener = ?, players = ? WHERE id = ?",
        stand_in if opener == user_id else opener,
        dumps(seated),
        table_id,
    )


def _json(value: JSON) -> str | None:
    return None if value is None else dumps(value)


def _moves_text(moves: Mapping[int, JSON] | None) -> str | None:
    return None if moves is None else dumps({str(seat): move for seat, move in moves.items()})


def _snapshot_text(step: StepRecord) -> str | None:
    return None if step.snapshot is None else dumps(step.snapshot)


# --- the command ------------------------------------------------------------------------------


async def forget(target: str, user_id: int) -> Forgotten | None:
    await require_database(target)
    async with owning(target, "floral-host forget"):
        store = await open_store(target)
        try:
            return await store.transaction(forget_user(store.dialect, user_id, time.time()))
        finally:
            await store.close()


def main(args: argparse.Namespace) -> int:
    target = command_database(args.db)
    user_id: int = args.user
    try:
        forgotten = asyncio.run(forget(target, user_id))
    except StillPlaying as error:
        print(f"floral-host forget: {error}; nothing was changed", file=sys.stderr)
        return 1
    if forgotten is None:
        print(f"nothing stored names user {user_id}")
        return 0
    names = ", ".join(map(repr, forgotten.names)) or "none"
    held = len(forgotten.matches)
    print(
        f"forgot user {user_id}: {held} matches held them (their seats now: {names};"
        f" their id: {forgotten.stand_in}), {forgotten.ratings} ratings removed"
    )
    if forgotten.logs_dropped:
        dropped = ", ".join(f"m{match_id}" for match_id in forgotten.logs_dropped)
        print(f"logs that do not replay under the new names were dropped, results kept: {dropped}")
    return 0

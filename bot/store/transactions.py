"""The store's transactions and reads, as :mod:`bot.store.sql` works: the same code for SQLite
and PostgreSQL (what differs is a ``Dialect`` fragment)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from bot.shards import Shards
from bot.store import (
    HOLD,
    MID_TURN,
    Attempt,
    Change,
    FirstMessages,
    LogEntry,
    MatchRecord,
    MatchStatus,
    NewMatch,
    OutboxMessage,
    OutboxRow,
    Rater,
    Rating,
    Retry,
    StepRecord,
    TableRecord,
    Taken,
    WindowRecord,
    archive,
    keeps_snapshot,
)
from bot.store.archive import ARCHIVE_EVERY
from bot.store.sql import (
    Dialect,
    Row,
    Work,
    changed,
    chunks,
    dumps,
    execute,
    execute_many,
    fetch,
    fetchone,
    fetchvalue,
    insert,
    loads,
    marks,
)
from games.protocol import JSON

MATCH_COLUMNS = (
    "id, game, guild_id, channel_id, players, names, moderators, config, seed, window_s,"
    " status, step, outcome, created_at, timers, practice, ended_at, ended_seq, pruned_at"
)
RATING_COLUMNS = "guild_id, game, user_id, name, mu, sigma, matches, wins, losses, updated_at"
_OUTBOX_SELECT = (
    "SELECT o.id, o.match_id, o.audience, o.text, o.payload, o.status, o.tries, o.next_try,"
    " m.guild_id, m.channel_id, m.players, m.moderators, o.created_at"
    " FROM outbox o JOIN matches m ON m.id = o.match_id"
)
_TABLE_COLUMNS = (
    "id, guild_id, channel_id, game, opener, seats, players, status, match_id, created_at"
)


HELD, PENDING = "held", "pending"  # a held message's status; a message's to be sent
SETTLED = "IN ('sent', 'failed')"  # the statuses of a message done with (the archive's)
RELEASING = ("public", "moderators")  # the audiences whose messages release the held ones
FOLDED_MAX = 64  # held messages a post takes at most


class WindowClosed(Exception):
    """Raised inside a transaction to roll it back: a guarded window is no longer open."""


# --- writes ---------------------------------------------------------------------------------


def create_match(
    dialect: Dialect, new: NewMatch, snapshot: JSON, at: float, outbox: FirstMessages
) -> Work[int]:
    """Insert the match; with ``new.rematch_of`` or ``new.table``, settle that claim in the
    same transaction (``Taken``, and nothing written, if it is gone)."""
    if new.rematch_of is not None:
        yield from check_no_rematch(dialect, new.rematch_of)
    match_id = yield from insert(
        "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators, config,"
        " seed, window_s, status, step, created_at, updated_at, timers, practice)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'setup', 0, ?, ?, ?, ?) RETURNING id",
        new.game,
        new.guild_id,
        new.channel_id,
        dumps(list(new.players)),
        dumps(list(new.names)),
        dumps(list(new.moderators)),
        dumps(new.config),
        new.seed,
        new.window_s,
        at,
        at,
        dumps(new.timers),
        int(new.practice),
    )
    yield from execute(
        "INSERT INTO steps (match_id, step, kind, moves, snapshot, at)"
        " VALUES (?, 0, 'start', NULL, ?, ?)",
        match_id,
        dumps(snapshot),
        at,
    )
    yield from insert_log(match_id, (LogEntry("created"),), at)
    if new.rematch_of is not None:
        yield from insert_log(new.rematch_of, (LogEntry("rematch", data={"match": match_id}),), at)
    if new.table is not None:
        yield from fill_table(new, match_id)
    messages = outbox(match_id) if callable(outbox) else outbox
    yield from insert_outbox(
        [OutboxMessage(match_id, m.audience, m.text, m.payload) for m in messages], at
    )
    return match_id


def check_no_rematch(dialect: Dialect, match_id: int) -> Work[None]:
    """Taken (naming it) if the match has its rematch. The match's row is locked first, so a
    second rematch being created meanwhile waits, then sees the first's log entry."""
    yield from fetch(f"SELECT id FROM matches WHERE id = ?{dialect.for_update}", match_id)
    row = yield from fetchone(
        "SELECT data FROM match_log WHERE match_id = ? AND kind = 'rematch' LIMIT 1", match_id
    )
    if row is not None:
        raise Taken(json.loads(row[0])["match"])


def fill_table(new: NewMatch, match_id: int) -> Work[None]:
    """The table's last seat taken: full, with the match's players, if it is still open
    (Taken otherwise; a concurrent claim waits for this one, then finds it full)."""
    players = dumps([[user, name] for user, name in zip(new.players, new.names, strict=True)])
    filled = yield from changed(
        "UPDATE tables SET players = ?, status = 'full', match_id = ? WHERE id = ?"
        " AND status = 'open'",
        players,
        match_id,
        new.table,
    )
    if filled != 1:
        raise Taken


def add_attempt(dialect: Dialect, attempt: Attempt) -> Work[None]:
    """Log the attempt; an accepted one also becomes the seat's move, only while its window is
    open (WindowClosed otherwise: a move for a window that has just closed is never kept)."""
    if attempt.verdict == "accepted" and not (yield from _keep_move(dialect, attempt)):
        raise WindowClosed
    yield from _log_attempt(attempt)


def add_answers(dialect: Dialect, attempts: Sequence[Attempt]) -> Work[list[Attempt]]:
    """Accepted attempts, journaled (``bot.store.journal``): each is logged, and becomes the
    seat's move while its window is open; those whose window was closed."""
    closed = []
    for attempt in attempts:
        if not (yield from _keep_move(dialect, attempt)):
            closed.append(attempt)
        yield from _log_attempt(attempt)
    return closed


def add_journaled(dialect: Dialect, attempts: Sequence[Attempt]) -> Work[int]:
    """``add_answers`` for the journal's attempts that are not logged yet (a crash came before
    their commit, or their transaction failed); how many."""
    missing = []
    for attempt in attempts:
        logged = yield from fetchone(
            "SELECT 1 FROM attempts WHERE match_id = ? AND step = ? AND seat = ? AND at = ?"
            " AND raw = ?",
            attempt.match_id,
            attempt.step,
            attempt.seat,
            attempt.at,
            attempt.raw,
        )
        if logged is None:
            missing.append(attempt)
    yield from add_answers(dialect, missing)
    return len(missing)


def _keep_move(dialect: Dialect, attempt: Attempt) -> Work[bool]:
    """The attempt's move becomes the seat's, if its window is open; whether it was."""
    # conditional, in one statement: a move for a window that has just closed is never
    # kept (PostgreSQL holds the open window's row till the commit: closing it waits)
    kept = yield from changed(
        "INSERT INTO moves (match_id, step, seat, move)"
        " SELECT match_id, step, CAST(? AS BIGINT), ? FROM windows"
        f" WHERE match_id = ? AND step = ? AND status = 'open'{dialect.for_share}"
        " ON CONFLICT (match_id, step, seat) DO UPDATE SET move = excluded.move",
        attempt.seat,
        dumps(attempt.move),
        attempt.match_id,
        attempt.step,
    )
    return kept == 1


def _log_attempt(attempt: Attempt) -> Work[None]:
    yield from execute(
        "INSERT INTO attempts (match_id, step, seat, user_id, raw, verdict, reason, move, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        attempt.match_id,
        attempt.step,
        attempt.seat,
        attempt.user_id,
        attempt.raw,
        attempt.verdict,
        attempt.reason,
        None if attempt.verdict != "accepted" else dumps(attempt.move),
        attempt.at,
    )


def open_windows() -> Work[list[tuple[int, int]]]:
    """Every open window, as (match, step)."""
    rows = yield from fetch("SELECT match_id, step FROM windows WHERE status = 'open'")
    return [(int(match_id), int(step)) for match_id, step in rows]


def _require_open(dialect: Dialect, match_id: int, step: int) -> Work[None]:
    """WindowClosed unless the window is open; it then stays open till the commit (PostgreSQL
    holds a share lock on it: closing it waits, then finds the move)."""
    row = yield from fetchone(
        "SELECT 1 FROM windows WHERE match_id = ? AND step = ? AND status = 'open'"
        + dialect.for_share,
        match_id,
        step,
    )
    if row is None:
        raise WindowClosed


def apply(dialect: Dialect, change: Change) -> Work[None]:
    yield from _check_guards(dialect, change)
    match_id, at = change.match_id, change.at
    # the match's own columns change in one statement, at the end
    columns: dict[str, Any] = {}
    if change.new_step is not None:
        yield from _insert_step(change.new_step, at)
        columns["step"] = change.new_step.step
    if change.open_window is not None:
        window = change.open_window
        yield from execute(
            "INSERT INTO windows (match_id, step, seats, status, deadline, remaining, reminded,"
            " opened_at, prompted) VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?)",
            match_id,
            window.step,
            dumps(list(window.seats)),
            window.deadline,
            window.remaining,
            int(window.reminded),
            at,
            dumps(window.prompted) if window.prompted else None,
        )
    if change.retime is not None:
        timing = change.retime
        yield from execute(
            "UPDATE windows SET deadline = ?, remaining = ?, reminded = ?"
            " WHERE match_id = ? AND step = ?",
            timing.deadline,
            timing.remaining,
            int(timing.reminded),
            match_id,
            timing.step,
        )
    if change.setup is not None:
        config, snapshot = change.setup
        columns["config"] = dumps(config)
        yield from execute(
            "UPDATE steps SET snapshot = ? WHERE match_id = ? AND step = 0",
            dumps(snapshot),
            match_id,
        )
    if change.status is not None:
        columns.update(status=change.status, outcome=dumps(change.outcome))
    columns["updated_at"] = at
    assignments = ", ".join(f"{column} = ?" for column in columns)
    yield from execute(
        f"UPDATE matches SET {assignments} WHERE id = ?", *columns.values(), match_id
    )
    if change.status in ("finished", "aborted"):
        yield from _number_the_end(dialect, match_id, at)
    yield from insert_log(match_id, change.log, at)
    yield from insert_outbox(change.outbox, at)


def _number_the_end(dialect: Dialect, match_id: int, at: float) -> Work[None]:
    if dialect.serialize_ends:  # two ends committing at once never take the same number
        yield from fetch(dialect.serialize_ends)
    yield from execute(
        f"UPDATE matches SET ended_at = ?, ended_seq = {_NEXT_END} WHERE id = ?"
        " AND ended_seq IS NULL",
        at,
        match_id,
    )


# the next end's number: after every match's, and after every match folded into the ratings
# (a pruned match's row is gone, its rated_matches row stays: a number is never given twice)
_NEXT_END = (
    "(SELECT COALESCE(MAX(seq), 0) + 1 FROM (SELECT MAX(ended_seq) AS seq FROM matches"
    " UNION ALL SELECT MAX(ended_seq) FROM rated_matches) AS ends)"
)


def _check_guards(dialect: Dialect, change: Change) -> Work[None]:
    if change.close_window is not None:
        closed = yield from changed(
            "UPDATE windows SET status = 'closed', closed_at = ?, close_reason = ?"
            " WHERE match_id = ? AND step = ? AND status = 'open'",
            change.at,
            change.close_reason,
            change.match_id,
            change.close_window,
        )
        if closed != 1:
            raise WindowClosed
    if change.guard_window is not None:
        yield from _require_open(dialect, change.match_id, change.guard_window)


def _insert_step(step: StepRecord, at: float) -> Work[None]:
    """The new latest step; the one before it keeps its snapshot only at a checkpoint."""
    moves = None if step.moves is None else dumps({str(s): m for s, m in step.moves.items()})
    yield from execute(
        "INSERT INTO steps (match_id, step, kind, moves, snapshot, at) VALUES (?, ?, ?, ?, ?, ?)",
        step.match_id,
        step.step,
        step.kind,
        moves,
        dumps(step.snapshot),
        at,
    )
    if not keeps_snapshot(step.step - 1):
        yield from execute(
            "UPDATE steps SET snapshot = NULL WHERE match_id = ? AND step = ?",
            step.match_id,
            step.step - 1,
        )


def insert_log(match_id: int, entries: Sequence[LogEntry], at: float) -> Work[None]:
    yield from execute_many(
        "INSERT INTO match_log (match_id, at, kind, by_user, data) VALUES (?, ?, ?, ?, ?)",
        [(match_id, e.at or at, e.kind, e.by_user, dumps(e.data)) for e in entries],
    )


def insert_outbox(messages: Sequence[OutboxMessage], at: float) -> Work[None]:
    """Add the messages; one held for the next turn post waits (status ``held``) until a
    message of its match's channel or log that is not held comes, which releases every held
    one of the match (``pending``) to go with it, in order (``due_outbox``); a channel post in
    the middle of a turn (``MID_TURN``) releases the held channel posts only."""
    every = {m.match_id for m in messages if m.audience in RELEASING and releases_all(m)}
    posts = {m.match_id for m in messages if is_mid_turn(m)} - every
    yield from execute_many(
        "UPDATE outbox SET status = 'pending' WHERE match_id = ? AND status = 'held'",
        [(match_id,) for match_id in sorted(every)],
    )
    yield from execute_many(  # the log's held entries wait for the turn's next post
        "UPDATE outbox SET status = 'pending'"
        " WHERE match_id = ? AND status = 'held' AND audience = 'public'",
        [(match_id,) for match_id in sorted(posts)],
    )
    yield from execute_many(
        "INSERT INTO outbox (match_id, audience, text, payload, created_at, status)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (m.match_id, m.audience, m.text, dumps(m.payload), at, HELD if is_held(m) else PENDING)
            for m in messages
        ],
    )


def is_held(message: OutboxMessage) -> bool:
    """A message the host holds for its match's next turn post (``bot.outbox.HOLD``)."""
    payload = message.payload
    return isinstance(payload, dict) and payload.get(HOLD) is True


def is_mid_turn(message: OutboxMessage) -> bool:
    """A channel post in the middle of a turn (``bot.store.MID_TURN``)."""
    payload = message.payload
    return isinstance(payload, dict) and payload.get(MID_TURN) is True


def releases_all(message: OutboxMessage) -> bool:
    """Neither held nor mid-turn: a channel or log message of this kind releases them all."""
    return not is_held(message) and not is_mid_turn(message)


def settle(
    dialect: Dialect,
    sent: Sequence[int],
    retries: Sequence[Retry],
    failed: Sequence[Retry],
    at: float,
) -> Work[None]:
    settled = [*sent, *(r.message_id for r in failed)]
    matches = yield from _matches_of(dialect, settled)
    yield from execute_many(
        "UPDATE outbox SET status = 'sent', tries = tries + 1, sent_at = ? WHERE id = ?",
        [(at, message_id) for message_id in sent],
    )
    yield from execute_many(
        "UPDATE outbox SET tries = tries + 1, next_try = ?, error = ? WHERE id = ?",
        [(r.next_try, r.error, r.message_id) for r in retries],
    )
    yield from execute_many(
        "UPDATE outbox SET status = 'failed', tries = tries + 1, error = ? WHERE id = ?",
        [(r.error, r.message_id) for r in failed],
    )
    for match_id in (yield from _to_archive(matches)):
        yield from _archive(match_id)


def _matches_of(dialect: Dialect, message_ids: Sequence[int]) -> Work[list[int]]:
    """The matches of the messages, in order, locked (PostgreSQL) until the commit: the
    archive of a match's messages is made by one transaction at a time (in order: two
    transactions never wait for each other)."""
    found: set[int] = set()
    for chunk in chunks(message_ids):
        rows = yield from fetch(
            "SELECT id FROM matches WHERE id IN"
            f" (SELECT match_id FROM outbox WHERE id IN ({marks(chunk)})) ORDER BY id"
            + dialect.for_update,
            *chunk,
        )
        found.update(row[0] for row in rows)
    return sorted(found)


def _to_archive(match_ids: Sequence[int]) -> Work[list[int]]:
    """Of these matches, those whose settled messages are due for the archive: once there are
    ``ARCHIVE_EVERY`` of them, or once the match is over and none is pending."""
    due = []
    for chunk in chunks(match_ids):
        rows = yield from fetch(
            f"SELECT o.match_id, SUM(CASE WHEN o.status {SETTLED} THEN 1 ELSE 0 END),"
            f" SUM(CASE WHEN o.status {SETTLED} THEN 0 ELSE 1 END),"
            " MAX(CASE WHEN m.status IN ('finished', 'aborted') THEN 1 ELSE 0 END)"
            " FROM outbox o JOIN matches m ON m.id = o.match_id"
            f" WHERE o.match_id IN ({marks(chunk)}) GROUP BY o.match_id ORDER BY o.match_id",
            *chunk,
        )
        due += [
            match_id
            for match_id, settled, pending, over in rows
            if settled >= ARCHIVE_EVERY or (settled and over and not pending)
        ]
    return due


def archive_settled(match_id: int) -> Work[bool]:
    """Archive the match's settled messages (``bot.store.archive``) if they are due
    (``_to_archive``); whether it did."""
    if not (yield from _to_archive([match_id])):
        return False
    yield from _archive(match_id)
    return True


def _archive(match_id: int) -> Work[None]:
    """Move the match's settled messages into one archive chunk. A match over also drops its
    windows' working moves (its steps hold the moves made)."""
    messages = yield from fetch(
        f"SELECT {archive.COLUMNS} FROM outbox WHERE match_id = ? AND status {SETTLED} ORDER BY id",
        match_id,
    )
    yield from execute(
        "INSERT INTO outbox_archive (match_id, messages) VALUES (?, ?)",
        match_id,
        archive.pack(messages),
    )
    yield from execute(f"DELETE FROM outbox WHERE match_id = ? AND status {SETTLED}", match_id)
    yield from execute(
        "DELETE FROM moves WHERE match_id = ? AND EXISTS (SELECT 1 FROM matches"
        " WHERE id = ? AND status IN ('finished', 'aborted'))",
        match_id,
        match_id,
    )


def unarchived() -> Work[list[int]]:
    """The matches over whose settled messages wait to be archived (an upgraded database's,
    or a match that ended while its last messages were settled by an older floral-host)."""
    rows = yield from fetch(
        "SELECT DISTINCT o.match_id FROM outbox o JOIN matches m ON m.id = o.match_id"
        f" WHERE m.status IN ('finished', 'aborted') AND o.status {SETTLED}"
    )
    return [int(row[0]) for row in rows]


def create_table(
    guild_id: int, channel_id: int, game: str, opener: int, seats: int, at: float
) -> Work[int]:
    table_id = yield from insert(
        "INSERT INTO tables (guild_id, channel_id, game, opener, seats, players, status,"
        " created_at) VALUES (?, ?, ?, ?, ?, '[]', 'open', ?) RETURNING id",
        guild_id,
        channel_id,
        game,
        opener,
        seats,
        at,
    )
    return table_id


def update_table(table: TableRecord) -> Work[None]:
    players = dumps([[user, name] for user, name in table.players])
    yield from execute(
        "UPDATE tables SET players = ?, status = ?, match_id = ? WHERE id = ?",
        players,
        table.status,
        table.match_id,
        table.id,
    )


def set_thread(match_id: int, thread_id: int) -> Work[None]:
    yield from execute(
        "INSERT INTO match_threads (match_id, thread_id) VALUES (?, ?)"
        " ON CONFLICT (match_id) DO UPDATE SET thread_id = excluded.thread_id",
        match_id,
        thread_id,
    )


def set_dm_channel(user_id: int, channel_id: int) -> Work[None]:
    yield from execute(
        "INSERT INTO dm_channels (user_id, channel_id) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET channel_id = excluded.channel_id",
        user_id,
        channel_id,
    )


def forget_dm_channel(user_id: int, channel_id: int) -> Work[None]:
    """Forget the user's DM channel if it is still ``channel_id`` (another may be stored)."""
    yield from execute(
        "DELETE FROM dm_channels WHERE user_id = ? AND channel_id = ?", user_id, channel_id
    )


def touch_schema_row() -> Work[None]:
    """A committed write that changes nothing: proves at start that the database can be
    written."""
    yield from execute(
        "UPDATE schema_migrations SET applied_at = applied_at"
        " WHERE version = (SELECT MAX(version) FROM schema_migrations)"
    )


# --- ratings --------------------------------------------------------------------------------


def unfolded(dialect: Dialect) -> Work[bool]:
    """Whether a match waits to be folded into the ratings."""
    last = (yield from fetchvalue("SELECT MAX(ended_seq) FROM rated_matches")) or 0
    found = yield from fetchone(
        f"SELECT 1 FROM matches WHERE ended_seq > ? AND {dialect.rated_kind} LIMIT 1", last
    )
    return found is not None


def fold_ratings(dialect: Dialect, rate: Rater, limit: int | None, rebuild: bool) -> Work[int]:
    """Each end takes the next ``ended_seq`` in the transaction that ends the match, so a match
    not folded yet always comes after the last one folded: folding from there, in order, is
    the same as folding everything again."""
    if dialect.serialize_ends:  # one fold at a time: a match is folded once
        yield from fetch(dialect.serialize_ends)
    if rebuild:
        yield from execute("DELETE FROM ratings")
        yield from execute("DELETE FROM rated_matches")
    last = (yield from fetchvalue("SELECT MAX(ended_seq) FROM rated_matches")) or 0
    rows = yield from fetch(
        f"SELECT {MATCH_COLUMNS} FROM matches WHERE ended_seq > ? AND {dialect.rated_kind}"
        " ORDER BY ended_seq" + ("" if limit is None else f" LIMIT {int(limit)}"),
        last,
    )
    for row in rows:
        yield from _fold_match(match_record(row), rate)
    # a forgotten user's stand-in (bot/forget.py) is rated while the fold runs, so their
    # opponents' ratings come out as before, and keeps no rating
    yield from execute("DELETE FROM ratings WHERE user_id < 0")
    return len(rows)


def _fold_match(record: MatchRecord, rate: Rater) -> Work[None]:
    before = []
    for user_id in record.players:
        row = yield from fetchone(
            f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
            record.guild_id,
            record.game,
            user_id,
        )
        before.append(None if row is None else Rating(*row))
    after = rate(record, before)
    yield from execute(
        "INSERT INTO rated_matches (match_id, ended_seq, rated) VALUES (?, ?, ?)",
        record.id,
        record.ended_seq,
        int(after is not None),
    )
    if after is None:
        return
    yield from execute_many(
        f"INSERT INTO ratings ({RATING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, game, user_id) DO UPDATE SET name = excluded.name,"
        " mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches,"
        " wins = excluded.wins, losses = excluded.losses, updated_at = excluded.updated_at",
        [
            (
                r.guild_id,
                r.game,
                r.user_id,
                r.name,
                r.mu,
                r.sigma,
                r.matches,
                r.wins,
                r.losses,
                r.updated_at,
            )
            for r in after
        ],
    )


def ratings(guild_id: int | None, game: str | None, user_id: int | None) -> Work[list[Rating]]:
    where, params = ["1 = 1"], []  # type: tuple[list[str], list[Any]]
    for column, value in (("guild_id", guild_id), ("game", game), ("user_id", user_id)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    rows = yield from fetch(
        f"SELECT {RATING_COLUMNS} FROM ratings WHERE {' AND '.join(where)}"
        " ORDER BY guild_id, game, user_id",
        *params,
    )
    return [Rating(*row) for row in rows]


# --- reads ----------------------------------------------------------------------------------


def match_count() -> Work[int]:
    return int((yield from fetchvalue("SELECT count(*) FROM matches")))


def schema_version() -> Work[int]:
    return int((yield from fetchvalue("SELECT MAX(version) FROM schema_migrations")) or 0)


def read_match(match_id: int) -> Work[MatchRecord | None]:
    row = yield from fetchone(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = ?", match_id)
    return None if row is None else match_record(row)


def list_matches(
    guild_id: int | None, statuses: Sequence[MatchStatus] | None
) -> Work[list[MatchRecord]]:
    where, params = ["1 = 1"], []  # type: tuple[list[str], list[Any]]
    if guild_id is not None:
        where.append("guild_id = ?")
        params.append(guild_id)
    if statuses is not None:
        where.append(f"status IN ({marks(statuses)})")
        params.extend(statuses)
    rows = yield from fetch(
        f"SELECT {MATCH_COLUMNS} FROM matches WHERE {' AND '.join(where)} ORDER BY id", *params
    )
    return [match_record(row) for row in rows]


def finished_matches(
    dialect: Dialect, guild_id: int, user_id: int | None, offset: int, limit: int
) -> Work[tuple[list[MatchRecord], int]]:
    where = "guild_id = ? AND status = 'finished'"
    params: list[Any] = [guild_id]
    if user_id is not None:
        where += f" AND {dialect.list_has('players')}"
        params.append(user_id)
    total = yield from fetchvalue(f"SELECT count(*) FROM matches WHERE {where}", *params)
    rows = yield from fetch(
        f"SELECT {MATCH_COLUMNS} FROM matches WHERE {where}"
        " ORDER BY ended_seq DESC LIMIT ? OFFSET ?",
        *params,
        limit,
        offset,
    )
    return [match_record(row) for row in rows], int(total)


def thread_of(match_id: int) -> Work[int | None]:
    found = yield from fetchvalue(
        "SELECT thread_id FROM match_threads WHERE match_id = ?", match_id
    )
    return None if found is None else int(found)


def dm_channel(user_id: int) -> Work[int | None]:
    found = yield from fetchvalue("SELECT channel_id FROM dm_channels WHERE user_id = ?", user_id)
    return None if found is None else int(found)


def get_table(table_id: int) -> Work[TableRecord | None]:
    row = yield from fetchone(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = ?", table_id)
    return None if row is None else table_record(row)


def open_tables() -> Work[list[TableRecord]]:
    rows = yield from fetch(
        f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status = 'open' ORDER BY id"
    )
    return [table_record(row) for row in rows]


def table_record(row: Row) -> TableRecord:
    id_, guild, channel, game, opener, seats, players, status, match_id, at = row
    seated = tuple((int(user), str(name)) for user, name in json.loads(players))
    return TableRecord(id_, guild, channel, game, opener, seats, seated, status, match_id, at)


def open_window(match_id: int) -> Work[WindowRecord | None]:
    row = yield from fetchone(
        "SELECT step, seats, deadline, remaining, reminded, prompted FROM windows"
        " WHERE match_id = ? AND status = 'open'",
        match_id,
    )
    if row is None:
        return None
    step, seats, deadline, remaining, reminded, prompted = row
    moves = yield from fetch(  # in arrival order: the order resolve gets them
        "SELECT seat, move FROM moves m WHERE match_id = ? AND step = ? ORDER BY"
        " (SELECT MIN(a.id) FROM attempts a WHERE a.match_id = m.match_id"
        " AND a.step = m.step AND a.seat = m.seat AND a.verdict = 'accepted')",
        match_id,
        step,
    )
    return WindowRecord(
        match_id,
        step,
        tuple(json.loads(seats)),
        deadline,
        remaining,
        bool(reminded),
        {seat: json.loads(move) for seat, move in moves},
        {int(seat): step for seat, step in json.loads(prompted or "{}").items()},
    )


_STEP_SELECT = "SELECT match_id, step, kind, moves, snapshot FROM steps WHERE match_id = ?"


def latest_step(match_id: int) -> Work[StepRecord]:
    row = yield from fetchone(f"{_STEP_SELECT} ORDER BY step DESC LIMIT 1", match_id)
    assert row is not None, f"match {match_id} has no steps"
    return step_record(row)


def read_steps(match_id: int) -> Work[list[StepRecord]]:
    rows = yield from fetch(f"{_STEP_SELECT} ORDER BY step", match_id)
    return [step_record(row) for row in rows]


def attempts(match_id: int) -> Work[list[Attempt]]:
    rows = yield from fetch(
        "SELECT match_id, step, seat, user_id, raw, verdict, reason, move, at FROM attempts"
        " WHERE match_id = ? ORDER BY id",
        match_id,
    )
    return [
        Attempt(m, step, seat, user, raw, verdict, reason, loads(move), at)
        for m, step, seat, user, raw, verdict, reason, move, at in rows
    ]


def match_log(match_id: int) -> Work[list[LogEntry]]:
    rows = yield from fetch(
        "SELECT kind, by_user, data, at FROM match_log WHERE match_id = ? ORDER BY id", match_id
    )
    return [LogEntry(kind, by_user, loads(data), at) for kind, by_user, data, at in rows]


def match_outbox(match_id: int) -> Work[list[OutboxRow]]:
    """Every message of the match in order: those still in the outbox, then those archived
    (read in this order, a message archived between the two reads is found in both, and never
    in neither: the archived copy, settled, is the one kept)."""
    pending = yield from fetch(f"{_OUTBOX_SELECT} WHERE o.match_id = ? ORDER BY o.id", match_id)
    rows = {row.id: row for row in map(outbox_row, pending)}
    match = yield from fetchone(
        "SELECT guild_id, channel_id, players, moderators FROM matches WHERE id = ?", match_id
    )
    chunks_ = yield from fetch(
        "SELECT messages FROM outbox_archive WHERE match_id = ? ORDER BY id", match_id
    )
    for (blob,) in chunks_:
        for message in archive.unpack(blob):
            archived = _archived(match_id, message, match)
            rows[archived.id] = archived
    return sorted(rows.values(), key=lambda row: row.id)


def pending_to_seats() -> Work[list[OutboxMessage]]:
    """Every message still waiting to reach a seat, oldest first."""
    rows = yield from fetch(
        "SELECT match_id, audience, text, payload FROM outbox"
        " WHERE status = 'pending' AND audience LIKE 'seat%' ORDER BY id"
    )
    return [
        OutboxMessage(match_id, audience, text, json.loads(payload))
        for match_id, audience, text, payload in rows
    ]


def pending_messages(match_id: int, audience: str, limit: int) -> Work[list[OutboxRow]]:
    """The oldest pending messages of one (match, audience) queue, in order."""
    rows = yield from fetch(
        f"{_OUTBOX_SELECT} WHERE o.match_id = ? AND o.audience = ? AND o.status = 'pending'"
        " ORDER BY o.id LIMIT ?",
        match_id,
        audience,
        limit,
    )
    return [outbox_row(row) for row in rows]


def due_outbox(
    dialect: Dialect, now: float, limit: int, shards: Shards | None = None
) -> Work[tuple[list[OutboxRow], float | None]]:
    owned = "" if shards is None else f" WHERE {shards.sql('m.guild_id', 'm.practice')}"
    heads = yield from fetch(
        f"SELECT h.*, m.practice FROM ({dialect.outbox_heads}) AS h"
        f" JOIN matches m ON m.id = h.match_id{owned}"
    )
    heads = _one_queue_per_practice(heads)
    due = [
        (not audience.startswith("seat"), id_)
        for id_, next_try, audience, *_ in heads
        if next_try <= now
    ]
    waits = [next_try for _, next_try, *_ in heads if next_try > now]
    ids = [id_ for _, id_ in sorted(due)[:limit]]
    rows: list[Row] = []
    for chunk in chunks(ids):
        rows += yield from fetch(f"{_OUTBOX_SELECT} WHERE o.id IN ({marks(chunk)})", *chunk)
    order = {id_: rank for rank, id_ in enumerate(ids)}
    rows.sort(key=lambda row: order[row[0]])
    due_rows = []
    for head in map(outbox_row, rows):
        if is_held(head.message):  # released: the run it heads goes in one post
            head = dataclasses.replace(head, folded=(yield from _held_run(head)))
        due_rows.append(head)
    return due_rows, min(waits, default=None)


def _held_run(head: OutboxRow) -> Work[tuple[OutboxRow, ...]]:
    """The pending messages after a released held one in its queue, up to and including the
    first one not held (at most ``FOLDED_MAX``: the rest make the next post)."""
    rows = yield from fetch(
        f"{_OUTBOX_SELECT} WHERE o.match_id = ? AND o.audience = ? AND o.status = 'pending'"
        " AND o.id > ? ORDER BY o.id LIMIT ?",
        head.message.match_id,
        head.message.audience,
        head.id,
        FOLDED_MAX,
    )
    run = []
    for row in map(outbox_row, rows):
        run.append(row)
        if not is_held(row.message):
            break
    return tuple(run)


def _one_queue_per_practice(heads: list[Row]) -> list[Row]:
    """A practice's posts and its player's DMs go to the same DM channel: its queues are one,
    in commit order (the head with the lowest id only), so the results of a step always come
    before the next prompt. A head is (id, next_try, audience, match_id, practice)."""
    first: dict[int, int] = {}
    for id_, _, _, match_id, practice in heads:
        if practice:
            first[match_id] = min(id_, first.get(match_id, id_))
    return [head for head in heads if not head[4] or first[head[3]] == head[0]]


# --- rows to records ------------------------------------------------------------------------


def _seat_keys(data: JSON) -> dict[int, Any] | None:
    assert data is None or isinstance(data, dict)
    return None if data is None else {int(seat): value for seat, value in data.items()}


def match_record(row: Row) -> MatchRecord:
    (
        id_,
        game,
        guild,
        channel,
        players,
        names,
        mods,
        config,
        seed,
        window_s,
        status,
        step,
        outcome,
        created_at,
        timers,
        practice,
        ended_at,
        ended_seq,
        pruned_at,
    ) = row
    return MatchRecord(
        id=id_,
        game=game,
        guild_id=guild,
        channel_id=channel,
        players=tuple(json.loads(players)),
        names=tuple(json.loads(names)),
        moderators=tuple(json.loads(mods)),
        config=json.loads(config),
        seed=seed,
        window_s=window_s,
        status=status,
        step=step,
        outcome=loads(outcome),
        created_at=created_at,
        timers=json.loads(timers) if timers is not None else {},
        practice=bool(practice),
        ended_at=ended_at,
        ended_seq=ended_seq,
        pruned_at=pruned_at,
    )


def step_record(row: Row) -> StepRecord:
    match_id, step, kind, moves, snapshot = row
    return StepRecord(match_id, step, kind, _seat_keys(loads(moves)), loads(snapshot))


def _archived(match_id: int, message: list[Any], match: Row | None) -> OutboxRow:
    id_, audience, text, payload, status, tries, next_try, _, created_at, _ = message
    assert match is not None, f"archived messages of match {match_id}, which is gone"
    guild, channel, players, mods = match
    return OutboxRow(
        id=id_,
        message=OutboxMessage(match_id, audience, text, payload),
        status=status,
        tries=tries,
        next_try=next_try,
        guild_id=guild,
        channel_id=channel,
        players=tuple(json.loads(players)),
        moderators=tuple(json.loads(mods)),
        created_at=created_at,
    )


def outbox_row(row: Row) -> OutboxRow:
    (
        id_,
        match_id,
        audience,
        text,
        payload,
        status,
        tries,
        next_try,
        guild,
        channel,
        players,
        mods,
        created_at,
    ) = row
    return OutboxRow(
        id=id_,
        message=OutboxMessage(match_id, audience, text, json.loads(payload)),
        status=status,
        tries=tries,
        next_try=next_try,
        guild_id=guild,
        channel_id=channel,
        players=tuple(json.loads(players)),
        moderators=tuple(json.loads(mods)),
        created_at=created_at,
    )

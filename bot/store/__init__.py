"""The host's durable store: what it keeps, and the small interface a backend implements.

Two backends implement it with the same SQL (``bot.store.common.SqlStore`` over
``bot.store.transactions``): SQLite (``bot.store.sqlite``, the default) and PostgreSQL
(``bot.store.postgres``, a database several bot processes can share); ``bot.database.open_store``
opens the one ``FLORAL_DB`` names. Every write that must be atomic is one call:
``create_match``, ``add_attempt`` and ``apply`` (a ``Change``) each commit one transaction. A
write that fails for a passing reason raises ``WriteFailed`` and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from bot.shards import Shards
from games.protocol import JSON


class Taken(Exception):
    """What a new match claims is gone (``NewMatch.table``: the table is no longer open;
    ``NewMatch.rematch_of``: that match has its rematch, ``match_id``): nothing was written."""

    def __init__(self, match_id: int | None = None) -> None:
        super().__init__("taken" if match_id is None else f"taken by match {match_id}")
        self.match_id = match_id


class WriteFailed(Exception):
    """A write failed for a reason that may pass (the database is locked by another process,
    the disk is full): nothing of it was written, and trying again later may work."""


class NotOwner(WriteFailed):
    """A sharded process's write for a match whose shard it does not lease (any more: another
    process took its lease over, ``bot.store.leases``): nothing was written, and it will not
    be here; the process that leases the shard hosts the match."""


MatchStatus = Literal["setup", "revealed", "running", "paused", "finished", "aborted"]
ACTIVE_STATUSES: tuple[MatchStatus, ...] = ("setup", "revealed", "running", "paused")
StepKind = Literal["start", "resolve", "end", "leave"]
Verdict = Literal["accepted", "refused", "duplicate"]


@dataclass(frozen=True, slots=True)
class NewMatch:
    game: str  # the key the game is loaded by: a registry name or a module path
    guild_id: int
    channel_id: int
    players: tuple[int, ...]  # user ids in seat order
    names: tuple[str, ...]
    moderators: tuple[int, ...]
    config: dict[str, JSON]
    seed: int
    window_s: float | None  # overrides every turn request's timeout_s when set
    # the length of each other timer kind ("reaction": 20.0); "turn" is window_s
    timers: dict[str, float] = field(default_factory=dict)
    practice: bool = False  # against the AI: never rated
    # claims settled in the transaction that inserts the match (``Taken`` if one is gone):
    # a finished match's one rematch (a "rematch" entry in its log names this one), and an open
    # table's last seat (the table is stored full, with these players, and this match)
    rematch_of: int | None = None
    table: int | None = None


TableStatus = Literal["open", "full", "closed"]


@dataclass(frozen=True, slots=True)
class TableRecord:
    """An open table: the players who joined, in order, until its seats are full."""

    id: int
    guild_id: int
    channel_id: int
    game: str
    opener: int
    seats: int
    players: tuple[tuple[int, str], ...]  # (user id, name) in the order they joined
    status: TableStatus
    match_id: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    game: str
    guild_id: int
    channel_id: int
    players: tuple[int, ...]
    names: tuple[str, ...]
    moderators: tuple[int, ...]
    config: dict[str, JSON]
    seed: int
    window_s: float | None
    status: MatchStatus
    step: int  # steps logged after the start snapshot (step 0)
    outcome: JSON
    created_at: float
    timers: dict[str, float] = field(default_factory=dict)  # as NewMatch's ({} in old matches)
    practice: bool = False
    ended_at: float | None = None  # as stored: when it finished or was aborted
    ended_seq: int | None = None  # as stored: the order of the ends (1, 2, ...), for ratings
    # when ``floral-host prune --keep-results`` dropped its log and messages (the outcome stays)
    pruned_at: float | None = None


@dataclass(frozen=True, slots=True)
class WindowRecord:
    """An open window: the requests of ``step`` (the log step its resolution will be)."""

    match_id: int
    step: int
    seats: tuple[int, ...]
    deadline: float  # epoch seconds, UTC
    remaining: float | None  # seconds left, set while the match is paused
    reminded: bool
    moves: dict[int, JSON] = field(default_factory=dict)  # each seat's current valid move
    # seat -> the step of its prompt where older than ``step`` (close rule "each"); {}: none
    prompted: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WindowTiming:
    step: int
    deadline: float
    remaining: float | None
    reminded: bool


# A step keeps the state snapshot after it only at a checkpoint (step 0 and every
# SNAPSHOT_EVERY-th step) and while it is its match's latest step (the host resumes from it): a
# stored match is its move log and a few states, and the others are derived by replaying the
# log from the checkpoint before them (bot/history.py).
SNAPSHOT_EVERY = 32


def keeps_snapshot(step: int) -> bool:
    """Whether ``step`` is a checkpoint, keeping its snapshot once later steps follow it."""
    return step % SNAPSHOT_EVERY == 0


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One entry of the move log with the state snapshot after it (step 0: the start)."""

    match_id: int
    step: int
    kind: StepKind
    moves: dict[int, JSON] | None  # resolve: every asked seat's move, None for a timeout
    snapshot: JSON  # the engine's dump(); None when not kept (see SNAPSHOT_EVERY)


@dataclass(frozen=True, slots=True)
class Attempt:
    match_id: int
    step: int
    seat: int
    user_id: int
    raw: str
    verdict: Verdict
    reason: str
    move: JSON
    at: float


@dataclass(frozen=True, slots=True)
class LogEntry:
    kind: str
    by_user: int | None = None
    data: JSON = None
    at: float = 0.0


HOLD = "hold"
"""The payload key (True) of a message held for its match's next turn post: a mid-turn step's
post and log entry wait for it (status ``held``) and go in the same post (``due_outbox``)."""

MID_TURN = "mid_turn"
"""The payload key (True) of a channel post sent in the middle of a turn (someone decides on it
meanwhile): it takes the match's held channel posts, not the log's held entries, which wait
for the turn's next post (one log digest a turn)."""


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    match_id: int
    audience: str  # "public", "moderators" or "seat<N>"
    text: str
    payload: JSON


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    message: OutboxMessage
    status: Literal["pending", "held", "sent", "failed"]  # held: ``HOLD``
    tries: int
    next_try: float
    # where it goes, from the match
    guild_id: int
    channel_id: int
    players: tuple[int, ...]
    moderators: tuple[int, ...]
    created_at: float = 0.0  # when the change that wrote it was committed
    # a message held for its match's next turn post (``bot.outbox.HOLD``), now released: the
    # messages after it in its queue, up to and including the first one not held, go with it
    # in one post
    folded: tuple[OutboxRow, ...] = ()


@dataclass(frozen=True, slots=True)
class Retry:
    message_id: int
    next_try: float
    error: str


@dataclass(frozen=True, slots=True)
class Change:
    """One atomic change to a match. Guards first: if ``close_window`` or ``guard_window`` names
    a window that is no longer open, nothing at all is written and ``apply`` returns False."""

    match_id: int
    at: float
    close_window: int | None = None  # step of the open window to close
    close_reason: str = ""
    guard_window: int | None = None  # step of a window that must still be open
    new_step: StepRecord | None = None
    open_window: WindowRecord | None = None
    retime: WindowTiming | None = None
    status: MatchStatus | None = None
    outcome: JSON = None
    setup: tuple[dict[str, JSON], JSON] | None = None  # before the start: new config, snapshot
    log: tuple[LogEntry, ...] = ()
    outbox: tuple[OutboxMessage, ...] = ()


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one guild and game, folded from that guild's finished matches."""

    guild_id: int
    game: str
    user_id: int
    name: str
    mu: float
    sigma: float
    matches: int = 0
    wins: int = 0
    losses: int = 0  # matches - wins - losses: matches nobody won
    updated_at: float = 0.0  # when the latest match folded in ended


# A finished match and its seats' ratings before it (None: not rated yet) -> the seats' ratings
# after it, or None when it cannot be rated (it is then folded in as nothing). Pure: the store
# calls it inside the transaction that writes its result.
Rater = Callable[[MatchRecord, Sequence[Rating | None]], Sequence[Rating] | None]


FirstMessages = Sequence[OutboxMessage] | Callable[[int], Sequence[OutboxMessage]]
"""A new match's first messages, or what composes them from its id once it has one."""


class Store(Protocol):
    async def close(self) -> None: ...

    async def create_match(
        self, new: NewMatch, snapshot: JSON, at: float, outbox: FirstMessages
    ) -> int:
        """Insert the match (status setup, step 0 snapshot) and its first messages (or the
        messages a function of its new id composes: a hello names its match); its id. With
        ``new.rematch_of`` or ``new.table``, the same transaction settles that claim, or
        raises ``Taken`` and writes nothing."""

    async def apply(self, change: Change) -> bool: ...

    async def add_attempt(self, attempt: Attempt) -> bool:
        """Log an attempt; an accepted one also becomes the seat's move. False (and nothing
        written) when the window is no longer open. Durable (on disk, surviving a power loss)
        when it returns True: the move may be acknowledged."""

    async def sync(self) -> None:
        """Until every commit made before the call is durable (the delivery worker calls it
        before sending, so no message tells of a change that a power loss could undo)."""

    async def get_match(self, match_id: int) -> MatchRecord | None: ...

    async def match_count(self) -> int:
        """How many matches the database holds, of any status."""
        ...

    async def list_matches(
        self, guild_id: int | None = None, statuses: Sequence[MatchStatus] | None = None
    ) -> list[MatchRecord]: ...

    async def create_table(
        self, guild_id: int, channel_id: int, game: str, opener: int, seats: int, at: float
    ) -> TableRecord: ...

    async def get_table(self, table_id: int) -> TableRecord | None: ...

    async def open_tables(self) -> list[TableRecord]:
        """Every table whose status is still open, oldest first."""

    async def thread_of(self, match_id: int) -> int | None:
        """The thread the match's posts go to (``FLORAL_THREADS``), once it has one; 0 for a
        match whose thread was refused or is gone (its posts stay in its channel)."""

    async def set_thread(self, match_id: int, thread_id: int) -> None: ...

    async def update_table(self, table: TableRecord) -> None:
        """Store the table's players, status and match."""

    async def dm_channel(self, user_id: int) -> int | None:
        """The user's DM channel with the bot, once one was opened and stored."""

    async def set_dm_channel(self, user_id: int, channel_id: int) -> None: ...

    async def forget_dm_channel(self, user_id: int, channel_id: int) -> None:
        """Forget the user's DM channel if it is still ``channel_id`` (Discord lost it)."""

    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, *, offset: int = 0, limit: int = 15
    ) -> tuple[list[MatchRecord], int]:
        """The guild's finished matches (of ``user_id``'s seats when given), the most recently
        ended first, from ``offset``; and how many there are in all."""

    async def fold_ratings(
        self, rate: Rater, *, limit: int | None = 1, rebuild: bool = False
    ) -> int:
        """Fold the next finished matches not folded yet (not practice), in the order they
        ended (``ended_seq``), at most ``limit`` (None: all), into the ratings, in one
        transaction; how many were folded. A match is folded once, whatever runs at the same
        time. With ``rebuild``, the ratings are first cleared, in the same transaction."""

    async def ratings(
        self, guild_id: int | None, game: str | None = None, user_id: int | None = None
    ) -> list[Rating]:
        """The stored ratings (of every guild when ``guild_id`` is None)."""

    async def open_window(self, match_id: int) -> WindowRecord | None: ...

    async def latest_step(self, match_id: int) -> StepRecord:
        """The match's latest step, with its snapshot (always kept: the host resumes from it)."""

    async def steps(self, match_id: int) -> list[StepRecord]:
        """The whole move log in order; a step's snapshot is None where not kept
        (``SNAPSHOT_EVERY``): ``bot.history`` replays it."""

    async def attempts(self, match_id: int) -> list[Attempt]: ...

    async def match_log(self, match_id: int) -> list[LogEntry]: ...

    async def outbox(self, match_id: int) -> list[OutboxRow]:
        """Every message of the match in order, delivered ones included: a backend may keep
        those compressed (SQLite: ``bot.store.archive``), they read back as they were."""

    async def due_outbox(
        self, now: float, limit: int, shards: Shards | None = None
    ) -> tuple[list[OutboxRow], float | None]:
        """The head (oldest pending message) of each (match, audience) queue that is due at
        ``now``, DMs first, then oldest first; and the earliest retry time of the queues not
        due yet (None when there are none). A queue waiting to retry never hides another.
        A message held for the next turn post (payload ``"hold"``) is not due until a message
        of its match's channel or log not held is added; it then comes with the rest of its
        run (``OutboxRow.folded``). ``shards``: only the queues of the matches these shards
        hold (``bot.shards``)."""

    async def pending_to_seats(self) -> list[OutboxMessage]:
        """Every message still waiting to reach a seat, in order (at start: the prompts still
        owed hold their windows' deadlines)."""

    async def pending_messages(self, match_id: int, audience: str, limit: int) -> list[OutboxRow]:
        """The oldest pending messages of one (match, audience) queue, in order, at most
        ``limit`` (a reply takes them: ``bot.outbox.DeliveryWorker.claim``)."""

    async def settle_outbox(
        self, sent: Sequence[int], retries: Sequence[Retry], failed: Sequence[Retry], at: float
    ) -> None: ...

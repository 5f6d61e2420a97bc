"""Messages the host writes (one per audience per step) and the worker that delivers them.

Messages are committed to the outbox in the same transaction as the change that produced them;
``DeliveryWorker`` then sends them in order per (match, audience), retries transient failures with
exponential backoff and hands permanent failures to a callback (the host reports them). A prompt
that opens a window and is sent later than ``late_allowance_s`` after its commit (a retry
backoff, a 429 wait, a backlog) goes to another callback, so the host can give the time back.

One post a game turn: a mid-turn step's channel post and log entry are held (``HOLD``) until
the turn's next post, and go in it (``folded_delivery``; the log's as a ``digest``); a mid-turn
post someone decides on goes at once, and the log entry still waits (``MID_TURN``). A seat's
messages may go in the reply to its answer instead (``reserve``, ``claim``, ``Handover``):
the worker holds them back for that reply a moment, and sends them if it does not take them.

A send held up inside the transport (discord.py waiting out a channel's rate limit) holds up
only its own queue (``PASS_WAIT_S``). A channel other matches post to as well (the moderators'
log channel) gets at most 4 posts per 5.5 s (``ChannelPace``: Discord takes 5 per 5 s); the
log entries due meanwhile, of several matches and all of one match's, go in one post.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import time
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.shards import Shards
from bot.store import HOLD, MID_TURN, OutboxMessage, OutboxRow, Retry, Store, WriteFailed
from bot.transport import (
    POST_LIMIT,
    Delivery,
    PermanentError,
    TransientError,
    Transport,
    audience_key,
    event_to_json,
    log_text,
    parse_audience,
)
from games.protocol import JSON, MODERATORS, PUBLIC, Event, Request, to_seat

log = logging.getLogger(__name__)


# --- composing ----------------------------------------------------------------------------


def seconds_text(seconds: float) -> str:
    seconds = max(0.0, seconds)
    return f"{seconds:.1f} s" if seconds < 10 else f"{round(seconds)} s"


def clock_text(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S UTC")


CHOICES_TEXT_LIMIT = 600  # a long list is left to the buttons and menus: the deadline line stays
CHOICES_MARK = "Choices: "  # the line a console shows the choices on (Discord has buttons)
DEADLINE_MARK = "⏳ "  # the last line of every message that carries a prompt: its deadline
# a prompt this late says why its deadline differs from the others'; a shorter wait (in a
# practice the first prompt waits behind the hello and the start post in the same DM channel,
# each a Discord round trip) moves the deadline all the same, without a word
LATE_TOLD_S = 5.0


def prompt_text(request: Request, deadline: float, now: float) -> str:
    """A prompt as the console shows it: the game's words, the choices as a typed answer names
    them, and the deadline line, always last (a richer transport renders the last two its own
    way from the payload: ``deadline_line``)."""
    choices = choices_text(request)
    lines = [request.prompt]
    if choices:
        lines.append(f"{CHOICES_MARK}{choices}")
    lines.append(deadline_line({"deadline": deadline, "default": request.default}, now))
    return "\n".join(lines)


def deadline_line(request: Mapping[str, JSON], now: float, *, countdown: bool = False) -> str:
    """A prompt's one deadline line, from its payload (``request_to_json``): the time left and
    the clock time on a console, or with ``countdown`` a live Discord timestamp; and what
    happens if the seat lets it pass. A prompt sent late says by how much its deadline moved."""
    deadline = float(request["deadline"])
    when = (
        f"<t:{int(deadline)}:R>"
        if countdown
        else f"within {seconds_text(deadline - now)} (until {clock_text(deadline)})"
    )
    late, moved = request.get("late_s"), request.get("moved_s")
    if isinstance(late, int | float) and isinstance(moved, int | float):
        head = (
            f"This prompt reached you {seconds_text(late)} late, so your deadline moved"
            f" by {seconds_text(moved)}: answer {when}."
        )
    else:
        head = f"Answer {when}."
    return f"{DEADLINE_MARK}{head} If you don't: {request['default']}"


def late_delivery(delivery: Delivery, late_s: float, moved_s: float, now: float) -> Delivery:
    """A window's prompt sent ``late_s`` after its commit, with its deadline moved by
    ``moved_s`` (what the host gives back, capped): the payload's deadline (Discord's
    countdown) and the text's deadline line say the new time, and why when the delay is long
    enough to matter (``LATE_TOLD_S``)."""
    request = dict(delivery.payload["request"])
    request["deadline"] = float(request["deadline"]) + moved_s
    if late_s >= LATE_TOLD_S:
        request["late_s"], request["moved_s"] = late_s, moved_s
    lines = delivery.text.split("\n")
    if lines[-1].startswith(DEADLINE_MARK):
        lines[-1] = deadline_line(request, now)
    payload = {**delivery.payload, "request": request}
    return dataclasses.replace(delivery, text="\n".join(lines), payload=payload)


def choices_text(request: Request) -> str:
    """The choices as a typed answer names them, as many as fit ``CHOICES_TEXT_LIMIT``."""
    shown: list[str] = []
    length = 0
    for number, choice in enumerate(request.choices):
        label = choice.label
        text = choice.value if label in ("", choice.value) else f"{choice.value} ({label})"
        length += len(text) + 2
        if length > CHOICES_TEXT_LIMIT:
            return ", ".join([*shown, f"… and {len(request.choices) - number} more (see the menu)"])
        shown.append(text)
    return ", ".join(shown)


@dataclass(frozen=True, slots=True)
class Prompt:
    """A request as sent to its seat: the payload form and the text."""

    payload: dict[str, JSON]
    text: str


def step_messages(
    match_id: int,
    seats: int,
    step: int,
    events: Sequence[Event],
    prompts: Mapping[int, Prompt],
    kind: str = "turn",
    header: str = "",
    seat_headers: Mapping[int, str] | None = None,
    over: bool = False,
    card: Sequence[Mapping[str, JSON]] | None = None,
    hold: bool = False,
    mid_turn: bool = False,
) -> list[OutboxMessage]:
    """At most one message per audience: the step's events joined, and for a seat the next
    prompt in the same message as its results. ``header`` opens the public message,
    ``seat_headers`` the seats'; ``over`` marks the public one as the match's end post;
    ``card`` (a seat's ``{"name", "line", "won"}`` each) gives it the seats' card. With
    ``hold`` (a step in the middle of a turn that nobody decides on meanwhile), the public and
    moderators' messages wait for the match's next turn post and go in it (``HOLD``); with
    ``mid_turn`` alone, the public one goes now (``MID_TURN``) and the moderators' waits for
    the turn's end, so the log gets a digest a turn; the seats' never wait."""
    seat_headers = seat_headers or {}
    by_audience: dict[str, list[Event]] = {}
    for event in events:
        by_audience.setdefault(audience_key(event.audience), []).append(event)
    messages = []
    for audience in [PUBLIC, *map(to_seat, range(seats)), MODERATORS]:
        key = audience_key(audience)
        texts = [e.text for e in by_audience.get(key, [])]
        if audience == PUBLIC and header:
            texts.insert(0, header)
        elif audience.seat is not None and seat_headers.get(audience.seat):
            texts.insert(0, seat_headers[audience.seat])
        prompt = prompts.get(audience.seat) if audience.seat is not None else None
        if prompt is not None:
            texts.append(prompt.text)
        if not texts:
            continue
        payload: dict[str, JSON] = {
            "kind": kind,
            "step": step,
            "events": [event_to_json(e) for e in by_audience.get(key, [])],
        }
        if prompt is not None:
            payload["request"] = prompt.payload
        if over and audience == PUBLIC:
            payload["over"] = True  # the end post (it gets a Rematch button on Discord)
        if card is not None and audience == PUBLIC:
            payload["seats"] = [dict(seat) for seat in card]
        if audience == PUBLIC and prompts:  # the window it opens closes then (its card shows it)
            payload["deadline"] = min(float(p.payload["deadline"]) for p in prompts.values())
        if (hold and audience.seat is None) or (mid_turn and audience == MODERATORS):
            payload[HOLD] = True
        elif mid_turn and audience == PUBLIC:
            payload[MID_TURN] = True
        messages.append(OutboxMessage(match_id, key, "\n".join(texts), payload))
    return messages


def notice(
    match_id: int,
    audience: str,
    text: str,
    step: int,
    kind: str = "notice",
    prompt: Prompt | None = None,
    deadline: float | None = None,
) -> OutboxMessage:
    """A message of its own; ``deadline``: the window's, past which it is not worth sending
    (a reminder held up by a backlog)."""
    payload: dict[str, JSON] = {"kind": kind, "step": step, "events": []}
    if deadline is not None:
        payload["deadline"] = deadline
    if prompt is not None:
        payload["request"] = prompt.payload
        text = f"{text}\n{prompt.text}"
    return OutboxMessage(match_id, audience, text, payload)


# --- delivering ---------------------------------------------------------------------------

PermanentHandler = Callable[[OutboxRow, str], Awaitable[None]]
PromptHandler = Callable[[OutboxRow, "Late | None"], None]
"""Told of each window's prompt as soon as it is sent (with how late, when it was late) or has
failed for good (None): a seat's clock runs from what it received, recorded or not yet."""

PROMPT_RETRY_MAX_S = 2.0  # the longest wait between two tries of a window's prompt

# the payload kinds whose request opens a window, or opens it again after downtime (a reminder
# or a re-prompt after a pause repeats one the seat had)
WINDOW_OPENING_KINDS = ("start", "turn", "reopened")
REOPENED = "reopened"


def is_window_prompt(row: OutboxRow) -> bool:
    payload = row.message.payload
    return (
        isinstance(payload, dict)
        and payload.get("kind") in WINDOW_OPENING_KINDS
        and isinstance(payload.get("request"), dict)
    )


def is_reopening(row: OutboxRow) -> bool:
    """A prompt of a window open again after downtime: its grace counts from its delivery,
    however late (no cap)."""
    payload = row.message.payload
    return isinstance(payload, dict) and payload.get("kind") == REOPENED


def is_stale_reminder(row: OutboxRow, now: float) -> bool:
    payload = row.message.payload
    if not isinstance(payload, dict) or payload.get("kind") != "reminder":
        return False
    deadline = payload.get("deadline")
    return isinstance(deadline, int | float) and deadline <= now


@dataclass(frozen=True, slots=True)
class Late:
    """A window's prompt that reached its seat ``delay_s`` after its commit; its text already
    showed the deadline moved by ``shown_s`` (0: sent on time, then held up inside the send)."""

    row: OutboxRow
    delay_s: float
    shown_s: float


SharedChannel = Callable[[Delivery], Hashable | None]
"""The channel a delivery posts to when other matches post there too; None: one of its own."""

# Discord takes 5 posts per 5 s in one channel, but discord.py holds the send that takes the last
# of them until the window has passed (and the whole pass with it): 4, and half a second more
# for the time a post takes to reach Discord
CHANNEL_POSTS, CHANNEL_PER_S = 4, 5.5
QUEUED_ENTRIES_MAX = 16  # a match's log entries one post takes at most


class ChannelPace:
    """The posts made in each shared channel lately, so that no pass sends more than Discord
    takes there: past its limit discord.py waits inside the send for the window to pass, and
    the whole pass with it (every match's prompts).

    A post counts from when its send began (``take``), and its window from when the send ended
    (``landed``): a send may wait inside the transport (the request budget serves prompts
    first) and reach Discord at any moment in between, so only its end is sure to be no earlier
    than its arrival. Counted from its start, posts held up and then one sent at once could
    arrive closer together than the pace."""

    def __init__(self, posts: int = CHANNEL_POSTS, per_s: float = CHANNEL_PER_S) -> None:
        self.posts, self.per_s = posts, per_s
        self._posts: dict[Hashable, list[_Counted]] = {}

    def free(self, channel: Hashable, now: float) -> int:
        """How many posts the channel takes now."""
        counted = self._posts.get(channel)
        if counted is None:
            return self.posts
        counted[:] = [post for post in counted if post.ended > now - self.per_s]
        if not counted:
            del self._posts[channel]  # (bounded: only channels posted to lately are kept)
        return self.posts - len(counted)

    def take(self, channel: Hashable) -> _Counted:
        """A post begins: counted until ``landed`` is called on what this returns, and after."""
        post = _Counted()
        self._posts.setdefault(channel, []).append(post)
        return post

    def next_free(self, channel: Hashable) -> float | None:
        """When the channel takes a post again (it takes none now); None while that waits for
        a post still being sent (its send's end wakes the worker)."""
        ends = sorted(post.ended for post in self._posts[channel])
        end = ends[len(ends) - self.posts]
        return None if end == math.inf else end + self.per_s

    def forget_idle(self, now: float) -> None:
        for channel in list(self._posts):
            self.free(channel, now)


@dataclass(slots=True)
class _Counted:
    """A post of a paced channel: when its send ended (``landed``); never, while it is sent."""

    ended: float = math.inf

    def landed(self, now: float) -> None:
        self.ended = now


@dataclass(frozen=True, slots=True)
class _Post:
    """A row to send, and other matches' log entries that go in the same post."""

    row: OutboxRow
    also: tuple[OutboxRow, ...] = ()
    channel: Hashable | None = None  # the shared channel it goes to

    @property
    def rows(self) -> tuple[OutboxRow, ...]:
        return (self.row, *self.also)


@dataclass
class Handover:
    """A seat's pending messages, taken from the outbox to go in the reply to its answer (a
    button's interaction answer, which Discord does not count against the bot's requests, or
    the reply to a typed answer): ``done(True)`` once the reply is sent, ``done(False)`` if it
    could not be (the outbox sends them)."""

    worker: DeliveryWorker
    rows: list[OutboxRow]
    deliveries: list[Delivery]
    shown: list[float]  # how far each one's text moved its deadline (a late prompt)

    async def done(self, delivered: bool) -> None:
        await self.worker._handed(self, delivered)


@dataclass
class _PassResult:
    sent: list[int] = field(default_factory=list)
    retries: list[Retry] = field(default_factory=list)
    failed: list[tuple[OutboxRow, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.sent or self.retries or self.failed)

    def ids(self) -> set[int]:
        return {*self.sent, *(r.message_id for r in self.retries), *(r.id for r, _ in self.failed)}

    def absorb(self, other: _PassResult) -> None:
        self.sent += other.sent
        self.retries += other.retries
        self.failed += other.failed


# when none of a pass's sends has ended for this long, those left no longer hold up the pass:
# the others' next messages go on (discord.py waits inside a send for a channel's rate limit,
# up to 5 s for one DM channel)
PASS_WAIT_S = 1.0


class DeliveryWorker:
    """Sends the outbox through a transport, in order per (match, audience)."""

    def __init__(
        self,
        store: Store,
        transport: Transport,
        on_permanent: PermanentHandler,
        *,
        on_prompt: PromptHandler | None = None,
        late_allowance_s: float = 2.0,
        late_cap_s: float = 30.0,
        clock: Callable[[], float] = time.time,
        retry_base_s: float = 1.0,
        retry_max_s: float = 300.0,
        max_tries: int = 10,
        batch: int = 500,
        shards: Shards | None = None,
        shared_channel: SharedChannel | None = None,
        pace: ChannelPace | None = None,
    ) -> None:
        """``shared_channel``: the channel a delivery goes to when other matches post there too
        (a server's log channel); with it, each such channel gets at most ``pace``'s posts."""
        self._store = store
        self._transport = transport
        self._on_permanent = on_permanent
        self._on_prompt = on_prompt
        self._late_allowance_s = late_allowance_s
        self._late_cap_s = late_cap_s
        self._clock = clock
        self._retry_base_s = retry_base_s
        self._retry_max_s = retry_max_s
        self._max_tries = max_tries
        self._batch = batch
        self._shards = shards  # a sharded process sends only its own matches' messages
        self._shared_channel = shared_channel
        self._pace = pace or ChannelPace()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sends: set[asyncio.Task[None]] = set()  # sends under way (past their pass too)
        self._unsettled = _PassResult()  # sent, but not recorded yet
        self._settling = _PassResult()  # being recorded
        self.sent = 0
        # replies (``reserve``, ``claim``): a seat's queue held for the reply to its answer,
        # until then; the messages handed to a reply; those being sent (or read to be)
        self._reserved: dict[tuple[int, str], float] = {}
        self._claimed: set[int] = set()
        self._sending: set[int] = set()
        # messages a reply delivered -> the pass under way then (whose read may predate it)
        self._replied: dict[int, int] = {}
        self._passes = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="outbox-delivery")

    async def stop(self) -> None:
        tasks = [*([self._task] if self._task is not None else []), *self._sends]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._task = None

    def wake(self) -> None:
        """New messages were committed."""
        self._idle.clear()
        self._wake.set()

    async def wait_idle(self) -> None:
        """Until nothing is pending (messages waiting for a retry count as pending)."""
        await self._idle.wait()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                delay = await self._pass()
            except WriteFailed as error:  # recorded on the next pass, before sending more
                log.warning("outbox delivery could not be recorded: %s", error)
                delay = self._retry_base_s
            except Exception:
                log.exception("outbox delivery pass failed")
                delay = self._retry_base_s
            if delay == 0:
                continue
            if delay is None and not self._wake.is_set() and not self._sends:
                self._idle.set()  # (a wake during the pass: again; a send's end wakes it)
            # asyncio.timeout, not wait_for: in 3.11 wait_for can swallow the cancellation of
            # stop() when a wake() lands at the same moment, and stop() then waits forever
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()

    async def _pass(self) -> float | None:
        """Send the head message of every due queue; 0 to go again at once, else seconds to
        the next retry, or None when nothing is pending (but sends still under way).

        One message per (match, audience) queue at a time keeps each queue in order, and a
        queue waiting to retry (a log channel answering 5xx) or inside a long send (a channel's
        rate limit) never holds up the others: the pass waits for its sends while they keep
        ending; those still under way when none has ended for ``PASS_WAIT_S`` go on without
        it, recorded by a later pass."""
        await self._settle()  # sends recorded before the queues are read again
        room = self._batch - len(self._sends)
        if room <= 0:
            return None  # (a send's end wakes the worker)
        self._passes += 1
        now = self._clock()
        rows, next_try = await self._store.due_outbox(now, self._batch, self._shards)
        busy = self._sending | self._unrecorded()  # (sent or under way, not recorded yet)
        rows = [row for row in rows if row.id not in busy][:room]
        rows, held_until = self._not_for_replies(rows, self._clock(), self._passes)
        reading = {row.id for row in rows}
        self._sending |= reading  # a reply may no longer take them
        try:
            if rows:  # what the messages tell is on disk before anyone reads it
                await self._store.sync()
            posts, paced_until = await self._paced(rows, self._clock())
        finally:
            self._sending -= reading
        for until in (held_until, paced_until):
            if until is not None:
                next_try = until if next_try is None else min(next_try, until)
        if not posts:
            return None if next_try is None else max(0.001, next_try - now)
        under_way = {self._start_send(post) for post in posts}
        while under_way:  # (sends paced to the bot's budget end one after another: all)
            ended, under_way = await asyncio.wait(under_way, timeout=PASS_WAIT_S)
            if not ended:
                break  # held up inside the transport: each holds up only its own queue
        await self._settle()
        return 0

    def _start_send(self, post: _Post) -> asyncio.Task[None]:
        """The post's send, under way until it ends (then recorded by the next pass)."""
        ids = {row.id for row in post.rows}
        self._sending |= ids
        task = asyncio.create_task(self._send_recorded(post, ids))
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)
        return task

    async def _send_recorded(self, post: _Post, ids: set[int]) -> None:
        result = _PassResult()
        try:
            await self._send(post, result)
        finally:
            self._unsettled.absorb(result)
            self.sent += len(result.sent)
            self._sending -= ids
            self.wake()

    # --- replies: a seat's next messages in the reply to its answer -------------------------

    def reserve(self, match_id: int, audience: str, seconds: float) -> None:
        """Hold the queue's messages for the reply to the answer just made (at most
        ``seconds``): ``claim`` takes them, else they are sent when it ends (``release``)."""
        self._reserved[match_id, audience] = self._clock() + seconds

    def release(self, match_id: int, audience: str) -> None:
        if self._reserved.pop((match_id, audience), None) is not None:
            self.wake()

    async def claim(self, match_id: int, audience: str, limit: int = 4) -> Handover | None:
        """The queue's pending messages, taken from delivery for the caller to send in its
        reply (``Handover.done``); None when there are none, or one is being sent."""
        rows = await self._store.pending_messages(match_id, audience, limit)
        rows = [row for row in rows if row.id not in self._unrecorded()]
        taken = {row.id for row in rows}
        if not rows or taken & (self._sending | self._claimed):
            self.release(match_id, audience)
            return None
        self._claimed |= taken
        self._reserved.pop((match_id, audience), None)
        await self._store.sync()  # what they tell is on disk before the player reads it
        now = self._clock()
        deliveries, shown = zip(*(self._delivery(row, now) for row in rows), strict=True)
        return Handover(self, rows, list(deliveries), list(shown))

    async def _handed(self, handover: Handover, delivered: bool) -> None:
        """A reply's messages, delivered in it (recorded as sent: a prompt's clock runs from
        now) or not (the queue sends them)."""
        rows = handover.rows
        if not delivered:
            self._claimed -= {row.id for row in rows}
            self.wake()
            return
        await self._store.settle_outbox([row.id for row in rows], [], [], self._clock())
        self._replied.update((row.id, self._passes) for row in rows)
        self._claimed -= {row.id for row in rows}
        self.sent += len(rows)
        for row, shown in zip(rows, handover.shown, strict=True):
            self._report_prompt(row, shown)
        self.wake()  # a pass meanwhile skipped the queue its head was with the reply

    def _unrecorded(self) -> set[int]:
        """The messages whose send ended (sent, or to be tried again) and is not recorded."""
        return self._unsettled.ids() | self._settling.ids()

    def _not_for_replies(
        self, rows: list[OutboxRow], now: float, this_pass: int
    ) -> tuple[list[OutboxRow], float | None]:
        """The rows to send now: not those handed to a reply (nor those a reply delivered
        while this pass read the outbox), nor a reserved queue's (until the reservation ends:
        the earliest end, when one holds a row back)."""
        for key, until in list(self._reserved.items()):
            if until <= now:
                del self._reserved[key]
        replied = self._replied
        rows = [row for row in rows if row.id not in replied]
        self._replied = {id_: at for id_, at in replied.items() if at >= this_pass}
        held = [
            self._reserved[key]
            for row in rows
            if (key := (row.message.match_id, row.message.audience)) in self._reserved
        ]
        kept = [
            row
            for row in rows
            if row.id not in self._claimed
            and (row.message.match_id, row.message.audience) not in self._reserved
        ]
        return kept, min(held, default=None)

    async def _paced(self, rows: list[OutboxRow], now: float) -> tuple[list[_Post], float | None]:
        """The posts to send now: a shared channel's (``shared_channel``) as many as it takes
        (the others wait: the earliest time one may go), the log entries due meanwhile (of
        several matches, and all of a match's) together in one post where they fit."""
        if self._shared_channel is None:
            return [_Post(row) for row in rows], None
        self._pace.forget_idle(now)
        posts: list[_Post] = []
        shared: dict[Hashable, list[OutboxRow]] = {}
        for row in rows:
            channel = self._shared_channel(delivery_of(row))
            if channel is None:
                posts.append(_Post(row))
            else:
                shared.setdefault(channel, []).append(row)
        waits = []
        for channel, queued in shared.items():
            free = self._pace.free(channel, now)
            if not free:  # (with some sent, the next pass comes at once and sees the rest)
                if (free_at := self._pace.next_free(channel)) is not None:
                    waits.append(free_at)
                continue
            groups = [[row, *await self._queued_after(row)] for row in queued]
            posts += self._merged(groups, channel, now)[:free]  # each counted when it is sent
        return posts, min(waits, default=None)

    async def _queued_after(self, head: OutboxRow) -> list[OutboxRow]:
        """The log entries waiting behind a log queue's head (and the run folded into it)."""
        if head.message.audience != "moderators":
            return []
        pending = await self._store.pending_messages(
            head.message.match_id, head.message.audience, QUEUED_ENTRIES_MAX
        )
        last = max(row.id for row in (head, *head.folded))
        return held_runs([row for row in pending if row.id > last])

    def _merged(self, groups: list[list[OutboxRow]], channel: Hashable, now: float) -> list[_Post]:
        """The groups as posts: the moderators' log entries together while their text fits
        one Discord message (``log_text``: the entries' lines joined), a queue's entries in
        one post (those that do not fit wait: two posts of a pass may arrive in either
        order); any other row a post of its own."""
        posts: list[_Post] = []
        entries: list[OutboxRow] = []
        length = 0
        for head, *behind in groups:
            if head.message.audience != "moderators":
                posts.append(_Post(head, channel=channel))
                continue
            for row in (head, *behind):
                size = len(log_text(self._delivery(row, now)[0]))
                if entries and length + 1 + size > POST_LIMIT:
                    posts.append(_Post(entries[0], tuple(entries[1:]), channel))
                    entries, length = [], 0
                    if row is not head:
                        break  # its queue's head went in the post before: the rest wait
                length += size + bool(entries)
                entries.append(row)
        if entries:
            posts.append(_Post(entries[0], tuple(entries[1:]), channel))
        return posts

    async def _settle(self) -> None:
        """Record the sends that ended (WriteFailed keeps them for the next try)."""
        if not self._unsettled:
            return
        result = self._settling = self._unsettled
        self._unsettled = _PassResult()  # (sends ending meanwhile: the next time)
        try:
            await self._store.settle_outbox(
                result.sent,
                result.retries,
                [Retry(row.id, 0.0, error) for row, error in result.failed],
                self._clock(),
            )
        except BaseException:
            result.absorb(self._unsettled)
            self._unsettled = result
            raise
        finally:
            self._settling = _PassResult()
        for row, error in result.failed:
            await self._on_permanent(row, error)

    def _delivery(self, row: OutboxRow, now: float) -> tuple[Delivery, float]:
        """The row as sent ``now``: a window's prompt this late shows its moved deadline (the
        seat's time counts from now); and how much it moved."""
        delay = now - row.created_at
        delivery = folded_delivery(row) if is_held(row) else delivery_of(row)
        if delay > self._late_allowance_s and is_window_prompt(row):
            shown = delay if is_reopening(row) else min(delay, self._late_cap_s)
            return late_delivery(delivery, delay, shown, now), shown
        return delivery, 0.0

    def _report_prompt(self, row: OutboxRow, shown: float, posted_at: float | None = None) -> None:
        """A window's prompt was delivered now (``shown``: the move its text showed)."""
        if is_window_prompt(row) and self._on_prompt is not None:
            # a 429 wait inside the send counts; a resend Discord dropped (its nonce: posted
            # before a crash) counts from the first post, trusted between commit and now
            sent_at = self._clock()
            if posted_at is not None and row.created_at <= posted_at < sent_at:
                sent_at = posted_at
            sent_after = sent_at - row.created_at
            late = sent_after > self._late_allowance_s
            self._on_prompt(row, Late(row, sent_after, shown) if late else None)

    async def _send(self, post: _Post, result: _PassResult) -> None:
        row, now = post.row, self._clock()
        if is_stale_reminder(row, now):  # held up past its deadline: it would only mislead
            result.sent.append(row.id)
            return
        delivery, shown = self._delivery(row, now)
        if post.also:
            also = tuple(self._delivery(other, now)[0] for other in post.also)
            delivery = dataclasses.replace(delivery, also=also)
        counted = None if post.channel is None else self._pace.take(post.channel)
        try:
            posted_at = await self._transport.send(delivery)
        except PermanentError as error:
            log.warning("message %d to %s failed for good: %s", row.id, row.message.audience, error)
            for each in post.rows:
                self._fail(each, str(error), result)
                result.failed += [(folded, str(error)) for folded in each.folded]
        except Exception as error:  # a transport bug is retried like a transient failure
            if not isinstance(error, TransientError):
                log.exception("transport raised an unexpected error")
            for each in post.rows:
                self._retry(each, error, result)
        else:
            result.sent += [sent.id for each in post.rows for sent in (each, *each.folded)]
            self._report_prompt(row, shown, posted_at)
        finally:  # (a failed send may have posted some of its parts)
            if counted is not None:
                counted.landed(self._clock())

    def _retry(self, row: OutboxRow, error: Exception, result: _PassResult) -> None:
        if row.tries + 1 >= self._max_tries:
            self._fail(row, f"gave up after {row.tries + 1} tries: {error}", result)
        else:
            retry_at = self._clock() + self._backoff(row, error)
            result.retries.append(Retry(row.id, retry_at, str(error)))

    def _fail(self, row: OutboxRow, error: str, result: _PassResult) -> None:
        result.failed.append((row, error))
        if is_window_prompt(row) and self._on_prompt is not None:
            self._on_prompt(row, None)  # never to be delivered: its seat answers with /submit

    def _backoff(self, row: OutboxRow, error: Exception) -> float:
        retry_after = error.retry_after if isinstance(error, TransientError) else None
        if retry_after is not None:
            return retry_after
        # a prompt's seat is waiting on a clock: try it again soon, however often it failed
        longest = PROMPT_RETRY_MAX_S if is_window_prompt(row) else self._retry_max_s
        return float(min(longest, self._retry_base_s * 2**row.tries))


def is_held(row: OutboxRow) -> bool:
    """A message that was held for its match's next turn post (and is now released)."""
    payload = row.message.payload
    return isinstance(payload, dict) and payload.get(HOLD) is True


def held_runs(rows: Sequence[OutboxRow]) -> list[OutboxRow]:
    """A queue's pending rows as the worker sends them: a released held row heads the run
    after it, up to and including the first row not held (``OutboxRow.folded``: one entry, a
    digest); a run the rows end before it ends is left for later."""
    heads: list[OutboxRow] = []
    rest = iter(rows)
    for row in rest:
        if not is_held(row):
            heads.append(row)
            continue
        run = []
        for folded in rest:
            run.append(folded)
            if not is_held(folded):
                break
        else:
            return heads  # (the run goes on past the rows read)
        heads.append(dataclasses.replace(row, folded=tuple(run)))
    return heads


def folded_delivery(head: OutboxRow) -> Delivery:
    """A released held message and the run after it (``OutboxRow.folded``) as one post: the
    texts and events in order, the last one's card, deadline and end mark. A log channel's
    run is a digest: a message whose every event kind a later one repeats (a newer state of
    the same hidden things) is left out."""
    rows = [head, *head.folded]
    if head.message.audience == "moderators":
        rows = digest(rows)
    last = rows[-1].message.payload
    payload = {key: value for key, value in last.items() if key != HOLD}
    payload["events"] = [event for row in rows for event in _events(row)]
    text = "\n".join(row.message.text for row in rows)
    return dataclasses.replace(delivery_of(head), text=text, payload=payload)


def digest(rows: Sequence[OutboxRow]) -> list[OutboxRow]:
    """The rows whose events are not all repeated, by kind, in a later row."""
    kept: list[OutboxRow] = []
    later: set[str] = set()
    for row in reversed(rows):
        kinds = {str(event.get("kind")) for event in _events(row)}
        if not kinds or not kinds <= later or not kept:
            kept.append(row)
        later |= kinds
    return kept[::-1]


def _events(row: OutboxRow) -> list[dict[str, JSON]]:
    payload = row.message.payload
    events = payload.get("events") if isinstance(payload, dict) else None
    return (
        [event for event in events if isinstance(event, dict)] if isinstance(events, list) else []
    )


def delivery_of(row: OutboxRow) -> Delivery:
    audience = parse_audience(row.message.audience)
    user_id = row.players[audience.seat] if audience.seat is not None else None
    return Delivery(
        message_id=row.id,
        match_id=row.message.match_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        audience=audience,
        user_id=user_id,
        # a moderator who plays in the match gets none of the moderators' messages (its secrets)
        moderator_ids=tuple(m for m in row.moderators if m not in row.players),
        text=row.message.text,
        payload=row.message.payload,
    )

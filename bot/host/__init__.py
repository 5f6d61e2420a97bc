"""The match host: lifecycle, windows and deadlines, submissions, moderator operations.

Game-agnostic: it drives any engine through ``games.protocol.Game``. The database is the source
of truth; the host keeps a cache of the active matches (state object and open window) and
changes it only after the store has committed the change. One lock per match orders the
operations on it; the store's conditional updates settle any race that remains (a deadline and a
last-second submission, or two processes), so a turn never resolves twice.

APScheduler is only the in-memory timer: one date job per open window (``deadline:<match>``) and
one for its reminder (``remind:<match>``), re-created from the database on start.

Nothing may strand a match. A write that fails for a passing reason (``WriteFailed``: the
database locked by another process, a full disk) is retried with backoff where the host must
make it (a resolution, a reopening, a report), and a periodic sweep closes any window left open
past its deadline. A submission that cannot be saved is refused, never acknowledged. A deadline
met much later than it fell (the process was stopped, the event loop stalled, the VM paused) is
treated like downtime: the window reopens for the grace period and the players are told.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

from bot.games import load_game_info
from bot.host.timers import Clock, SchedulerTimers, Timers
from bot.outbox import DeliveryWorker, Prompt, notice, prompt_text, seconds_text, step_messages
from bot.store import (
    ACTIVE_STATUSES,
    Attempt,
    Change,
    LogEntry,
    MatchRecord,
    MatchStatus,
    NewMatch,
    OutboxMessage,
    OutboxRow,
    StepKind,
    StepRecord,
    Store,
    Verdict,
    WindowRecord,
    WindowTiming,
    WriteFailed,
)
from bot.transport import Transport, parse_audience, request_to_json
from games.moves import WINDOW_CLOSED, judge
from games.protocol import JSON, PUBLIC, Event, Game, Move, Request, Setup

log = logging.getLogger(__name__)

GameLoader = Callable[[str], Game[Any]]


class HostError(Exception):
    """An operation that cannot be done now; the message tells the user why."""


class NotSaved(HostError):
    """The store could not write the change (locked, disk full): nothing changed; try again."""

    def __init__(self) -> None:
        super().__init__("That could not be saved just now (storage problem); try again shortly.")


@dataclass(frozen=True, slots=True)
class SubmitResult:
    accepted: bool
    text: str  # the engine's summary of the move, or the reason for the refusal
    match_id: int
    seat: int | None = None
    step: int | None = None
    occasion: str = ""  # what an accepted answer is for (the request's occasion)


@dataclass(frozen=True, slots=True)
class WindowStatus:
    step: int
    seats: tuple[int, ...]
    answered: tuple[int, ...]
    deadline: float
    seconds_left: float
    paused: bool


@dataclass(frozen=True, slots=True)
class MatchStatusView:
    match: MatchRecord
    title: str
    public_view: JSON
    public_text: str  # the game's own rendering of the public view
    window: WindowStatus | None


@dataclass(frozen=True, slots=True)
class OpenPrompt:
    match_id: int
    step: int
    request: Request
    deadline: float
    answered: bool


@dataclass
class HostStats:
    """Counters since this host started (simulate's summary, the benchmark)."""

    turns: int = 0
    timeouts: int = 0
    submissions: int = 0
    refused: int = 0
    reopened: int = 0
    late_ms: list[float] | None = None  # deadline -> default applied, when recording


@dataclass
class _Window:
    step: int
    requests: dict[int, Request]
    deadline: float
    remaining: float | None = None  # while paused
    reminded: bool = False
    moves: dict[int, Move] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Every seat has a move and none may still revise it: close without waiting."""
        return len(self.moves) == len(self.requests) and not any(
            request.revisable for request in self.requests.values()
        )

    def missing(self) -> list[int]:
        return [seat for seat in self.requests if seat not in self.moves]

    def record(self, match_id: int) -> WindowRecord:
        return WindowRecord(
            match_id, self.step, tuple(self.requests), self.deadline, self.remaining, self.reminded
        )

    def timing(self) -> WindowTiming:
        return WindowTiming(self.step, self.deadline, self.remaining, self.reminded)


@dataclass
class _Live:
    record: MatchRecord
    game: Game[Any]
    state: Any
    window: _Window | None = None
    start_events: list[Event] | None = None  # new_match's events, kept until the start
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def id(self) -> int:
        return self.record.id

    def seat_of(self, user_id: int) -> int | None:
        return self.record.players.index(user_id) if user_id in self.record.players else None


class Host:
    def __init__(
        self,
        store: Store,
        transport: Transport,
        *,
        games: Mapping[str, Game[Any]] | None = None,
        loader: GameLoader | None = None,
        grace_s: float = 15.0,
        reminder_s: float = 15.0,
        clock: Clock = time.time,
        retry_base_s: float = 1.0,
        stall_s: float = 5.0,
        sweep_s: float = 2.0,
        write_tries: int = 8,
        write_retry_s: float = 0.25,
        timers: Timers | None = None,
    ) -> None:
        """``stall_s``: a deadline met later than this is treated like downtime (grace).
        ``sweep_s``: how often the sweep looks for windows this long past their deadline.
        ``write_tries``, ``write_retry_s``: a must-do write's tries and first backoff.
        ``timers``: runs the deadlines and reminders (default: APScheduler)."""
        self.store = store
        self.stats = HostStats()
        self._games: dict[str, Game[Any]] = dict(games or {})
        self._loader = loader or (lambda key: load_game_info(key).game)
        self._grace_s = grace_s
        self._reminder_s = reminder_s
        self._clock = clock
        self._live: dict[int, _Live] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._over: dict[int, asyncio.Event] = {}  # set when the match leaves self._live
        self._reported: set[tuple[int, str]] = set()
        self._timers = timers if timers is not None else SchedulerTimers(clock)
        self._stall_s = stall_s
        self._sweep_s = sweep_s
        self._write_tries = write_tries
        self._write_retry_s = write_retry_s
        self._due: set[tuple[int, int]] = set()  # (match, step) windows being closed or reopened
        self._stopping = asyncio.Event()
        self._sweeper: asyncio.Task[None] | None = None
        self.worker = DeliveryWorker(
            store, transport, self._report_unreachable, clock=clock, retry_base_s=retry_base_s
        )

    # --- service --------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the active matches, re-arm their windows (reopening expired ones with the grace
        period) and start delivering the outbox."""
        self._stopping.clear()
        self._timers.start()
        for record in await self.store.list_matches(statuses=ACTIVE_STATUSES):
            live = await self._load(record)
            self._live[record.id] = live
            if record.status == "running" and live.window is not None:
                await self._rearm_after_restart(live)
        self.worker.start()
        self.worker.wake()
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="window-sweep")

    async def close(self) -> None:
        """Stop timers, let in-flight resolutions finish, stop delivery, close the store."""
        self._stopping.set()  # writes waiting to be retried give up: the next start re-arms
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
            self._sweeper = None
        self._timers.stop()
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.worker.stop()
        await self.store.close()

    async def wait_idle(self) -> None:
        """Until no resolution is in flight and the outbox is delivered (tests, simulate)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.worker.wait_idle()

    async def wait_over(self, match_id: int) -> None:
        """Until the match is finished or aborted."""
        if match_id in self._live:  # one event per match: a finish wakes only its waiters
            await self._over.setdefault(match_id, asyncio.Event()).wait()

    def game(self, key: str) -> Game[Any]:
        if key not in self._games:
            self._games[key] = self._loader(key)
        return self._games[key]

    # --- setup ----------------------------------------------------------------------------

    async def create_match(
        self,
        game: Game[Any] | str,
        *,
        guild_id: int,
        channel_id: int,
        players: Sequence[int],
        moderators: Sequence[int] = (),
        config: Mapping[str, JSON] | None = None,
        seed: int | None = None,
        names: Sequence[str] | None = None,
        window_s: float | None = None,
    ) -> MatchRecord:
        """A new match in setup. Raises ConfigError (bad config) or HostError (bad seats).
        Each player gets a hello by DM, which also shows whether their DMs are open."""
        key, engine = self._resolve(game)
        players = tuple(players)
        if names is None:
            names = [f"P{seat + 1}" for seat in range(len(players))]
        names = tuple(map(storable, names))
        _check_seats(engine, players, names, window_s)
        parsed = engine.parse_config(dict(config or {}), len(players))
        seed = seed if seed is not None else secrets.randbits(48)
        state, start_events = engine.new_match(Setup(parsed, len(players), seed, names))
        new = NewMatch(
            key, guild_id, channel_id, players, names, tuple(moderators), parsed, seed, window_s
        )
        hellos = [
            notice(0, f"seat{seat}", _hello_text(engine, names, seat), 0, kind="setup")
            for seat in range(len(players))
        ]
        try:
            match_id = await self.store.create_match(new, engine.dump(state), self._clock(), hellos)
        except WriteFailed as error:
            raise NotSaved from error
        record = await self._record(match_id)
        self._live[match_id] = _Live(record, engine, state, start_events=start_events)
        self.worker.wake()
        return record

    async def configure(
        self, match_id: int, config: Mapping[str, JSON], by: int | None = None
    ) -> MatchRecord:
        """Replace the config before the reveal (e.g. another spellbook)."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("setup",), "can only be configured before the reveal")
            seats = len(live.record.players)
            parsed = live.game.parse_config(dict(config), seats)
            setup = Setup(parsed, seats, live.record.seed, live.record.names)
            state, start_events = live.game.new_match(setup)
            change = Change(
                match_id,
                self._clock(),
                setup=(parsed, live.game.dump(state)),
                log=(LogEntry("configured", by, parsed),),
            )
            await self.store.apply(change)
            live.state, live.start_events = state, start_events
            live.record = dataclasses.replace(live.record, config=parsed)
            return live.record

    async def reveal(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Post the public part of the setup (Floral Extract: the spellbook)."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("setup",), "was already revealed or started")
            events = [e for e in self._start_events(live) if e.audience == PUBLIC]
            outbox = step_messages(match_id, 0, 0, events, {}, kind="reveal")
            change = Change(
                match_id,
                self._clock(),
                status="revealed",
                log=(LogEntry("revealed", by),),
                outbox=tuple(outbox),
            )
            await self._commit(live, change)
            return live.record

    async def start_match(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Tell every seat its secrets, post the start and open the first window."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("setup", "revealed"), "has already started")
            events = self._start_events(live)
            if live.record.status == "revealed":
                events = [e for e in events if e.audience != PUBLIC]
            names = " vs ".join(live.record.names)
            header = f"▶ Match {match_id}: {live.game.title}, {names}. It starts now."
            now = self._clock()
            window = self._next_window(live, live.state, 1, now)
            outbox = step_messages(
                match_id,
                len(live.record.players),
                0,
                events,
                self._prompts(live, window, now),
                "start",
                header,
            )
            change = Change(
                match_id,
                now,
                status="running" if window else "finished",
                outcome=self._outcome(live, live.state),
                open_window=window.record(match_id) if window else None,
                log=(LogEntry("started", by),),
                outbox=tuple(outbox),
            )
            await self._commit(live, change)
            self._set_window(live, window)
            live.start_events = None
            return live.record

    # --- submissions ----------------------------------------------------------------------

    async def submit(
        self, match_id: int, user_id: int, raw: str, *, step: int | None = None
    ) -> SubmitResult:
        """One player's answer. Acknowledged (accepted=True) only once it is committed.
        ``step``, from a button's prompt, makes an answer to an older prompt a refusal."""
        live = self._live.get(match_id)
        if live is None:
            return self._refuse(match_id, await self._not_live_reason(match_id))
        async with live.lock:
            return await self._submit_locked(live, user_id, storable(raw), step)

    async def _submit_locked(
        self, live: _Live, user_id: int, raw: str, step: int | None
    ) -> SubmitResult:
        seat = live.seat_of(user_id)
        reason = self._submit_refusal(live, seat, step)
        if reason is not None or seat is None:
            return self._refuse(live.id, reason or "", seat)
        window = live.window
        assert window is not None
        request, at = window.requests[seat], self._clock()
        judged = judge(
            raw,
            partial(live.game.submit, live.state, seat),
            answered=seat in window.moves,
            revisable=request.revisable,
        )
        verdict = cast(Verdict, judged.ruling)  # judge rules accepted, refused or duplicate
        attempt = Attempt(
            live.id, window.step, seat, user_id, raw, verdict, judged.text, judged.move, at
        )
        if not judged.accepted:
            await self._log_refusal(attempt)
            return self._refuse(live.id, judged.text, seat, window.step)
        try:
            saved = await self.store.add_attempt(attempt)
        except WriteFailed as error:
            log.warning("match %d: an answer could not be saved: %s", live.id, error)
            return self._refuse(live.id, _NOT_SAVED, seat, window.step)
        if not saved:
            return self._refuse(live.id, WINDOW_CLOSED, seat, window.step)
        window.moves[seat] = judged.move
        self.stats.submissions += 1
        if window.complete:
            self._spawn_due(live.id, window.step, "all_in")
        return SubmitResult(True, judged.text, live.id, seat, window.step, request.occasion)

    async def _log_refusal(self, attempt: Attempt) -> None:
        """Keep a refused attempt for the export; the refusal stands even if it cannot be kept."""
        try:
            await self.store.add_attempt(attempt)
        except WriteFailed as error:
            log.warning(
                "match %d: a refused attempt could not be logged: %s", attempt.match_id, error
            )

    def _submit_refusal(self, live: _Live, seat: int | None, step: int | None) -> str | None:
        match_id, status = live.id, live.record.status
        if seat is None:
            return f"You are not a player in match {match_id}."
        if status in ("setup", "revealed"):
            return f"Match {match_id} has not started yet."
        if status == "paused":
            return f"Match {match_id} is paused; wait for a moderator to resume it."
        window = live.window
        if window is None or seat not in window.requests:
            return f"Nothing is asked of you right now in match {match_id}."
        if step is not None and step != window.step:
            return "That prompt has expired; answer the current one."
        return None

    async def _not_live_reason(self, match_id: int) -> str:
        record = await self.store.get_match(match_id)
        if record is None:
            return f"There is no match {match_id}."
        return f"Match {match_id} is over ({record.status})."

    def _refuse(
        self, match_id: int, reason: str, seat: int | None = None, step: int | None = None
    ) -> SubmitResult:
        self.stats.refused += 1
        return SubmitResult(False, reason, match_id, seat, step)

    # --- resolution -----------------------------------------------------------------------

    async def _close_window(self, match_id: int, step: int, reason: str) -> None:
        live = self._live.get(match_id)
        if live is None:
            return
        async with live.lock:
            window = live.window
            if window is None or window.step != step or live.record.status != "running":
                return
            if reason == "deadline" and self._clock() < window.deadline - 0.001:
                self._arm(live)  # the deadline moved (extend) after this job was queued
                return
            moves = {seat: window.moves.get(seat) for seat in window.requests}
            state, events = live.game.resolve(live.state, moves)
            if not await self._advance(live, state, events, "resolve", moves, reason):
                log.warning("match %d step %d was already resolved", match_id, step)
                return
            self.stats.turns += 1
            if reason == "deadline" and None in moves.values():
                self.stats.timeouts += 1
            if reason == "deadline" and self.stats.late_ms is not None:
                self.stats.late_ms.append((self._clock() - window.deadline) * 1000)

    async def _advance(
        self,
        live: _Live,
        state: Any,
        events: list[Event],
        kind: StepKind,
        moves: dict[int, Move] | None,
        reason: str,
        header: str = "",
        entries: tuple[LogEntry, ...] = (),
        finish: bool = False,
    ) -> bool:
        """Commit one step (resolve or end) with its messages and the next window, in one
        transaction guarded by the open window; False if that window was already closed."""
        now, step = self._clock(), live.record.step + 1
        window = self._next_window(live, state, step + 1, now)
        outcome = self._outcome(live, state)
        finished = finish or window is None or outcome is not None
        if finished:
            window = None
        outbox = step_messages(
            live.id,
            len(live.record.players),
            step,
            events,
            self._prompts(live, window, now),
            "turn",
            header,
        )
        closing = live.window.step if live.window is not None else None
        change = Change(
            live.id,
            now,
            close_window=closing,
            close_reason=reason,
            new_step=StepRecord(live.id, step, kind, moves, live.game.dump(state)),
            open_window=window.record(live.id) if window else None,
            status="finished" if finished else None,
            outcome=outcome,
            log=entries,
            outbox=tuple(outbox),
        )
        if not await self._commit(live, change, new_step=step):
            return False
        live.state = state
        self._set_window(live, window)
        return True

    def _next_window(self, live: _Live, state: Any, step: int, now: float) -> _Window | None:
        requests = live.game.requests(state)
        if not requests:
            return None
        length = live.record.window_s or max(request.timeout_s for request in requests)
        return _Window(step, {r.seat: r for r in requests}, now + length)

    def _prompts(self, live: _Live, window: _Window | None, now: float) -> dict[int, Prompt]:
        if window is None:
            return {}
        return {seat: self._prompt(live, window, seat, now) for seat in window.requests}

    def _prompt(self, live: _Live, window: _Window, seat: int, now: float) -> Prompt:
        request = window.requests[seat]
        deadline = window.deadline if window.remaining is None else now + window.remaining
        return Prompt(
            request_to_json(request, live.id, window.step, deadline),
            prompt_text(request, deadline, now),
        )

    def _outcome(self, live: _Live, state: Any) -> JSON:
        outcome = live.game.outcome(state)
        if outcome is None:
            return None
        return {
            "winners": list(outcome.winners),
            "reason": outcome.reason,
            "detail": outcome.detail,
        }

    # --- moderator operations -------------------------------------------------------------

    async def pause(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Freeze the open window's remaining time."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("running",), "is not running")
            window = self._open_window(live)
            now = self._clock()
            text = f"⏸ Match {match_id} is paused by a moderator."
            with _restoring(window):
                window.remaining = max(0.0, window.deadline - now)
                change = Change(
                    match_id,
                    now,
                    guard_window=window.step,
                    retime=window.timing(),
                    status="paused",
                    log=(LogEntry("paused", by, window.remaining),),
                    outbox=(notice(match_id, "public", text, live.record.step),),
                )
                await self._commit(live, change)
            self._disarm(live)
            return live.record

    async def resume(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Restore the remaining time the pause froze."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("paused",), "is not paused")
            window = self._open_window(live)
            now = self._clock()
            remaining = window.remaining if window.remaining is not None else 0.0
            text = f"▶ Match {match_id} resumes: {seconds_text(remaining)} left."
            with _restoring(window):
                window.deadline, window.remaining = now + remaining, None
                await self._retime(live, "resumed", by, remaining, text, status="running")
            return live.record

    async def extend(self, match_id: int, seconds: float, by: int | None = None) -> MatchRecord:
        """Give the open window ``seconds`` more (running or paused)."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("running", "paused"), "has no window to extend")
            if not 0 < seconds <= 24 * 3600:
                raise HostError("Extend by 1 second to 24 hours.")
            window = self._open_window(live)
            text = f"⏱ Match {match_id}: the window is extended by {seconds_text(seconds)};"
            with _restoring(window):
                if window.remaining is not None:
                    window.remaining += seconds
                    left = window.remaining
                else:
                    window.deadline += seconds
                    left = window.deadline - self._clock()
                if self._clock() + left - self._reminder_s > self._clock():
                    window.reminded = False  # the reminder comes again before the new deadline
                text = f"{text} {seconds_text(left)} left."
                await self._retime(live, "extended", by, seconds, text)
            return live.record

    async def _retime(
        self,
        live: _Live,
        kind: str,
        by: int | None,
        data: JSON,
        text: str,
        status: MatchStatus | None = None,
    ) -> None:
        """Commit a window's new timing, tell the channel and re-prompt who has not answered."""
        window = self._open_window(live)
        now, step = self._clock(), live.record.step
        outbox = [notice(live.id, "public", text, step)]
        outbox += [
            notice(
                live.id, f"seat{seat}", text, step, "notice", self._prompt(live, window, seat, now)
            )
            for seat in window.missing()
        ]
        change = Change(
            live.id,
            now,
            guard_window=window.step,
            retime=window.timing(),
            status=status,
            log=(LogEntry(kind, by, data),),
            outbox=tuple(outbox),
        )
        await self._commit(live, change)
        if live.record.status == "running":
            self._arm(live)
            if window.complete:  # all moves came in just before a pause
                self._spawn_due(live.id, window.step, "all_in")

    async def end(self, match_id: int, by: int | None = None) -> MatchRecord:
        """End the match now by the game's end rule; pending moves are not applied."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ("running", "paused"), "is not running")
            state, events = live.game.end(live.state, "host")
            header = f"⏹ Match {match_id} is ended by a moderator."
            if not await self._advance(
                live,
                state,
                events,
                "end",
                None,
                "ended",
                header,
                (LogEntry("ended", by),),
                finish=True,
            ):
                raise HostError("The match changed meanwhile; try again.")
            return live.record

    async def abort(self, match_id: int, by: int | None = None) -> MatchRecord:
        """Stop the match with no result."""
        live = self._active(match_id)
        async with live.lock:
            self._expect(live, ACTIVE_STATUSES, "is already over")
            text = f"✖ Match {match_id} is aborted by a moderator; it has no result."
            step = live.record.step
            outbox = [
                notice(match_id, audience, text, step)
                for audience in ["public", *self._seat_keys(live)]
            ]
            window = live.window
            change = Change(
                match_id,
                self._clock(),
                status="aborted",
                close_window=window.step if window else None,
                close_reason="aborted",
                log=(LogEntry("aborted", by),),
                outbox=tuple(outbox),
            )
            await self._commit(live, change)
            self._set_window(live, None)
            return live.record

    # --- queries --------------------------------------------------------------------------

    async def status(self, match_id: int) -> MatchStatusView:
        """The public state of a match and its open window (no secrets)."""
        live = self._live.get(match_id)
        if live is not None:
            record, game, state = live.record, live.game, live.state
        else:
            record, game, state = await self._stored(match_id)
        return MatchStatusView(
            record,
            game.title,
            game.view(state, None),
            game.describe(state, None),
            self._window_status(live),
        )

    async def view(self, match_id: int, user_id: int) -> JSON:
        """What this player may know of the match (their seat's view)."""
        game, state, seat = await self._seat_state(match_id, user_id)
        return game.view(state, seat)

    async def describe(self, match_id: int, user_id: int) -> str:
        """The same as ``view``, in the game's own words."""
        game, state, seat = await self._seat_state(match_id, user_id)
        return game.describe(state, seat)

    async def _seat_state(self, match_id: int, user_id: int) -> tuple[Game[Any], Any, int]:
        live = self._live.get(match_id)
        record, game, state = (
            (live.record, live.game, live.state) if live else await self._stored(match_id)
        )
        if user_id not in record.players:
            raise HostError(f"You are not a player in match {match_id}.")
        return game, state, record.players.index(user_id)

    async def list_matches(
        self, guild_id: int | None = None, active_only: bool = False
    ) -> list[MatchRecord]:
        return await self.store.list_matches(guild_id, ACTIVE_STATUSES if active_only else None)

    def prompts_for(self, user_id: int) -> list[OpenPrompt]:
        """The open requests of this user in every running match (to route a typed DM)."""
        found = []
        for live in self._live.values():
            seat, window = live.seat_of(user_id), live.window
            if seat is None or window is None or seat not in window.requests:
                continue
            if live.record.status != "running":
                continue
            found.append(
                OpenPrompt(
                    live.id,
                    window.step,
                    window.requests[seat],
                    window.deadline,
                    seat in window.moves,
                )
            )
        return found

    def active_match_ids(self) -> list[int]:
        return list(self._live)

    def _window_status(self, live: _Live | None) -> WindowStatus | None:
        if live is None or live.window is None:
            return None
        window = live.window
        paused = window.remaining is not None
        left = window.remaining if window.remaining is not None else window.deadline - self._clock()
        return WindowStatus(
            window.step,
            tuple(window.requests),
            tuple(sorted(window.moves)),
            window.deadline,
            max(0.0, left),
            paused,
        )

    async def _stored(self, match_id: int) -> tuple[MatchRecord, Game[Any], Any]:
        record = await self._record(match_id)
        game = self.game(record.game)
        step = await self.store.latest_step(match_id)
        return record, game, game.load(step.snapshot)

    # --- timers ---------------------------------------------------------------------------

    def _set_window(self, live: _Live, window: _Window | None) -> None:
        live.window = window
        if window is None:
            self._disarm(live)
        elif live.record.status == "running":
            self._arm(live)

    def _arm(self, live: _Live) -> None:
        window = live.window
        if window is None:
            return
        deadline = partial(self._on_deadline, live.id, window.step)
        self._timers.schedule(f"deadline:{live.id}", window.deadline, deadline)
        remind_at = window.deadline - self._reminder_s
        if not window.reminded and remind_at > self._clock():
            remind = partial(self._on_reminder, live.id, window.step)
            self._timers.schedule(f"remind:{live.id}", remind_at, remind)
        else:
            self._timers.cancel(f"remind:{live.id}")

    def _disarm(self, live: _Live) -> None:
        self._timers.cancel(f"deadline:{live.id}")
        self._timers.cancel(f"remind:{live.id}")

    async def _on_deadline(self, match_id: int, step: int) -> None:
        self._spawn_due(match_id, step, "deadline")

    def _spawn_due(self, match_id: int, step: int, reason: str) -> None:
        """Close a window (or, after a stall, reopen it); one such task per window at a time."""
        if (match_id, step) in self._due:
            return
        if reason == "deadline" and self._stalled(match_id, step):
            reopen = partial(self._reopen_window, match_id, step, "stalled")
            self._settle_window(match_id, step, "reopening", reopen)
        else:
            close = partial(self._close_window, match_id, step, reason)
            self._settle_window(match_id, step, "resolution", close)

    def _settle_window(
        self, match_id: int, step: int, what: str, action: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        """Run ``action`` in a tracked task (close() waits for it) that retries failed writes;
        meanwhile the sweep leaves the window alone."""
        key = (match_id, step)
        self._due.add(key)

        async def settle() -> None:
            try:
                done = await self._persist(f"match {match_id} step {step} {what}", action)
            finally:
                self._due.discard(key)
            live = self._live.get(match_id)
            window = live.window if live is not None else None
            if done and window is not None and window.step == step and window.complete:
                self._spawn_due(match_id, step, "all_in")  # the last answer came meanwhile

        self._spawn(settle())

    def _stalled(self, match_id: int, step: int) -> bool:
        """The deadline is met much later than it fell: the process or its loop was frozen,
        and nobody could answer meanwhile. Checked when the timer fires, before any retry."""
        live = self._live.get(match_id)
        window = live.window if live is not None else None
        if window is None or window.step != step or window.complete:
            return False
        late = self._clock() - window.deadline
        if late > self._stall_s:
            log.warning("match %d: deadline met %.1f s late; reopening the window", match_id, late)
            return True
        return False

    async def _persist(self, what: str, action: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        """Run a write the host must make, retrying with backoff while the store fails it;
        whether it was made. Bounded: after the last try the sweep (for windows) or the next
        start takes over."""
        delay = self._write_retry_s
        for attempt in range(1, self._write_tries + 1):
            try:
                await action()
                return True
            except (WriteFailed, NotSaved) as error:
                cause = error.__cause__ if isinstance(error, NotSaved) else error
                if attempt == self._write_tries:
                    log.warning("%s failed %d times, giving up: %s", what, attempt, cause)
                    return False
                log.warning("%s failed (%s); trying again in %.2f s", what, cause, delay)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._stopping.wait()
            if self._stopping.is_set():
                return False
            delay = min(delay * 2, 30.0)
        return False

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self._sweep_s)
            self._sweep()

    def _sweep(self) -> None:
        """Close the windows left open well past their deadline (a timer or a write lost)."""
        now = self._clock()
        for live in list(self._live.values()):
            window = live.window
            if window is None or live.record.status != "running" or window.remaining is not None:
                continue
            if now > window.deadline + self._sweep_s and (live.id, window.step) not in self._due:
                log.warning(
                    "match %d: window %d is %.1f s past its deadline; closing it",
                    live.id,
                    window.step,
                    now - window.deadline,
                )
                self._spawn_due(live.id, window.step, "deadline")

    async def _on_reminder(self, match_id: int, step: int) -> None:
        self._spawn(
            self._persist(f"match {match_id} reminder", partial(self._remind, match_id, step))
        )

    def _reminder_due(self, window: _Window, now: float) -> bool:
        """A reminder fired late (a stall) with little time left would arrive with the timeout;
        one fired early belongs to a deadline that has moved (its own job is armed)."""
        left = window.deadline - now
        return self._reminder_s / 2 <= left <= self._reminder_s + 1.0

    async def _remind(self, match_id: int, step: int) -> None:
        live = self._live.get(match_id)
        if live is None:
            return
        async with live.lock:
            window = live.window
            if window is None or window.step != step or window.reminded:
                return
            now = self._clock()
            if live.record.status != "running" or not self._reminder_due(window, now):
                return
            left = seconds_text(window.deadline - now)
            outbox = tuple(
                notice(
                    match_id,
                    f"seat{seat}",
                    f"⏰ {left} left to answer in match {match_id}.",
                    live.record.step,
                    "reminder",
                    self._prompt(live, window, seat, now),
                )
                for seat in window.missing()
            )
            with _restoring(window):
                window.reminded = True
                timing = window.timing()
                change = Change(match_id, now, guard_window=step, retime=timing, outbox=outbox)
                await self._commit(live, change)

    async def _rearm_after_restart(self, live: _Live) -> None:
        """A window that expired while the host was down reopens for the grace period."""
        window = live.window
        assert window is not None
        if window.deadline <= self._clock():
            match_id, step = live.id, window.step
            try:
                await self._reopen_window(match_id, step, "restarted")
            except (WriteFailed, NotSaved) as error:  # keep starting; retry in the background
                log.warning("match %d: the window could not be reopened: %s", match_id, error)
                reopen = partial(self._reopen_window, match_id, step, "restarted")
                self._settle_window(match_id, step, "reopening", reopen)
        else:
            self._arm(live)
        if window.complete:  # every move was in when the host stopped
            self._spawn_due(live.id, window.step, "all_in")

    async def _reopen_window(self, match_id: int, step: int, cause: str) -> None:
        """Give an expired window the grace period again, and tell the players why."""
        live = self._live.get(match_id)
        if live is None:
            return
        async with live.lock:
            window = live.window
            if window is None or window.step != step or live.record.status != "running":
                return
            now = self._clock()
            if window.deadline > now:
                return  # reopened already
            with _restoring(window):
                window.deadline = now + self._grace_s
                await self._commit(live, self._reopen_change(live, window, now, cause))
            self.stats.reopened += 1
            self._arm(live)

    def _reopen_change(self, live: _Live, window: _Window, now: float, cause: str) -> Change:
        what = "was stalled (paused or overloaded)" if cause == "stalled" else "restarted"
        text = (
            f"⚠ The host {what} while match {live.id} was waiting for answers; the window"
            f" is open again for {seconds_text(self._grace_s)}."
        )
        step = live.record.step
        outbox = [notice(live.id, "public", text, step, "reopened")]
        for seat in window.requests:
            if seat in window.moves:
                outbox.append(
                    notice(live.id, f"seat{seat}", f"{text} Your answer is kept.", step, "reopened")
                )
            else:
                outbox.append(
                    notice(
                        live.id,
                        f"seat{seat}",
                        text,
                        step,
                        "reopened",
                        self._prompt(live, window, seat, now),
                    )
                )
        return Change(
            live.id,
            now,
            guard_window=window.step,
            retime=window.timing(),
            log=(LogEntry("reopened", None, self._grace_s),),
            outbox=tuple(outbox),
        )

    # --- delivery failures ----------------------------------------------------------------

    async def _report_unreachable(self, row: OutboxRow, error: str) -> None:
        """A player cannot be reached: tell the channel and the moderators, once per match,
        with the fallback command."""
        audience = parse_audience(row.message.audience)
        key = (row.message.match_id, row.message.audience)
        if audience.seat is None or key in self._reported:
            return
        self._reported.add(key)
        what = f"match {row.message.match_id} unreachable report"
        self._spawn(self._persist(what, partial(self._report, row, audience.seat, error)))

    async def _report(self, row: OutboxRow, seat: int, error: str) -> None:
        match_id, user_id = row.message.match_id, row.players[seat]
        if any(  # reported before a restart: the match log remembers
            entry.kind == "unreachable" and entry.by_user == user_id
            for entry in await self.store.match_log(match_id)
        ):
            return
        text = (
            f"⚠ I cannot send direct messages to <@{user_id}> (match {match_id}). They can"
            " still answer with /submit here and see their game with /garden."
        )
        step = row.message.payload.get("step", 0) if isinstance(row.message.payload, dict) else 0
        outbox = (
            notice(match_id, "public", text, step, "unreachable"),
            notice(match_id, "moderators", f"{text} ({error})", step, "unreachable"),
        )
        change = Change(
            match_id,
            self._clock(),
            log=(LogEntry("unreachable", user_id, {"seat": seat, "error": error}),),
            outbox=outbox,
        )
        await self.store.apply(change)
        self.worker.wake()

    # --- helpers --------------------------------------------------------------------------

    async def _commit(self, live: _Live, change: Change, new_step: int | None = None) -> bool:
        """Apply a change; on success mirror it in the cache and wake the delivery worker.
        NotSaved (a HostError) when the store cannot write it now: nothing changed."""
        try:
            applied = await self.store.apply(change)
        except WriteFailed as error:
            raise NotSaved from error
        if not applied:
            return False
        updates: dict[str, Any] = {}
        if change.status is not None:
            updates.update(status=change.status, outcome=change.outcome)
        if new_step is not None:
            updates["step"] = new_step
        if updates:
            live.record = dataclasses.replace(live.record, **updates)
        if change.outbox:
            self.worker.wake()
        if live.record.status in ("finished", "aborted"):
            self._disarm(live)
            self._live.pop(live.id, None)
            self._over.pop(live.id, asyncio.Event()).set()
        return True

    async def _load(self, record: MatchRecord) -> _Live:
        game = self.game(record.game)
        state = game.load((await self.store.latest_step(record.id)).snapshot)
        live = _Live(record, game, state)
        stored = await self.store.open_window(record.id)
        if stored is not None:
            requests = {r.seat: r for r in game.requests(state)}
            if set(requests) != set(stored.seats):
                log.warning(
                    "match %d: stored window seats %s differ from the engine's %s",
                    record.id,
                    stored.seats,
                    sorted(requests),
                )
            live.window = _Window(
                stored.step,
                requests,
                stored.deadline,
                stored.remaining,
                stored.reminded,
                dict(stored.moves),
            )
        return live

    async def _record(self, match_id: int) -> MatchRecord:
        record = await self.store.get_match(match_id)
        if record is None:
            raise HostError(f"There is no match {match_id}.")
        return record

    def _resolve(self, game: Game[Any] | str) -> tuple[str, Game[Any]]:
        if isinstance(game, str):
            return game, self.game(game)
        self._games.setdefault(game.name, game)
        return game.name, game

    def _active(self, match_id: int) -> _Live:
        live = self._live.get(match_id)
        if live is None:
            raise HostError(f"Match {match_id} does not exist or is over.")
        return live

    @staticmethod
    def _expect(live: _Live, statuses: Sequence[str], problem: str) -> None:
        if live.record.status not in statuses:
            raise HostError(f"Match {live.id} {problem} (it is {live.record.status}).")

    @staticmethod
    def _open_window(live: _Live) -> _Window:
        if live.window is None:
            raise HostError(f"Match {live.id} has no open window.")
        return live.window

    def _start_events(self, live: _Live) -> list[Event]:
        if live.start_events is None:  # loaded after a restart: the engine recomputes them
            record = live.record
            setup = Setup(record.config, len(record.players), record.seed, record.names)
            live.start_events = live.game.new_match(setup)[1]
        return live.start_events

    @staticmethod
    def _seat_keys(live: _Live) -> list[str]:
        return [f"seat{seat}" for seat in range(len(live.record.players))]

    def _spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        task = asyncio.create_task(self._run_tracked(coro))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_tracked(self, coro: Coroutine[Any, Any, object]) -> None:
        try:
            await coro
        except Exception:
            log.exception("host task failed")


_NOT_SAVED = "Your answer could not be saved (storage problem); please send it again shortly."


@contextlib.contextmanager
def _restoring(window: _Window) -> Iterator[None]:
    """Undo changes to a window's timing when the commit that records them fails."""
    timing = window.deadline, window.remaining, window.reminded
    try:
        yield
    except BaseException:
        window.deadline, window.remaining, window.reminded = timing
        raise


def _check_seats(
    game: Game[Any], players: tuple[int, ...], names: tuple[str, ...], window_s: float | None
) -> None:
    if not game.min_seats <= len(players) <= game.max_seats:
        raise HostError(f"{game.title} needs {game.min_seats} to {game.max_seats} players.")
    if len(set(players)) != len(players):
        raise HostError("A player cannot take two seats.")
    if len(names) != len(players):
        raise HostError("Give one name per player.")
    if window_s is not None and window_s <= 0:
        raise HostError("The window must be longer than 0 seconds.")


def storable(text: str) -> str:
    """``text`` as the store can hold it: a lone surrogate (which Discord's JSON can carry but
    UTF-8 cannot) becomes U+FFFD, so the engine, the store and an export all see the same text."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _hello_text(game: Game[Any], names: tuple[str, ...], seat: int) -> str:
    others = ", ".join(name for i, name in enumerate(names) if i != seat)
    return (
        f"👋 You are {names[seat]} in a match of {game.title} against {others}. Your"
        " prompts will come here; the match starts when a moderator starts it."
    )


__all__ = [
    "Host",
    "HostError",
    "HostStats",
    "MatchStatusView",
    "OpenPrompt",
    "OutboxMessage",
    "SubmitResult",
    "WindowStatus",
]

"""A match from creation to its end: setup, reveal, start, the resolution of each window, and
the moderators' operations (pause, resume, extend, end, abort), and a player's leave."""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from bot.games import load_game_info
from bot.host import notices
from bot.host.matches import Matches
from bot.host.model import ClaimTaken, HostError, Live, NotSaved, Window, restoring, storable
from bot.host.windows import Windows
from bot.outbox import notice, seconds_text, step_messages
from bot.store import (
    ACTIVE_STATUSES,
    Change,
    LogEntry,
    MatchRecord,
    MatchStatus,
    NewMatch,
    StepKind,
    StepRecord,
    Taken,
    WriteFailed,
)
from games.protocol import JSON, PUBLIC, Event, Game, Move, Setup
from games.registry import DEFAULT_TIMERS
from games.text import excerpt

log = logging.getLogger(__name__)

# a mid-turn post waits for the turn's next one only when that comes within this many seconds
# (or nobody else decides meanwhile): see ``_held``
HOLD_MAX_S = 15.0
LEAVE_MOVE = "leave"  # a "leave" step's moves: {seat: LEAVE_MOVE}, the seat that left


class Lifecycle:
    def __init__(self, matches: Matches, windows: Windows) -> None:
        self._matches = matches
        self._windows = windows

    def _now(self) -> float:
        return self._matches.clock()

    # --- setup ----------------------------------------------------------------------------

    async def create(
        self,
        game: Game[Any] | str,
        *,
        guild_id: int,
        channel_id: int,
        players: Sequence[int],
        moderators: Sequence[int],
        config: Mapping[str, JSON] | None,
        seed: int | None,
        names: Sequence[str] | None,
        window_s: float | None,
        timers: Mapping[str, float] | None = None,
        practice: bool = False,
        starts: notices.StartRule = "moderator",
        rematch_of: int | None = None,
        table: int | None = None,
    ) -> MatchRecord:
        key, engine = self._matches.resolve(game)
        players = tuple(players)
        if names is None:
            names = [f"P{seat + 1}" for seat in range(len(players))]
        names = tuple(map(storable, names))
        _check_seats(engine, players, names, window_s)
        window_s, lengths = _match_timers(key, engine, window_s, timers or {})
        parsed = engine.parse_config(dict(config or {}), len(players))
        seed = seed if seed is not None else secrets.randbits(48)
        state, start_events = engine.new_match(Setup(parsed, len(players), seed, names))
        new = NewMatch(
            key,
            guild_id,
            channel_id,
            players,
            names,
            tuple(moderators),
            parsed,
            seed,
            window_s,
            lengths,
            practice,
            rematch_of,
            table,
        )
        hellos = notices.hellos(engine, names, "now" if practice else starts)
        store = self._matches.store
        try:
            match_id = await store.create_match(new, engine.dump(state), self._now(), hellos)
        except WriteFailed as error:
            raise NotSaved from error
        except Taken as taken:
            raise _taken(new, taken) from None
        record = await self._matches.record(match_id)
        self._matches.live[match_id] = Live(record, engine, state, start_events=start_events)
        self._matches.worker.wake()
        return record

    async def configure(
        self, match_id: int, config: Mapping[str, JSON], by: int | None
    ) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("setup",), "can only be configured before the reveal")
            seats = len(live.record.players)
            parsed = live.game.parse_config(dict(config), seats)
            setup = Setup(parsed, seats, live.record.seed, live.record.names)
            state, start_events = live.game.new_match(setup)
            change = Change(
                match_id,
                self._now(),
                setup=(parsed, live.game.dump(state)),
                log=(LogEntry("configured", by, parsed),),
            )
            await self._matches.store.apply(change)
            live.state, live.start_events = state, start_events
            live.record = dataclasses.replace(live.record, config=parsed)
            return live.record

    async def reveal(self, match_id: int, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("setup",), "was already revealed or started")
            events = [e for e in _start_events(live) if e.audience == PUBLIC]
            outbox = step_messages(match_id, 0, 0, events, {}, kind="reveal")
            change = Change(
                match_id,
                self._now(),
                status="revealed",
                log=(LogEntry("revealed", by),),
                outbox=tuple(outbox),
            )
            await self._matches.commit(live, change)
            return live.record

    async def start(self, match_id: int, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("setup", "revealed"), "has already started")
            events = _start_events(live)
            if live.record.status == "revealed":
                events = [e for e in events if e.audience != PUBLIC]
            names = live.record.names
            header = f"▶ Match {match_id}: {live.game.title}, {' vs '.join(names)}. It starts now."
            now = self._now()
            window = self._windows.next_window(live, live.state, 1, now)
            outbox = step_messages(
                match_id,
                len(live.record.players),
                0,
                events,
                notices.prompts(live, window, now),
                "start",
                header,
                {seat: notices.how_to_answer(live, seat) for seat in range(len(names))},
                card=_seats_card(live, live.state, _outcome(live, live.state)),
            )
            change = Change(
                match_id,
                now,
                status="running" if window else "finished",
                outcome=_outcome(live, live.state),
                open_window=window.record(match_id) if window else None,
                log=(LogEntry("started", by),),
                outbox=tuple(outbox),
            )
            await self._matches.commit(live, change)
            self._windows.set(live, window)
            live.start_events = None
            return live.record

    # --- resolution -----------------------------------------------------------------------

    async def close_window(self, match_id: int, step: int, reason: str) -> None:
        """Resolve the window's step with its moves (None for a seat that did not answer)."""
        async with self._matches.running_window(match_id, step) as found:
            if found is None:
                return
            live, window = found
            if reason == "deadline" and self._now() < window.deadline - 0.001:
                self._windows.arm(live)  # the deadline moved (extend) after this job was queued
                return
            moves = window.moves_in_order()
            state, events = live.game.resolve(live.state, moves)
            if not await self._advance(live, state, events, "resolve", moves, reason):
                log.warning(
                    "match %d step %d was already resolved: the stored match goes on",
                    match_id,
                    step,
                )
                fresh = await self._matches.resync(live)
                if fresh is not None and fresh.record.status == "running":
                    self._windows.arm(fresh)
                return
            self._count_missed(live, moves, reason)
            stats = self._matches.stats
            stats.turns += 1
            if reason == "deadline" and None in moves.values():
                stats.timeouts += 1
            if reason == "deadline" and stats.late_ms is not None:
                stats.late_ms.append((self._now() - window.deadline) * 1000)

    @staticmethod
    def _count_missed(live: Live, moves: Mapping[int, Move | None], reason: str) -> None:
        """A seat that answered is back; one that let the window run out missed it (not one
        that others' answers closed early)."""
        for seat, move in moves.items():
            if move is not None:
                live.missed[seat] = 0
            elif reason == "deadline":
                live.missed[seat] = live.missed.get(seat, 0) + 1

    async def _advance(
        self,
        live: Live,
        state: Any,
        events: list[Event],
        kind: StepKind,
        moves: dict[int, Move] | None,
        reason: str,
        header: str = "",
        entries: tuple[LogEntry, ...] = (),
        finish: bool = False,
    ) -> bool:
        """Commit one step (resolve, end or leave) with its messages and the next window, in one
        transaction guarded by the open window; False if that window was already closed."""
        now, step = self._now(), live.record.step + 1
        window = self._windows.next_window(live, state, step + 1, now, moves)
        outcome = _outcome(live, state)
        finished = finish or window is None or outcome is not None
        if finished:
            window = None
        card = _turn_card(live, state, outcome, finished)
        outbox = step_messages(
            live.id,
            len(live.record.players),
            step,
            events,
            notices.prompts(live, window, now),
            "turn",
            header,
            over=finished,
            card=card,
            hold=_held(live, kind, card, window, moves, now, events),
            mid_turn=_mid_turn(live, kind, card, window),
        )
        closing = live.window.step if live.window is not None else None
        if window is not None and live.record.status == "paused":
            window.remaining = window.deadline - now  # a leave in a pause: the next one waits
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
        if not await self._matches.commit(live, change, new_step=step):
            return False
        if card is not None:  # shown now, or by the next public post
            live.card_owed = not any(message.audience == "public" for message in outbox)
        live.state = state
        self._windows.set(live, window)
        return True

    # --- moderator operations -------------------------------------------------------------

    async def pause(self, match_id: int, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("running",), "is not running")
            window = _open_window(live)
            now = self._now()
            text = f"⏸ Match {match_id} is paused by a moderator."
            with restoring(window):
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
                await self._matches.commit(live, change)
            self._windows.disarm(live)
            return live.record

    async def resume(self, match_id: int, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("paused",), "is not paused")
            window = _open_window(live)
            now = self._now()
            remaining = window.remaining if window.remaining is not None else 0.0
            text = f"▶ Match {match_id} resumes: {seconds_text(remaining)} left."
            with restoring(window):
                window.deadline, window.remaining = now + remaining, None
                await self._retime(live, "resumed", by, remaining, text, status="running")
            return live.record

    async def extend(self, match_id: int, seconds: float, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("running", "paused"), "has no window to extend")
            if not 0 < seconds <= 24 * 3600:
                raise HostError("Extend by 1 second to 24 hours.")
            window = _open_window(live)
            text = f"⏱ Match {match_id}: the window is extended by {seconds_text(seconds)};"
            with restoring(window):
                if window.remaining is not None:
                    window.remaining += seconds
                    left = window.remaining
                else:
                    window.deadline += seconds
                    left = window.deadline - self._now()
                lead = self._windows.reminder_lead(live, window)
                if lead is not None and left > lead:
                    window.reminded = False  # the reminder comes again before the new deadline
                text = f"{text} {seconds_text(left)} left."
                await self._retime(live, "extended", by, seconds, text)
            return live.record

    async def _retime(
        self,
        live: Live,
        kind: str,
        by: int | None,
        data: JSON,
        text: str,
        status: MatchStatus | None = None,
    ) -> None:
        """Commit a window's new timing, tell the channel and re-prompt who has not answered."""
        window = _open_window(live)
        now = self._now()
        change = Change(
            live.id,
            now,
            guard_window=window.step,
            retime=window.timing(),
            status=status,
            log=(LogEntry(kind, by, data),),
            outbox=notices.retimed(live, window, text, now),
        )
        await self._matches.commit(live, change)
        if live.record.status == "running":
            self._windows.arm(live)
            if window.complete:  # all moves came in just before a pause
                self._windows.spawn_due(live.id, window.step, "all_in")

    async def end(self, match_id: int, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("running", "paused"), "is not running")
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

    async def leave(self, match_id: int, user_id: int, by: int | None) -> MatchRecord:
        """The player ``user_id`` leaves (``by`` None) or a moderator removes them: one step
        of kind "leave" whose moves name the seat. The open window closes without applying its
        moves; the engine decides what follows, and its requests open the next window."""
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ("running", "paused"), "is not under way, so nobody can leave it")
            seat = live.seat_of(user_id)
            if seat is None:
                raise HostError(f"That user is not playing in match {match_id}.")
            name = live.record.names[seat]
            try:
                state, events = live.game.leave(live.state, seat)
            except ValueError as error:
                raise HostError(f"{name} is already out of match {match_id}.") from error
            if by is None:
                header, entry = f"🚪 Match {match_id}: {name} left.", LogEntry("left", user_id)
            else:
                header = f"🚪 Match {match_id}: {name} is removed by a moderator."
                entry = LogEntry("kicked", by, {"user": user_id})
            reason = "left" if by is None else "kicked"
            moves: dict[int, Move] = {seat: LEAVE_MOVE}
            if not await self._advance(
                live, state, events, "leave", moves, reason, header, (entry,)
            ):
                raise HostError("The match changed meanwhile; try again.")
            return live.record

    async def abort(self, match_id: int, by: int | None) -> MatchRecord:
        live = self._matches.active(match_id)
        async with live.lock:
            _expect(live, ACTIVE_STATUSES, "is already over")
            text = f"✖ Match {match_id} is aborted by a moderator; it has no result."
            step = live.record.step
            outbox = [
                notice(match_id, audience, text, step) for audience in ["public", *live.seat_keys()]
            ]
            window = live.window
            change = Change(
                match_id,
                self._now(),
                status="aborted",
                close_window=window.step if window else None,
                close_reason="aborted",
                log=(LogEntry("aborted", by),),
                outbox=tuple(outbox),
            )
            await self._matches.commit(live, change)
            self._windows.set(live, None)
            return live.record


def _taken(new: NewMatch, taken: Taken) -> ClaimTaken:
    """Why a match that claims a table's last seat or a match's rematch was not set up."""
    if new.table is not None:
        return ClaimTaken(f"Table {new.table} is no longer open.")
    text = f"Match m{new.rematch_of} already has its rematch, m{taken.match_id}."
    return ClaimTaken(text, taken.match_id)


def _expect(live: Live, statuses: Sequence[str], problem: str) -> None:
    if live.record.status not in statuses:
        raise HostError(f"Match {live.id} {problem} (it is {live.record.status}).")


def _open_window(live: Live) -> Window:
    if live.window is None:
        raise HostError(f"Match {live.id} has no open window.")
    return live.window


def _start_events(live: Live) -> list[Event]:
    if live.start_events is None:  # loaded after a restart: the engine recomputes them
        record = live.record
        setup = Setup(record.config, len(record.players), record.seed, record.names)
        live.start_events = live.game.new_match(setup)[1]
    return live.start_events


def _seats_card(live: Live, state: Any, outcome: JSON) -> list[dict[str, JSON]]:
    """The seats' card of a post after ``state`` (the end post's marks its winners)."""
    winners = outcome.get("winners", []) if isinstance(outcome, dict) else []
    return notices.seats_card(live, live.public_view(state), winners)


def _turn_card(
    live: Live, state: Any, outcome: JSON, finished: bool
) -> list[dict[str, JSON]] | None:
    """The seats' card, on a turn or phase post only: the end post, and the first public post
    after the public view's turn changed (a post in the middle of a turn is text alone)."""
    if not (finished or live.card_owed):
        before, after = (notices.public_turn(live.public_view(s)) for s in (live.state, state))
        if before == after:
            return None
    return _seats_card(live, state, outcome)


def _held(
    live: Live,
    kind: StepKind,
    card: list[dict[str, JSON]] | None,
    window: Window | None,
    moves: dict[int, Move] | None,
    now: float,
    events: Sequence[Event],
) -> bool:
    """Whether a step's post and log entry wait for the turn's next post (one post a turn):
    a window resolved in the middle of a turn (its post shows no seats' card) when nobody
    decides on what it tells meanwhile: the window it opens ends within ``HOLD_MAX_S``, the
    game marks every public event ``aside``, or the window asks only a seat that just moved
    (that player's turn goes on). So Warlock's Brew's deal window after an auction, which asks
    everyone, follows the auction's post. A leave or an end is told at once; a practice's posts
    share its player's DMs, in order, and never wait."""
    if window is None or not _mid_turn(live, kind, card, window):
        return False
    if window.deadline - now <= HOLD_MAX_S:
        return True
    told = [event for event in events if event.audience == PUBLIC]
    if told and all(event.aside for event in told):
        return True
    asked = window.prompted_seats()
    return len(asked) == 1 and asked[0] in (moves or {})


def _mid_turn(
    live: Live, kind: StepKind, card: list[dict[str, JSON]] | None, window: Window | None
) -> bool:
    """A window resolved in the middle of a turn (its post shows no seats' card) that goes on:
    its log entry waits for the turn's next post (one digest a turn), and its post too when
    nobody decides meanwhile (``_held``). Not a leave, an end, nor a practice (see there)."""
    return kind == "resolve" and card is None and not live.record.practice and window is not None


def _outcome(live: Live, state: Any) -> JSON:
    outcome = live.game.outcome(state)
    if outcome is None:
        return None
    return {
        "winners": list(outcome.winners),
        "reason": outcome.reason,
        "detail": outcome.detail,
    }


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


def _match_timers(
    key: str, game: Game[Any], window_s: float | None, timers: Mapping[str, float]
) -> tuple[float | None, dict[str, float]]:
    """The match's ``window_s`` (the ``turn`` kind) and its length of every other kind the game
    declares: the declared default unless ``timers`` sets it. HostError for an unknown kind or
    a length that is not a finite number of seconds above 0."""
    declared = _declared_timers(key)
    for kind, seconds in timers.items():
        if kind not in declared:
            known = ", ".join(sorted(declared))
            raise HostError(f"{game.title} has no timer {excerpt(kind)}; its timers: {known}.")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            shown = excerpt(seconds)
            raise HostError(f"The {kind} timer must be a number of seconds, not {shown}.")
        if not (math.isfinite(seconds) and seconds > 0):
            raise HostError(f"The {kind} timer must be a finite number of seconds above 0.")
    if "turn" in timers:
        if window_s is not None and window_s != timers["turn"]:
            raise HostError("Give the turn length once: as the window or as the turn timer.")
        window_s = float(timers["turn"])
    lengths = {kind: float(timers.get(kind, seconds)) for kind, seconds in declared.items()}
    lengths.pop("turn", None)  # the turn kind is window_s (None: the requests' own length)
    return window_s, lengths


def _declared_timers(key: str) -> Mapping[str, float]:
    """The timer kinds the game declares (a game not in the registry: only ``turn``)."""
    try:
        return load_game_info(key).timers
    except KeyError:
        return DEFAULT_TIMERS

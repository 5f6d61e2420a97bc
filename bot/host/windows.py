"""Windows and their timers: arming the deadline and reminder of the open window, the reminder,
the sweep of windows left open past their deadline, stall detection, the reopening of a
window that expired while the host was down or frozen, and fair clocks: a prompt that reached its
seat late moves the window's deadline by the delay (capped).

A window's deadline and reminder are one job each (``deadline:<match>``, ``remind:<match>``) on
the host's ``Timers``, re-created from the database on start. Closing a window (resolving the
step) is the lifecycle's; this module decides when, and retries it while the store fails it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Mapping
from functools import partial
from typing import Any

from bot.host import notices
from bot.host.matches import Matches
from bot.host.model import Live, NotSaved, Window, restoring
from bot.host.timers import Timers
from bot.outbox import LATE_TOLD_S, Late, is_reopening
from bot.store import Change, LogEntry, MatchRecord, OutboxRow, WriteFailed
from games.protocol import Move, Request

log = logging.getLogger(__name__)

CloseWindow = Callable[[int, int, str], Coroutine[Any, Any, None]]

REMINDER_SHARE = 0.25  # a reminder comes at most this share of the window before its deadline
# a reminder cut shorter than this (or than reminder_s, set lower) by the share is dropped: it
# would come too late to act on (with the default 15 s: no reminder in a window under 20 s)
MIN_REMINDER_LEAD_S = 5.0
# the least an action of a turn whose clock ran out gets, so its prompt can still be answered
CLOCK_FLOOR_S = 5.0
# a late prompt's moved deadline this far past the one its text showed (the delay was inside
# the send: a 429 wait) is told to the seat in a notice of its own; less, the prompt's own
# deadline errs on the early side by a few seconds, not worth a message
NOTICE_GAP_S = LATE_TOLD_S


def request_length(record: MatchRecord, request: Request) -> float:
    """The window length a request asks for: a ``turn`` lasts the match's ``window_s`` when set
    (else the request's ``timeout_s``, which the game's config sets); another timer kind lasts
    the match's length for it (the game's declared default unless setup changed it)."""
    if request.timer == "turn":
        return record.window_s or request.timeout_s
    return record.timers.get(request.timer, request.timeout_s)


def window_length(record: MatchRecord, window: Window) -> float:
    """A window asking several seats is one timer: the longest of its requests' lengths (so
    requests of different kinds in one window all get at least their own kind's length)."""
    return max(request_length(record, request) for request in window.requests.values())


def turn_clock(window: Window) -> str | None:
    """The turn clock every request of the window names (``Request.clock``), else None."""
    keys = {request.clock for request in window.requests.values()}
    return keys.pop() if len(keys) == 1 else None


def clock_left(previous: Window | None, window: Window, now: float) -> float | None:
    """The time left on the turn clock ``window`` continues from ``previous`` (the window just
    closed, or its frozen time while paused); None when it starts a fresh window."""
    clock = turn_clock(window)
    if previous is None or clock is None or turn_clock(previous) != clock:
        return None
    return previous.remaining if previous.remaining is not None else previous.deadline - now


def carry_prompts(previous: Window, window: Window, resolved: Mapping[int, Move]) -> None:
    """In an ``"each"`` window, the seats that did not answer and are asked the same again keep
    the prompt they hold (and its reminder), so nothing is sent to them again."""
    if not previous.each:
        return
    for seat, request in window.requests.items():
        if seat not in resolved and previous.requests.get(seat) == request:
            window.prompted[seat] = previous.prompt_step(seat)
            window.reminded = window.reminded or previous.reminded


class Windows:
    def __init__(
        self,
        matches: Matches,
        timers: Timers,
        close_window: CloseWindow,
        *,
        grace_s: float,
        reminder_s: float,
        stall_s: float,
        sweep_s: float,
        late_cap_s: float = 30.0,
    ) -> None:
        """``close_window(match, step, reason)`` resolves the step (the lifecycle's).
        ``late_cap_s``: the most a late prompt moves a deadline."""
        self._matches = matches
        self._timers = timers
        self._close_window = close_window
        self.grace_s = grace_s
        self.reminder_s = reminder_s
        self._stall_s = stall_s
        self._sweep_s = sweep_s
        self.late_cap_s = late_cap_s
        self._due: set[tuple[int, int]] = set()  # (match, step) windows being closed or reopened
        self._settling: dict[tuple[int, int], asyncio.Event] = {}  # set once the task ends
        self._sweeper: asyncio.Task[None] | None = None

    def start_timers(self) -> None:
        self._timers.start()

    def start_sweep(self) -> None:
        """Begin the periodic sweep (once the windows of a restart are re-armed)."""
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="window-sweep")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
            self._sweeper = None
        self._timers.stop()

    def next_window(
        self,
        live: Live,
        state: Any,
        step: int,
        now: float,
        resolved: Mapping[int, Move] | None = None,
    ) -> Window | None:
        """The window the engine asks for in ``state``, or None when nobody is asked; it keeps
        the deadline of ``live.window`` (closing now, with the ``resolved`` moves) when both
        share a turn clock. Seats going at their own pace (``"each"``) get no floor: the one
        deadline is theirs; a seat asked again what it was asked keeps its prompt."""
        requests = live.game.requests(state)
        if not requests:
            return None
        window = Window(step, {r.seat: r for r in requests}, now)
        length = window_length(live.record, window)
        left = clock_left(live.window, window, now)  # one turn clock across several actions
        floor = 0.0 if window.each else min(CLOCK_FLOOR_S, length)
        window.deadline += length if left is None else max(left, floor)
        if left is not None and live.window is not None:
            carry_prompts(live.window, window, resolved or {})
        return window

    def reminder_lead(self, live: Live, window: Window) -> float | None:
        """How long before the deadline the window's reminder comes: ``reminder_s``, but at most
        a quarter of the window, and none in a window too short for a useful one."""
        lead = min(self.reminder_s, window_length(live.record, window) * REMINDER_SHARE)
        if lead < min(self.reminder_s, MIN_REMINDER_LEAD_S):
            return None
        return lead

    # --- timers ---------------------------------------------------------------------------

    def set(self, live: Live, window: Window | None) -> None:
        live.window = window
        if window is None:
            self.disarm(live)
        elif live.record.status == "running":
            self.arm(live)

    def arm(self, live: Live) -> None:
        window = live.window
        if window is None:
            return
        deadline = partial(self._on_deadline, live.id, window.step)
        self._timers.schedule(f"deadline:{live.id}", window.deadline, deadline)
        lead = self.reminder_lead(live, window)
        remind_at = window.deadline - (lead or 0.0)
        if lead is not None and not window.reminded and remind_at > self._matches.clock():
            remind = partial(self._on_reminder, live.id, window.step)
            self._timers.schedule(f"remind:{live.id}", remind_at, remind)
        else:
            self._timers.cancel(f"remind:{live.id}")

    def disarm(self, live: Live) -> None:
        self._timers.cancel(f"deadline:{live.id}")
        self._timers.cancel(f"remind:{live.id}")

    async def _on_deadline(self, match_id: int, step: int) -> None:
        self.spawn_due(match_id, step, "deadline")

    # --- closing --------------------------------------------------------------------------

    def spawn_due(self, match_id: int, step: int, reason: str) -> None:
        """Close a window (or, after a stall, reopen it); one such task per window at a time."""
        if (match_id, step) in self._due:
            return
        if reason == "deadline" and self._stalled(match_id, step):
            reopen = partial(self.reopen, match_id, step, "stalled")
            self._settle(match_id, step, "reopening", reopen)
        elif reason == "deadline" and self.awaiting_delivery(match_id):
            log.info("match %d: the deadline waits for a prompt to reach its seat", match_id)
            # the delivery (or its failure) settles it: prompt_settled
        else:
            close = partial(self._close_window, match_id, step, reason)
            self._settle(match_id, step, "resolution", close)

    def _settle(
        self, match_id: int, step: int, what: str, action: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        """Run ``action`` in a tracked task (close() waits for it) that retries failed writes;
        meanwhile the sweep leaves the window alone."""
        key = (match_id, step)
        self._due.add(key)
        ended = self._settling[key] = asyncio.Event()

        async def settle() -> None:
            try:
                done = await self._matches.persist(f"match {match_id} step {step} {what}", action)
            finally:
                self._due.discard(key)
                if self._settling.get(key) is ended:
                    del self._settling[key]
                ended.set()
            live = self._matches.live.get(match_id)
            window = live.window if live is not None else None
            if done and window is not None and window.step == step and window.complete:
                self.spawn_due(match_id, step, "all_in")  # the last answer came meanwhile

        self._matches.spawn(settle())

    async def settled(self, match_id: int, step: int, limit_s: float) -> None:
        """Until the closing (or reopening) of window ``step`` under way, if any, is over (at
        most ``limit_s``)."""
        ended = self._settling.get((match_id, step))
        if ended is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(limit_s):
                    await ended.wait()

    def _stalled(self, match_id: int, step: int) -> bool:
        """The deadline is met much later than it fell: the process or its loop was frozen,
        and nobody could answer meanwhile. Checked when the timer fires, before any retry."""
        live = self._matches.live.get(match_id)
        window = live.window if live is not None else None
        if window is None or window.step != step or window.complete:
            return False
        late = self._matches.clock() - window.deadline
        if late > self._stall_s:
            log.warning("match %d: deadline met %.1f s late; reopening the window", match_id, late)
            return True
        return False

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self._sweep_s)
            self.sweep()

    def sweep(self) -> None:
        """Close the windows left open well past their deadline (a timer or a write lost)."""
        now = self._matches.clock()
        for live in list(self._matches.live.values()):
            window = live.window
            if window is None or live.record.status != "running" or window.remaining is not None:
                continue
            if (
                now > window.deadline + self._sweep_s
                and (live.id, window.step) not in self._due
                and not self.awaiting_delivery(live.id)  # held for a prompt: not lost
            ):
                log.warning(
                    "match %d: window %d is %.1f s past its deadline; closing it",
                    live.id,
                    window.step,
                    now - window.deadline,
                )
                self.spawn_due(live.id, window.step, "deadline")

    # --- reminders ------------------------------------------------------------------------

    async def _on_reminder(self, match_id: int, step: int) -> None:
        remind = partial(self._remind, match_id, step)
        self._matches.spawn(self._matches.persist(f"match {match_id} reminder", remind))

    def _reminder_due(self, live: Live, window: Window, now: float) -> bool:
        """A reminder fired late (a stall) with little time left would arrive with the timeout;
        one fired early belongs to a deadline that has moved (its own job is armed)."""
        lead = self.reminder_lead(live, window)
        left = window.deadline - now
        return lead is not None and lead / 2 <= left <= lead + 1.0

    async def _remind(self, match_id: int, step: int) -> None:
        async with self._matches.running_window(match_id, step) as found:
            if found is None:
                return
            live, window = found
            now = self._matches.clock()
            if window.reminded or not self._reminder_due(live, window, now):
                return
            outbox = notices.reminders(live, window, now)
            with restoring(window):
                window.reminded = True
                timing = window.timing()
                change = Change(match_id, now, guard_window=step, retime=timing, outbox=outbox)
                await self._matches.commit(live, change)

    # --- downtime -------------------------------------------------------------------------

    async def rearm_after_restart(self, live: Live) -> None:
        """A window that expired while the host was down reopens for the grace period."""
        window = live.window
        assert window is not None
        if window.deadline <= self._matches.clock() and not window.complete:
            match_id, step = live.id, window.step
            try:
                await self.reopen(match_id, step, "restarted")
            except (WriteFailed, NotSaved) as error:  # keep starting; retry in the background
                log.warning("match %d: the window could not be reopened: %s", match_id, error)
                reopen = partial(self.reopen, match_id, step, "restarted")
                self._settle(match_id, step, "reopening", reopen)
        else:
            self.arm(live)
        if window.complete:  # every move it needs was in when the host stopped: no grace
            self.spawn_due(live.id, window.step, "all_in")

    async def reopen(self, match_id: int, step: int, cause: str) -> None:
        """Give an expired window the grace period again, and tell the players why."""
        async with self._matches.running_window(match_id, step) as found:
            if found is None:
                return
            live, window = found
            now = self._matches.clock()
            if window.deadline > now:
                return  # reopened already
            with restoring(window):
                window.deadline = now + self.grace_s
                change = Change(
                    live.id,
                    now,
                    guard_window=window.step,
                    retime=window.timing(),
                    log=(LogEntry("reopened", None, self.grace_s),),
                    outbox=notices.reopened(live, window, now, self.grace_s, cause),
                )
                await self._matches.commit(live, change)
            self._matches.stats.reopened += 1
            self.arm(live)

    # --- fair clocks ----------------------------------------------------------------------

    def prompt_settled(self, row: OutboxRow, late: Late | None) -> None:
        """The delivery worker's report of a window's prompt that was sent (``late``: how late,
        when it reached its seat late) or failed for good. A late seat gets that time back (up
        to ``late_cap_s``); a window held at its deadline for this prompt closes now, if no
        other prompt holds it. A late one's both in one tracked, retried task, in that order."""
        match_id, payload = row.message.match_id, row.message.payload
        request = payload.get("request") if isinstance(payload, dict) else None
        if not isinstance(request, dict):
            return
        seat = request.get("seat")
        if not isinstance(seat, int):
            return
        self._matches.settle_prompt(match_id, seat)
        if late is None:  # on time (or failed): no task, nothing to give back
            self._close_if_held(match_id)
            return
        settle = partial(self._after_delivery, match_id, seat, request, late)
        self._matches.spawn(self._matches.persist(f"match {match_id} delivered prompt", settle))

    async def _after_delivery(
        self, match_id: int, seat: int, request: dict[str, Any], late: Late
    ) -> None:
        step, deadline = request.get("step"), request.get("deadline")
        if isinstance(step, int) and isinstance(deadline, int | float):
            await self._give_back(match_id, step, seat, float(deadline), late)
        self._close_if_held(match_id)  # after the give-back: the deadline it set counts

    def _close_if_held(self, match_id: int) -> None:
        """Close the window now if it was held past its deadline for prompts now all
        delivered. (Read without the match's lock: a resolution under way is in ``_due``,
        and a close whose deadline has moved meanwhile re-arms instead.)"""
        live = self._matches.live.get(match_id)
        window = live.window if live is not None else None
        if (
            live is not None
            and window is not None
            and live.record.status == "running"
            and window.remaining is None
            and window.deadline <= self._matches.clock()
            and not self.awaiting_delivery(match_id)
        ):
            self.spawn_due(match_id, window.step, "deadline")

    def awaiting_delivery(self, match_id: int) -> bool:
        """Whether a seat the open window still waits for has not received its prompt yet (a
        backlog, a rate limit, retries): its deadline then waits for the delivery."""
        live = self._matches.live.get(match_id)
        window = live.window if live is not None else None
        owed = self._matches.undelivered
        return window is not None and any(owed[match_id, s] > 0 for s in window.missing())

    async def _give_back(
        self, match_id: int, step: int, seat: int, prompted: float, late: Late
    ) -> None:
        """Move the deadline to the one the prompt was committed with plus the delay (at most
        ``late_cap_s``; the whole delay for the prompt of a window reopened after downtime,
        whose grace so counts from its delivery). A window asking several seats has one
        deadline, so it moves for all of them. A prompt that arrives when its deadline has
        passed (or is about to) reopens the window for the grace period, as after downtime:
        nobody is defaulted on a prompt that did not reach them in time. The target depends
        only on the prompt, so a report seen twice (or after a restart, an extension, another
        seat's late prompt that moved it further) moves nothing again. The prompt showed the
        seat its moved deadline; only a delay inside the send (a 429 wait) or a reopening is
        told apart."""
        async with self._matches.running_window(match_id, step, seat) as found:
            if found is None:  # closed, over, or paused (the resume prompts afresh)
                return
            live, window = found
            now = self._matches.clock()
            if (
                seat not in window.missing()  # answered: the prompt reached them in time
                or window.complete
                or (match_id, window.step) in self._due  # closing, or reopening after downtime
            ):
                return
            uncapped = is_reopening(late.row)  # a reopening's grace counts from its delivery
            moved = late.delay_s if uncapped else min(late.delay_s, self.late_cap_s)
            target = prompted + moved
            if target < now + CLOCK_FLOOR_S:  # too little left to answer: reopen
                target = max(window.deadline, now + self.grace_s)
            if target <= window.deadline:
                return
            shown = prompted + late.shown_s
            told = (
                (notices.late_prompt(live, seat, late.delay_s, target),)
                if target - shown > NOTICE_GAP_S
                else ()
            )
            with restoring(window):
                window.deadline = target
                change = Change(
                    live.id,
                    now,
                    guard_window=window.step,
                    retime=window.timing(),
                    log=(LogEntry("late_prompt", None, {"seat": seat, "delay_s": late.delay_s}),),
                    outbox=told,
                )
                await self._matches.commit(live, change)
            self.arm(live)

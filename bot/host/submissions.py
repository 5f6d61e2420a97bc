"""Players' answers: judged by the game's move rule, acknowledged only once committed."""

from __future__ import annotations

import logging
from contextvars import ContextVar
from functools import partial
from typing import cast

from bot.host.matches import Matches
from bot.host.model import Live, SubmitResult, storable
from bot.host.windows import Windows
from bot.store import Attempt, Verdict, WriteFailed
from games.moves import WINDOW_CLOSED, closes_early, judge
from games.protocol import Accepted

log = logging.getLogger(__name__)

NOT_SAVED = "Your answer could not be saved (storage problem); please send it again shortly."

# set while an answer is handled again because the process that first took it died before it
# was done (``bot.handoff``): if the seat's standing move is this very answer, that process
# committed it, so it is acknowledged again and nothing is written twice
REDELIVERED: ContextVar[bool] = ContextVar("floral_redelivered", default=False)


class Submissions:
    def __init__(self, matches: Matches, windows: Windows) -> None:
        self._matches = matches
        self._windows = windows

    async def submit(
        self, match_id: int, user_id: int, raw: str, step: int | None = None
    ) -> SubmitResult:
        live = self._matches.live.get(match_id)
        if live is None:
            return self._refuse(match_id, await self._not_live_reason(match_id))
        async with live.lock:
            return await self._submit_locked(live, user_id, storable(raw), step)

    async def _submit_locked(
        self, live: Live, user_id: int, raw: str, step: int | None
    ) -> SubmitResult:
        seat = live.seat_of(user_id)
        reason = self._submit_refusal(live, seat, step)
        if reason is not None or seat is None:
            return self._refuse(live.id, reason or "", seat)
        window = live.window
        assert window is not None
        if window.closing:  # a close rule fired; like any late answer, it is not logged
            return self._refuse(live.id, WINDOW_CLOSED, seat, window.step)
        request, at = window.requests[seat], self._matches.clock()
        if REDELIVERED.get() and (standing := self._standing(live, seat, raw)) is not None:
            return standing
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
            saved = await self._matches.store.add_attempt(attempt)
        except WriteFailed as error:
            log.warning("match %d: an answer could not be saved: %s", live.id, error)
            return self._refuse(live.id, NOT_SAVED, seat, window.step)
        if not saved:
            return self._refuse(live.id, WINDOW_CLOSED, seat, window.step)
        window.moves[seat] = judged.move
        self._matches.stats.submissions += 1
        if request.close == "each":  # resolved alone; the other seats may answer meanwhile
            self._windows.spawn_due(live.id, window.step, "each")
        elif not window.complete and closes_early(live.game, live.state, request, window.moves):
            window.closing = True
            self._windows.spawn_due(live.id, window.step, request.close)
        elif window.complete:
            self._windows.spawn_due(live.id, window.step, "all_in")
        return SubmitResult(
            True, judged.text, live.id, seat, window.step, request.occasion, request.revisable
        )

    @staticmethod
    def _standing(live: Live, seat: int, raw: str) -> SubmitResult | None:
        """The acknowledgement of ``raw`` if it is the seat's standing move (REDELIVERED)."""
        window = live.window
        assert window is not None
        if seat not in window.moves:
            return None
        again = live.game.submit(live.state, seat, raw)
        if not isinstance(again, Accepted) or again.move != window.moves[seat]:
            return None
        request = window.requests[seat]
        return SubmitResult(
            True, again.summary, live.id, seat, window.step, request.occasion, request.revisable
        )

    async def _log_refusal(self, attempt: Attempt) -> None:
        """Keep a refused attempt for the export; the refusal stands even if it cannot be kept."""
        try:
            await self._matches.store.add_attempt(attempt)
        except WriteFailed as error:
            log.warning(
                "match %d: a refused attempt could not be logged: %s", attempt.match_id, error
            )

    @staticmethod
    def _submit_refusal(live: Live, seat: int | None, step: int | None) -> str | None:
        match_id, status = live.id, live.record.status
        if seat is None:
            return f"You are not a player in match {match_id}."
        if status in ("setup", "revealed"):
            return f"Match {match_id} has not started yet."
        if status == "paused":
            return f"Match {match_id} is paused; wait for a moderator to resume it."
        window = live.window
        if window is None or seat not in window.prompted_seats():
            return f"Nothing is asked of you right now in match {match_id}."
        if step is not None and not window.prompt_is_current(seat, step):
            return "That prompt has expired; answer the current one."
        return None

    async def _not_live_reason(self, match_id: int) -> str:
        record = await self._matches.store.get_match(match_id)
        if record is None:
            return f"There is no match {match_id}."
        return f"Match {match_id} is over ({record.status})."

    def _refuse(
        self, match_id: int, reason: str, seat: int | None = None, step: int | None = None
    ) -> SubmitResult:
        self._matches.stats.refused += 1
        return SubmitResult(False, reason, match_id, seat, step)

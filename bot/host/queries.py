"""What the host tells about a match without changing it: status, a seat's view, open prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.host.matches import Matches
from bot.host.model import HostError, Live, MatchStatusView, OpenPrompt, WindowStatus
from bot.store import ACTIVE_STATUSES, MatchRecord
from games.protocol import JSON, Game, Verdict

VIEWED_MAX = 64  # matches of other processes read for their prompts, kept for their verdicts


class Queries:
    def __init__(self, matches: Matches) -> None:
        self._matches = matches
        # matches another process hosts, as last read (``viewed_prompts``): read-only
        self._viewed: dict[int, Live] = {}

    async def status(self, match_id: int) -> MatchStatusView:
        live = self._matches.live.get(match_id)
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
        game, state, seat = await self._seat_state(match_id, user_id)
        return game.view(state, seat)

    async def describe(self, match_id: int, user_id: int) -> str:
        game, state, seat = await self._seat_state(match_id, user_id)
        return game.describe(state, seat)

    def would_accept(self, match_id: int, user_id: int, raw: str) -> Verdict | None:
        """The engine's verdict on ``raw`` as this player's answer to their open prompt, without
        submitting it (``submit`` never changes a state); None when nothing is asked of them."""
        live = self._matches.live.get(match_id) or self._viewed.get(match_id)
        seat = None if live is None else live.seat_of(user_id)
        if live is None or seat is None or live.window is None:
            return None
        if seat not in live.window.prompted_seats():
            return None
        return live.game.submit(live.state, seat, raw)

    async def list_matches(self, guild_id: int | None, active_only: bool) -> list[MatchRecord]:
        statuses = ACTIVE_STATUSES if active_only else None
        return await self._matches.store.list_matches(guild_id, statuses)

    def prompts_for(self, user_id: int) -> list[OpenPrompt]:
        found = (_open_prompt(live, user_id) for live in self._matches.live.values())
        return [prompt for prompt in found if prompt is not None]

    async def viewed_prompts(self, user_id: int, match_ids: Sequence[int]) -> list[OpenPrompt]:
        """The user's open prompts in these matches of other processes, read from the store
        (nothing is cached for hosting: ``would_accept`` judges against what was read)."""
        found = []
        for match_id in match_ids:
            if match_id in self._matches.live:
                continue
            record = await self._matches.store.get_match(match_id)
            if record is None or record.status != "running":
                continue
            live = await self._matches.load(record)
            self._viewed.pop(match_id, None)
            self._viewed[match_id] = live
            while len(self._viewed) > VIEWED_MAX:
                self._viewed.pop(next(iter(self._viewed)))
            prompt = _open_prompt(live, user_id)
            if prompt is not None:
                found.append(prompt)
        return found

    async def _seat_state(self, match_id: int, user_id: int) -> tuple[Game[Any], Any, int]:
        live = self._matches.live.get(match_id)
        record, game, state = (
            (live.record, live.game, live.state) if live else await self._stored(match_id)
        )
        if user_id not in record.players:
            raise HostError(f"You are not a player in match {match_id}.")
        return game, state, record.players.index(user_id)

    def _window_status(self, live: Live | None) -> WindowStatus | None:
        if live is None or live.window is None:
            return None
        window = live.window
        paused = window.remaining is not None
        left = (
            window.remaining
            if window.remaining is not None
            else window.deadline - self._matches.clock()
        )
        return WindowStatus(
            window.step,
            () if window.anonymous else tuple(window.prompted_seats()),
            () if window.anonymous else tuple(sorted(window.moves)),
            window.deadline,
            max(0.0, left),
            paused,
        )

    async def _stored(self, match_id: int) -> tuple[MatchRecord, Game[Any], Any]:
        record = await self._matches.record(match_id)
        game = self._matches.game(record.game)
        step = await self._matches.store.latest_step(match_id)
        return record, game, game.load(step.snapshot)


def _open_prompt(live: Live, user_id: int) -> OpenPrompt | None:
    """The user's open request in a running match, if any."""
    seat, window = live.seat_of(user_id), live.window
    if seat is None or window is None or seat not in window.prompted_seats():
        return None
    if live.record.status != "running":
        return None
    return OpenPrompt(
        live.id,
        window.step,
        window.requests[seat],
        window.deadline,
        seat in window.moves,
        window.prompt_step(seat),
    )

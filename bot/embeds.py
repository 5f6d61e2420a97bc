"""The embed beside a match post or a prompt: the game's colour, a field per player, the open
window's deadline as a Discord timestamp (it counts down on its own), and the game and match in
the footer. The message's text is unchanged and stays its content, so a screen reader reads it
as before; the embed is the card at a glance.

Built from what the store knows of the match (its game and players, read once per match) and
the message's payload (its deadline; the end post's winners).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import discord

from bot.store import Store
from bot.transport import Delivery
from games import registry

log = logging.getLogger(__name__)

# one colour per game, chosen by its name: readable on Discord's light and dark themes
PALETTE = (0x2E7D6B, 0x8E44AD, 0xC0392B, 0x2471A3, 0xD68910, 0x117A65, 0xA93226, 0x5D6D7E)
NAME_LIMIT, FOOTER_LIMIT, TOTAL_LIMIT, FIELDS = 256, 2048, 6000, 25
DEADLINE_CHARS = 40  # the deadline field's name and value
LINE_LIMIT = 100  # a seat's field value: its public line, kept short
MATCHES_KEPT = 1024


def game_colour(game: str) -> int:
    """The colour the game declares, else one chosen by its name (stable everywhere)."""
    try:
        declared = registry.load(game).colour
    except KeyError:
        declared = None
    if declared is not None:
        return declared
    return PALETTE[hashlib.sha256(game.encode()).digest()[0] % len(PALETTE)]


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class MatchFacts:
    match_id: int
    game: str
    title: str
    names: tuple[str, ...]


def card(
    facts: MatchFacts,
    *,
    deadline: float | None = None,
    winners: Sequence[int] | None = None,
    players: bool = True,
    lines: Sequence[str] | None = None,
) -> discord.Embed:
    """The card of one message of a match: within Discord's limits whatever the names.
    ``lines``: each seat's public line (the game's ``public_lines``)."""
    embed = discord.Embed(colour=game_colour(facts.game))
    footer = clip(f"{facts.title} · match m{facts.match_id}", FOOTER_LIMIT)
    seats = list(enumerate(facts.names[: FIELDS - 1])) if players else []
    values = [
        clip(
            " · ".join(
                [f"P{seat + 1}"]
                + ([lines[seat]] if lines is not None and seat < len(lines) else [])
                + (["🏆 wins"] if winners is not None and seat in winners else [])
            ),
            LINE_LIMIT,
        )
        for seat, _ in seats
    ]
    # Discord's 6,000 characters in all: long names share what the rest leaves
    left = TOTAL_LIMIT - len(footer) - DEADLINE_CHARS - sum(map(len, values))
    name_limit = max(1, min(NAME_LIMIT, left // max(1, len(seats))))
    for (seat, name), value in zip(seats, values, strict=True):
        embed.add_field(name=clip(name or f"P{seat + 1}", name_limit), value=value)
    if deadline is not None:
        embed.add_field(name="⏳ Closes", value=f"<t:{int(deadline)}:R>", inline=False)
    embed.set_footer(text=footer)
    return embed


class MatchCards:
    """The card of each delivery that is a match post or a prompt (None for the rest)."""

    def __init__(self, store: Callable[[], Store | None]) -> None:
        self._store = store
        self._facts: dict[int, MatchFacts] = {}

    async def __call__(self, delivery: Delivery) -> discord.Embed | None:
        payload = delivery.payload
        if payload.get("kind") not in ("start", "turn") or delivery.audience.kind != "public":
            return None  # hellos, notices, reminders, a seat's DMs: text only
        facts = await self._match(delivery.match_id)
        if facts is None:
            return None
        deadline = payload.get("deadline")
        winners = await self._winners(delivery.match_id) if payload.get("over") else None
        return card(
            facts,
            deadline=float(deadline) if isinstance(deadline, int | float) else None,
            winners=winners,
            lines=await self._lines(facts, payload.get("step")),
        )

    async def _lines(self, facts: MatchFacts, step: object) -> list[str] | None:
        """Each seat's public line after ``step``, when the game gives them and that step is
        still the latest (a post sent late shows the names only, never a later state)."""
        store = self._store()
        try:
            info = registry.load(facts.game)
        except KeyError:
            return None
        if store is None or info.public_lines is None:
            return None
        latest = await store.latest_step(facts.match_id)
        if latest.step != step:
            return None
        game = info.game
        return [
            str(line) for line in info.public_lines(game.view(game.load(latest.snapshot), None))
        ]

    async def _winners(self, match_id: int) -> list[int] | None:
        """The end post's winners, as the finished match's stored outcome names them."""
        store = self._store()
        record = None if store is None else await store.get_match(match_id)
        outcome = None if record is None else record.outcome
        found = outcome.get("winners") if isinstance(outcome, dict) else None
        return [int(s) for s in found] if isinstance(found, list) else None

    async def _match(self, match_id: int) -> MatchFacts | None:
        facts = self._facts.get(match_id)
        if facts is not None:
            return facts
        store = self._store()
        record = None if store is None else await store.get_match(match_id)
        if record is None:
            return None
        try:
            title = registry.load(record.game).title
        except KeyError:
            title = record.game
        facts = MatchFacts(match_id, record.game, title, record.names)
        if len(self._facts) >= MATCHES_KEPT:
            self._facts.pop(next(iter(self._facts)))
        self._facts[match_id] = facts
        return facts

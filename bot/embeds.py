"""The seats' card beside a turn or phase post (the start, the end, the first post of a new
turn): the game's colour, a field per seat with its public line, the open window's deadline as
a Discord timestamp (it counts down on its own), and the game and match in the footer. The
message's text is unchanged and stays its content, so a screen reader reads it as before; the
embed is the card at a glance. Every other message is text alone.

Built from the message's payload (the seats' lines as the host composed them at that step, the
winners, the deadline) and the match's game, read from the store once per match.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import discord

from bot.store import Store
from bot.transport import Delivery, seat_line
from games import registry
from games.protocol import JSON

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


def card(
    facts: MatchFacts, seats: Sequence[Mapping[str, JSON]], deadline: float | None = None
) -> discord.Embed:
    """The seats' card of a turn or phase post: a field per seat (``seat_line``: its public
    line, the winners marked), the window's deadline, within Discord's limits whatever the
    names."""
    embed = discord.Embed(colour=game_colour(facts.game))
    footer = clip(f"{facts.title} · match m{facts.match_id}", FOOTER_LIMIT)
    shown = list(enumerate(seats[: FIELDS - 1]))
    values = [clip(seat_line(seat, entry), LINE_LIMIT) for seat, entry in shown]
    # Discord's 6,000 characters in all: long names share what the rest leaves
    left = TOTAL_LIMIT - len(footer) - DEADLINE_CHARS - sum(map(len, values))
    name_limit = max(1, min(NAME_LIMIT, left // max(1, len(shown))))
    for (seat, entry), value in zip(shown, values, strict=True):
        name = str(entry.get("name") or f"P{seat + 1}")
        embed.add_field(name=clip(name, name_limit), value=value)
    if deadline is not None:
        embed.add_field(name="⏳ Closes", value=f"<t:{int(deadline)}:R>", inline=False)
    embed.set_footer(text=footer)
    return embed


class MatchCards:
    """The card of each public post that shows the seats (the host marks them: ``seats`` in
    the payload, on turn and phase posts only); None for every other message."""

    def __init__(self, store: Callable[[], Store | None]) -> None:
        self._store = store
        self._facts: dict[int, MatchFacts] = {}

    async def __call__(self, delivery: Delivery) -> discord.Embed | None:
        payload = delivery.payload
        seats = payload.get("seats")
        if delivery.audience.kind != "public" or not isinstance(seats, list):
            return None  # a post in the middle of a turn, hellos, notices, DMs: text only
        facts = await self._match(delivery.match_id)
        if facts is None:
            return None
        deadline = payload.get("deadline")
        return card(facts, seats, float(deadline) if isinstance(deadline, int | float) else None)

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
        facts = MatchFacts(match_id, record.game, title)
        if len(self._facts) >= MATCHES_KEPT:
            self._facts.pop(next(iter(self._facts)))
        self._facts[match_id] = facts
        return facts

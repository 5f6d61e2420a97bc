"""Practice matches: a player alone against the built-in AI players, in their DMs, with no
moderator. A practice match is an ordinary match (stored, logged, resumed after a restart,
timers included) whose other seats are AI players: their user ids are small numbers no Discord
user has (below ``AI_USER_LIMIT``), their names say their level (``AI 1 (normal)``), and the
host's messages to them go to the AI instead of Discord. A practice offers every game's shared
AI levels, ``easy``, ``normal`` (the default) and ``hard``. It is never rated (``practice``),
and a player has one at a time: starts are made one after another, so starts at once make one.
A finished practice may be played again (``again``) once: the new practice claims it as its
rematch.

On a restart each AI player is rebuilt knowing what its seat was told (the log replayed, as
``simulate`` resumes), and answers the prompt it was waiting on.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass

from bot.games import load_game_info
from bot.host import Host, HostError
from bot.simulate import AgentPlayer, answer_open, deliver_to, remember, stop_players
from bot.store import ACTIVE_STATUSES, MatchRecord, Store
from bot.transport import Delivery, Transport
from games import registry
from games.protocol import derive_rng
from games.registry import GameInfo
from games.text import names_text

log = logging.getLogger(__name__)

AI_USER_LIMIT = 1_000  # Discord's user ids are snowflakes, far larger than any of these
AI_NAME = re.compile(r"^AI (\d+) \(([\w-]+)\)$")
THINK_S = (1.0, 4.0)  # an AI answers after a pause like this (at most a third of the window)
# the levels a practice offers, every game's (shared contract: its AGENTS keys), in order
LEVELS = {
    "easy": "random-ish: legal moves with a little sense",
    "normal": "a fair fight for someone who knows the rules (the default)",
    "hard": "the strongest AI",
}
DEFAULT_LEVEL = "normal"


def practice_levels(info: GameInfo) -> list[str]:
    """The levels a practice of this game offers: easy, normal and hard, as far as the game
    has them (else its own AI levels)."""
    return [level for level in LEVELS if level in info.agents] or list(info.agents)


def default_level(info: GameInfo) -> str:
    return DEFAULT_LEVEL if DEFAULT_LEVEL in info.agents else info.default_agent


def is_ai(user_id: int | None) -> bool:
    return user_id is not None and 0 < user_id < AI_USER_LIMIT


def ai_name(number: int, level: str) -> str:
    return f"AI {number} ({level})"


def ai_level(name: str) -> str | None:
    found = AI_NAME.match(name)
    return found[2] if found else None


@dataclass(frozen=True, slots=True)
class PracticeSetup:
    """A practice as asked: the game, the AI level, how many AI opponents."""

    info: GameInfo
    level: str
    opponents: int


def practice_again(record: MatchRecord, user_id: int) -> PracticeSetup:
    """The practice ``record`` was, asked again by its player; HostError in one line if it is
    not ``user_id``'s finished practice."""
    if not record.practice or not record.players or record.players[0] != user_id:
        raise HostError(f"Match m{record.id} is not your practice.")
    if record.status in ACTIVE_STATUSES:
        raise HostError(f"Your practice m{record.id} is not over yet.")
    levels = [ai_level(name) for name in record.names[1:]]
    return practice_setup(record.game, levels[0] if levels else None, len(record.names) - 1)


def practice_setup(game: str, level: str | None, opponents: int | None) -> PracticeSetup:
    """The practice asked for, checked; HostError in one line otherwise."""
    try:
        info = registry.get(game)  # a registered game only: never a module a user names
    except KeyError as error:
        raise HostError(f"{error.args[0]}.") from None
    level = level or default_level(info)
    if level not in info.agents:
        levels = names_text(practice_levels(info)).replace(" and ", " or ")
        raise HostError(f"{info.title} has no AI level {level[:40]!r}; choose {levels}.")
    low, high = info.game.min_seats - 1, info.game.max_seats - 1
    count = low if opponents is None else opponents
    if not low <= count <= high:
        span = str(low) if low == high else f"{low} to {high}"
        raise HostError(f"{info.title} takes {span} AI opponents, not {count}.")
    return PracticeSetup(info, level, count)


class Practice:
    """The AI players of every practice match, and the transport that feeds them."""

    def __init__(self) -> None:
        self.host: Host | None = None
        self.players: dict[int, list[AgentPlayer]] = {}
        self.stopped = False  # set by stop: no prompt starts an answer while the host closes
        self._starting = asyncio.Lock()  # one check-then-create at a time: one practice each

    def transport(self, inner: Transport) -> PracticeTransport:
        return PracticeTransport(inner, self)

    # --- starting ---------------------------------------------------------------------------

    async def start(
        self,
        asked: PracticeSetup,
        user_id: int,
        name: str,
        channel_id: int,
        again: int | None = None,
    ) -> MatchRecord:
        """Create and start a practice match of ``user_id`` (seat 0) against AI players, played
        in ``channel_id`` (their DMs); HostError if they already have one running. ``again``:
        the finished practice this one plays again (once: HostError if it was)."""
        host = self._host()
        async with self._starting:
            mine = [
                r
                for r in await host.list_matches(active_only=True)
                if r.practice and user_id in r.players
            ]
            if mine:
                raise HostError(
                    f"You already have a practice match, m{mine[0].id}: finish it first"
                    " (or leave it with `/match leave`)."
                )
            seats = asked.opponents + 1
            record = await host.create_match(
                asked.info.name,
                guild_id=0,
                channel_id=channel_id,
                players=[user_id, *range(1, seats)],
                names=[name, *(ai_name(seat, asked.level) for seat in range(1, seats))],
                moderators=[user_id],
                practice=True,
                rematch_of=again,
            )
        self.players[record.id] = self._ai_players(record)
        log.info("practice match %d of %s started: %s", record.id, user_id, asked.info.name)
        return await host.start_match(record.id, by=user_id)

    async def resume(self, store: Store) -> None:
        """Before the host starts: an AI player for each AI seat of every unfinished practice,
        knowing what its seat was told."""
        for record in await store.list_matches(statuses=ACTIVE_STATUSES):
            if not any(is_ai(user) for user in record.players):
                continue
            players = self._ai_players(record)
            await remember(players, store, record)
            self.players[record.id] = players

    def answer_open_windows(self) -> None:
        """After the host started: the prompts sent before a restart are answered now."""
        for match_id, players in self.players.items():
            answer_open(self._host(), match_id, players)

    async def stop(self) -> None:
        self.stopped = True
        await stop_players(self.players.values())

    def _ai_players(self, record: MatchRecord) -> list[AgentPlayer]:
        info = load_game_info(record.game)
        window = record.window_s or float(info.timers.get("turn", 60.0))
        low, high = THINK_S[0], max(THINK_S[0], min(THINK_S[1], window / 3))
        players = []
        for seat, (user_id, name) in enumerate(zip(record.players, record.names, strict=True)):
            if not is_ai(user_id):
                continue
            level = ai_level(name) or info.default_agent
            agent = info.agents.get(level, info.agents[info.default_agent])
            players.append(
                AgentPlayer(
                    self._host(),
                    record.id,
                    seat,
                    user_id,
                    agent(seat, derive_rng(record.seed, "practice-agent", seat)),
                    derive_rng(record.seed, "practice-timing", seat),
                    lambda rng: rng.uniform(low, high),
                    0.0,
                    log.debug,
                )
            )
        return players

    def _host(self) -> Host:
        assert self.host is not None, "Practice.host is set when the host is built"
        return self.host

    def route(self, delivery: Delivery) -> None:
        """Tell each AI player of the match what its seat sees; hand it its prompts."""
        if not self.stopped:
            deliver_to(self.players.get(delivery.match_id, []), delivery)


class PracticeTransport:
    """The bot's transport: every message goes to Discord but an AI seat's, which its AI
    player gets instead; the AI players of a practice also see its public posts."""

    def __init__(self, inner: Transport, practice: Practice) -> None:
        self.inner = inner
        self.practice = practice

    async def send(self, delivery: Delivery) -> float | None:
        self.practice.route(delivery)
        if delivery.audience.kind == "seat" and is_ai(delivery.user_id):
            return None
        return await self.inner.send(delivery)

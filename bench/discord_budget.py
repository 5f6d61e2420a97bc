"""How many matches one bot token carries: Discord requests per match, per game and seat count.

Discord allows a bot 50 requests a second for the whole token (interaction answers aside), so
the REST requests a match makes per minute set how many matches one bot can run at once. Each
run plays ``--matches`` concurrent matches of one game and seat count through the real host,
store (SQLite), outbox and ``DiscordTransport`` (with the prompts' real buttons and the posts'
cards), over a discord.py client whose HTTP answers locally and counts each request; the whole
run is on virtual time (``tests.virtual_time``), so an hour of play takes the seconds its work
takes, and a seed gives the same counts.

Two ways to play, each match with the games' own window lengths and reminders:
``paced``   each AI player answers each prompt a uniform 0-20 s after it reached them (a button:
            an interaction answer, which Discord does not count against the budget);
``timeout`` nobody answers: every window runs to its deadline (reminders and defaults).

Counted: ``dm_open`` (a DM channel opened), ``dm`` (DM posts), ``post`` (match channel posts),
``log`` (moderator log channel posts), ``edit`` (message edits), ``other``; ``answers`` is the
players' answers, each of which costs one request more when typed in a DM (the bot's reply);
``replies`` the answers whose reply carried the seat's next messages (``cogs.prompts.send_next``:
free for a button, the same one reply for a typed answer), which then needed no DM.

Printed (JSON), per game and seat count and way of playing: ``requests_per_match`` and
``per_match_minute`` without the log channel, and the ceiling ``matches_per_token`` (50 req/s
over the per-match-minute rate); ``above_floor``: how far those requests are above the floor
(``floor``: a DM a window prompt, a post a game turn, a DM channel a player; below 0 when the
answers' replies carried prompts); ``with_log_typed``: the same with the log channel and typed
answers, every match of the bot in one server (one log channel: Discord takes 5 posts per 5 s
there, so the matches' log entries share posts, ``bot.outbox.ChannelPace``; the sample gets its
share of them, ``--matches`` / ``--concurrent``); ``with_log_typed_own_server``: the same, each
match in a server of its own (each log entry a post: ``log_entries``);
``minutes_per_match``; ``windows_per_match``; and the counts.

``bench/baselines/discord_budget_before.json`` is the run on the code before issue 20,
``discord_budget_after.json`` after it.

The floors with the log channel and typed answers (issue 20's goal: >= 100 matches a token).
A typed answer costs its reply; a window prompts each seat it asks by DM unless the reply to
that seat's last answer carries the prompt; the channel gets a post and the log a digest a game
turn (Flaky Flasks's turn: a phase of its round; its seats get one DM prompt a rules window at
most, the next commands of a work window or a market turn riding the replies). A Warlock's Brew
turn is an auction every seat bids in: at s seats it costs at least 2s requests (s replies;
s - 1 DM prompts, since only the last bid's reply can carry its seat's next prompt, the others
having been sent already, and the next lot is only drawn once the auction closes; a post), and
the log's digest one more in a server of its own; paced bids close it after 20 x s/(s+1)
seconds on average. At 4 seats that is 8 requests each 16 s, 30 a match-minute: at most 100
matches a token with no log at all, before the DM channels, the hellos and the first prompts
(94 measured: 190.4 requests in 6.0 minutes); 92 with the log channel of one server, whose
posts the matches share, 85 with a log channel a match. 100 needs fewer than 8 requests an
auction: not reachable while every typed bid gets its reply, every seat its prompt in its DMs
and the channel its post an auction. 3 seats: 6 each 15 s, at most 125 (115 measured with
the log of one server, 103 with one a match); 2 seats: 4 each 13.3 s (152 and 128).
With a deal window (``--options '{"deal_window": 30}'``) the log's digest of an auction and
its deal window is one (``bench/baselines/discord_budget_brew_deals.json``: 4 seats, 71 -> 83).

The DM channel cache: a sample of ``--matches`` matches stands for ``--concurrent`` matches on
one bot, so discord.py's cache of 128 DM channels is scaled to 128 x matches / concurrent: DM
channels then leave it after the same time as on the full bot (the cache holds the same
seconds of DMs). ``--concurrent 0`` keeps the full 128 (a small bot).

Usage: python bench/discord_budget.py [--games floral-extract,potioncraft] [--seats 2,3]
       [--modes paced,timeout] [--matches 24] [--concurrent 150] [--seed 1]
       [--options '{"deal_window": 30}'] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import itertools
import json
import math
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
import discord.http
from discord.state import ConnectionState

from bot.database import open_store
from bot.discord_transport import DiscordTransport
from bot.games import load_game_info
from bot.history import replay
from bot.host import Host, SubmitResult
from bot.host.notices import public_turn
from bot.outbox import CHANNEL_PER_S, CHANNEL_POSTS, ChannelPace, is_window_prompt
from bot.simulate import AgentPlayer, SimulatedPlayers
from bot.store import MatchRecord, StepRecord
from bot.transport import Delivery
from cogs.common import ack_text
from cogs.prompts import prompt_view
from games.protocol import derive_rng
from tests import virtual_time

GAMES: dict[str, tuple[int, ...]] = {
    "floral-extract": (2,),
    "warlocks-brew": (2, 3, 4),
    "potioncraft": (2, 3, 4),
    "red-phoenix": (2, 3, 4),
    "flaky-flasks": (2, 3, 4),
}
BUDGET_PER_S = 50.0  # Discord's global limit per bot token
DM_CACHE = 128  # the DM channels discord.py keeps (ConnectionState._add_private_channel)
ANSWER_S = 20.0  # a paced answer comes a uniform 0 to this many seconds after its prompt
EPOCH = 1_800_000_000.0  # the virtual clock's start (a fixed date: the same run every time)
GUILD, LOG_CHANNEL, FIRST_CHANNEL, FIRST_USER = 1, 2, 1_000, 10_000_000
BOT_USER = 999


class CountingHttp:
    """Discord's REST API answered locally, each request counted by what it is."""

    def __init__(self, log_channel: int) -> None:
        self.counts: Counter[str] = Counter()
        self._log_channel = log_channel
        self._next_id = 10**15
        self._dm_channels: dict[int, int] = {}  # DM channel id -> its user

    def snowflake(self) -> int:
        self._next_id += 1
        return self._next_id

    async def request(self, route: discord.http.Route, **kwargs: Any) -> Any:
        method, path = route.method, route.path
        if method == "POST" and path == "/users/@me/channels":
            self.counts["dm_open"] += 1
            user_id = int(kwargs["json"]["recipient_id"])
            channel_id = self.snowflake()
            self._dm_channels[channel_id] = user_id
            return {"id": str(channel_id), "type": 1, "recipients": [user(user_id)]}
        channel_id = int(route.channel_id or 0)
        if method == "POST" and path == "/channels/{channel_id}/messages":
            if channel_id in self._dm_channels:
                self.counts["dm"] += 1
            elif channel_id == self._log_channel:
                self.counts["log"] += 1
            else:
                self.counts["post"] += 1
            return self.message(channel_id)
        if method == "PATCH" and path == "/channels/{channel_id}/messages/{message_id}":
            self.counts["edit"] += 1
            return self.message(channel_id)
        self.counts["other"] += 1
        raise AssertionError(f"the bench does not expect {method} {path}")

    def message(self, channel_id: int) -> dict[str, Any]:
        return {
            "id": str(self.snowflake()),
            "channel_id": str(channel_id),
            "type": 0,
            "content": "",
            "author": user(BOT_USER, bot=True),
            "timestamp": "2027-01-15T08:00:00+00:00",
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "flags": 0,
            "components": [],
        }


def user(user_id: int, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": f"u{user_id}",
        "discriminator": "0",
        "avatar": None,
        "global_name": None,
        "bot": bot,
    }


def counting_client(http: CountingHttp, dm_cache: int) -> discord.Client:
    """A discord.py client, not connected, whose REST calls go to ``http``; its DM channel cache
    holds ``dm_cache`` channels, first in first out, as discord.py's holds 128."""
    client = discord.Client(intents=discord.Intents.none())
    state: ConnectionState = client._connection
    state.http.request = http.request  # type: ignore[method-assign]
    state.user = discord.ClientUser(
        state=state, data={**user(BOT_USER, bot=True), "verified": True, "mfa_enabled": False}
    )

    def add_private_channel(channel: Any) -> None:  # discord.py's, with its 128 scaled
        state._private_channels[channel.id] = channel
        if len(state._private_channels) > dm_cache:
            _, dropped = state._private_channels.popitem(last=False)
            if isinstance(dropped, discord.DMChannel) and dropped.recipient:
                state._private_channels_by_user.pop(dropped.recipient.id, None)
        if isinstance(channel, discord.DMChannel) and channel.recipient:
            state._private_channels_by_user[channel.recipient.id] = channel

    state._add_private_channel = add_private_channel  # type: ignore[method-assign]
    return client


@dataclass
class Replies:
    """How the players' answers are acknowledged, as the bot's prompts cog does: a reply that
    carries the seat's next messages when they come at once (``cogs.prompts.send_next``)."""

    transport: DiscordTransport
    players: SimulatedPlayers
    counts: Counter[str]


@dataclass
class ReplyingPlayer(AgentPlayer):
    """An AI seat answering as a person does on Discord: by button (the reply, an interaction
    answer, costs none of the bot's requests) or typed (one reply a answer, counted apart)."""

    replies: Replies | None = None

    async def _submit(self, raw: str, step: int) -> SubmitResult:
        result = await self.host.submit(self.match_id, self.user_id, raw, step=step, reply=True)
        replies = self.replies
        assert replies is not None
        handover = await self.host.reply_messages(result)
        if handover is None:
            return result
        reply = await replies.transport.reply(ack_text(result), handover.deliveries)
        if reply is None:
            await handover.done(False)
            return result
        replies.counts["replies"] += 1
        await handover.done(True)
        for delivery in handover.deliveries:
            replies.players.route(delivery)
        return result


class BudgetTransport:
    """The Discord transport, then the AI players of the match see what it delivered."""

    def __init__(
        self, discord_transport: DiscordTransport, players: SimulatedPlayers, counts: Counter[str]
    ) -> None:
        self.inner = discord_transport
        self.players = players
        self.counts = counts

    async def send(self, delivery: Delivery) -> None:
        await self.inner.send(delivery)
        if delivery.audience.kind == "moderators":  # the matches' log entries in that post
            self.counts["log_entries"] += 1 + len(delivery.also)
        for entry in (delivery, *delivery.also):
            self.players.route(entry)


def log_channel(delivery: Delivery) -> int | None:
    return LOG_CHANNEL if delivery.audience.kind == "moderators" else None


async def no_picture(delivery: Delivery) -> None:
    return None  # a picture rides on its message: no request more, only rendering time


async def play(
    game: str,
    seats: int,
    mode: str,
    matches: int,
    dm_cache: int,
    seed: int,
    folder: Path,
    options: dict[str, Any] | None = None,
    pace: ChannelPace | None = None,
) -> dict[str, Any]:
    """One run: ``matches`` concurrent matches to their end; the counts and rates."""
    clock = virtual_time.epoch_clock(EPOCH)
    store = await open_store(folder / f"{game}-{seats}-{mode}.db")
    http = CountingHttp(LOG_CHANNEL)
    client = counting_client(http, dm_cache)
    players = SimulatedPlayers(io.StringIO(), quiet=True)
    # wired as FloralBot wires it: the transport finds the store through the client's host
    transport = DiscordTransport(client, prompt_view, lambda delivery: LOG_CHANNEL, no_picture)
    host = Host(
        store,
        BudgetTransport(transport, players, http.counts),
        clock=clock,
        timers=virtual_time.LoopTimers(clock),
        shared_channel=log_channel,  # (each match has a channel of its own here)
        pace=pace,
    )
    client.host = host  # type: ignore[attr-defined]
    await host.start()
    seeds = random.Random(f"{seed}:{game}:{seats}")
    ids = []
    for index in range(matches):
        record = await new_match(host, game, seats, index, seeds.getrandbits(48), options)
        if mode == "paced":
            users = list(record.players)
            replies = Replies(transport, players, http.counts)
            players.players[record.id] = agents(game, record.seed, record.id, users, host, replies)
        ids.append(record.id)
    started: dict[int, float] = {}
    ended: dict[int, float] = {}

    async def run_match(match_id: int, offset: float) -> None:
        await asyncio.sleep(offset)  # people start their matches spread over a minute
        started[match_id] = clock()
        await host.start_match(match_id)
        await host.wait_over(match_id)
        ended[match_id] = clock()

    await asyncio.gather(*(run_match(m, 60.0 * i / matches) for i, m in enumerate(ids)))
    await host.wait_idle()
    windows = host.stats.turns
    answers = host.stats.submissions + host.stats.refused
    floor = await floors(host, ids)
    await players.stop()
    await host.close()
    await client.close()
    minutes = sum(ended[m] - started[m] for m in ids) / 60
    return figures(http.counts, answers, windows, matches, minutes, floor)


async def floors(host: Host, ids: list[int]) -> Counter[str]:
    """What the matches cannot do without: a DM a window prompt, a post a game turn (the
    turns the public view's ``turn`` went through, the match replayed) and a DM channel a
    player."""
    floor: Counter[str] = Counter()
    for match_id in ids:
        status = await host.status(match_id)
        floor["turns"] += turns_of(host, status.match, await host.store.steps(match_id))
        floor["players"] += len(status.match.players)
        for row in await host.store.outbox(match_id):
            floor["prompts"] += is_window_prompt(row)
    return floor


def turns_of(host: Host, record: MatchRecord, steps: list[StepRecord]) -> int:
    """The match's turns: the first, and each time the public view's ``turn`` changed (each
    game numbers its turns its own way)."""
    game = host.game(record.game)
    turns = [public_turn(game.view(state, None)) for _, state, _ in replay(game, record, steps)]
    return 1 + sum(after != before for before, after in itertools.pairwise(turns))


async def new_match(
    host: Host, game: str, seats: int, index: int, seed: int, options: dict[str, Any] | None
) -> MatchRecord:
    first = FIRST_USER + 10 * index
    record = await host.create_match(
        game,
        guild_id=GUILD,
        channel_id=FIRST_CHANNEL + index,
        players=[first + seat for seat in range(seats)],
        names=[f"player{seat + 1}" for seat in range(seats)],
        moderators=(BOT_USER + 1,),
        seed=seed,
        config=options,
    )
    return record


def agents(
    game: str, record_seed: int, match_id: int, users: list[int], host: Host, replies: Replies
) -> list[AgentPlayer]:
    """The match's AI players at the game's default level, each answering a uniform 0 to
    ``ANSWER_S`` seconds after its prompt reached it."""
    info = load_game_info(game)
    factory = info.agents[info.default_agent]
    return [
        ReplyingPlayer(
            host,
            match_id,
            seat,
            user_id,
            factory(seat, derive_rng(record_seed, "agent", seat)),
            derive_rng(record_seed, "timing", seat),
            lambda rng: rng.uniform(0, ANSWER_S),
            0.0,
            lambda line: None,
            replies=replies,
        )
        for seat, user_id in enumerate(users)
    ]


def figures(
    counts: Counter[str],
    answers: int,
    windows: int,
    matches: int,
    minutes: float,
    floor: Counter[str],
) -> dict[str, Any]:
    """Requests per match and per match-minute, and the matches one token carries at once:
    without the log channel (answers by button), and with it and typed answers; and how far
    above its floor (a DM a prompt, a post a turn, a DM channel a player) the first is."""
    base = sum(counts[k] for k in ("dm_open", "dm", "post", "edit", "other"))  # not "replies"

    def rates(requests: int) -> dict[str, float]:
        per_minute = requests / max(minutes, 1e-9)
        return {
            "requests_per_match": round(requests / matches, 1),
            "per_match_minute": round(per_minute, 3),
            "matches_per_token": math.floor(BUDGET_PER_S * 60 / max(per_minute, 1e-9)),
        }

    lowest = floor["prompts"] + floor["turns"] + floor["players"]
    return {
        **rates(base),
        "above_floor": round(base / max(1, lowest) - 1, 3),
        "with_log_typed": rates(base + counts["log"] + answers),
        "with_log_typed_own_server": rates(base + counts["log_entries"] + answers),
        "minutes_per_match": round(minutes / matches, 1),
        "windows_per_match": round(windows / matches, 1),
        "counts": {**dict(sorted(counts.items())), "answers": answers},
        "floor": dict(sorted(floor.items())),
    }


def scaled_pace(matches: int, concurrent: int) -> ChannelPace:
    """The log channel's posts (``bot.outbox.ChannelPace``'s 4 per 5.5 s), scaled to the
    share of a full bot the sample is: all of its ``concurrent`` matches in one server."""
    if concurrent <= 0:
        return ChannelPace()
    return ChannelPace(posts=1, per_s=CHANNEL_PER_S / CHANNEL_POSTS * concurrent / matches)


def scaled_cache(matches: int, concurrent: int) -> int:
    """discord.py's 128 DM channels, scaled to the share of a full bot the sample is."""
    if concurrent <= 0:
        return DM_CACHE
    return max(1, round(DM_CACHE * matches / concurrent))


async def run_all(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    results: dict[str, Any] = {}
    cache = scaled_cache(args.matches, args.concurrent)
    for game in args.games:
        for seats in args.seats or GAMES[game]:
            if seats not in GAMES[game]:
                continue
            for mode in args.modes:
                started = time.perf_counter()
                pace = scaled_pace(args.matches, args.concurrent)
                result = await play(
                    game, seats, mode, args.matches, cache, args.seed, folder, args.options, pace
                )
                result["cpu_s"] = round(time.perf_counter() - started, 1)
                results.setdefault(game, {}).setdefault(str(seats), {})[mode] = result
                print(f"{game} {seats} {mode}: {json.dumps(result)}", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=lambda s: s.split(","), default=list(GAMES))
    parser.add_argument("--seats", type=lambda s: [int(n) for n in s.split(",")], default=None)
    parser.add_argument("--modes", type=lambda s: s.split(","), default=["paced", "timeout"])
    parser.add_argument("--matches", type=int, default=24, help="concurrent matches a run")
    parser.add_argument(
        "--concurrent", type=int, default=150, help="the bot's matches the sample stands for"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--options", type=json.loads, default=None, help="the matches' options (JSON object)"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as scratch:
        results = virtual_time.run(run_all(args, Path(scratch)))
    report = {
        "matches": args.matches,
        "concurrent": args.concurrent,
        "dm_cache": scaled_cache(args.matches, args.concurrent),
        "answer_s": ANSWER_S,
        "budget_per_s": BUDGET_PER_S,
        "seed": args.seed,
        **({"options": args.options} if args.options else {}),
        "games": results,
    }
    text = json.dumps(report, indent=1)
    if args.out is not None:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

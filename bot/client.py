"""``floral-host run``: the Discord client that hosts matches.

``FloralBot.setup_hook`` opens the store, starts the host (its scheduler and outbox delivery),
loads the cogs, which register their persistent buttons, and syncs the slash commands (to
``DEV_GUILD_ID`` when set, else globally). The layout follows discord.py's ``advanced_startup``
example.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import functools
import logging
import signal
import sys
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

import aiohttp
import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from bot.budget import PROMPT, RequestBudget
from bot.database import is_postgres, open_store
from bot.discord_transport import DiscordTransport, fit
from bot.handoff import ANSWERED, HandOff
from bot.host import Host, HostError, OpenPrompt
from bot.host.submissions import REDELIVERED
from bot.ids import parse_match_id
from bot.pacing import LocalBudget, pace
from bot.practice import Practice
from bot.process import tune_gc
from bot.settings import Settings
from bot.shards import Shards, parse_range, shard_of
from bot.store import MatchRecord, Store
from bot.store.common import SqlStore
from bot.store.leases import ShardLeases, leasing
from bot.store.owner import describe, owning
from bot.transport import Delivery, Transport
from games import registry
from games.protocol import ConfigError

log = logging.getLogger(__name__)

DELIVERY_BATCH = 64  # a pass of the outbox: about what the budget sends in 1.5 s

# what the bot needs in a match channel: to see it, post, put its card (an embed) on a post,
# attach files (pictures, /match export): 52224, see docs/running.md
MATCH_CHANNEL_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, attach_files=True
)
# with FLORAL_THREADS, also: start a match's thread and post in it
THREAD_PERMISSIONS = discord.Permissions(create_public_threads=True, send_messages_in_threads=True)
# every game's prompts, /match, /submit and /look, /cards, /help and /rules, /practice, /stats
SHARED_EXTENSIONS = (
    "cogs.prompts",
    "cogs.matches",
    "cogs.cards",
    "cogs.help",
    "cogs.practice",
    "cogs.stats",
    "cogs.rematch",
    "cogs.about",
)
# loaded after the games' cogs: /table adds an `open` command to each game's group
AFTER_GAMES = ("cogs.tables",)


def extensions() -> list[str]:
    """The cogs the client loads: the shared ones, each registered game's, then the ones that
    build on the games' cogs."""
    return [*SHARED_EXTENSIONS, *registry.cogs(), *AFTER_GAMES]


# a component whose press edits its own message (a page turn), matched on its custom id or its
# selected values: deferred as an update, not as an answer to come (set by the cogs)
PageTurn = Callable[[Mapping[str, Any]], bool]


class ViewRegistry:
    """The builders of the buttons the transport sends, set by the cogs when they load."""

    def __init__(self) -> None:
        self.build: Any = None
        self.end: Any = None  # an end post -> its buttons, set by the rematch cog

    def __call__(self, request: Mapping[str, Any]) -> discord.ui.View | None:
        return None if self.build is None else self.build(request)

    def end_view(self, delivery: Delivery) -> discord.ui.View | None:
        return None if self.end is None else self.end(delivery)


class FloralBot(commands.Bot):
    shard_range: Shards | None = None  # a sharded process's shards (ShardedFloralBot)

    def __init__(self, settings: Settings, **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True  # typed answers; DM content needs no privileged intent
        self.settings = settings
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            guild_ready_timeout=settings.guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False),
            **options,
        )
        self.views = ViewRegistry()
        self.page_turns: list[PageTurn] = []  # set by the cogs (ShardedFloralBot defers them)
        self.practice = Practice()
        self._host: Host | None = None
        self.transport: DiscordTransport | None = None  # (answers' replies render with it)
        self.started_at = time.time()

    @property
    def host(self) -> Host:
        assert self._host is not None, "the host starts in setup_hook"
        return self._host

    async def setup_hook(self) -> None:
        if self.application_id is not None:  # known once logged in
            log.info("invite URL: %s", invite_url(self.application_id, self.settings.threads))
        store = await open_store(self.settings.db)
        self._fence(store)
        transport = DiscordTransport(
            self,
            self.views,
            self.log_channel_of,
            end_view=self.views.end_view,
            threads=self.settings.threads,
        )
        self.transport = transport
        await self._share_budget()
        self._host = Host(
            store,
            # AI seats of practice matches answer here
            self.practice.transport(PromptsFirst(transport)),
            grace_s=self.settings.grace_s,
            reminder_s=self.settings.reminder_s,
            delivery_batch=DELIVERY_BATCH,
            shards=self.shard_range,
            shared_channel=self.shared_channel_of,
        )
        self.practice.host = self._host
        for extension in extensions():
            await self.load_extension(extension)
        self.tree.error(self.on_app_command_error)
        await self._sync_commands()
        if self.shard_range is None or self.shard_range.has_dms:  # practices are played in DMs
            await self.practice.resume(store)  # before the host re-prompts anyone
        await self._host.start()
        tune_gc()
        await self._start_handoff()  # DMs handed over now find their matches hosted
        self.practice.answer_open_windows()
        log.info("host started with %d active matches", len(self._host.active_match_ids()))

    async def _start_handoff(self) -> None:
        """Sharded processes only (``ShardedFloralBot``)."""

    def _fence(self, store: Store) -> None:
        """Sharded processes only (``ShardedFloralBot``)."""

    async def _share_budget(self) -> None:
        """One process: its requests within Discord's global limit, prompts first
        (``bot.pacing``); sharded processes share one budget instead (``ShardedFloralBot``)."""
        pace(self, LocalBudget())

    async def _sync_commands(self) -> None:
        guild_id = self.settings.dev_guild_id
        if guild_id is not None:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d commands%s", len(synced), f" to guild {guild_id}" if guild_id else "")

    async def on_ready(self) -> None:
        log.info("floral-host ready as %s (id %s)", self.user, self.user and self.user.id)
        await self.warn_missing_permissions()

    async def warn_missing_permissions(self) -> None:
        """Name, in the log, every permission the bot lacks in a channel with a match under
        way: the operator sees at start why posts would fail, before players do."""
        needed = needed_permissions(self.settings.threads)
        channels = {
            record.channel_id
            for record in await self.host.list_matches(active_only=True)
            if not record.practice and self.host.hosts(record)
        }
        for channel_id in sorted(channels):
            channel = self.get_channel(channel_id)
            if not isinstance(channel, discord.abc.GuildChannel):
                continue
            have = channel.permissions_for(channel.guild.me)
            missing = [name for name, value in needed if value and not getattr(have, name)]
            if missing:
                log.warning(
                    "missing permissions in #%s (%d) of %s, where a match is under way: %s",
                    channel.name,
                    channel.id,
                    channel.guild.name,
                    ", ".join(permission_name(name) for name in missing),
                )

    async def close(self) -> None:
        await self._stop_handoff()
        if self._host is not None:
            host, self._host = self._host, None
            await self.practice.stop()
            await host.close()
        await self._stop_budget()  # after the host: its last deliveries take tokens
        await super().close()

    async def _stop_handoff(self) -> None:
        """Sharded processes only (``ShardedFloralBot``)."""

    async def _stop_budget(self) -> None:
        """Sharded processes only (``ShardedFloralBot``)."""

    # --- DM answers: where they go ---------------------------------------------------------

    async def open_prompts(self, user_id: int) -> list[OpenPrompt]:
        """The user's open prompts a DM answer may be for, by match; an answer another process
        sent here (``ANSWER_FOR``): its match's alone."""
        prompts = self.host.prompts_for(user_id)
        pinned = ANSWER_FOR.get()
        if pinned is not None:
            return [prompt for prompt in prompts if prompt.match_id == pinned.match_id]
        elsewhere = await self._prompts_elsewhere(user_id)
        return sorted([*prompts, *elsewhere], key=lambda prompt: prompt.match_id)

    @staticmethod
    def among(prompts: Sequence[OpenPrompt]) -> int:
        """How many open prompts the player had when their answer was routed (the answer
        names its match when several)."""
        pinned = ANSWER_FOR.get()
        return pinned.among if pinned is not None else len(prompts)

    async def _prompts_elsewhere(self, user_id: int) -> list[OpenPrompt]:
        """Sharded processes only (``ShardedFloralBot``): those of other processes' matches."""
        return []

    async def hand_over_answer(
        self, match_id: int, among: int, interaction: discord.Interaction | None = None
    ) -> bool:
        """Sharded processes only (``ShardedFloralBot``): whether the DM being handled, an
        answer for ``match_id``, went to the process hosting that match, which answers it."""
        return False

    async def hand_over_command(
        self, record: MatchRecord, interaction: discord.Interaction
    ) -> bool:
        """Sharded processes only (``ShardedFloralBot``): whether the server command being
        handled, about ``record``, a match another process hosts (the user's practice, shard
        0's), went to that process, which answers it."""
        return False

    def log_channel_of(self, delivery: Delivery) -> int | None:
        return self.log_channel_in(delivery.guild_id)

    def shared_channel_of(self, delivery: Delivery) -> int | None:
        """The channel every match of the server posts this delivery to, paced by the host's
        delivery worker: its log channel, for the moderators' log entries."""
        return self.log_channel_of(delivery) if delivery.audience.kind == "moderators" else None

    def log_channel_in(self, guild_id: int) -> int | None:
        """The moderator log channel in a guild: by id, or by name from the cache."""
        wanted = self.settings.log_channel
        if wanted is None:
            return None
        if wanted.isdigit():
            return int(wanted)
        guild = self.get_guild(guild_id)
        channel = discord.utils.get(guild.text_channels, name=wanted) if guild else None
        return channel.id if channel is not None else None

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Refusals are plain ephemeral messages; anything else is logged with an error id."""
        original = getattr(error, "original", error)
        if isinstance(original, HostError | ConfigError) or isinstance(
            error, app_commands.CheckFailure
        ):
            await reply(interaction, str(original))
            return
        error_id = uuid.uuid4().hex[:8]
        log.error(
            "command %s failed (error id %s)",
            interaction.command and interaction.command.qualified_name,
            error_id,
            exc_info=original,
        )
        await reply(interaction, f"Sorry, something went wrong (error id `{error_id}`).")


class ShardedFloralBot(FloralBot, commands.AutoShardedBot):
    """``floral-host run --shards``: discord.py's AutoShardedBot on this process's shards,
    hosting their servers' matches; its store writes about a match only while this process
    leases the match's shard (``bot.store.leases.LeaseFence``). The process holding shard 0
    hands each DM about a match another process hosts to that process (``bot.handoff``), which
    answers it: a button press or a command naming its match directly; a typed answer or a
    ``/submit`` naming none once the prompts cog, seeing every match's prompts, has picked the
    match it answers (``hand_over_answer``, pinned by ``ANSWER_FOR``)."""

    def __init__(self, settings: Settings, leases: ShardLeases) -> None:
        assert leases.shards is not None, "the leases are claimed first"
        self.shard_range = shards = leases.shards
        super().__init__(settings, shard_ids=list(shards.ids), shard_count=shards.count)
        self.leases = leases
        self.handoff: HandOff | None = None
        self.budget: RequestBudget | None = None
        self._routing: set[asyncio.Task[None]] = set()

    async def _start_handoff(self) -> None:
        assert self.shard_range is not None
        self.handoff = handoff = HandOff(
            self.settings.db, self.shard_range, self.leases.owner, self._handed_over
        )
        await handoff.start()
        shards, parsers = self.shard_range, self._connection.parsers
        if len(shards.ids) < shards.count:  # others answer some of what reaches this process
            routed = ("INTERACTION_CREATE", "MESSAGE_CREATE") if shards.has_dms else ()
            for event in routed or ("INTERACTION_CREATE",):
                parsers[event] = functools.partial(self._received, event, parsers[event])
        await handoff.collect()

    def _fence(self, store: Store) -> None:
        """The store writes about a match only while this process leases its shard."""
        assert isinstance(store, SqlStore)  # sharded: PostgreSQL
        store.fence = self.leases.fence()

    async def _stop_handoff(self) -> None:
        if self.handoff is not None:
            handoff, self.handoff = self.handoff, None
            await handoff.close()

    async def _stop_budget(self) -> None:
        if self.budget is not None:
            budget, self.budget = self.budget, None
            await budget.close()

    async def _share_budget(self) -> None:
        """Every request to Discord takes a token of the budget all processes share first."""
        self.budget = budget = RequestBudget(self.settings.db)
        await budget.start()
        pace(self, budget)

    # --- the process holding shard 0: DMs about other processes' matches go there ---------

    def _received(self, event: str, parse: Callable[[Any], None], data: Any) -> None:
        """A gateway event, before discord.py parses it: a DM is routed first. A typed DM or a
        DM ``/submit`` naming no match is parsed here: its handler, seeing every match's
        prompts, picks the match it answers and hands it over (``hand_over_answer``)."""
        if data.get("guild_id") is not None and self._practice_elsewhere(event, data):
            self._track(self._practice_to_zero(data))
            return
        if data.get("guild_id") is not None and event == "INTERACTION_CREATE":
            marked = _RECEIVED.set((event, data))  # a command about a practice hands it over
            try:
                parse(data)
            finally:
                _RECEIVED.reset(marked)
            return
        if data.get("guild_id") is not None or not self._may_hand_over(event, data):
            parse(data)
            return
        if self._answered_here(event, data):
            marked = _RECEIVED.set((event, data))  # its handlers' tasks copy it as they start
            try:
                parse(data)
            finally:
                _RECEIVED.reset(marked)
            return
        self._track(self._route(event, parse, data))

    def _track(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._routing.add(task)
        task.add_done_callback(self._routing.discard)

    def _practice_elsewhere(self, event: str, data: Mapping[str, Any]) -> bool:
        """``/practice`` in a server of this process's, which does not hold shard 0: practices
        (played in DMs) are that process's."""
        assert self.shard_range is not None
        command = data.get("type") == 2 and data.get("data", {}).get("name") in LOCAL_COMMANDS
        return event == "INTERACTION_CREATE" and command and not self.shard_range.has_dms

    async def _practice_to_zero(self, data: dict[str, Any]) -> None:
        """Defer it, and hand it to shard 0's process as the same command sent by DM."""
        assert self.handoff is not None
        interaction = discord.Interaction(data=cast(Any, data), state=self._connection)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.handoff.forward(
            0, "INTERACTION_CREATE", {**as_dm(data), DEFERRED: DEFERRED_ANSWER}
        )

    @staticmethod
    def _may_hand_over(event: str, data: Mapping[str, Any]) -> bool:
        if event == "MESSAGE_CREATE":
            return not data.get("author", {}).get("bot")
        if data.get("type") == 2:  # a command: /practice starts a practice, shard 0's own
            return data.get("data", {}).get("name") not in LOCAL_COMMANDS
        return data.get("type") == 3  # a component (autocomplete is answered here)

    @staticmethod
    def _answered_here(event: str, data: Mapping[str, Any]) -> bool:
        """A typed DM, or a DM ``/submit`` naming no match: which match it answers is decided
        where every match is seen."""
        if event == "MESSAGE_CREATE":
            return True
        return data.get("data", {}).get("name") == "submit" and dm_match_of(data) is None

    async def _prompts_elsewhere(self, user_id: int) -> list[OpenPrompt]:
        received = _RECEIVED.get()
        if self.handoff is None or received is None or received[1].get("guild_id") is not None:
            return []  # a DM Discord sent here only
        return await self.host.viewed_prompts(user_id, await self.handoff.elsewhere(user_id))

    async def hand_over_command(
        self, record: MatchRecord, interaction: discord.Interaction
    ) -> bool:
        received = _RECEIVED.get()
        if received is None or self.handoff is None or self.host.hosts(record):
            return False
        assert self.shard_range is not None
        shard = 0 if record.practice else shard_of(record.guild_id, self.shard_range.count)
        await interaction.response.defer(ephemeral=True, thinking=True)
        command = as_dm(naming_match(received[1], record.id))
        await self.handoff.forward(
            shard, "INTERACTION_CREATE", {**command, DEFERRED: DEFERRED_ANSWER}
        )
        return True

    async def hand_over_answer(
        self, match_id: int, among: int, interaction: discord.Interaction | None = None
    ) -> bool:
        received = _RECEIVED.get()
        if received is None or self.handoff is None or received[1].get("guild_id") is not None:
            return False
        shard = await self.handoff.route(0, match_id)
        if shard is None:  # this process's match
            return False
        event, data = received
        if interaction is not None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            data = {**data, DEFERRED: DEFERRED_ANSWER}
        await self.handoff.forward(shard, event, {**data, PINNED: [match_id, among]})
        return True

    async def _route(self, event: str, parse: Callable[[Any], None], data: Any) -> None:
        assert self.handoff is not None
        user = data.get("author") or data.get("user") or {}
        try:
            shard = await self.handoff.route(int(user.get("id", 0)), dm_match_of(data))
        except Exception:
            log.exception("a DM could not be routed; answered here")
            shard = None
        if shard is None:
            parse(data)
            return
        if event == "INTERACTION_CREATE":
            interaction = discord.Interaction(data=data, state=self._connection)
            if any(turns(data) for turns in self.page_turns):
                await interaction.response.defer()
                data = {**data, DEFERRED: DEFERRED_UPDATE}
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
                data = {**data, DEFERRED: DEFERRED_ANSWER}
        await self.handoff.forward(shard, event, data)

    # --- the process hosting the match: the DM as if Discord had sent it here -------------

    async def _handed_over(self, event: str, data: dict[str, Any], again: bool) -> None:
        """Dispatch the event, then wait until the handlers it started are done (the hand-off
        deletes its row then). ``again``: a process that took it died before it was done,
        perhaps after answering it: then it is not answered twice."""
        if again and await self._answered_before(event, data):
            return
        if data.get(ANSWERED):  # that process committed the answer: never submitted twice
            await self._say_saved(event, data)
            return
        before = asyncio.all_tasks()
        pinned = data.get(PINNED)
        answer_for = AnswerFor(*map(int, pinned)) if isinstance(pinned, list) else None
        marked = REDELIVERED.set(again), ANSWER_FOR.set(answer_for)  # its handlers copy them
        try:
            self._dispatch_handed(event, data)
        finally:
            REDELIVERED.reset(marked[0])
            ANSWER_FOR.reset(marked[1])
        started = asyncio.all_tasks() - before  # dispatching starts its handlers, nothing else
        if started:
            await asyncio.wait(started)

    async def _answered_before(self, event: str, data: dict[str, Any]) -> bool:
        """Whether a deferred answer handed over again was answered already (Discord shows it
        no longer loading): the player has their answer, which meant committed. A typed DM's
        reply is sent again, but with a nonce Discord drops it for (``cogs.prompts``)."""
        deferred = int(data.get(DEFERRED, DEFERRED_ANSWER))
        if event != "INTERACTION_CREATE" or deferred != DEFERRED_ANSWER:
            return False  # a page turn's edit is the same edit again
        interaction = discord.Interaction(data=cast(Any, data), state=self._connection)
        try:
            original = await interaction.original_response()
        except discord.HTTPException:  # not known: answered as before
            return False
        return not original.flags.loading

    async def _say_saved(self, event: str, data: dict[str, Any]) -> None:
        """The answer of a DM handed over again, which the process that died had committed,
        maybe replied to: the player is told it is saved (a typed DM's reply goes with its
        nonce, dropped by Discord if that process had replied)."""
        if event == "MESSAGE_CREATE":
            channel = self.get_partial_messageable(int(data["channel_id"]))
            await channel.send(SAVED, nonce=typed_reply_nonce(int(data["id"])))
            return
        interaction = discord.Interaction(data=cast(Any, data), state=self._connection)
        await interaction.followup.send(SAVED, ephemeral=True)

    def _dispatch_handed(self, event: str, data: dict[str, Any]) -> None:
        state = self._connection
        if event == "MESSAGE_CREATE":
            state.parse_message_create(cast(Any, data))
            return
        interaction: discord.Interaction[Any] = discord.Interaction(
            data=cast(Any, data), state=state
        )
        deferred = discord.InteractionResponseType(int(data.get(DEFERRED, DEFERRED_ANSWER)))
        interaction.response._response_type = deferred  # shard 0's process answered Discord
        if data["type"] == 2:
            self.tree._from_interaction(interaction)
        else:
            inner = data["data"]
            state._view_store.dispatch_view(
                inner["component_type"], inner["custom_id"], interaction
            )
        state.dispatch("interaction", interaction)


SAVED = "✅ Your answer is saved."  # a handed-over answer whose first reply may be lost
LOCAL_COMMANDS = frozenset({"practice"})  # DM commands the process holding shard 0 answers
DEFERRED = "floral_deferred"  # how shard 0's process deferred a handed-over interaction
DEFERRED_ANSWER = discord.InteractionResponseType.deferred_channel_message.value
DEFERRED_UPDATE = discord.InteractionResponseType.deferred_message_update.value
PINNED = "floral_answer_for"  # a handed-over answer's match and prompt count (AnswerFor)


@dataclass(frozen=True, slots=True)
class AnswerFor:
    """A typed DM answer or DM ``/submit`` that shard 0's process, seeing every match, sent to
    the process hosting the match whose game takes it: that match, and how many open prompts
    the player had in all (an answer among several names its match)."""

    match_id: int
    among: int


# while a handed-over answer is handled: its match (the handlers' tasks copy it as they start)
ANSWER_FOR: ContextVar[AnswerFor | None] = ContextVar("floral_answer_for", default=None)
# while shard 0's process handles a DM it decides about, or a process handles a server's
# command (about a practice, it is shard 0's): the raw event, to hand it over
_RECEIVED: ContextVar[tuple[str, dict[str, Any]] | None] = ContextVar(
    "floral_received", default=None
)


def typed_reply_nonce(message_id: int) -> str:
    """The nonce of the reply to a typed DM: Discord drops the same reply sent again (by the
    process that took the DM over from one that died after replying, ``bot.handoff``)."""
    return f"fr{message_id}"


def as_dm(data: Mapping[str, Any]) -> dict[str, Any]:
    """A server's interaction as the same one sent by DM: its user, no server or channel (it
    is answered through its token alone). The user keeps the name the server shows, their
    nickname there (a DM user's display name is their global name): a practice started there
    names them as a match started there would."""
    server = ("guild_id", "guild", "guild_locale", "member", "channel", "channel_id")
    dm = {key: value for key, value in data.items() if key not in server}
    member = data.get("member") or {}
    user = member.get("user") or data.get("user")
    nick = member.get("nick")
    dm["user"] = {**user, "global_name": nick} if nick and isinstance(user, dict) else user
    return dm


def naming_match(data: Mapping[str, Any], match_id: int) -> dict[str, Any]:
    """A command's raw event with its ``match`` option (in its subcommand's options) naming
    ``match_id``, as if the user had given it."""
    inner = copy.deepcopy(dict(data["data"]))
    holder = inner
    while True:
        options = holder.setdefault("options", [])
        subcommand = next((option for option in options if option.get("type") in (1, 2)), None)
        if subcommand is None:
            break
        holder = subcommand
    named = {"name": "match", "type": 3, "value": f"m{match_id}"}
    holder["options"] = [*(o for o in holder["options"] if o.get("name") != "match"), named]
    return {**data, "data": inner}


def dm_match_of(data: Mapping[str, Any]) -> int | None:
    """The match a DM is about: a component's, the first number in its custom id (every
    prompt, help and page button has its match there); a command's, its ``match`` option;
    None for typed text or a command naming none."""
    inner = data.get("data", {})
    if data.get("type") == 2:
        return _match_option(inner.get("options", []))
    custom_id = str(inner.get("custom_id", "")) if data.get("type") == 3 else ""
    for part in custom_id.split(":"):
        if part.isdigit() and len(part) <= 18:
            return int(part)
    return None


def _match_option(options: Any) -> int | None:
    """A command's ``match`` option (in a subcommand's options too), if it names a match."""
    for option in options if isinstance(options, list) else []:
        if not isinstance(option, dict):
            continue
        value = option.get("value") if option.get("name") == "match" else None
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                return parse_match_id(value)
        found = _match_option(option.get("options"))
        if found is not None:
            return found
    return None


class PromptsFirst:
    """The transport, marking the sends of a window's prompt (``bot.budget``: they may take the
    shared budget's reserve)."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    async def send(self, delivery: Delivery) -> float | None:
        prompt = delivery.audience.kind == "seat" and "request" in delivery.payload
        marked = PROMPT.set(prompt)
        try:
            return await self._transport.send(delivery)
        finally:
            PROMPT.reset(marked)


async def reply(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer, whether or not the interaction was answered already; cut to fit
    one message (a refusal may quote what the user typed)."""
    text = fit(text)
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


def point_at(settings: Settings) -> None:
    """Talk to a Discord-compatible server instead of Discord (a proxy, the test fake)."""
    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


def needed_permissions(threads: bool) -> discord.Permissions:
    """What the bot needs in a match channel (and with FLORAL_THREADS, in its threads)."""
    return MATCH_CHANNEL_PERMISSIONS | THREAD_PERMISSIONS if threads else MATCH_CHANNEL_PERMISSIONS


def invite_url(application_id: int, threads: bool = False) -> str:
    """The link that adds the bot to a server with the scopes and permissions it needs."""
    return discord.utils.oauth_url(
        application_id,
        permissions=needed_permissions(threads),
        scopes=("bot", "applications.commands"),
    )


def permission_name(flag: str) -> str:
    """``embed_links`` as Discord's settings name it: Embed Links."""
    return flag.replace("_", " ").title()


async def check_database(target: str) -> None:
    """Open (creating or upgrading) the database and prove it writable before connecting, so a
    bad database stops the bot at once, where a supervisor sees it (UnusableDatabase, one
    line)."""
    store = await open_store(target)
    await store.close()


class StopOnSignal:
    """SIGINT (Ctrl-C) and SIGTERM stop the bot as ``close`` does (the host finishes what is in
    flight and closes the store); before the bot exists they cancel the start. A sharded
    process that lost its leases stops the same way, with exit code 1."""

    def __init__(self) -> None:
        self.bot: FloralBot | None = None
        self.requested = False
        self.code = 0
        self._closing: asyncio.Task[None] | None = None  # held: the loop keeps weak references
        self._task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
                loop.add_signal_handler(signum, self.stop)

    def stop(self) -> None:
        if self.requested:
            return
        self.requested = True
        if self.bot is not None:
            self._closing = asyncio.get_running_loop().create_task(self.bot.close())
        elif self._task is not None:
            self._task.cancel()

    def lost(self, reason: str) -> None:
        """The shard leases are lost: another process may host these matches now."""
        print(f"floral-host run: {reason}; stopping", file=sys.stderr)
        self.code = 1
        self.stop()


async def _run(settings: Settings, token: str, sharding: Sharding | None) -> int:
    stop = StopOnSignal()
    try:
        if sharding is None:
            async with owning(settings.db, "floral-host run"):  # one process per database
                await check_database(settings.db)
                async with FloralBot(settings) as bot:
                    stop.bot = bot
                    await bot.start(token)
        else:
            await _run_sharded(settings, token, sharding, stop)
    except asyncio.CancelledError:
        if not stop.requested:
            raise
    return stop.code


async def _run_sharded(
    settings: Settings, token: str, sharding: Sharding, stop: StopOnSignal
) -> None:
    """The shards' leases first (refused, or waiting as a standby), then the bot on the shards
    taken."""
    command = f"floral-host run {sharding.describe()}"
    async with leasing(
        settings.db,
        sharding.shards,
        describe(command),
        standby=sharding.standby,
        lease_s=settings.lease_s,
        on_lost=stop.lost,
    ) as leases:
        assert leases.shards is not None
        await check_database(settings.db)
        async with ShardedFloralBot(settings, leases) as bot:
            stop.bot = bot
            log.info("hosting the matches of shards %s", leases.shards.text)
            await bot.start(token)


@dataclass(frozen=True, slots=True)
class Sharding:
    """How ``run`` was asked to shard: the range, and whether it waits as a standby."""

    shards: Shards
    standby: bool = False

    def describe(self) -> str:
        return f"--shards {self.shards.text}" + (" --standby" if self.standby else "")


def sharding_of(args: argparse.Namespace | None, settings: Settings) -> Sharding | None:
    """``--shards``/``--shard-count``/``--standby``, else FLORAL_SHARDS; ValueError in one
    line for a bad combination or an SQLite database (one process)."""
    shards_arg = getattr(args, "shards", None)
    count = getattr(args, "shard_count", None)
    standby = bool(getattr(args, "standby", False))
    if shards_arg is not None or count is not None:
        if count is None:
            raise ValueError("--shards needs --shard-count (how many shards the bot has in all)")
        shards = parse_range(shards_arg, count) if shards_arg else Shards.every(count)
    elif settings.shards is not None:
        shards = settings.shards
    elif standby:
        raise ValueError("--standby needs --shard-count (or FLORAL_SHARDS)")
    else:
        return None
    if not is_postgres(settings.db):
        raise ValueError(
            "--shards needs a PostgreSQL FLORAL_DB: an SQLite database is one process's"
        )
    return Sharding(shards, standby)


class UnusedVoiceFilter(logging.Filter):
    """Drops discord.py's warnings that voice libraries are missing: the bot has no voice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).endswith("is not installed, voice will NOT be supported")


def main(args: argparse.Namespace | None = None) -> int:
    try:
        settings = Settings.load()
    except ValueError as error:
        print(f"floral-host run: {error}", file=sys.stderr)
        return 2
    token = settings.discord_token
    if not token:
        print("floral-host run: DISCORD_TOKEN is not set (environment or .env)", file=sys.stderr)
        return 2
    try:
        sharding = sharding_of(args, settings)
    except ValueError as error:
        print(f"floral-host run: {error}", file=sys.stderr)
        return 2
    discord.utils.setup_logging(level=getattr(logging, settings.log_level, logging.INFO))
    logging.getLogger("discord.client").addFilter(UnusedVoiceFilter())
    point_at(settings)
    try:
        return asyncio.run(_run(settings, token, sharding))
    except discord.LoginFailure:
        print("floral-host run: Discord rejected DISCORD_TOKEN (invalid token)", file=sys.stderr)
        return 1
    except (aiohttp.ClientConnectionError, OSError) as error:
        print(f"floral-host run: cannot reach Discord: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0

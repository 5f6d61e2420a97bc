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
import logging
import signal
import sys
import time
import uuid
from collections.abc import Mapping
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from bot.database import open_store
from bot.discord_transport import DiscordTransport, fit
from bot.host import Host, HostError
from bot.practice import Practice
from bot.settings import Settings
from bot.store.owner import owning
from bot.transport import Delivery
from games import registry
from games.protocol import ConfigError

log = logging.getLogger(__name__)

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
    def __init__(self, settings: Settings) -> None:
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
        )
        self.views = ViewRegistry()
        self.practice = Practice()
        self._host: Host | None = None
        self.started_at = time.time()

    @property
    def host(self) -> Host:
        assert self._host is not None, "the host starts in setup_hook"
        return self._host

    async def setup_hook(self) -> None:
        if self.application_id is not None:  # known once logged in
            log.info("invite URL: %s", invite_url(self.application_id, self.settings.threads))
        store = await open_store(self.settings.db)
        transport = DiscordTransport(
            self,
            self.views,
            self.log_channel_of,
            end_view=self.views.end_view,
            threads=self.settings.threads,
        )
        self._host = Host(
            store,
            self.practice.transport(transport),  # AI seats of practice matches answer here
            grace_s=self.settings.grace_s,
            reminder_s=self.settings.reminder_s,
        )
        self.practice.host = self._host
        for extension in extensions():
            await self.load_extension(extension)
        self.tree.error(self.on_app_command_error)
        await self._sync_commands()
        await self.practice.resume(store)  # before the host re-prompts anyone
        await self._host.start()
        self.practice.answer_open_windows()
        log.info("host started with %d active matches", len(self._host.active_match_ids()))

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
            if not record.practice
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
        if self._host is not None:
            host, self._host = self._host, None
            await self.practice.stop()
            await host.close()
        await super().close()

    def log_channel_of(self, delivery: Delivery) -> int | None:
        return self.log_channel_in(delivery.guild_id)

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
    flight and closes the store); before the bot exists they cancel the start."""

    def __init__(self) -> None:
        self.bot: FloralBot | None = None
        self.requested = False
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


async def _run(settings: Settings, token: str) -> None:
    stop = StopOnSignal()
    try:
        async with owning(settings.db, "floral-host run"):  # one process per database
            await check_database(settings.db)
            async with FloralBot(settings) as bot:
                stop.bot = bot
                await bot.start(token)
    except asyncio.CancelledError:
        if not stop.requested:
            raise


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
    discord.utils.setup_logging(level=getattr(logging, settings.log_level, logging.INFO))
    logging.getLogger("discord.client").addFilter(UnusedVoiceFilter())
    point_at(settings)
    try:
        asyncio.run(_run(settings, token))
    except discord.LoginFailure:
        print("floral-host run: Discord rejected DISCORD_TOKEN (invalid token)", file=sys.stderr)
        return 1
    except (aiohttp.ClientConnectionError, OSError) as error:
        print(f"floral-host run: cannot reach Discord: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0

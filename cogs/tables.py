"""``/table open game [seats]``: anyone gathers players for a match. The table's post has Join
and Leave buttons (persistent: they work after a restart); when its seats are full the match
is set up, and a moderator starts it with the game's ``start`` command. A table not full
``bot.tables.EXPIRES_S`` after it opened expires: a sweep (each minute, and at start) edits its
post to say so and takes its buttons away."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.host import HostError
from bot.store import MatchRecord, TableRecord
from bot.tables import TableExpired, Tables, expired_text
from cogs.common import floral_bot, is_moderator_member, match_name, respond
from cogs.help import game_autocomplete
from games import registry
from games.text import names_text

log = logging.getLogger(__name__)

SWEEP_S = 60.0  # how often expired tables are looked for
FIND_POST_LIMIT = 100  # the channel's messages after a table opened, searched for its post


def table_text(
    table: TableRecord, start_command: str | None = None, opener_starts: bool = False
) -> str:
    title = registry.get(table.game).title
    seats = [
        f"{n}. {table.players[n - 1][1] if n <= len(table.players) else '—'}"
        for n in range(1, table.seats + 1)
    ]
    head = f"🪑 **Table {table.id}: {title}**, {table.seats} seats, opened by <@{table.opener}>."
    if table.status == "full" and table.match_id is not None:
        name = match_name(table.match_id)
        start = f" with `{start_command} match:{name}`" if start_command else ""
        opener = ", or its opener with **Start**" if opener_starts else ""
        tail = f"Full: match {name} is set up; a moderator starts it{start}{opener}."
    elif table.status == "closed":
        tail = f"⌛ {expired_text(table)}"
    else:
        tail = "Press **Join** to take a seat."
    return "\n".join([head, *seats, tail])


class TableButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ft:(?P<action>join|leave|start):(?P<table>\d+)",
):
    """Join or Leave a table, or Start its match (the opener, with ``FLORAL_OPENER_STARTS``);
    persistent, so a table's post works after a restart."""

    def __init__(self, action: str, table_id: int) -> None:
        style = discord.ButtonStyle.success if action == "join" else discord.ButtonStyle.secondary
        style = discord.ButtonStyle.primary if action == "start" else style
        super().__init__(
            discord.ui.Button(
                label=action.capitalize(), style=style, custom_id=f"ft:{action}:{table_id}"
            )
        )
        self.action, self.table_id = action, table_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> TableButton:
        return cls(match["action"], int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = floral_bot(interaction)
        tables = tables_of(bot)
        user = interaction.user
        if self.action == "start":
            await start_full_table(bot, interaction, self.table_id)
            return
        try:
            if self.action == "join":
                table, record = await tables.join(self.table_id, user.id, user.display_name)
            else:
                table, record = await tables.leave(self.table_id, user.id), None
        except TableExpired as expired:
            await interaction.response.edit_message(content=table_text(expired.table), view=None)
            return
        except HostError as error:
            await respond(interaction, f"✖ {error}")
            return
        command = start_command(bot, table.game)
        view = table_view(table.id, full=table.status == "full", starts=bot.settings.opener_starts)
        text = table_text(table, command, bot.settings.opener_starts)
        await interaction.response.edit_message(content=text, view=view)
        if record is not None:
            await interaction.followup.send(set_up_text(record, command))


def set_up_text(record: MatchRecord, command: str | None) -> str:
    players = names_text([f"<@{user}>" for user in record.players])
    start = f" (`{command} match:{match_name(record.id)}`)" if command else ""
    return (
        f"🎲 Match {match_name(record.id)} is set up: {players}. Each player gets a hello by DM;"
        f" a moderator starts the match{start}."
    )


def table_view(table_id: int, full: bool = False, starts: bool = False) -> discord.ui.View | None:
    """Join and Leave while seats are free; once full, Start if the opener may start it."""
    if full and not starts:
        return None
    view = discord.ui.View(timeout=None)
    for action in ("start",) if full else ("join", "leave"):
        view.add_item(TableButton(action, table_id))
    return view


async def start_full_table(bot: FloralBot, interaction: discord.Interaction, table_id: int) -> None:
    """The table's Start button: its opener (or a moderator) starts the match it set up."""
    try:
        table = await tables_of(bot).get(table_id)
        if table.match_id is None:
            raise HostError(f"Table {table_id} is not full yet.")
        opener = bot.settings.opener_starts and interaction.user.id == table.opener
        if not (opener or is_moderator_member(bot, interaction.user)):
            raise HostError("Only the table's opener or a moderator can start its match.")
        await bot.host.start_match(table.match_id, by=interaction.user.id)
    except HostError as error:
        await respond(interaction, f"✖ {error}")
        return
    await interaction.response.edit_message(view=None)
    await interaction.followup.send(f"Match {match_name(table.match_id)} is started.")


async def find_table_post(bot: FloralBot, table: TableRecord) -> discord.Message | None:
    """The table's post: the bot's message with its Join button, among the first of its
    channel from when it opened (the post answers the command within seconds)."""
    channel = bot.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
    since = discord.Object(
        discord.utils.time_snowflake(datetime.fromtimestamp(table.created_at - 5, UTC))
    )
    join = f"ft:join:{table.id}"
    async for message in channel.history(after=since, limit=FIND_POST_LIMIT, oldest_first=True):
        if message.author.id == getattr(bot.user, "id", None) and join in _custom_ids(message):
            return message
    return None


def _custom_ids(message: discord.Message) -> list[str]:
    return [
        str(getattr(child, "custom_id", ""))
        for row in message.components
        for child in getattr(row, "children", [])
    ]


def tables_of(bot: FloralBot) -> Tables:
    return tables_cog(bot).tables


def start_command(bot: FloralBot, game: str) -> str | None:
    """The game's ``/<group> start``, from its cog's command group."""
    module = registry.get(game).cog
    for cog in bot.cogs.values():
        if type(cog).__module__ == module and isinstance(cog, commands.GroupCog):
            return f"/{cog.__cog_group_name__} start"
    return None


@app_commands.guild_only()
class TableCog(commands.GroupCog, name="TableCog", group_name="table", group_description="Tables"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        self.tables = Tables(bot.host, bot.settings.opener_starts)
        self._sweeping: asyncio.Task[None] | None = None
        super().__init__()

    async def cog_load(self) -> None:
        self._sweeping = asyncio.create_task(self._sweep(), name="table-expiry")

    async def cog_unload(self) -> None:
        if self._sweeping is not None:
            self._sweeping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeping

    async def _sweep(self) -> None:
        """Expire the tables open too long, now and each ``SWEEP_S``, and say so on their posts."""
        while True:
            try:
                for table in await self.tables.expire_due():
                    await self._show_expired(table)
            except Exception:  # a storage or Discord hiccup: the next sweep tries again
                log.warning("the sweep of expired tables failed", exc_info=True)
            await asyncio.sleep(SWEEP_S)

    async def _show_expired(self, table: TableRecord) -> None:
        post = await find_table_post(self.bot, table)
        if post is None:
            log.info("table %d expired; its post was not found to edit", table.id)
            return
        await post.edit(content=table_text(table), view=None)

    @app_commands.command(description="Open a table for a game: players join with a button")
    @app_commands.describe(game="The game", seats="How many players (default: the fewest)")
    @app_commands.autocomplete(game=game_autocomplete)
    async def open(
        self,
        interaction: discord.Interaction,
        game: str,
        seats: app_commands.Range[int, 2, 9] | None = None,
    ) -> None:
        await self.open_table(interaction, game, seats)

    async def open_table(
        self, interaction: discord.Interaction, game: str, seats: int | None
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        table = await self.tables.open(
            interaction.guild_id, interaction.channel_id, game, interaction.user.id, seats
        )
        view = table_view(table.id)
        assert view is not None  # a new table has its seats free
        await interaction.response.send_message(
            table_text(table), view=view, allowed_mentions=discord.AllowedMentions(users=False)
        )


def open_command(game: str, title: str) -> app_commands.Command[Any, Any, None]:
    """``/<game group> open [seats]``: ``/table open`` for that game."""

    async def open_table(
        interaction: discord.Interaction, seats: app_commands.Range[int, 2, 9] | None = None
    ) -> None:
        cog = tables_cog(floral_bot(interaction))
        await cog.open_table(interaction, game, seats)

    return app_commands.Command(
        name="open",
        description=f"Open a table of {title}: players join with a button",
        callback=open_table,
        parent=None,
    )


def add_open_commands(bot: FloralBot) -> None:
    """An ``open`` command in each registered game's command group (its cog loaded before)."""
    groups = {type(cog).__module__: cog for cog in bot.cogs.values()}
    for name in registry.names():
        info = registry.get(name)
        cog = groups.get(info.cog or "")
        if isinstance(cog, commands.GroupCog) and isinstance(cog.app_command, app_commands.Group):
            cog.app_command.add_command(open_command(name, info.title))


def tables_cog(bot: FloralBot) -> TableCog:
    cog = bot.get_cog("TableCog")
    assert isinstance(cog, TableCog)
    return cog


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    bot.add_dynamic_items(TableButton)
    await bot.add_cog(TableCog(bot))
    add_open_commands(bot)

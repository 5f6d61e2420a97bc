"""``/cards [match] [page]`` and ``cards`` typed in a DM: the match's content reference (the game's
``GameInfo.reference``: every card, potion, tile or panel in play, by name, with what it does),
public, paged to fit Discord's embed limits, with Previous and Next buttons that keep working
after a restart. A game without a reference says so in one line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.host import HostError
from cogs.common import (
    custom_id_of,
    floral_bot,
    match_autocomplete,
    match_id_option,
    match_name,
    respond,
    update_message,
    visible_match,
)
from games import registry
from games.protocol import Topic

TITLE_LIMIT, FIELD_NAME, FIELD_VALUE, FIELDS, EMBED_LIMIT = 256, 256, 1024, 25, 6000
PAGE_BUDGET = 5000  # a page's fields, leaving room for the embed's title and footer
PAGE_PREFIX = "fc:"  # a page button: fc:<match>:<page>:<prev|next>


def clip(text: str, limit: int) -> str:
    text = text.strip() or "—"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reference_pages(topics: Sequence[Topic]) -> list[list[tuple[str, str]]]:
    """The topics as pages of (field name, field value): at most 25 fields and
    ``PAGE_BUDGET`` characters a page, a topic never split."""
    pages: list[list[tuple[str, str]]] = []
    page: list[tuple[str, str]] = []
    size = 0
    for topic in topics:
        field = (clip(topic.title, FIELD_NAME), clip(topic.text, FIELD_VALUE))
        cost = len(field[0]) + len(field[1])
        if page and (len(page) >= FIELDS or size + cost > PAGE_BUDGET):
            pages.append(page)
            page, size = [], 0
        page.append(field)
        size += cost
    return [*pages, page] if page else pages


@dataclass(frozen=True, slots=True)
class CardsPage:
    """One page of a match's reference as a message: its line, its embed, its buttons."""

    text: str
    embed: discord.Embed | None = None
    view: discord.ui.View | None = None


async def cards_page(bot: FloralBot, match_id: int, page: int) -> CardsPage:
    """Page ``page`` (1-based, kept within the pages) of the match's reference now."""
    record = (await bot.host.status(match_id)).match
    info = registry.load(record.game)
    topics: Sequence[Topic] = ()
    if info.reference is not None:
        state = info.game.load((await bot.host.store.latest_step(match_id)).snapshot)
        topics = info.reference(state)
    pages = reference_pages(topics)
    name = match_name(match_id)
    if not pages:
        return CardsPage(
            f"{info.title} has no card reference (match {name}); `/rules game:{info.name}`"
            " explains its pieces."
        )
    page = min(max(page, 1), len(pages))
    title = f"{info.title}: the cards of match {name}"
    embed = page_embed(title, pages[page - 1], page, len(pages))
    text = f"📇 **Cards of match {name}**, page {page} of {len(pages)}."
    return CardsPage(text, embed, page_buttons(match_id, page, len(pages)))


def page_embed(title: str, fields: list[tuple[str, str]], page: int, pages: int) -> discord.Embed:
    embed = discord.Embed(title=clip(title, TITLE_LIMIT))
    for field_name, value in fields:
        embed.add_field(name=field_name, value=value, inline=False)
    embed.set_footer(text=f"Page {page} of {pages}")
    return embed


def page_buttons(match_id: int, page: int, pages: int) -> discord.ui.View | None:
    if pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(match_id, page - 1, "prev", disabled=page <= 1))
    view.add_item(PageButton(match_id, page + 1, "next", disabled=page >= pages))
    return view


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=rf"{PAGE_PREFIX}(?P<match>\d+):(?P<page>\d+):(?P<way>prev|next)",
):
    """Turns the reference to another page by editing its message."""

    def __init__(self, match_id: int, page: int, way: str, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀ Previous" if way == "prev" else "Next ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"{PAGE_PREFIX}{match_id}:{max(page, 0)}:{way}",
                disabled=disabled,
            )
        )
        self.match_id, self.page = match_id, page

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> PageButton:
        return cls(int(match["match"]), int(match["page"]), match["way"])

    async def callback(self, interaction: discord.Interaction) -> None:
        shown = await cards_page(floral_bot(interaction), self.match_id, self.page)
        await update_message(interaction, content=shown.text, embed=shown.embed, view=shown.view)


async def my_match(bot: FloralBot, user_id: int, channel_id: int | None) -> int:
    """The match whose cards the user means: the one they have a prompt in, else their active
    match here, else their newest, else this channel's active match."""
    prompts = bot.host.prompts_for(user_id)
    if len(prompts) == 1:
        return prompts[0].match_id
    active = await bot.host.list_matches(active_only=True)
    mine = [r for r in active if user_id in r.players]
    found = (
        [r for r in mine if r.channel_id == channel_id]
        or mine
        or [r for r in active if r.channel_id == channel_id]
    )
    if not found:
        raise HostError("You are not in an active match; give the match id.")
    return max(found, key=lambda r: r.id).id


class Cards(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    @app_commands.command(description="The cards (and other pieces) in play in a match")
    @app_commands.describe(match="The match (default: yours)", page="A page of the cards")
    @app_commands.autocomplete(match=match_autocomplete)
    async def cards(
        self,
        interaction: discord.Interaction,
        match: str | None = None,
        page: app_commands.Range[int, 1, 99] = 1,
    ) -> None:
        if match is None:
            match_id = await my_match(self.bot, interaction.user.id, interaction.channel_id)
        else:
            match_id = match_id_option(match)
        visible_match(interaction, (await self.bot.host.status(match_id)).match)
        shown = await cards_page(self.bot, match_id, page)
        extra: dict[str, Any] = {}
        if shown.embed is not None:
            extra["embed"] = shown.embed
        if shown.view is not None:
            extra["view"] = shown.view
        await respond(interaction, shown.text, **extra)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    bot.add_dynamic_items(PageButton)
    bot.page_turns.append(lambda data: custom_id_of(data).startswith(PAGE_PREFIX))
    await bot.add_cog(Cards(bot))

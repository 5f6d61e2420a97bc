"""Answering prompts by DM: persistent buttons and menus, and typed single characters.

Every component's custom id carries the match id and the window step (``fx:<match>:<step>:<v>``
for a button, ``fx:declare:<match>:<step>`` for the declaration menu), so the buttons keep working
after a restart (``DynamicItem``) and a click on an old prompt is refused by the host.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import discord
from discord.ext import commands

from bot.client import FloralBot
from bot.discord_transport import fit
from cogs.common import ack_text, floral_bot, refusal_text, respond

log = logging.getLogger(__name__)

DECLARE_GROUP = "declare"
TYPED_MAX = 3  # longer DM text is chat, not an answer, unless it names a choice ("declare")
MENU_FROM = 3  # this many declarations or more go in a menu rather than buttons


async def answer(interaction: discord.Interaction, match_id: int, step: int, value: str) -> None:
    """Submit a component's value for the clicking user; acknowledge or refuse, ephemerally."""
    bot = floral_bot(interaction)
    result = await bot.host.submit(match_id, interaction.user.id, value, step=step)
    await respond(interaction, ack_text(result) if result.accepted else refusal_text(result))


class ChoiceButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"fx:(?P<match>\d+):(?P<step>\d+):(?P<value>[A-Za-z0-9_-]{1,20})",
):
    """One choice of a prompt (a flower, a rune, a coin; a declaration when there are few)."""

    def __init__(
        self, match_id: int, step: int, value: str, label: str = "", group: str = ""
    ) -> None:
        style = (
            discord.ButtonStyle.secondary if group == DECLARE_GROUP else discord.ButtonStyle.primary
        )
        super().__init__(
            discord.ui.Button(
                label=(label or value)[:80],
                style=style,
                custom_id=f"fx:{match_id}:{step}:{value}",
            )
        )
        self.match_id, self.step, self.value = match_id, step, value

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ChoiceButton:
        return cls(int(match["match"]), int(match["step"]), match["value"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer(interaction, self.match_id, self.step, self.value)


class DeclareSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"fx:(?P<kind>declare|menu):(?P<match>\d+):(?P<step>\d+)(?::(?P<page>\d+))?",
):
    """Choices as a menu: the declarations of a prompt (Floral Extract: the opponent's eight
    symbols), or choices past what buttons can hold (``kind`` "menu"), 25 to a menu (``page``)."""

    def __init__(
        self,
        match_id: int,
        step: int,
        options: list[discord.SelectOption] | None = None,
        *,
        kind: str = DECLARE_GROUP,
        page: int = 0,
    ) -> None:
        suffix = f":{page}" if page else ""
        super().__init__(
            discord.ui.Select(
                custom_id=f"fx:{kind}:{match_id}:{step}{suffix}",
                placeholder="Declare…" if kind == DECLARE_GROUP else "Choose…",
                options=options or [discord.SelectOption(label="?")],
            )
        )
        self.match_id, self.step = match_id, step

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> DeclareSelect:
        return cls(int(match["match"]), int(match["step"]), kind=match["kind"])

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        if not values:
            await interaction.response.send_message("Choose one.", ephemeral=True)
            return
        await answer(interaction, self.match_id, self.step, values[0])


ROWS = 5  # Discord: five action rows a message, five buttons a row, 25 options a menu
PER_ROW = 5
PER_MENU = 25
BUTTON_VALUE = re.compile(r"[A-Za-z0-9_-]{1,20}")  # what ChoiceButton's custom id carries


def prompt_view(request: Mapping[str, Any]) -> discord.ui.View | None:
    """Buttons for a request's choices, menus for its declarations and for whatever buttons
    cannot hold (more than the rows left, or a value a button id cannot carry); None: no
    choices. Never more than Discord's five rows."""
    match_id, step = int(request["match_id"]), int(request["step"])
    choices = list(request.get("choices", []))
    if not choices:
        return None
    buttons = [c for c in choices if c["group"] != DECLARE_GROUP]
    declares = [c for c in choices if c["group"] == DECLARE_GROUP]
    if len(declares) <= MENU_FROM:  # one or two declarations read better as buttons
        buttons, declares = buttons + declares, []
    menus = [(DECLARE_GROUP, declares[i : i + PER_MENU]) for i in range(0, len(declares), PER_MENU)]
    others = [c for c in buttons if not BUTTON_VALUE.fullmatch(c["value"])]
    buttons = [c for c in buttons if BUTTON_VALUE.fullmatch(c["value"])]
    if len(buttons) > (ROWS - len(menus) - (1 if others else 0)) * PER_ROW:
        buttons, others = [], buttons + others  # too many for buttons: all in menus
    menus += [("menu", others[i : i + PER_MENU]) for i in range(0, len(others), PER_MENU)]
    if len(menus) > ROWS:
        log.warning(
            "match %d step %d: %d choices do not fit a prompt", match_id, step, len(choices)
        )
    view = discord.ui.View(timeout=None)
    for choice in buttons:
        view.add_item(
            ChoiceButton(match_id, step, choice["value"], choice["label"], choice["group"])
        )
    pages: dict[str, int] = {}
    for kind, group in menus[:ROWS]:
        options = [
            discord.SelectOption(label=c["label"][:100] or c["value"], value=c["value"])
            for c in group
        ]
        page = pages[kind] = pages.get(kind, -1) + 1
        view.add_item(DeclareSelect(match_id, step, options, kind=kind, page=page))
    return view


class Prompts(commands.Cog):
    """Typed answers in DMs."""

    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot:
            return
        text = message.content.strip()
        if not text:
            return
        if len(text) > TYPED_MAX and not self._names_a_choice(message.author.id, text):
            await message.channel.send(
                "Send one character to answer (or use the buttons, or /submit)."
            )
            return
        await message.channel.send(fit(await self._typed(message.author.id, text)))

    def _names_a_choice(self, user_id: int, text: str) -> bool:
        wanted = text.casefold()
        return any(
            choice.value.casefold() == wanted
            for prompt in self.bot.host.prompts_for(user_id)
            for choice in prompt.request.choices
        )

    async def _typed(self, user_id: int, text: str) -> str:
        prompts = self.bot.host.prompts_for(user_id)
        if len(prompts) > 1:
            return "You have prompts in several matches: use the buttons or /submit in the channel."
        if not prompts:
            # a paused match, say: the host tells why nothing can be answered now
            mine = [
                r
                for r in await self.bot.host.list_matches(active_only=True)
                if user_id in r.players and r.status in ("running", "paused")
            ]
            if len(mine) != 1:
                return "Nothing is asked of you right now."
            return refusal_text(await self.bot.host.submit(mine[0].id, user_id, text))
        prompt = prompts[0]
        result = await self.bot.host.submit(prompt.match_id, user_id, text, step=prompt.step)
        return ack_text(result) if result.accepted else refusal_text(result)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    bot.add_dynamic_items(ChoiceButton, DeclareSelect)
    bot.views.build = prompt_view
    await bot.add_cog(Prompts(bot))

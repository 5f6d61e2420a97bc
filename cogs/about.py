"""``/about``: what this bot is and how it is doing (version, uptime, matches hosted), for
anyone, ephemeral: the first thing an operator or a curious player asks."""

from __future__ import annotations

import time

import discord
from discord import app_commands
from discord.ext import commands

from bot import version
from bot.client import FloralBot
from cogs.common import respond
from games import registry


def uptime_text(seconds: float) -> str:
    """``3 d 4 h``, ``5 h 12 min``, ``7 min``: the two largest units that matter."""
    minutes = int(seconds // 60)
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        return f"{days} d {hours} h"
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def about_text(uptime_s: float, hosted: int, active: int) -> str:
    games = ", ".join(registry.get(name).title for name in registry.names())
    return "\n".join(
        [
            f"**floral-host {version()}**: timed, secret-submission matches ({games}).",
            f"Up for {uptime_text(uptime_s)}; {active} match{'es' if active != 1 else ''}"
            f" under way, {hosted} hosted in all.",
            "`/help` lists the commands for you; `/rules` explains each game.",
        ]
    )


class About(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    @app_commands.command(description="This bot's version, uptime and matches hosted")
    async def about(self, interaction: discord.Interaction) -> None:
        host = self.bot.host
        hosted = await host.store.match_count()
        text = about_text(time.time() - self.bot.started_at, hosted, len(host.active_match_ids()))
        await respond(interaction, text)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(About(bot))

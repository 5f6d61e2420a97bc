"""``/match ...`` for any game, and the players' ``/submit`` and ``/garden``."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.export import export_match
from bot.host import HostError, MatchStatusView, OpenPrompt
from cogs.common import (
    ack_text,
    channel_match,
    guild_only_match,
    match_autocomplete,
    match_label,
    moderator_only,
    refusal_text,
)

log = logging.getLogger(__name__)


# --- rendering ----------------------------------------------------------------------------


def status_text(view: MatchStatusView) -> str:
    record = view.match
    lines = [
        f"**Match {record.id}** · {view.title} · {' vs '.join(record.names)} · {record.status}"
    ]
    if record.status not in ("setup", "revealed"):
        lines.append(view.public_text)
    window = view.window
    if window is not None:
        waiting = [record.names[s] for s in window.seats if s not in window.answered]
        who = ", ".join(waiting) if waiting else "nobody"
        if window.paused:
            lines.append(f"Paused, {window.seconds_left:.0f} s left in the window.")
        else:
            lines.append(f"Window open, closes <t:{int(window.deadline)}:R>; waiting for {who}.")
    if record.outcome:
        outcome: dict[str, Any] = record.outcome
        winners = ", ".join(record.names[s] for s in outcome.get("winners", []))
        lines.append(f"Winner: {winners or 'none'} ({outcome.get('reason', '')})")
    return "\n".join(lines)


# --- /match ---------------------------------------------------------------------------------


class Matches(commands.GroupCog, group_name="match", group_description="Running matches"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    async def _match(self, interaction: discord.Interaction, match: int | None) -> int:
        match_id = await channel_match(interaction, match)
        guild_only_match(interaction, (await self.bot.host.status(match_id)).match)
        return match_id

    @app_commands.command(description="The public state of a match and its open window")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    async def status(self, interaction: discord.Interaction, match: int | None = None) -> None:
        match_id = await self._match(interaction, match)
        view = await self.bot.host.status(match_id)
        await interaction.response.send_message(status_text(view), ephemeral=True)

    @app_commands.command(description="Pause a running match (freezes the window)")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def pause(self, interaction: discord.Interaction, match: int | None = None) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.pause(match_id, by=interaction.user.id)
        await interaction.response.send_message(f"Match {match_id} is paused.", ephemeral=True)

    @app_commands.command(description="Resume a paused match")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def resume(self, interaction: discord.Interaction, match: int | None = None) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.resume(match_id, by=interaction.user.id)
        await interaction.response.send_message(f"Match {match_id} resumes.", ephemeral=True)

    @app_commands.command(description="Give the open window more time")
    @app_commands.describe(seconds="Seconds to add", match="The match (default: this channel's)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def extend(
        self,
        interaction: discord.Interaction,
        seconds: app_commands.Range[int, 1, 86400],
        match: int | None = None,
    ) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.extend(match_id, float(seconds), by=interaction.user.id)
        await interaction.response.send_message(
            f"Match {match_id}: window extended by {seconds} s.", ephemeral=True
        )

    @app_commands.command(description="End the match now by the turn-limit rule")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def end(self, interaction: discord.Interaction, match: int | None = None) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.end(match_id, by=interaction.user.id)
        await interaction.response.send_message(f"Match {match_id} is ended.", ephemeral=True)

    @app_commands.command(description="Stop the match with no result")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def abort(self, interaction: discord.Interaction, match: int | None = None) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.abort(match_id, by=interaction.user.id)
        await interaction.response.send_message(f"Match {match_id} is aborted.", ephemeral=True)

    @app_commands.command(name="list", description="The matches of this server")
    @moderator_only()
    async def list_(self, interaction: discord.Interaction) -> None:
        records = await self.bot.host.list_matches(interaction.guild_id)
        lines = [match_label(r) for r in sorted(records, key=lambda r: -r.id)[:30]]
        text = "\n".join(lines) if lines else "No matches in this server yet."
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(description="The match script, as a file")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def export(self, interaction: discord.Interaction, match: int) -> None:
        guild_only_match(interaction, (await self.bot.host.status(match)).match)
        script = await export_match(self.bot.host.store, match)
        data = io.BytesIO(json.dumps(script, indent=2).encode())
        await interaction.response.send_message(
            f"Match {match} as a script:",
            file=discord.File(data, filename=f"match-{match}.json"),
            ephemeral=True,
        )


# --- /submit, /garden -----------------------------------------------------------------------


class Players(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    async def _prompt(self, interaction: discord.Interaction) -> OpenPrompt:
        prompts = self.bot.host.prompts_for(interaction.user.id)
        if interaction.guild_id is not None and len(prompts) > 1:
            here = []
            for prompt in prompts:
                record = (await self.bot.host.status(prompt.match_id)).match
                if record.channel_id == interaction.channel_id:
                    here.append(prompt)
            prompts = here
        if not prompts:
            raise HostError("Nothing is asked of you right now.")
        if len(prompts) > 1:
            raise HostError("You have prompts in several matches: answer in the match channel.")
        return prompts[0]

    @app_commands.command(description="Answer your open prompt (when DMs or buttons fail)")
    @app_commands.describe(value="Your answer: a flower letter, a rune or a digit")
    async def submit(self, interaction: discord.Interaction, value: str) -> None:
        prompt = await self._prompt(interaction)
        result = await self.bot.host.submit(
            prompt.match_id, interaction.user.id, value, step=prompt.step
        )
        text = ack_text(result) if result.accepted else refusal_text(result)
        if result.accepted:
            log.info("match %d: /submit accepted from %s", prompt.match_id, interaction.user.id)
        else:
            text = f"{text}\n{prompt.request.prompt}"
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(description="Your private view of your match, just for you")
    @app_commands.describe(match="The match (default: your active one)")
    @app_commands.autocomplete(match=match_autocomplete)
    async def garden(self, interaction: discord.Interaction, match: int | None = None) -> None:
        if match is None:
            mine = [
                r
                for r in await self.bot.host.list_matches(active_only=True)
                if interaction.user.id in r.players
            ]
            if not mine:
                raise HostError("You are not in an active match.")
            here = [r for r in mine if r.channel_id == interaction.channel_id]
            match = (here or sorted(mine, key=lambda r: -r.id))[0].id
        text = await self.bot.host.describe(match, interaction.user.id)
        await interaction.response.send_message(f"Match {match}\n{text}", ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(Matches(bot))
    await bot.add_cog(Players(bot))

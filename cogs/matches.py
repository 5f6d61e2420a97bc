"""``/match ...`` for any game, and the players' ``/submit`` and ``/look`` (alias ``/garden``)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.export import export_match
from bot.host import HostError, MatchStatusView, OpenPrompt
from bot.store import ACTIVE_STATUSES, MatchRecord
from cogs.common import (
    channel_match,
    match_autocomplete,
    match_id_option,
    match_label,
    match_name,
    matches_here,
    moderator_only,
    respond,
    seated_while_active,
    visible_match,
)
from cogs.prompts import help_text, is_a_choice, submit_routed
from games import registry
from games.text import names_text
from pictures import Picture, hooks

log = logging.getLogger(__name__)


# --- rendering ----------------------------------------------------------------------------


def status_text(view: MatchStatusView) -> str:
    record = view.match
    players = " vs ".join(record.names)
    lines = [f"**Match {match_name(record.id)}** · {view.title} · {players} · {record.status}"]
    if record.status not in ("setup", "revealed"):
        lines.append(view.public_text)
    window = view.window
    if window is not None:
        waiting = [record.names[s] for s in window.seats if s not in window.answered]
        who = names_text(waiting) if waiting else "answers" if not window.seats else "nobody"
        if window.paused:
            lines.append(f"Paused, {window.seconds_left:.0f} s left in the window.")
        else:
            lines.append(f"Window open, closes <t:{int(window.deadline)}:R>; waiting for {who}.")
    if record.outcome:
        outcome: dict[str, Any] = record.outcome
        winners = [record.names[s] for s in outcome.get("winners", [])]
        title = "Winners" if len(winners) > 1 else "Winner"
        lines.append(f"{title}: {names_text(winners) or 'none'} ({outcome.get('reason', '')})")
    return "\n".join(lines)


LIST_PAGE = 15  # match labels are at most 100 characters: a page stays far under 2000


def list_page(every: Sequence[MatchRecord], page: int, include_finished: bool) -> str:
    """One page of matches, newest first, and how to see the rest."""
    records = [r for r in every if include_finished or r.status in ACTIVE_STATUSES]
    if not records:
        if not every:
            return "No matches in this server yet."
        return (
            f"No active matches in this server ({len(every)} finished or aborted:"
            " `/match list include_finished:True`)."
        )
    pages = -(-len(records) // LIST_PAGE)
    page = min(page, pages)
    shown = sorted(records, key=lambda r: -r.id)[(page - 1) * LIST_PAGE : page * LIST_PAGE]
    kind = "Matches" if include_finished else "Active matches"
    lines = [f"{kind} of this server, newest first (page {page} of {pages}):"]
    lines += [match_label(r) for r in shown]
    if page < pages:
        lines.append(f"More: `/match list page:{page + 1}`.")
    if not include_finished:
        lines.append("Finished and aborted matches: `/match list include_finished:True`.")
    return "\n".join(lines)


HISTORY_PAGE = 10
HISTORY_LINE = 150  # ten lines, the header and the hint stay under 1,700 characters


def history_line(record: MatchRecord, title: str) -> str:
    """``m12 · Floral Extract · Ann vs Ben · won by Ann · <t:…:R>``, cut to fit."""
    outcome: Any = record.outcome if isinstance(record.outcome, dict) else {}
    winners = outcome.get("winners") or []
    seats = range(len(record.names))
    won = names_text([record.names[s] for s in winners if isinstance(s, int) and s in seats])
    parts = [match_name(record.id), title, " vs ".join(record.names)]
    parts.append(f"won by {won}" if won else "no winner")
    if record.practice:
        parts.append("practice")
    if record.ended_at is not None:
        parts.append(f"<t:{int(record.ended_at)}:R>")
    line = discord.utils.escape_mentions(" · ".join(parts))
    if len(line) > HISTORY_LINE:  # the names are long: keep the ending time whole
        tail = parts[-1] if record.ended_at is not None else ""
        line = line[: HISTORY_LINE - len(tail) - 4] + "… · " + tail
    return line


def history_text(lines: Sequence[str], total: int, page: int, who: str | None) -> str:
    """One page of finished matches, newest first, and how to see the next."""
    if who is not None:
        who = discord.utils.escape_markdown(discord.utils.escape_mentions(who[:40]))
    whose = f"{who}'s finished matches" if who else "Finished matches"
    if total == 0:
        return f"{whose} in this server: none yet." if who else "No finished matches here yet."
    pages = -(-total // HISTORY_PAGE)
    head = f"{whose} in this server, newest first (page {page} of {pages}, {total} in all):"
    more = []
    if page < pages:
        same = " with the same player" if who else ""
        more.append(f"More: `/match history page:{page + 1}`{same}.")
    return "\n".join([head, *lines, *more])


# --- /match ---------------------------------------------------------------------------------


class Matches(commands.GroupCog, group_name="match", group_description="Running matches"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    async def _match(self, interaction: discord.Interaction, match: str | None) -> int:
        """The match named (or this channel's), if the asker may see it here."""
        match_id = await channel_match(interaction, match)
        visible_match(interaction, (await self.bot.host.status(match_id)).match)
        return match_id

    async def _not_own_match(
        self, interaction: discord.Interaction, match: str | None, what: str
    ) -> int:
        """``_match``, for an operation that decides a match's result (kick, end, abort): a
        moderator who plays in a rated match leaves it to another moderator."""
        match_id = await self._match(interaction, match)
        record = (await self.bot.host.status(match_id)).match
        if interaction.user.id in record.players and not record.practice:
            raise HostError(
                f"You play in match {match_name(match_id)}: another moderator can {what} it"
                " (a moderator who plays never decides their own rated match)."
            )
        return match_id

    @app_commands.command(description="The public state of a match and its open window")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    async def status(self, interaction: discord.Interaction, match: str | None = None) -> None:
        match_id = await self._match(interaction, match)
        view = await self.bot.host.status(match_id)
        await respond(interaction, status_text(view))

    @app_commands.command(description="Pause a running match (freezes the window)")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def pause(self, interaction: discord.Interaction, match: str | None = None) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.pause(match_id, by=interaction.user.id)
        await respond(interaction, f"Match {match_name(match_id)} is paused.")

    @app_commands.command(description="Resume a paused match")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def resume(self, interaction: discord.Interaction, match: str | None = None) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.resume(match_id, by=interaction.user.id)
        await respond(interaction, f"Match {match_name(match_id)} resumes.")

    @app_commands.command(description="Give the open window more time")
    @app_commands.describe(seconds="Seconds to add", match="The match (default: this channel's)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def extend(
        self,
        interaction: discord.Interaction,
        seconds: app_commands.Range[int, 1, 86400],
        match: str | None = None,
    ) -> None:
        match_id = await self._match(interaction, match)
        await self.bot.host.extend(match_id, float(seconds), by=interaction.user.id)
        await respond(interaction, f"Match {match_name(match_id)}: window extended by {seconds} s.")

    @app_commands.command(description="End the match now by the turn-limit rule")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def end(self, interaction: discord.Interaction, match: str | None = None) -> None:
        match_id = await self._not_own_match(interaction, match, "end")
        await self.bot.host.end(match_id, by=interaction.user.id)
        await respond(interaction, f"Match {match_name(match_id)} is ended.")

    @app_commands.command(description="Stop the match with no result")
    @app_commands.describe(match="The match (default: the one in this channel)")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def abort(self, interaction: discord.Interaction, match: str | None = None) -> None:
        match_id = await self._not_own_match(interaction, match, "abort")
        await self.bot.host.abort(match_id, by=interaction.user.id)
        await respond(interaction, f"Match {match_name(match_id)} is aborted.")

    @app_commands.command(description="Leave your match now (the game decides what follows)")
    @app_commands.describe(match="The match (default: this channel's, or by DM your active one)")
    @app_commands.autocomplete(match=match_autocomplete)
    async def leave(self, interaction: discord.Interaction, match: str | None = None) -> None:
        match_id = await self._match_to_leave(interaction, match)
        record = (await self.bot.host.status(match_id)).match
        if interaction.user.id not in record.players:
            raise HostError(f"You do not play in match {match_name(match_id)}.")
        if await self.bot.hand_over_command(record, interaction):  # sharded: a practice
            return
        after = await self.bot.host.leave(match_id, interaction.user.id)
        await respond(interaction, f"You left match {match_name(match_id)} ({after.status}).")

    @app_commands.command(description="Remove a player from a match, as if they had left")
    @app_commands.describe(
        player="The player to remove", match="The match (default: this channel's)"
    )
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def kick(
        self, interaction: discord.Interaction, player: discord.User, match: str | None = None
    ) -> None:
        match_id = await self._not_own_match(interaction, match, "kick a player from")
        record = (await self.bot.host.status(match_id)).match
        if player.id not in record.players:
            raise HostError(f"{player.display_name} does not play in match {match_name(match_id)}.")
        await self.bot.host.kick(match_id, player.id, by=interaction.user.id)
        await respond(
            interaction, f"{player.display_name} is removed from match {match_name(match_id)}."
        )

    async def _match_to_leave(self, interaction: discord.Interaction, match: str | None) -> int:
        """The match named (the asker's own practice from anywhere; another match where the
        asker may see it); by DM, the asker's one running match; in a server, the match of
        this channel they play in, else their practice (it runs in their DMs), else this
        channel's match (which the caller refuses as not theirs)."""
        user_id = interaction.user.id
        if match is not None:
            match_id = match_id_option(match)
            record = (await self.bot.host.status(match_id)).match
            if not (record.practice and user_id in record.players):
                visible_match(interaction, record)
            return match_id
        if interaction.guild_id is None:
            return await self._my_active_match(interaction)
        mine = [r.id for r in await matches_here(interaction) if user_id in r.players]
        if len(mine) > 1:
            raise HostError("You play in several matches here: give the match id.")
        if mine:
            return mine[0]
        practices = [r.id for r in await self._running_of(user_id) if r.practice]
        if len(practices) == 1:
            return practices[0]
        return await channel_match(interaction, None)

    async def _running_of(self, user_id: int) -> list[MatchRecord]:
        return [
            r
            for r in await self.bot.host.list_matches(active_only=True)
            if user_id in r.players and r.status in ("running", "paused")
        ]

    async def _my_active_match(self, interaction: discord.Interaction) -> int:
        """By DM: the asker's one running or paused match."""
        mine = [r.id for r in await self._running_of(interaction.user.id)]
        if not mine:
            raise HostError("You are not in a running match.")
        if len(mine) > 1:
            raise HostError("You play in several matches: give the match id.")
        return mine[0]

    @app_commands.command(name="list", description="The matches of this server, newest first")
    @app_commands.describe(
        include_finished="List finished and aborted matches too (default: active ones only)",
        page="Which page of the list (15 matches a page)",
    )
    @moderator_only()
    async def list_(
        self,
        interaction: discord.Interaction,
        include_finished: bool = False,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        records = await self.bot.host.list_matches(interaction.guild_id)
        await respond(interaction, list_page(records, page, include_finished))

    @app_commands.command(description="This server's finished matches, newest first")
    @app_commands.describe(
        player="Only the matches this player played",
        page=f"Which page of the list ({HISTORY_PAGE} matches a page)",
    )
    async def history(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            await respond(
                interaction,
                "Match history belongs to each server: use `/match history` in a server's channel.",
            )
            return
        store = self.bot.host.store
        user_id = player.id if player is not None else None
        offset = (page - 1) * HISTORY_PAGE
        records, total = await store.finished_matches(
            guild_id, user_id, offset=offset, limit=HISTORY_PAGE
        )
        if not records and total:  # past the last page: show the last one
            page = -(-total // HISTORY_PAGE)
            offset = (page - 1) * HISTORY_PAGE
            records, total = await store.finished_matches(
                guild_id, user_id, offset=offset, limit=HISTORY_PAGE
            )
        lines = [history_line(r, self._title(r.game)) for r in records]
        who = player.display_name if player is not None else None
        await respond(interaction, history_text(lines, total, page, who))

    def _title(self, game: str) -> str:
        try:
            return self.bot.host.game(game).title
        except KeyError:
            return game

    @app_commands.command(description="The match script, as a file")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def export(self, interaction: discord.Interaction, match: str) -> None:
        match_id = match_id_option(match)
        record = (await self.bot.host.status(match_id)).match
        visible_match(interaction, record)
        if seated_while_active(interaction.user.id, record):
            raise HostError(
                f"You play in match {match_name(match_id)}: its script (both players' secrets)"
                " is yours once it is over."
            )
        await interaction.response.defer(ephemeral=True, thinking=True)  # a long match's log
        script = await export_match(self.bot.host.store, match_id)
        data = json.dumps(script, indent=2).encode()
        name = match_name(match_id)
        if len(data) > interaction.filesize_limit:
            raise HostError(
                f"Match {name}'s script is {len(data):,} bytes, more than Discord lets me attach"
                f" here; run `floral-host export {match_id}` where the bot runs."
            )
        await respond(
            interaction,
            f"Match {name} as a script:",
            file=discord.File(io.BytesIO(data), filename=f"match-{match_id}.json"),
        )


# --- /submit, /look -----------------------------------------------------------------------


class Players(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    async def _prompts(
        self, interaction: discord.Interaction, match: str | None
    ) -> list[OpenPrompt]:
        """The asker's open prompts this answer may be for: the named match's; in a server's
        channel (or a match's thread) with several, that channel's; else every one."""
        prompts = await self.bot.open_prompts(interaction.user.id)
        if match is not None:
            match_id = match_id_option(match)
            prompts = [p for p in prompts if p.match_id == match_id]
        elif interaction.guild_id is not None and len(prompts) > 1:
            here = {r.id for r in await matches_here(interaction)}
            prompts = [p for p in prompts if p.match_id in here] or prompts
        if not prompts:
            raise HostError("Nothing is asked of you right now.")
        return prompts

    @app_commands.command(description="Answer your open prompt (when DMs or buttons fail)")
    @app_commands.describe(
        value="Your answer as the prompt shows it (`help`: how to answer)",
        match="The match it answers, when you have prompts in several",
    )
    @app_commands.autocomplete(match=match_autocomplete)
    async def submit(
        self, interaction: discord.Interaction, value: str, match: str | None = None
    ) -> None:
        prompts = await self._prompts(interaction, match)
        if value.strip().casefold() == "help" and not any(
            is_a_choice(p.request, value.strip()) for p in prompts
        ):
            if len(prompts) > 1:
                raise HostError("You have prompts in several matches: give the `match`.")
            await respond(interaction, help_text(prompts[0].request, prompts[0].match_id))
            return
        routed = await submit_routed(self.bot, interaction.user.id, value, prompts, interaction)
        if routed.handed:  # the process hosting its match answers
            return
        prompt, text = routed.prompt, routed.text
        if prompt is not None:
            log.info("match %d: /submit from %s", prompt.match_id, interaction.user.id)
        if prompt is not None and routed.refused:
            text = f"{text}\n{prompt.request.prompt}"
        extra: dict[str, Any] = {"view": routed.view} if routed.view is not None else {}
        await respond(interaction, text, **extra)

    @app_commands.command(description="Your private view of your match, just for you")
    @app_commands.describe(match="The match (default: your active one)")
    @app_commands.autocomplete(match=match_autocomplete)
    async def look(self, interaction: discord.Interaction, match: str | None = None) -> None:
        await self._look(interaction, match)

    @app_commands.command(description="The same as /look (its first name)")
    @app_commands.describe(match="The match (default: your active one)")
    @app_commands.autocomplete(match=match_autocomplete)
    async def garden(self, interaction: discord.Interaction, match: str | None = None) -> None:
        await self._look(interaction, match)

    async def _look(self, interaction: discord.Interaction, match: str | None) -> None:
        """What the asker's seat may know of the match: hand, map, coins, as the game says."""
        if match is None:
            match_id = await self._my_match(interaction)
        else:
            match_id = match_id_option(match)
            visible_match(interaction, (await self.bot.host.status(match_id)).match)
        text = await self.bot.host.describe(match_id, interaction.user.id)
        picture = await self._seat_picture(match_id, interaction.user.id)
        if picture is None:
            await respond(interaction, f"Match {match_name(match_id)}\n{text}")
            return
        image = discord.File(
            io.BytesIO(picture.png), filename=picture.filename, description=picture.description
        )
        await respond(interaction, f"Match {match_name(match_id)}\n{text}", file=image)

    async def _seat_picture(self, match_id: int, user_id: int) -> Picture | None:
        """The game's picture of the asker's seat (Floral Extract: their garden), if any."""
        record = (await self.bot.host.status(match_id)).match
        info = registry.load(record.game)
        if user_id not in record.players or not hooks.has_seat_picture(info):
            return None
        snapshot = (await self.bot.host.store.latest_step(match_id)).snapshot
        seat = record.players.index(user_id)
        try:
            return await asyncio.to_thread(hooks.seat_picture, info, snapshot, seat, record.names)
        except Exception:  # the text says it all; a picture is a bonus
            log.warning("the picture of /look in match %d failed", match_id, exc_info=True)
            return None

    async def _my_match(self, interaction: discord.Interaction) -> int:
        """The asker's active match: the one in this channel, else their newest."""
        mine = [
            r
            for r in await self.bot.host.list_matches(active_only=True)
            if interaction.user.id in r.players
        ]
        if not mine:
            raise HostError("You are not in an active match.")
        ids = {r.id for r in await matches_here(interaction)}
        here = [r for r in mine if r.id in ids]
        return (here or sorted(mine, key=lambda r: -r.id))[0].id


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(Matches(bot))
    await bot.add_cog(Players(bot))

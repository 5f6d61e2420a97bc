"""``/stats [player] [game]`` and ``/leaderboard game``: wins, losses, matches and ratings of
this server's players (``bot.ratings``). Ratings belong to one server: neither command ever
shows another server's players or results, and in DMs both say to ask in a server.

Both refresh the ratings first (folding any match that finished since), so they always show
every finished match.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot import ratings
from bot.client import FloralBot
from bot.host import HostError
from bot.store import Rating, WriteFailed
from cogs.common import respond
from cogs.help import game_autocomplete
from games import registry

log = logging.getLogger(__name__)

BOARD_PAGE = 20  # lines of at most ~110 characters: a page stays far under an embed's 4096
MAX_GAMES_SHOWN = 25  # an embed's fields
NAME_CHARS = 40
COLOUR = discord.Colour.from_rgb(0x3B, 0x8E, 0x5A)
IN_A_SERVER = "Ratings belong to each server: use `/{command}` in a server's channel."


def game_title(game: str) -> str:
    """A game's title (a registered name or a module path); its key when it cannot be loaded."""
    try:
        return registry.load(game).title
    except KeyError:
        return game


def find_game(game: str) -> str:
    """The game an option names (its name or its title, any case); HostError otherwise."""
    wanted = game.strip().lower()
    for name in registry.names():
        if wanted in (name, registry.get(name).title.lower()):
            return name
    known = ", ".join(registry.names())
    raise HostError(f"There is no game {game[:40]!r}; the games: {known}.")


def short(name: str) -> str:
    name = discord.utils.escape_markdown(" ".join(name.split()))
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def record_text(rating: Rating) -> str:
    """``5 matches: 3 wins, 2 losses``, with the draws when there were some."""
    draws = rating.matches - rating.wins - rating.losses
    text = f"{rating.matches} match{'es' if rating.matches != 1 else ''}: {rating.wins} won"
    text += f", {rating.losses} lost"
    return text + (f", {draws} drawn" if draws else "")


def stats_embed(
    who: str, mine: list[Rating], boards: dict[str, list[ratings.Standing]]
) -> discord.Embed:
    """A field per game the player is rated in: rating, place on the server's board, record."""
    embed = discord.Embed(title=f"Stats of {short(who)}", colour=COLOUR)
    shown = sorted(mine, key=lambda r: (-r.matches, r.game))[:MAX_GAMES_SHOWN]
    for rating in shown:
        board = boards[rating.game]
        place = next(s.place for s in board if s.rating.user_id == rating.user_id)
        embed.add_field(
            name=game_title(rating.game)[:256],
            value=(
                f"Rating **{ratings.shown(rating):.1f}** · #{place} of {len(board)} here\n"
                f"{record_text(rating)}"
            ),
            inline=False,
        )
    if len(mine) > len(shown):
        embed.set_footer(text=f"{len(mine) - len(shown)} more games not shown")
    else:
        embed.set_footer(text="Rating: mu - 3 sigma (OpenSkill); it rises as you win")
    return embed


def board_embed(game: str, board: list[ratings.Standing], page: int) -> discord.Embed:
    """One page of a game's board on this server."""
    pages = max(1, -(-len(board) // BOARD_PAGE))
    page = min(max(page, 1), pages)
    shown = board[(page - 1) * BOARD_PAGE : page * BOARD_PAGE]
    lines = [
        f"**{s.place}.** {short(s.rating.name)} (<@{s.rating.user_id}>) · "
        f"**{ratings.shown(s.rating):.1f}** · {s.rating.wins}-{s.rating.losses}"
        f" in {s.rating.matches}"
        for s in shown
    ]
    title = f"Leaderboard: {game_title(game)}"[:256]
    embed = discord.Embed(title=title, description="\n".join(lines), colour=COLOUR)
    footer = f"Page {page} of {pages} · {len(board)} players rated in this server"
    if page < pages:
        footer += f" · more: /leaderboard game:{game} page:{page + 1}"
    embed.set_footer(text=footer[:2048])
    return embed


async def send_embed(interaction: discord.Interaction, embed: discord.Embed, share: bool) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(embed=embed, ephemeral=not share)
    else:
        await interaction.response.send_message(embed=embed, ephemeral=not share)


class Stats(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    async def _ratings(self, guild_id: int, game: str | None = None) -> list[Rating]:
        store = self.bot.host.store
        try:
            await ratings.refresh(store)
        except WriteFailed as error:  # the database is busy or full: show what is stored
            log.warning("ratings not refreshed: %s", error)
        return await store.ratings(guild_id, game)

    @app_commands.command(description="Wins, losses, matches and rating of a player here")
    @app_commands.describe(
        player="Whose stats (default: yours)",
        game="Only this game",
        share="Post it in the channel (default: only you see it)",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    async def stats(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        game: str | None = None,
        share: bool = False,
    ) -> None:
        if interaction.guild_id is None:
            await respond(interaction, IN_A_SERVER.format(command="stats"))
            return
        wanted = find_game(game) if game is not None else None
        user = player or interaction.user
        every = await self._ratings(interaction.guild_id, wanted)
        mine = [r for r in every if r.user_id == user.id]
        if not mine:
            where = f" at {game_title(wanted)}" if wanted else ""
            await respond(
                interaction,
                f"{short(user.display_name)} has no finished match{where} in this server yet.",
                ephemeral=not share,
            )
            return
        games = {r.game for r in mine}
        boards = {key: ratings.board(r for r in every if r.game == key) for key in games}
        await send_embed(interaction, stats_embed(user.display_name, mine, boards), share)

    @app_commands.command(description="This server's players ranked at a game")
    @app_commands.describe(
        game="The game",
        page=f"Which page ({BOARD_PAGE} players a page)",
        share="Post it in the channel (default: only you see it)",
    )
    @app_commands.autocomplete(game=game_autocomplete)
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        game: str,
        page: app_commands.Range[int, 1, 10_000] = 1,
        share: bool = False,
    ) -> None:
        if interaction.guild_id is None:
            await respond(interaction, IN_A_SERVER.format(command="leaderboard"))
            return
        wanted = find_game(game)
        board = ratings.board(await self._ratings(interaction.guild_id, wanted))
        if not board:
            text = f"Nobody has finished a {game_title(wanted)} match in this server yet."
            await respond(interaction, text, ephemeral=not share)
            return
        await send_embed(interaction, board_embed(wanted, board, page), share)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(Stats(bot))

"""``/help`` and ``/rules``: what the bot does and the rules as it plays them, where the players
are. ``/help`` is built from the command tree, so a game's new commands show with no edit here;
``/rules`` pages through ``docs/<game>.md``, one ``##`` section at a time."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from cogs.common import for_moderators, is_moderator_member, respond
from games import registry

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGE_CHARS = 1700  # a page of rules, with room for its heading and the hint to the next one
OVERVIEW = "Overview"


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    text: str


@functools.cache
def rules_sections(game: str) -> tuple[Section, ...]:
    """The sections of the game's rules page: what comes before its first ``##`` heading
    (the overview), then each ``##`` section; empty when the page is not installed."""
    path = DOCS / f"{game}.md"
    if not path.is_file():
        return ()
    parts = re.split(r"^## +(.+)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    intro = re.sub(r"^# .*\n", "", parts[0]).strip()
    sections = [Section(OVERVIEW, intro)] if intro else []
    titled = zip(parts[1::2], parts[2::2], strict=True)
    sections += [Section(title.strip(), body.strip()) for title, body in titled]
    return tuple(sections)


def pages(text: str, limit: int = PAGE_CHARS) -> list[str]:
    """``text`` cut into pages at paragraph ends (a paragraph longer than a page at lines,
    then anywhere), each at most ``limit`` characters."""
    found: list[str] = []
    page = ""
    for piece in _pieces(text, limit):
        if page and len(page) + 2 + len(piece) > limit:
            found.append(page)
            page = ""
        page = f"{page}\n\n{piece}" if page else piece
    return [*found, page] if page else found or [""]


def _pieces(text: str, limit: int) -> list[str]:
    pieces = []
    for paragraph in text.split("\n\n"):
        if len(paragraph) <= limit:
            pieces.append(paragraph)
            continue
        for line in paragraph.split("\n"):
            pieces += [line[i : i + limit] for i in range(0, max(len(line), 1), limit)]
    return pieces


def find_section(sections: tuple[Section, ...], wanted: str) -> Section | None:
    """A section by its number (1-based) or the start of its title, ignoring case."""
    wanted = wanted.strip().lower()
    if wanted.isascii() and wanted.isdigit() and 1 <= int(wanted) <= len(sections):
        return sections[int(wanted) - 1]
    return next((s for s in sections if s.title.lower().startswith(wanted)), None)


def rules_text(game: str, section: str | None, page: int) -> str:
    """One page of the rules, with where to go next; a line saying what is wrong otherwise."""
    try:
        info = registry.get(game)
    except KeyError:
        return f"✖ There is no game {game[:40]!r}; the games: {', '.join(registry.names())}."
    sections = rules_sections(info.name)
    if not sections:
        return f"✖ The rules of {info.title} are not installed with this bot (docs/{game}.md)."
    chosen = sections[0] if section is None else find_section(sections, section)
    if chosen is None:
        missing = (section or "")[:40]
        return f"✖ {info.title}'s rules have no section {missing!r}." + _contents(sections)
    cut = pages(chosen.text)
    page = min(max(page, 1), len(cut))
    head = f"📖 **{info.title}: {chosen.title}**" + (
        f" (page {page} of {len(cut)})" if len(cut) > 1 else ""
    )
    hints = []
    if page < len(cut):
        hints.append(f"Next: `/rules game:{info.name} section:{chosen.title} page:{page + 1}`")
    if section is None:
        hints.append(_contents(sections).strip())
    return "\n".join([head, cut[page - 1], *hints])


def _contents(sections: tuple[Section, ...]) -> str:
    titles = " · ".join(f"{n} {s.title}" for n, s in enumerate(sections, start=1))
    return f"\nSections: {titles}"


def help_text(tree: app_commands.CommandTree[FloralBot], moderator: bool) -> str:
    """The bot in two lines, then the commands the asker may use (moderators see theirs)."""
    everyone: list[str] = []
    moderators: list[str] = []
    for command in sorted(tree.get_commands(), key=lambda c: c.name):
        if isinstance(command, app_commands.Group):
            subcommands = [c for c in command.commands if isinstance(c, app_commands.Command)]
            for group, mine in ((everyone, False), (moderators, True)):
                names = [c.name for c in subcommands if for_moderators(c) == mine]
                if names:
                    group.append(f"• `/{command.name}` {' · '.join(names)}: {command.description}")
        elif isinstance(command, app_commands.Command):
            line = f"• `/{command.name}`: {command.description}"
            (moderators if for_moderators(command) else everyone).append(line)
    games = ", ".join(registry.get(name).title for name in registry.names())
    lines = [
        f"**floral-host** hosts timed, secret-submission matches: {games}. A moderator sets a"
        " match up in a channel; each player gets secrets and prompts by DM and answers with"
        " the buttons, by typing, or with `/submit`. `/rules` explains each game.",
        "**For everyone**",
        *everyone,
    ]
    if moderator:
        lines += ["**For moderators**", *moderators]
    return "\n".join(lines)


async def game_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    current = current.lower()
    found = [registry.get(name) for name in registry.names()]
    return [
        app_commands.Choice(name=info.title, value=info.name)
        for info in found
        if current in info.name or current in info.title.lower()
    ][:25]


async def section_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    game = getattr(interaction.namespace, "game", None)
    if not isinstance(game, str) or game not in registry.names():
        return []
    current = current.lower()
    return [
        app_commands.Choice(name=f"{n} {s.title}"[:100], value=s.title[:100])
        for n, s in enumerate(rules_sections(game), start=1)
        if current in s.title.lower()
    ][:25]


class Help(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What this bot does and the commands for you")
    async def help_(self, interaction: discord.Interaction) -> None:
        moderator = is_moderator_member(self.bot, interaction.user) or bool(
            interaction.guild is not None and interaction.permissions.manage_guild
        )
        await respond(interaction, help_text(self.bot.tree, moderator))

    @app_commands.command(description="The rules of a game as this bot plays them")
    @app_commands.describe(
        game="The game", section="A section (its number or title)", page="A page of the section"
    )
    @app_commands.autocomplete(game=game_autocomplete, section=section_autocomplete)
    async def rules(
        self,
        interaction: discord.Interaction,
        game: str,
        section: str | None = None,
        page: app_commands.Range[int, 1, 99] = 1,
    ) -> None:
        await respond(interaction, rules_text(game, section, page))


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(Help(bot))

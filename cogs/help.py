"""``/help`` and ``/rules``: what the bot does and the rules as it plays them, where the players
are. ``/help`` is built from the command tree, so a game's new commands show with no edit here;
``/rules`` pages through the player's part of ``docs/<game>.md`` (up to ``# For moderators``),
one ``##`` section at a time; a section of any part by its name or number."""

from __future__ import annotations

import functools
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.discord_transport import fit
from cogs.common import for_moderators, is_moderator_member, respond
from games import registry

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGE_CHARS = 1700  # a page of rules, with room for its heading and the hint to the next one
OVERVIEW = "Overview"
PLAYERS_PART_END = "For moderators"  # the top-level heading that ends the player's part
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,2}) +(.+?)\s*$")


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    text: str
    part: str = ""  # "": the player's part; else the top-level heading of a later part


def rules_path(game: str) -> Path:
    """``docs/<game>.md``; a game outside ``games/`` (a module path) keeps its page beside its
    module (``tests/bot/toy_game.md``)."""
    path = DOCS / f"{game}.md"
    if path.is_file() or "." not in game:
        return path
    try:
        spec = importlib.util.find_spec(game)
    except (ImportError, ValueError):
        return path
    origin = spec.origin if spec is not None else None
    return Path(origin).with_suffix(".md") if origin else path


@functools.cache
def rules_sections(game: str) -> tuple[Section, ...]:
    """The sections of the game's rules page (empty when it is not installed)."""
    path = rules_path(game)
    return parse_rules(path.read_text(encoding="utf-8")) if path.is_file() else ()


def parse_rules(text: str) -> tuple[Section, ...]:
    """A rules page's sections, in order: the player's part (what comes before the first ``##``
    heading is its overview, then each ``##`` section) up to a top-level ``# For moderators``
    heading; from there each top-level heading starts a later part, whose sections carry its
    name (text before its first ``##``, a section named after the part). Headings inside code
    blocks are text; the page's own ``#`` title is left out. A page without the marker is all
    the player's part."""
    sections: list[Section] = []
    part, title, lines = "", OVERVIEW, list[str]()
    fenced = begun = False
    for line in text.splitlines():
        fenced ^= bool(FENCE.match(line))
        found = None if fenced else HEADING.match(line)
        level, name = (found[1], found[2]) if found else ("", "")
        first, begun = not begun and bool(line.strip()), begun or bool(line.strip())
        if first and level == "#":  # the page's title
            continue
        starts_part = level == "#" and bool(part or name == PLAYERS_PART_END)
        if not (starts_part or level == "##"):
            lines.append(line)
            continue
        sections.append(Section(title, "\n".join(lines).strip(), part))
        part = name if starts_part else part
        title, lines = name, []
    sections.append(Section(title, "\n".join(lines).strip(), part))
    return tuple(section for section in sections if section.text)


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
    """One page of the rules, with where to go next; a line saying what is wrong otherwise.
    With no section: the player's part, page after page (its first page lists the contents)."""
    try:
        info = registry.get(game)
    except KeyError:
        return f"✖ There is no game {game[:40]!r}; the games: {', '.join(registry.names())}."
    sections = rules_sections(info.name)
    if not sections:
        return f"✖ The rules of {info.title} are not installed with this bot (docs/{game}.md)."
    if section is None:
        return _players_part(info.name, info.title, sections, page)
    chosen = find_section(sections, section)
    if chosen is None:
        missing = section[:40]
        return f"✖ {info.title}'s rules have no section {missing!r}." + _contents(sections)
    cut = pages(chosen.text)
    page = min(max(page, 1), len(cut))
    where = f" ({chosen.part})" if chosen.part and chosen.part != chosen.title else ""
    head = f"📖 **{info.title}: {chosen.title}**{where}" + (
        f" (page {page} of {len(cut)})" if len(cut) > 1 else ""
    )
    hints = []
    if page < len(cut):
        hints.append(f"Next: `/rules game:{info.name} section:{chosen.title} page:{page + 1}`")
    return fit("\n".join([head, cut[page - 1], *hints]))


def _players_part(name: str, title: str, sections: tuple[Section, ...], page: int) -> str:
    """Page ``page`` of the player's part read straight through, a section's pages at a time."""
    contents = _contents(sections).strip()
    limit = max(PAGE_CHARS // 2, PAGE_CHARS - len(contents))  # page 1 holds the contents too
    reading = [
        (section, text)
        for section in sections
        if not section.part
        for text in pages(section.text, limit)
    ]
    page = min(max(page, 1), len(reading))
    section, text = reading[page - 1]
    count = f" (page {page} of {len(reading)})" if len(reading) > 1 else ""
    lines = [f"📖 **{title}: {section.title}**{count}", text]
    if page < len(reading):
        lines.append(f"Next: `/rules game:{name} page:{page + 1}`")
    later = [(n, s.part) for n, s in enumerate(sections, start=1) if s.part]
    if page == len(reading) and later:
        parts = ", ".join(dict.fromkeys(part for _, part in later))
        lines.append(f"More ({parts}): `/rules game:{name} section:{later[0][0]}`")
    if page == 1:
        lines.append(contents)
    return fit("\n".join(lines))


def _contents(sections: tuple[Section, ...]) -> str:
    """The sections by number, the later parts named: ``Sections: 1 Overview · 2 A turn — For
    moderators: 3 Options``."""
    groups: list[str] = []
    part: str | None = None
    for number, section in enumerate(sections, start=1):
        entry = f"{number} {section.title}"
        if section.part != part:
            part = section.part
            groups.append(f"{part}: {entry}" if part else entry)
        else:
            groups[-1] += f" · {entry}"
    return f"\nSections: {' — '.join(groups)}"


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
        app_commands.Choice(
            name=(f"{n} {s.title}" + (f" ({s.part})" * bool(s.part)))[:100], value=str(n)
        )
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

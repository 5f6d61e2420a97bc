"""The games' texts (written for Discord) as a terminal shows them: rich ``Text``, line by line.

Discord keeps every line break, so a text is read line by line (a board drawn in lines stays
drawn) rather than as CommonMark paragraphs. Inline marks become styles (``**bold**``,
``*italic*``, ``__underline__``, ``~~struck~~``, ``||spoiler||``, ``code``), a heading or a quote
line gets a style of its own, a ``<t:…>`` timestamp becomes a time, and a Discord command quoted
in code (```/look```) becomes the terminal's own command. Nothing in a game's text is read as
rich markup: ``[pipe]`` stays ``[pipe]``.
"""

from __future__ import annotations

import re
import time
from datetime import datetime

from rich.style import Style
from rich.text import Text

CODE = Style(color="cyan")
HEADING = Style(bold=True, underline=True)
QUOTE_BAR = Style(dim=True)

_INLINE = re.compile(
    r"(?P<code>`+)(?P<code_text>.+?)(?P=code)"
    r"|\*\*(?P<bold>.+?)\*\*"
    r"|__(?P<underline>.+?)__"
    r"|~~(?P<strike>.+?)~~"
    r"|\|\|(?P<spoiler>.+?)\|\|"
    r"|(?<![\w*])\*(?=\S)(?P<star>.+?)(?<=\S)\*(?![\w*])"
    r"|(?<![\w_])_(?=\S)(?P<under>.+?)(?<=\S)_(?![\w_])"
    r"|<t:(?P<epoch>-?\d{1,12})(?::(?P<format>[tTdDfFR]))?>"
    r"|<@!?(?P<user>\d{1,20})>"
    r"|\\(?P<escaped>[*_~`|\\<>#-])"
)
_STYLES = {
    "bold": Style(bold=True),
    "underline": Style(underline=True),
    "strike": Style(strike=True),
    "spoiler": Style(),
    "star": Style(italic=True),
    "under": Style(italic=True),
}
_HEADING = re.compile(r"(#{1,3}) (.*)")
_BULLET = re.compile(r"(\s*)[-*] (.*)")


def terminal_command(code: str, game: str) -> str:
    """A Discord command quoted in a game's text, as the terminal says it (``/look`` is
    ``view``); anything else as it is."""
    if not code.startswith("/"):
        return code
    words = code[1:].split()
    if not words:
        return code
    if words[0] in ("look", "garden", "view") or words[-1] in ("look", "view"):
        return "view"
    if words[0] == "cards" or words[-1] == "cards":
        return "cards"
    if words[0] == "rules":
        return f"the rules page docs/{game}.md"
    if words[0] == "submit" and len(words) > 1:
        return " ".join(words[1:]).removeprefix("answer:")
    if words[0] == "submit":
        return "your answer"
    return code


def rich_text(text: str, game: str = "", base: Style | str = "") -> Text:
    """``text`` (Discord Markdown) as rich Text, every line kept."""
    out = Text(style=base)
    in_block = False
    for number, line in enumerate(text.split("\n")):
        if number:
            out.append("\n")
        if line.strip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            out.append(line, CODE)
        else:
            out.append_text(_line(line, game))
    if out.plain.endswith("\n"):
        out.right_crop(1)
    return out


def _line(line: str, game: str) -> Text:
    heading = _HEADING.fullmatch(line)
    if heading:
        style = HEADING if len(heading.group(1)) == 1 else Style(bold=True)
        return _inline(heading.group(2), game, style)
    if line.startswith("-# "):
        return _inline(line[3:], game, Style(dim=True))
    for mark in (">>> ", "> "):
        if line.startswith(mark):
            quoted = Text("│ ", QUOTE_BAR)
            return quoted.append_text(_inline(line[len(mark) :], game))
    bullet = _BULLET.fullmatch(line)
    if bullet:
        return Text(bullet.group(1) + "• ").append_text(_inline(bullet.group(2), game))
    return _inline(line, game)


def _inline(text: str, game: str, style: Style | None = None) -> Text:
    out = Text(style=style or "")
    position = 0
    for found in _INLINE.finditer(text):
        out.append(text[position : found.start()])
        out.append_text(_mark(found, game))
        position = found.end()
    out.append(text[position:])
    return out


def _mark(found: re.Match[str], game: str) -> Text:
    groups = found.groupdict()
    if groups["code_text"] is not None:
        return Text(terminal_command(groups["code_text"].strip(), game), CODE)
    for name, style in _STYLES.items():
        if groups[name] is not None:
            inner = _inline(groups[name], game)
            inner.stylize(style)
            return inner
    if groups["epoch"] is not None:
        return Text(timestamp(int(groups["epoch"]), groups["format"] or "f"))
    if groups["user"] is not None:
        return Text("@someone")
    return Text(groups["escaped"] or "")


def timestamp(epoch: int, form: str, now: float | None = None) -> str:
    """A Discord ``<t:epoch:form>`` as the terminal says it: ``in 42 s`` (R), else local time."""
    if form == "R":
        seconds = round(epoch - (time.time() if now is None else now))
        return f"in {seconds} s" if seconds >= 0 else f"{-seconds} s ago"
    try:
        moment = datetime.fromtimestamp(epoch)
    except (OverflowError, OSError, ValueError):
        return str(epoch)
    return moment.strftime("%H:%M" if form == "t" else "%H:%M:%S" if form == "T" else "%c")

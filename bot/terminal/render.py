"""What the terminal shows, as rich renderables built from the host's payloads (requests,
events, outcomes), never from the Discord texts: a question with its numbered choices, the
events of a turn, an acknowledgement, ``help``, ``cards``, ``status`` and the end in words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich import box
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from rich.text import Text

from bot.outbox import seconds_text
from bot.terminal.answers import how_to_answer, key, numbered
from bot.terminal.markdown import rich_text
from games.protocol import JSON, Choice, Request, Topic
from games.text import names_text

SHOWN_CHOICES = 99  # a longer list is left to Tab completion and help
CARDS_AT_ONCE = 4000  # a longer reference shows its titles first
KEY = Style(color="cyan", bold=True)
VALUE = Style(bold=True)
SECRET = Style(color="magenta")
ACCEPTED, REFUSED = Style(color="green"), Style(color="red")
DIM = Style(dim=True)

COMMANDS = (  # (what to type, a few words for the intro, what it does for help)
    ("help", "what a question needs", "what this question needs: the game's reference for it"),
    (
        "cards",
        "this match's cards",
        "this match's cards (potions, tiles…) and what each does;"
        " cards WORD shows those naming WORD",
    ),
    ("view", "what you see", "what you see, your secrets included"),
    ("status", "the table", "the table as everyone sees it, and the time left"),
    ("quit", "leave", "leave: the match is aborted, with no result (Ctrl-D too)"),
)


@dataclass(frozen=True, slots=True)
class Seats:
    """Who plays: the names by seat; you are seat 0."""

    names: tuple[str, ...]

    @property
    def you(self) -> str:
        return self.names[0]

    @property
    def others(self) -> list[str]:
        return list(self.names[1:])


def intro(
    title: str, seats: Seats, window_s: float | None, reactions: bool, rules: str | None
) -> RenderableType:
    """Which game, who you play, the clock (``window_s``; None: each question says its own),
    how to answer and the commands."""
    text = Text()
    text.append(f"You are {seats.you} (P1), against {names_text(seats.others)}.", VALUE)
    less = " (less to react out of turn)" if reactions else ""
    clock = (
        f"You have {length_text(window_s)} to answer each question{less}"
        if window_s is not None
        else "Each question shows the time you have to answer it"
    )
    text.append(f" {clock}; if time runs out, its default is played for you.\n")
    text.append("Answer with a choice's number, or type the answer itself. Also type ")
    for number, (name, short, _) in enumerate(COMMANDS):
        text.append(name, KEY).append(f" ({short})")
        last = number == len(COMMANDS) - 1
        text.append("." if last else " or " if number == len(COMMANDS) - 2 else ", ")
    if rules:
        text.append(f"\nThe rules: {rules}", DIM)
    return Panel(text, title=Text(title, VALUE), title_align="left", box=box.ROUNDED, expand=False)


def length_text(seconds: float) -> str:
    """A window's length: ``45 s``, ``10 min``, ``1 min 30 s``."""
    if seconds < 60:
        return seconds_text(seconds)
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def left_text(seconds: float) -> str:
    """Time left on a clock: ``4.2 s``, ``42 s``, ``9:58``."""
    if seconds < 59.5:
        return seconds_text(seconds)
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}"


def commands_table(keys: bool = False) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style=KEY)
    table.add_column()
    for name, _, what in COMMANDS:
        table.add_row(name, what)
    if keys:
        table.add_row("Tab", "completes the answers and names; ↑ ↓ recall what you typed")
    return table


def question(request: Request, game: str, window_left: float | None = None) -> RenderableType:
    """The open question: what it asks, its choices, how to answer, and its deadline."""
    parts: list[RenderableType] = [rich_text(request.prompt, game)]
    if request.choices:
        parts.append(choices_view(request, SHOWN_CHOICES))
    parts.append(Text(how_to_answer(request) + _help_hint(request), DIM))
    title = Text(f"Your move: {request.occasion}" if request.occasion else "Your move", VALUE)
    left = f"⏳ {left_text(window_left)} · " if window_left is not None else ""
    subtitle = Text(f"{left}if you don't answer: {request.default}", DIM)
    return Panel(
        Group(*parts),
        title=title,
        title_align="left",
        subtitle=subtitle,
        subtitle_align="left",
        border_style="cyan",
        box=box.ROUNDED,
    )


def _help_hint(request: Request) -> str:
    return " Type help for the full reference." if request.help else ""


def choices_view(request: Request, limit: int) -> RenderableType:
    """The choices, each with what picks it, in columns, under a heading per group when
    there are several groups."""
    groups: dict[str, list[Text]] = {}
    shown = request.choices[:limit]
    width = len(key(request, len(shown) - 1)) if numbered(request) else 0
    for index, choice in enumerate(shown):
        groups.setdefault(_heading(choice), []).append(choice_entry(request, index, width))
    parts: list[RenderableType] = []
    for heading, entries in groups.items():
        if len(groups) > 1:
            parts.append(Text(heading or "Other", Style(underline=True)))
        parts.append(Columns(entries, padding=(0, 3), column_first=True))
    hidden = len(request.choices) - len(shown)
    if hidden:
        parts.append(Text(f"… and {hidden} more: type the start of one and press Tab.", DIM))
    return Group(*parts)


def _heading(choice: Choice) -> str:
    group = choice.group.replace("_", " ").capitalize()
    return f"{group}: {choice.stage}" if choice.stage else group


def choice_entry(request: Request, index: int, width: int) -> Text:
    """One choice as listed: what picks it (its number, right-aligned to ``width``; none when
    its answer is a number) and its label; an unnumbered choice shows the answer to type."""
    choice = request.choices[index]
    entry = Text()
    if width:
        entry.append(f"{key(request, index):>{width}} ", KEY)
    value, label = choice.value, choice.label
    if width and label:  # picked by its number: its label says it (a value may hold ids)
        entry.append(label)
        return entry
    style = VALUE if width else KEY
    if label.casefold().startswith(value.casefold()):
        entry.append(label[: len(value)], style).append(label[len(value) :])
    else:
        entry.append(value, style)
        if label:
            entry.append(f"  {label}")
    return entry


def events_view(events: Sequence[Mapping[str, JSON]], game: str) -> RenderableType | None:
    """A message's events: the public ones as they are, yours (secret) marked as such."""
    texts: list[RenderableType] = []
    for event in events:
        text = str(event.get("text") or "")
        if not text:
            continue
        if str(event.get("audience", "public")).startswith("seat"):
            texts.append(Text("🔒 ", SECRET).append_text(rich_text(text, game, SECRET)))
        else:
            texts.append(rich_text(text, game))
    return Group(*texts) if texts else None


def acknowledgement(accepted: bool, text: str, game: str) -> Text:
    mark = Text("✔ ", ACCEPTED) if accepted else Text("✖ ", REFUSED)
    return mark.append_text(rich_text(text, game))


def help_view(
    request: Request | None, answered: bool, game: str, interactive: bool
) -> RenderableType:
    """``help``: the open question's reference (its choices when the game gives none), then
    the terminal's commands."""
    parts: list[RenderableType] = []
    if request is None:
        parts.append(Text("Nothing is asked of you right now.", DIM))
    else:
        if answered:
            parts.append(Text("You have answered this question; here it is again.", DIM))
        if request.help:
            parts.append(rich_text(request.help, game))
        else:
            parts.append(rich_text(request.prompt, game))
            if request.choices:
                parts.append(choices_view(request, len(request.choices)))
        parts.append(Text(how_to_answer(request), DIM))
        parts.append(Text(f"If you don't answer in time: {request.default}", DIM))
    parts += [Text("\nWhat you can type besides an answer:", VALUE), commands_table(interactive)]
    title = f"Help: {request.occasion or request.kind}" if request is not None else "Help"
    return Panel(Group(*parts), title=Text(title, VALUE), title_align="left", box=box.ROUNDED)


def cards_view(title: str, game: str, topics: Sequence[Topic], word: str) -> RenderableType:
    """``cards [WORD]``: the match's content reference: every topic when they are short, else
    their titles; with WORD (``all`` for everything) the topics naming it."""
    if not topics:
        return Text(
            f"{title} has no card reference yet: view shows what you can see, and the rules"
            f" page docs/{game}.md explains the game."
        )
    everything = word.casefold() == "all"
    if everything:
        word = ""
    found = [t for t in topics if word.casefold() in f"{t.title}\n{t.text}".casefold()]
    if not found:
        titles = ", ".join(t.title for t in topics)
        return Text(f"No card mentions {word!r}. The reference has: {titles}.")
    long = sum(len(t.text) for t in found) > CARDS_AT_ONCE
    if not word and not everything and long and len(found) > 1:
        return _topic_index(found)
    return Group(
        *(
            Panel(rich_text(t.text, game), title=Text(t.title, VALUE), title_align="left")
            for t in found
        )
    )


def _topic_index(topics: Sequence[Topic]) -> RenderableType:
    titles = Columns([Text(t.title, VALUE) for t in topics], padding=(0, 3))
    hint = Text("Type cards and a name (a title or any word in it) to read those; cards all.", DIM)
    return Panel(Group(titles, hint), title=Text("This match's cards", VALUE), title_align="left")


def view_view(text: str, game: str, view: JSON, topics: Sequence[Topic] = ()) -> RenderableType:
    """``view``: the game's description of what you see, and your hand as a table when your
    view holds one (with what each card does, where the match's reference says)."""
    parts: list[RenderableType] = [rich_text(text, game)]
    hand = hand_of(view)
    table = hand_table(hand, topics, game) if hand else None
    if table is not None:
        parts.append(table)
    return Panel(Group(*parts), title=Text("What you see", VALUE), title_align="left")


def hand_of(view: JSON) -> list[str] | None:
    """The cards in your hand, by name, if your view holds them (``hand``, at its top or in
    your own part of it)."""
    if not isinstance(view, Mapping):
        return None
    for holder in (view, view.get("you"), view.get("me")):
        hand = holder.get("hand") if isinstance(holder, Mapping) else None
        if isinstance(hand, list) and hand and all(isinstance(card, str) for card in hand):
            return hand
    return None


def hand_table(hand: Sequence[str], topics: Sequence[Topic], game: str) -> Table | None:
    """Your cards with what each does, from the reference topics named after them; None when
    the reference names none of them (the description already lists the hand)."""
    texts = {topic.title.casefold(): topic.text for topic in topics}
    if not any(card.casefold() in texts for card in hand):
        return None
    table = Table(box=box.SIMPLE_HEAD, title=Text("Your hand", VALUE), title_justify="left")
    table.add_column("card", style=VALUE)
    table.add_column("what it does")
    for card in hand:
        table.add_row(card, rich_text(texts.get(card.casefold(), ""), game))
    return table


def status_view(
    title: str,
    state: str,
    seats: Seats,
    lines: Sequence[str] | None,
    public_text: str,
    waiting: str,
    game: str,
) -> RenderableType:
    """``status``: the seats (with the game's public line for each), the table as everyone
    sees it, and what the match waits for."""
    table = Table(
        box=box.SIMPLE,
        show_header=False,
        title=Text(f"{title}, {state}", VALUE),
        title_justify="left",
    )
    table.add_column(style=KEY)
    table.add_column()
    if lines is not None:
        table.add_column()
    for seat, name in enumerate(seats.names):
        shown = f"{name} (you)" if seat == 0 else name
        row = [f"P{seat + 1}", shown]
        if lines is not None:
            row.append(str(lines[seat]) if seat < len(lines) else "")
        table.add_row(*row)
    return Group(table, rich_text(public_text, game), Text(waiting, DIM))


def ending_text(
    outcome: Mapping[str, JSON] | None,
    seats: Seats,
    scores: Sequence[float] | None,
    score_label: str,
) -> str:
    """The end in words: ``You won: 4 points to 2.``, ``AI (normal) wins: 4 points to 2.``,
    then how it ended."""
    if not isinstance(outcome, Mapping):
        return "The match is over, with no result."
    winners = [int(seat) for seat in outcome.get("winners") or []]
    head = _winners_text(winners, seats)
    tally = _scores_text(scores, winners, seats, score_label)
    first = f"{head}: {tally}." if tally else f"{head}."
    reason = str(outcome.get("reason") or "").replace("_", " ").strip()
    detail = str(outcome.get("detail") or "").strip()
    if reason and reason in detail:  # the detail says it already
        reason = ""
    how = " ".join(part for part in (f"{reason}." if reason else "", detail) if part)
    return f"{first}\nHow it ended: {how}" if how else first


def _winners_text(winners: list[int], seats: Seats) -> str:
    names = [seats.names[seat] for seat in winners if 0 <= seat < len(seats.names)]
    if not names:
        return "Nobody wins"
    if winners == [0]:
        return "You won"
    if 0 in winners:
        others = [seats.names[seat] for seat in winners if seat != 0]
        return f"You share the win with {names_text(others)}"
    return f"{names_text(names)} {'wins' if len(names) == 1 else 'win'}"


def _scores_text(
    scores: Sequence[float] | None, winners: list[int], seats: Seats, label: str
) -> str:
    if not scores or len(scores) != len(seats.names):
        return ""
    if len(scores) == 2:
        first = winners[0] if len(winners) == 1 else 0
        tally = f"{_number(scores[first])} to {_number(scores[1 - first])}"
    else:
        tally = ", ".join(
            f"{'you' if seat == 0 else name} {_number(score)}"
            for seat, (name, score) in enumerate(zip(seats.names, scores, strict=True))
        )
    if " " in label:  # "most of one ingredient": the label leads
        return f"{label} {tally}"
    if len(scores) == 2:  # "4 points to 2"
        return tally.replace(" to ", f" {label} to ", 1)
    return f"{tally} {label}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"

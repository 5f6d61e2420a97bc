"""The end-of-match card, the same for every game: the title, who won and why, the score over
the turns as a chart (when the game declares its scores) and what the game reveals at the end
(Floral Extract: both rune maps)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from pictures import Picture, fit_description
from pictures.draw import (
    ACCENT,
    BACKGROUND,
    GOLD,
    GRID,
    INK,
    MUTED,
    PANEL,
    PANEL_EDGE,
    Canvas,
    Colour,
    mix,
    seat_colour,
)

WIDTH = 800
PAD = 24

# a header colour per game, picked from its name (stable across runs and processes)
HEADER_COLOURS: tuple[Colour, ...] = (
    (46, 125, 91),
    (120, 72, 160),
    (178, 74, 56),
    (40, 100, 160),
    (160, 110, 30),
    (60, 120, 130),
)


def header_colour(game: str) -> Colour:
    return HEADER_COLOURS[zlib.crc32(game.encode()) % len(HEADER_COLOURS)]


@dataclass(frozen=True, slots=True)
class Reveal:
    """A table the end card shows, e.g. a player's rune map: cells of (label, value); the
    ``marked`` labels are highlighted and ``note`` says what the highlight means."""

    title: str
    cells: tuple[tuple[str, str], ...]
    marked: frozenset[str] = frozenset()
    note: str = ""
    seat: int | None = None  # whose it is: drawn in that seat's colour

    def text(self) -> str:
        cells = " ".join(f"{label}={value}" for label, value in self.cells)
        marked = [label for label, _ in self.cells if label in self.marked]
        tail = f" ({self.note}: {' '.join(marked)})" if marked and self.note else ""
        return f"{self.title}: {cells}{tail}."


@dataclass(frozen=True, slots=True)
class EndCard:
    """What the end card shows, as plain data."""

    game: str  # the registry name (the header colour)
    title: str  # the game's title
    names: tuple[str, ...]
    winners: tuple[int, ...]
    reason: str = ""
    subtitle: str = ""  # "Match 12"
    turns: tuple[int, ...] = ()  # the x of each point of the chart
    scores: tuple[tuple[float, ...], ...] = ()  # per point, one number per seat
    score_label: str = "points"
    turn_label: str = "turn"
    reveals: tuple[Reveal, ...] = field(default_factory=tuple)


def charted(card: EndCard) -> bool:
    """A chart needs two turns at least; with fewer the card lists the seats and their score."""
    return len(card.scores) >= 2 and len(card.turns) == len(card.scores)


def winners_text(card: EndCard) -> str:
    names = [card.names[s] for s in card.winners if 0 <= s < len(card.names)]
    if not names:
        return "No winner"
    if len(names) == 1:
        return f"{names[0]} wins"
    return f"{', '.join(names[:-1])} and {names[-1]} win"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def description(card: EndCard) -> str:
    """The card's text alternative."""
    head = f"{card.title}{f', {card.subtitle}' if card.subtitle else ''}: {winners_text(card)}"
    reason = card.reason.replace("_", " ")
    parts = [head + (f" ({reason})." if reason else ".")]
    if card.scores:
        final = card.scores[-1]
        scores = ", ".join(
            f"{name} {_number(final[s])}" for s, name in enumerate(card.names) if s < len(final)
        )
        if charted(card):
            turns = card.turns[-1] - card.turns[0]
            parts.append(
                f"Chart of {card.score_label} over {turns} {card.turn_label}{'s' * (turns != 1)};"
                f" at the end: {scores}."
            )
        else:
            parts.append(f"{card.score_label.capitalize()} at the end: {scores}.")
        leads = _lead_changes(card)
        if leads:
            parts.append(leads)
    parts += [reveal.text() for reveal in card.reveals]
    return fit_description(" ".join(parts))


def _lead_changes(card: EndCard) -> str:
    """Who led when, in words: "Ada led from turn 3; Bob from turn 9"."""
    said: list[str] = []
    leader: int | None = None
    for turn, row in zip(card.turns, card.scores, strict=True):
        best = max(row)
        top = [s for s, v in enumerate(row) if v == best]
        now = top[0] if len(top) == 1 else None
        if now is not None and now != leader and now < len(card.names):
            said.append(f"{card.names[now]} led from {card.turn_label} {turn}")
        leader = now if now is not None else leader
    return "; ".join(said) + "." if said else ""


def render(card: EndCard) -> Picture:
    chart_h = 270 if charted(card) else 0
    reveal_rows = (len(card.reveals) + 1) // 2
    reveal_h = 0
    if card.reveals:
        longest = max(len(r.cells) for r in card.reveals)
        reveal_h = reveal_rows * (_reveal_height(longest) + 12) + 8
    names_h = 0 if chart_h else 36 * ((len(card.names) + 1) // 2) + 8
    height = 64 + 96 + names_h + (chart_h + 16 if chart_h else 0) + reveal_h + PAD
    canvas = Canvas(WIDTH, height)
    _header(canvas, card)
    y: float = 64 + 18
    _winner(canvas, card, y)
    y += 96
    if chart_h:
        _chart(canvas, card, (PAD, y, WIDTH - PAD, y + chart_h))
        y += chart_h + 16
    else:
        y = _name_list(canvas, card, y)
    if card.reveals:
        _reveals(canvas, card.reveals, y)
    return Picture(canvas.png(), description(card), "end.png")


def _header(canvas: Canvas, card: EndCard) -> None:
    colour = header_colour(card.game)
    canvas.rect((0, 0, WIDTH, 64), fill=colour)
    canvas.rect((0, 60, WIDTH, 64), fill=mix(colour, INK, 0.3))
    canvas.text((PAD, 32), canvas.fit_text(card.title, 26, WIDTH - 260), 26, PANEL, "lm", True)
    if card.subtitle:
        canvas.text((WIDTH - PAD, 32), card.subtitle, 16, mix(colour, PANEL, 0.8), "rm")


def _trophy(canvas: Canvas, x: float, y: float, colour: Colour = GOLD) -> None:
    """A cup about 34 wide and 40 high, its top left at (x, y)."""
    canvas.ellipse((x + 5, y + 10), 6, 7, outline=colour, width=3)
    canvas.ellipse((x + 29, y + 10), 6, 7, outline=colour, width=3)
    canvas.polygon([(x + 5, y), (x + 29, y), (x + 25, y + 20), (x + 9, y + 20)], fill=colour)
    canvas.ellipse((x + 17, y + 18), 8, 6, fill=colour)
    canvas.rect((x + 15, y + 22, x + 19, y + 31), fill=colour)
    canvas.rect((x + 8, y + 31, x + 26, y + 38), fill=mix(colour, INK, 0.25), radius=2)


def _winner(canvas: Canvas, card: EndCard, y: float) -> None:
    has_winner = bool(card.winners)
    x = float(PAD)
    if has_winner:
        _trophy(canvas, x, y + 4)
        x += 50
    canvas.text(
        (x, y + 2), canvas.fit_text(winners_text(card), 28, WIDTH - x - PAD), 28, INK, bold=True
    )
    if card.reason:
        reason = canvas.fit_text(card.reason.replace("_", " "), 16, WIDTH - x - PAD)
        canvas.text((x, y + 44), reason, 16, MUTED)


def _name_list(canvas: Canvas, card: EndCard, y: float) -> float:
    """Without a chart: every seat, a crown mark on the winners."""
    col_w = (WIDTH - 2 * PAD) / 2
    for seat, name in enumerate(card.names):
        cx = PAD + (seat % 2) * col_w
        cy = y + (seat // 2) * 36
        canvas.rect((cx, cy, cx + col_w - 12, cy + 28), fill=PANEL, outline=PANEL_EDGE, radius=6)
        canvas.ellipse((cx + 16, cy + 14), 6, fill=seat_colour(seat))
        won = seat in card.winners
        label = canvas.fit_text(name, 16, col_w - 110)
        canvas.text((cx + 30, cy + 14), label, 16, INK, "lm", bold=won)
        right = cx + col_w - 24
        if card.scores:
            score = _number(card.scores[-1][seat]) if seat < len(card.scores[-1]) else ""
            canvas.text((right, cy + 14), score, 16, INK, "rm", bold=won)
            right -= 40
        if won:
            canvas.text((right, cy + 14), "winner", 14, GOLD, "rm", bold=True)
    return y + 36 * ((len(card.names) + 1) // 2) + 8


def _ticks(top: float) -> list[float]:
    """Round y-axis ticks from 0 to at least ``top``."""
    if top <= 0:
        return [0.0, 1.0]
    step = 1.0
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        step = float(candidate)
        if top / step <= 6:
            break
    count = int(-(-top // step))
    return [i * step for i in range(count + 1)]


def _chart(canvas: Canvas, card: EndCard, box: tuple[float, float, float, float]) -> None:
    x0, y0, x1, y1 = box
    canvas.rect(box, fill=PANEL, outline=PANEL_EDGE, radius=10)
    seats = len(card.names)
    # the legend: a swatch, the name and the final score of each seat
    lx, ly = x0 + 16, y0 + 16
    final = card.scores[-1]
    for seat, name in enumerate(card.names):
        label = f"{canvas.fit_text(name, 14, 150)}  {_number(final[seat])}"
        width = canvas.text_width(label, 14) + 34
        if lx + width > x1 - 16:
            lx, ly = x0 + 16, ly + 20
        canvas.rect((lx, ly + 3, lx + 16, ly + 13), fill=seat_colour(seat), radius=3)
        canvas.text((lx + 22, ly + 8), label, 14, INK, "lm", bold=seat in card.winners)
        lx += width
    top_y = ly + 44
    left, right, bottom = x0 + 48, x1 - 20, y1 - 34
    values = [v for row in card.scores for v in row[:seats]]
    low = min(0.0, min(values))
    ticks = _ticks(max(values) - low)
    ticks = [t + low for t in ticks]
    high = ticks[-1] if ticks[-1] > low else low + 1
    first, last = card.turns[0], card.turns[-1]
    span = max(1, last - first)

    def px(turn: float) -> float:
        return left + (turn - first) / span * (right - left)

    def py(value: float) -> float:
        return bottom - (value - low) / (high - low) * (bottom - top_y)

    for tick in ticks:
        canvas.line([(left, py(tick)), (right, py(tick))], GRID, 1)
        canvas.text((left - 8, py(tick)), _number(tick), 12, MUTED, "rm")
    for turn in _x_ticks(first, last):
        canvas.text((px(turn), bottom + 8), str(turn), 12, MUTED, "ma")
    canvas.text((right, bottom + 22), card.turn_label, 12, MUTED, "ra")
    canvas.text((left - 8, top_y - 16), card.score_label, 12, MUTED, "ls")
    canvas.line([(left, top_y - 4), (left, bottom), (right, bottom)], MUTED, 1)
    # step lines (a score holds until it changes), nudged apart so equal lines stay visible
    for seat in range(seats):
        nudge = (seat - (seats - 1) / 2) * 2.2
        points: list[tuple[float, float]] = []
        for i, (turn, row) in enumerate(zip(card.turns, card.scores, strict=True)):
            y = py(row[seat]) + nudge
            if i:
                points.append((px(turn), points[-1][1]))
            points.append((px(turn), y))
        colour = seat_colour(seat)
        if len(points) > 1:
            canvas.line(points, colour, 3)
        end = points[-1]
        canvas.ellipse(end, 5, fill=colour, outline=PANEL, width=1.5)


def _x_ticks(first: int, last: int) -> list[int]:
    span = max(1, last - first)
    step = 1
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        step = candidate
        if span / step <= 12:
            break
    start = first + (-first) % step
    ticks = list(range(start, last + 1, step))
    if first not in ticks:
        ticks.insert(0, first)
    return ticks


CELL_W, CELL_H = 40, 46


def _reveal_height(cells: int) -> int:
    per_row = 8
    rows = (cells + per_row - 1) // per_row
    return 40 + rows * (CELL_H + 6) + 24


def _reveals(canvas: Canvas, reveals: Sequence[Reveal], y: float) -> None:
    col_w = (WIDTH - 2 * PAD - 16) / 2
    longest = max(len(r.cells) for r in reveals)
    height = _reveal_height(longest)
    for index, reveal in enumerate(reveals):
        x = PAD + (index % 2) * (col_w + 16)
        top = y + (index // 2) * (height + 12)
        colour = seat_colour(reveal.seat) if reveal.seat is not None else ACCENT
        canvas.rect((x, top, x + col_w, top + height), fill=PANEL, outline=PANEL_EDGE, radius=10)
        canvas.rect((x, top + 10, x + 5, top + height - 10), fill=colour, radius=2)
        canvas.text(
            (x + 18, top + 20),
            canvas.fit_text(reveal.title, 16, col_w - 36),
            16,
            INK,
            "lm",
            bold=True,
        )
        for n, (label, value) in enumerate(reveal.cells):
            cx = x + 18 + (n % 8) * (CELL_W + 3)
            cy = top + 38 + (n // 8) * (CELL_H + 6)
            marked = label in reveal.marked
            fill = mix(GOLD, PANEL, 0.55) if marked else mix(colour, PANEL, 0.88)
            canvas.rect((cx, cy, cx + CELL_W, cy + CELL_H), fill=fill, radius=6)
            canvas.text((cx + CELL_W / 2, cy + 13), label, 14, MUTED, "mm")
            canvas.text((cx + CELL_W / 2, cy + 32), value, 18, INK, "mm", bold=True)
        if reveal.note and reveal.marked:
            note_y = top + height - 14
            canvas.rect(
                (x + 18, note_y - 5, x + 28, note_y + 5), fill=mix(GOLD, PANEL, 0.55), radius=2
            )
            canvas.text(
                (x + 34, note_y), canvas.fit_text(reveal.note, 12, col_w - 60), 12, MUTED, "lm"
            )


__all__ = ["BACKGROUND", "EndCard", "Reveal", "description", "render", "winners_text"]

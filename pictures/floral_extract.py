"""Floral Extract's pictures: a player's garden for their DM, and both rune maps on the end card.

Both read the game's seat view (``games.floral_extract.render.view``): plain JSON, the same data
``/garden`` shows, so a picture never holds more than its reader may see.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pictures import Picture, fit_description
from pictures.card import Reveal
from pictures.draw import (
    ACCENT,
    GOLD,
    INK,
    MUTED,
    PANEL,
    PANEL_EDGE,
    Canvas,
    Colour,
    mix,
)

WIDTH, HEIGHT = 720, 376
WIN_POINTS = 4

FLOWERS: dict[str, tuple[str, Colour]] = {
    "A": ("Azalea", (226, 84, 140)),
    "C": ("Chrysanthemum", (236, 168, 38)),
    "H": ("Hyacinth", (118, 86, 196)),
    "W": ("Wisteria", (150, 140, 230)),
    "X": ("Xanthium", (122, 158, 52)),
}
STEM: Colour = (72, 140, 72)
LEAF: Colour = (96, 168, 84)
POT: Colour = (196, 102, 62)
POT_DARK: Colour = (158, 78, 46)
SOIL: Colour = (104, 72, 50)

SEAT_NAMES = ("P1", "P2")


def _pots(view: Mapping[str, Any]) -> list[Mapping[str, Any] | None]:
    pots = view.get("pots") or []
    return [p if isinstance(p, Mapping) else None for p in pots][:3] + [None] * (3 - len(pots))


def _progress(pot: Mapping[str, Any]) -> float:
    bloom_at = max(1, int(pot.get("bloom_at", 1)))
    return max(0.0, min(1.0, int(pot.get("stage", 0)) / bloom_at))


def garden(view: Mapping[str, Any], name: str = "") -> Picture:
    """The garden of the seat whose view this is: three pots, each flower drawn as grown as it
    is towards its bloom, the points towards four, the guess charge and the rune map."""
    canvas = Canvas(WIDTH, HEIGHT)
    seat = str(view.get("seat", ""))
    points = int((view.get("points") or {}).get(seat, 0))
    turn = int(view.get("turn", 0))
    owner = f"{name}'s garden" if name else "Your garden"
    canvas.text((24, 20), canvas.fit_text(owner, 22, 420), 22, INK, bold=True)
    when = f"after turn {turn}" if turn else "before the first turn"
    canvas.text((24, 50), when, 14, MUTED)
    # points towards four, as flowers' seeds: filled gold for each point
    for i in range(WIN_POINTS):
        centre = (WIDTH - 150 + i * 28, 32)
        filled = i < points
        canvas.ellipse(centre, 10, fill=GOLD if filled else PANEL, outline=GOLD, width=2)
    canvas.text((WIDTH - 24, 56), f"{points} of {WIN_POINTS} points", 13, MUTED, "ra")
    pots = _pots(view)
    col_w = (WIDTH - 48) / 3
    for i, pot in enumerate(pots):
        _pot(canvas, 24 + i * col_w, 84, col_w - 12, i + 1, pot, _can_plant(view))
    _footer(canvas, view)
    return Picture(canvas.png(), garden_description(view, name), "garden.png")


def _pot(
    canvas: Canvas,
    x: float,
    y: float,
    w: float,
    number: int,
    pot: Mapping[str, Any] | None,
    can_plant: bool = True,
) -> None:
    h = 232
    canvas.rect((x, y, x + w, y + h), fill=PANEL, outline=PANEL_EDGE, radius=12)
    cx = x + w / 2
    ground = y + 150
    canvas.text((x + 12, y + 16), f"Pot {number}", 13, MUTED, "lm")
    # the plant, behind the pot's rim
    if pot is not None:
        _plant(canvas, cx, ground, _progress(pot), str(pot.get("flower", "")))
    # the pot: a tapered body under a rim
    canvas.polygon(
        [(cx - 34, ground), (cx + 34, ground), (cx + 26, ground + 38), (cx - 26, ground + 38)],
        fill=POT,
    )
    canvas.rect((cx - 40, ground - 8, cx + 40, ground + 4), fill=POT_DARK, radius=3)
    canvas.ellipse((cx, ground - 8), 36, 3, fill=SOIL)
    name_y = y + h - 16
    if pot is None:
        canvas.text((cx, ground - 44), "empty", 15, MUTED, "mm")
        canvas.text(
            (cx, name_y), "free to plant" if can_plant else "every type used", 14, MUTED, "mm"
        )
        return
    code = str(pot.get("flower", ""))
    flower, colour = FLOWERS.get(code, (code or "?", ACCENT))
    stage, bloom_at = int(pot.get("stage", 0)), int(pot.get("bloom_at", 1))
    canvas.text((x + w - 12, y + 16), f"{stage} / {bloom_at}", 13, INK, "rm", bold=True)
    # growth towards the bloom
    bar_y = name_y - 20
    canvas.rect((x + 16, bar_y - 4, x + w - 16, bar_y + 4), fill=mix(colour, PANEL, 0.8), radius=4)
    filled = x + 16 + (w - 32) * _progress(pot)
    if filled > x + 20:
        canvas.rect((x + 16, bar_y - 4, filled, bar_y + 4), fill=colour, radius=4)
    canvas.text((cx, name_y), flower, 15, INK, "mm", bold=True)


def _plant(canvas: Canvas, cx: float, ground: float, progress: float, code: str) -> None:
    """A stem as tall as the flower is grown, leaves along it, and the head of its kind."""
    height = 18 + progress * 92
    top = ground - 8 - height
    canvas.line([(cx, ground - 6), (cx, top)], STEM, 4)
    leaves = 1 + int(progress * 3)
    for n in range(leaves):
        ly = ground - 16 - n * (height / (leaves + 0.5))
        side = -1 if n % 2 == 0 else 1
        canvas.polygon(
            [
                (cx, ly),
                (cx + side * 16, ly - 10),
                (cx + side * 22, ly - 4),
                (cx + side * 8, ly + 2),
            ],
            fill=LEAF,
        )
    colour = FLOWERS.get(code, ("", ACCENT))[1]
    size = 6 + progress * 16
    if progress == 0:  # a bud just planted
        canvas.ellipse((cx, top), 4, 5, fill=mix(colour, STEM, 0.5))
        return
    head = HEADS.get(code, _round_head)
    head(canvas, cx, top, size, colour)


def _round_head(canvas: Canvas, cx: float, cy: float, size: float, colour: Colour) -> None:
    """Azalea: five round petals and a darker centre."""
    for k in range(5):
        a = math.tau * k / 5 - math.pi / 2
        canvas.ellipse(
            (cx + math.cos(a) * size * 0.6, cy + math.sin(a) * size * 0.6), size * 0.55, fill=colour
        )
    canvas.ellipse((cx, cy), size * 0.3, fill=mix(colour, INK, 0.35))


def _ray_head(canvas: Canvas, cx: float, cy: float, size: float, colour: Colour) -> None:
    """Chrysanthemum: many narrow petals around a small centre."""
    rays = 16
    for k in range(rays):
        a = math.tau * k / rays
        canvas.polygon(
            [
                (cx + math.cos(a - 0.12) * size * 0.2, cy + math.sin(a - 0.12) * size * 0.2),
                (cx + math.cos(a) * size * 1.1, cy + math.sin(a) * size * 1.1),
                (cx + math.cos(a + 0.12) * size * 0.2, cy + math.sin(a + 0.12) * size * 0.2),
            ],
            fill=colour if k % 2 else mix(colour, INK, 0.12),
        )
    canvas.ellipse((cx, cy), size * 0.25, fill=mix(colour, INK, 0.4))


def _spike_head(canvas: Canvas, cx: float, cy: float, size: float, colour: Colour) -> None:
    """Hyacinth: a spike of bells, widest at the bottom."""
    rows = 5
    for r in range(rows):
        t = r / (rows - 1)
        y = cy + size * 0.9 - t * size * 1.8
        half = size * (0.7 - 0.4 * t)
        for dx in (-half, 0.0, half):
            canvas.ellipse((cx + dx * 0.8, y), size * 0.28, fill=mix(colour, PANEL, 0.2 * t))


def _hanging_head(canvas: Canvas, cx: float, cy: float, size: float, colour: Colour) -> None:
    """Wisteria: a cluster hanging from an arch, narrowing downwards."""
    canvas.line([(cx, cy), (cx + size * 0.6, cy - size * 0.4), (cx + size * 1.1, cy)], STEM, 2)
    for r in range(5):
        t = r / 4
        y = cy + t * size * 1.5
        half = size * 0.5 * (1 - t * 0.7)
        for dx in (-half, half):
            canvas.ellipse((cx + size * 1.1 + dx, y), size * 0.22, fill=mix(colour, PANEL, 0.3 * t))
        canvas.ellipse((cx + size * 1.1, y + size * 0.12), size * 0.22, fill=colour)


def _burr_head(canvas: Canvas, cx: float, cy: float, size: float, colour: Colour) -> None:
    """Xanthium: a spiny burr."""
    spikes = 12
    points = []
    for k in range(spikes * 2):
        a = math.tau * k / (spikes * 2)
        r = size * (0.95 if k % 2 == 0 else 0.65)
        points.append((cx + math.cos(a) * r, cy + math.sin(a) * r))
    canvas.polygon(points, fill=mix(colour, INK, 0.15))
    canvas.ellipse((cx, cy), size * 0.6, fill=colour)


HEADS = {
    "A": _round_head,
    "C": _ray_head,
    "H": _spike_head,
    "W": _hanging_head,
    "X": _burr_head,
}


def _footer(canvas: Canvas, view: Mapping[str, Any]) -> None:
    y = 330
    blooms = int(view.get("blooms", 0))
    charge = bool(view.get("charge"))
    cost = view.get("guess_cost")
    points = int((view.get("points") or {}).get(str(view.get("seat", "")), 0))
    if charge:
        guess = "guess charge held"
    elif blooms <= points:
        guess = "a new bloom opens the guessing spell"
    elif cost is None:
        guess = "no guess charge"
    else:
        guess = f"guessing spell: {cost} different runes in a row"
    canvas.text((24, y), f"Bloomed {blooms}  ·  {guess}", 14, INK)
    runes = _map_text(view)
    if runes:
        canvas.text(
            (24, y + 22), canvas.fit_text(f"Your runes  {runes}", 14, WIDTH - 48), 14, MUTED
        )


def _can_plant(view: Mapping[str, Any]) -> bool:
    """A type never planted is left (five types, each once a match)."""
    return len(str(view.get("planted") or "")) < len(FLOWERS)


def _map_text(view: Mapping[str, Any]) -> str:
    mapping = view.get("map") or {}
    return " ".join(f"{s}={n}" for s, n in sorted(mapping.items(), key=lambda kv: kv[0]))


def garden_description(view: Mapping[str, Any], name: str = "") -> str:
    seat = str(view.get("seat", ""))
    points = int((view.get("points") or {}).get(seat, 0))
    turn = int(view.get("turn", 0))
    pots = []
    for n, pot in enumerate(_pots(view), start=1):
        if pot is None:
            pots.append(f"pot {n} empty")
        else:
            flower = FLOWERS.get(str(pot.get("flower")), (str(pot.get("flower")), ACCENT))[0]
            pots.append(f"pot {n} {flower} at stage {pot.get('stage')} of {pot.get('bloom_at')}")
    owner = f"{name}'s garden" if name else "Your garden"
    when = f"after turn {turn}" if turn else "before the first turn"
    charge = "a guess charge held" if view.get("charge") else "no guess charge"
    text = (
        f"{owner} {when}: {', '.join(pots)}. {points} of {WIN_POINTS} points,"
        f" {int(view.get('blooms', 0))} bloomed, {charge}."
    )
    runes = _map_text(view)
    if runes:
        text += f" Your runes: {runes}."
    return fit_description(text)


# --- the pictures module protocol (pictures.hooks) -------------------------------------------


def seat_picture(view: Mapping[str, Any], names: Sequence[str]) -> Picture | None:
    """The garden, for a seat's turn DM; none once the match is over."""
    if view.get("phase") == "over" or "pots" not in view:
        return None
    seat = str(view.get("seat", ""))
    index = SEAT_NAMES.index(seat) if seat in SEAT_NAMES else -1
    return garden(view, names[index] if 0 <= index < len(names) else "")


def end_reveals(views: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[Reveal]:
    """Both rune maps, the symbols the opponent found highlighted."""
    reveals = []
    for seat, view in enumerate(views):
        mapping = view.get("map") or {}
        symbols = str(view.get("symbols") or "".join(sorted(mapping)))
        other = SEAT_NAMES[1 - seat] if seat < 2 else ""
        found = {str(pair[0]) for pair in (view.get("found") or {}).get(other, []) if pair}
        name = names[seat] if seat < len(names) else SEAT_NAMES[seat]
        reveals.append(
            Reveal(
                title=f"{name}'s rune map",
                cells=tuple((s, str(mapping.get(s, "?"))) for s in symbols),
                marked=frozenset(found),
                note="found by the opponent",
                seat=seat,
            )
        )
    return reveals

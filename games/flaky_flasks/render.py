"""Text for players: symbols, boards (§2.3 rendering), the table, hands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .content import Content, canonical
from .rules import P, dominance
from .state import MARKET_KINDS, G

SHAPE = {"T": "▲", "S": "■", "P": "⬟"}
COLOUR = {"R": "🔴", "G": "🟢", "B": "🔵"}


def sym(symbol: str) -> str:
    return f"{SHAPE[symbol[0]]}{symbol[1:-1]}{COLOUR[symbol[-1]]}"


def syms(symbols: Sequence[str]) -> str:
    return " ".join(sym(s) for s in canonical(symbols)) or "—"


def hand_text(content: Content, hand: Sequence[str]) -> str:
    return "Your hand: " + (", ".join(hand) if hand else "(empty)") + "."


def counts(ids: Sequence[str]) -> str:
    return ", ".join(f"{i}×{n}" if n > 1 else i for i, n in Counter(ids).items()) or "—"


def board(content: Content, g: G, seat: int) -> list[str]:
    p: P = g["players"][seat]
    name = g["names"][seat]
    out = "" if seat not in g["out"] else " (left)"
    lines = [
        f"{name}{out} · {p['fame']} fame · {p['coins']} coins (+{p['temp']} temp)"
        f" · Charge {p['charge']}"
    ]
    for k, channel in enumerate(p["channels"]):
        slot = p["slots"][k]
        if slot is None:
            holds = "—"
        else:
            card = content.cards[slot["id"]]
            holds = f"{card.name} {syms(slot['left'])}" if card.coin is None else card.name
        pipe = "─".join(f"[{t}]" for t in channel) + "──▶ ⚗" if channel else "✕ broken"
        lines.append(f"{k + 1} ▸ {pipe}   holds: {holds}")
    potions = "; ".join(f"#{x['n']} {syms(x['symbols'])}" for x in p["potions"]) or "—"
    lines.append(
        f"⚗ Cauldron: {syms(p['cauldron'])}   Spare: {counts(p['spare'])}   Potions: {potions}"
    )
    lines.append(f"Hand {len(p['hand'])} · deck {len(p['deck'])} · discard {len(p['discard'])}")
    return lines


def table(content: Content, g: G) -> str:
    light, dark = g["fumes"]
    lines = [
        f"Round {g['round']} · first player {g['names'][g['first']]} · fumes light {light},"
        f" dark {dark} ({dominance(g)})",
        "Panels: " + ", ".join(content.panels[p].name for p in g["panels"]),
    ]
    for key in MARKET_KINDS:
        for tier in sorted(g["rows"][key]):
            row = g["rows"][key][tier]
            shown = ", ".join(f"{i} ({content.cost(i)})" if i is not None else "—" for i in row)
            left = len(g["decks"][key][tier])
            lines.append(f"{key.capitalize()} T{tier}: {shown} [{left} left]")
    return "\n".join(lines)


def public_player(content: Content, g: G, seat: int) -> dict[str, Any]:
    p = g["players"][seat]
    return {
        "name": g["names"][seat],
        "fame": p["fame"],
        "coins": p["coins"],
        "temp_coins": p["temp"],
        "charge": p["charge"],
        "hand_size": len(p["hand"]),
        "deck_size": len(p["deck"]),
        "discard": content.cat(list(p["discard"])),
        "slots": p["slots"],
        "channels": p["channels"],
        "spare": p["spare"],
        "cauldron": canonical(p["cauldron"]),
        "potions": p["potions"],
        "sales": p["sales"],
        "jammed": p["jammed"],
        "market_passed": p["market_passed"],
        "stage": p["stage"],
        "collection": sorted(Counter([*p["deck"], *p["hand"], *p["discard"]]).items()),
        "out": seat in g["out"],
    }


def public_board(content: Content, g: G, seat: int, *, potions: bool = True) -> list[str]:
    """A board for the public table: a head line (fame, coins, Charge, pile sizes, never the
    hand), one line per channel, then cauldron, spare tiles and potions (their symbols, or
    only their count when ``potions`` is false to keep the post short)."""
    p: P = g["players"][seat]
    out = " (left)" if seat in g["out"] else ""
    lines = [
        f"**{g['names'][seat]}**{out} · {p['fame']} fame · {p['coins']} coins"
        f" (+{p['temp']} temp) · Charge {p['charge']} · hand {len(p['hand'])},"
        f" deck {len(p['deck'])}, discard {len(p['discard'])}"
    ]
    for k, channel in enumerate(p["channels"]):
        slot = p["slots"][k]
        pipe = "─".join(channel) + " ▶ ⚗" if channel else "✕ broken"
        holds = ""
        if slot is not None:
            card = content.cards[slot["id"]]
            holds = (
                f" · holds {card.name} {syms(slot['left'])}"
                if card.coin is None
                else (f" · holds {card.name}")
            )
        lines.append(f"  {k + 1}: {pipe}{holds}")
    if potions:
        made = "; ".join(f"#{x['n']} {syms(x['symbols'])}" for x in p["potions"]) or "—"
    else:
        made = str(len(p["potions"]))
    lines.append(f"  ⚗ {syms(p['cauldron'])} · spare {counts(p['spare'])} · potions {made}")
    return lines

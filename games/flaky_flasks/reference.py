"""The match's content by name with what each piece does (``GameInfo.reference``): the terms,
every card by tier, every tile, every panel (those on the board marked). Public; each topic at
most ``TOPIC_CHARS``, a long list split into numbered parts."""

from __future__ import annotations

from collections.abc import Sequence

from games.protocol import TOPIC_CHARS, Topic

from .content import Content
from .render import card_effects, panel_text, syms, tile_rule
from .state import State

TERMS = (
    "Symbols: a shape (▲ ■ ⬟, typed T S P), a value 1–12 and a colour (🔴 🟢 🔵, typed R G B):"
    " T2R is ▲2🔴. A potion's count is its number of symbols, its total the sum of their"
    " values.\n"
    "Spoils: discarded if still in a slot when the turn ends. Fractured: prop may send only"
    " some of its symbols.\n"
    "Manifest: happens when the card is played into a slot. Charm: discard the card from your"
    " hand instead of playing it. Hex: discard it in your Ritual (before the work) to affect"
    " others or the fumes. Counter: in a Counter window, cancels the Hex or Counter on top.\n"
    "Charge: gained from cards and tiles, spent on boost (+1 to a cauldron symbol) and on some"
    " Counters; it lasts through both turns of a round and drops to 0 at Cleanup.\n"
    "Fumes: light and dark counters raised by Hexes and Counters; the higher one dominates"
    " (equal: balanced). Some panels and cards need a dominance. Each drops at round end."
)


def reference(state: State) -> list[Topic]:
    """The topics of a match's content set, in reading order."""
    from .engine import content_of

    content = content_of(state)
    topics = [Topic("Terms", TERMS)]
    for tier in sorted({card.tier for card in content.cards.values()}):
        title = "Starter cards" if tier == 0 else f"Cards, tier {tier}"
        entries = [card_entry(content, c) for c, card in content.cards.items() if card.tier == tier]
        topics += split(title, entries)
    tiles = [tile_entry(content, t) for t in content.tiles]
    topics += split("Tiles (each acts on every symbol passing through it)", tiles)
    shown = set(state["g"]["panels"])
    for tier in sorted({panel.tier for panel in content.panels.values()}):
        entries = [
            panel_text(panel) + (" (on the board)" if pid in shown else "")
            for pid, panel in content.panels.items()
            if panel.tier == tier
        ]
        topics += split(f"Panels, tier {tier}", entries)
    return topics


def card_entry(content: Content, card_id: str) -> str:
    card = content.cards[card_id]
    sold = f"cost {card.cost}, {card.copies} in the market" if card.tier else "starter"
    what = f"coin {card.coin}" if card.coin is not None else syms(card.symbols)
    effects = "; ".join(card_effects(card))
    return f"{card.name} ({sold}): {what}" + (f"; {effects}" if effects else "")


def tile_entry(content: Content, tile_id: str) -> str:
    tile = content.tiles[tile_id]
    sold = f"tier {tile.tier}, cost {tile.cost}" if tile.tier else "starter"
    return f"{tile.name} ({sold}): {tile_rule(tile)}"


def split(title: str, entries: Sequence[str]) -> list[Topic]:
    """``entries`` one a line, in topics of at most ``TOPIC_CHARS``: ``Cards, tier 1 (2/3)``
    when they take several."""
    parts: list[list[str]] = [[]]
    for entry in entries:
        entry = entry if len(entry) <= TOPIC_CHARS else entry[: TOPIC_CHARS - 1] + "…"
        if parts[-1] and len("\n".join([*parts[-1], entry])) > TOPIC_CHARS:
            parts.append([])
        parts[-1].append(entry)
    if len(parts) == 1:
        return [Topic(title, "\n".join(parts[0]) or "none")]
    return [
        Topic(f"{title} ({k}/{len(parts)})", "\n".join(lines)) for k, lines in enumerate(parts, 1)
    ]

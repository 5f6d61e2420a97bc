"""Magic Infused (rules page §G2): the six special effects, which cards carry them, and what
they change in a triple and in the count.

An effect belongs to its ingredient card for the whole match: it is dealt onto a card of the
deck at setup, announced when that card is revealed, and travels with the card (into a brew,
through a deal, back to the deck under Cursed). Which card carries which effect is hidden until
the reveal; which effects are in play is public from the start.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from .config import TRIPLE

POTENT = "Potent"  # E1
CHAMELEON = "Chameleon"  # E2
REFUND = "Refund"  # E3
CURSED = "Cursed"  # E4
BARGAIN_BIN = "Bargain Bin"  # E5
FREE_SAMPLE = "Free Sample"  # E6
EFFECTS = (POTENT, CHAMELEON, REFUND, CURSED, BARGAIN_BIN, FREE_SAMPLE)
EFFECT_IDS = {name: f"E{i + 1}" for i, name in enumerate(EFFECTS)}

RULES = {
    POTENT: "it counts as two ingredients when the deck runs out (still one toward three).",
    CHAMELEON: "wild, so two cards of one ingredient and a Chameleon make three of a kind.",
    REFUND: "the winning coin goes back to the winner's hand (not in front, nor to the rival).",
    CURSED: "its winner sends one other ingredient of their brew to the bottom of the deck.",
    BARGAIN_BIN: "the lowest bid that nobody else made wins this auction, not the highest.",
    FREE_SAMPLE: "nobody bids: it goes to the player with the fewest ingredients; if several "
    "tie, it leaves the game.",
}


def infuse(deck_size: int, count: int, rng: random.Random) -> list[str]:
    """``count`` different effects on ``count`` random cards of a deck of ``deck_size``: the
    effect of each card, top first ("" for none)."""
    marks = [""] * deck_size
    for place, effect in zip(
        rng.sample(range(deck_size), count), rng.sample(EFFECTS, count), strict=True
    ):
        marks[place] = effect
    return marks


def label(card: str, effect: str) -> str:
    """A card as the game names it: ``Toadstool``, ``Toadstool (Potent)``."""
    return f"{card} ({effect})" if effect else card


def split_label(text: str) -> tuple[str, str]:
    """The (card, effect) a label names; the effect is "" when the text names none."""
    name, _, rest = text.strip().partition(" (")
    effect = rest.removesuffix(")").strip() if rest.endswith(")") else ""
    found = next((e for e in EFFECTS if e.casefold() == effect.casefold()), "")
    return (name.strip(), found) if found else (text.strip(), "")


def triple_of(brew: Sequence[str], effects: Sequence[str]) -> str | None:
    """The ingredient a brew holds three of, if any: three cards of one type, or (E2) two of
    one type and a Chameleon of any type; at most one Chameleon counts toward a triple, and a
    Chameleon is not also one of the two."""
    plain = Counter(card for card, effect in zip(brew, effects, strict=True) if effect != CHAMELEON)
    wild = CHAMELEON in effects
    for card, count in sorted(plain.items(), key=lambda item: -item[1]):
        if count >= TRIPLE or (wild and count >= TRIPLE - 1):
            return card
    return None


def counted(effects: Sequence[str]) -> int:
    """A brew's ingredients at the deck-empty count: a Potent card counts twice (E1)."""
    return len(effects) + sum(1 for effect in effects if effect == POTENT)

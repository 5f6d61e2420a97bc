"""What a brew and a coin are worth to the computer players, in one currency: a triple is the
game (1.0); a pair, a first copy and every card toward the count are progress toward it.

Brews are lists of card labels (``Toadstool``, ``Bat Wing (Chameleon)``), so the effects of
Magic Infused count: a Chameleon is a wild third card, a Potent card counts twice at the
count, and a Cursed card costs the card it sends back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .effects import CHAMELEON, POTENT, counted, split_label, triple_of

WIN = 1.0
PAIR = 0.22  # a second copy, with a third still to come
FIRST = 0.07  # a first copy, with two more still to come
COUNT = 0.05  # any card, toward the count at an empty deck (grows as the deck runs out)
WILD = PAIR  # a Chameleon with no pair yet: it turns the next pair into a triple
RIVAL_SHARE = 0.6  # a rival's progress, against our own
COIN = 0.035  # a coin, per point of its value (in front: out of use until three are there)


def cards_of(labels: Sequence[str]) -> tuple[list[str], list[str]]:
    """(types, effects) of a brew given by labels."""
    pairs = [split_label(text) for text in labels]
    return [card for card, _ in pairs], [effect for _, effect in pairs]


def holds_triple(labels: Sequence[str]) -> bool:
    return triple_of(*cards_of(labels)) is not None


def brew_worth(labels: Sequence[str]) -> float:
    """A brew's worth: the game if it holds three of a kind, else its pairs, first copies, a
    wild Chameleon and its size at the count (a Potent card twice)."""
    if holds_triple(labels):
        return WIN
    types, effects = cards_of(labels)
    plain = Counter(
        card for card, effect in zip(types, effects, strict=True) if effect != CHAMELEON
    )
    worth = sum(PAIR if count >= 2 else FIRST for count in plain.values())
    worth += WILD if CHAMELEON in effects else 0.0
    return worth + COUNT * counted(effects)


def best_return(labels: Sequence[str]) -> int:
    """Cursed: the index of the card (all but the last, the Cursed one) whose return leaves
    the brew worth most."""
    others = range(len(labels) - 1)
    return max(others, key=lambda i: (brew_worth([*labels[:i], *labels[i + 1 :]]), -i))


def after_cursed(labels: Sequence[str]) -> list[str]:
    """A brew that just won a Cursed card (its last), after the best return."""
    if len(labels) < 2:
        return list(labels)
    i = best_return(labels)
    return [*labels[:i], *labels[i + 1 :]]


def potent_bonus(effect: str) -> float:
    return COUNT if effect == POTENT else 0.0

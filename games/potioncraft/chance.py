"""Every random event of a match (``potioncraft.md`` §12), from one source.

Live, an event draws from ``derive_rng(seed, "chance", n)`` (n counts the match's events); in a
script replay it takes the script's next outcome instead (``State.outcomes``). Either way the
outcome is recorded in ``State.drawn``, so an export writes exactly what the match drew.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from games.protocol import JSON, derive_rng
from games.text import excerpt

from .cards import POTION_CATEGORIES
from .state import State


class OutcomeError(ValueError):
    """A script's random outcome is missing or does not fit the event."""


def _scripted(state: State, what: str) -> JSON:
    assert state.outcomes is not None
    if not state.outcomes:
        raise OutcomeError(f"missing random outcome for {what}")
    return state.outcomes.pop(0)


def _record(state: State, outcome: JSON) -> None:
    state.chance += 1
    state.drawn.append(outcome)


def shuffle(state: State, cards: Sequence[str]) -> list[str]:
    """A main-deck shuffle: the new order of ``cards``, top first."""
    if state.outcomes is None:
        new = list(cards)
        derive_rng(state.seed, "chance", state.chance).shuffle(new)
    else:
        outcome = _scripted(state, "a main-deck shuffle")
        if not isinstance(outcome, list) or Counter(map(str, outcome)) != Counter(cards):
            raise OutcomeError(
                f"a main-deck shuffle needs exactly the {len(cards)} cards shuffled,"
                f" got {excerpt(outcome)}"
            )
        new = [str(card) for card in outcome]
    _record(state, list(new))
    return new


def pick(state: State, hand: Sequence[str]) -> str:
    """A random card of a non-empty hand."""
    if state.outcomes is None:
        card = derive_rng(state.seed, "chance", state.chance).choice(list(hand))
    else:
        outcome = _scripted(state, "a random card from a hand")
        if not isinstance(outcome, str) or outcome not in hand:
            raise OutcomeError(f"the random card must be in that hand, got {excerpt(outcome)}")
        card = outcome
    _record(state, card)
    return card


def potion_shuffle(state: State, decks: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """A Potion reshuffle: the new order of each non-empty potion deck."""
    full = {cat: list(decks[cat]) for cat in POTION_CATEGORIES if decks[cat]}
    if state.outcomes is None:
        rng = derive_rng(state.seed, "chance", state.chance)
        for cards in full.values():
            rng.shuffle(cards)
        new = full
    else:
        outcome = _scripted(state, "a Potion reshuffle")
        if not isinstance(outcome, dict) or set(outcome) != set(full):
            raise OutcomeError(
                f"a Potion reshuffle needs the new order of {', '.join(full) or 'no deck'},"
                f" got {excerpt(outcome)}"
            )
        new = {}
        for cat in full:
            order = outcome[cat]
            if not isinstance(order, list) or Counter(map(str, order)) != Counter(full[cat]):
                raise OutcomeError(f"{cat} must be a new order of {excerpt(full[cat])}")
            new[cat] = [str(name) for name in order]
    _record(state, {cat: list(cards) for cat, cards in new.items()})
    return new

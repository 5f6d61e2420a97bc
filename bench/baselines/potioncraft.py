"""The Potioncraft AI as it was before issue 17's rework (``AlchemistAgent``, then the default
``alchemist``), frozen: ``bench/ai.py potioncraft --against previous`` measures the new levels
against it. It reads only the protocol (the request, its own view) and the card catalog."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from games.potioncraft.cards import (
    CATEGORY_OF,
    POTION_CATEGORIES,
    POTION_LOOKUP,
    POTIONS,
    SIBLINGS,
    SPELL_CATEGORY,
    SPELL_TYPE,
    WILD,
    Potion,
)
from games.protocol import JSON, Agent, Event, Request


def _potion(shown: str) -> Potion:
    """A potion named in a choice (as players see it)."""
    return POTIONS[POTION_LOOKUP[shown.casefold()]]


def _owned_categories(view: JSON, seat: int) -> set[str]:
    return {
        POTIONS[label.removesuffix(" (spent)")].category for label in view["seats"][seat]["potions"]
    }


class AlchemistAgent:
    """Plans towards the potions its hand can reach: it crafts what gives a new category, keeps
    and draws the cards of the revealed potions it lacks, blocks what would hurt it, and plays
    spells with a purpose (a steal of a missing category, Venom Brew on the leader)."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def observe(self, event: Event) -> None:
        pass

    # --- how much a card is worth now --------------------------------------------------------

    def _wanted(self, view: JSON) -> Counter[str]:
        missing = set(POTION_CATEGORIES) - _owned_categories(view, self.seat)
        want: Counter[str] = Counter()
        for category in missing:
            potion = view["revealed"][category]
            if potion is None:
                continue
            for ingredient in POTIONS[potion].recipe:
                if CATEGORY_OF[ingredient] == view["seal"]:
                    continue
                want[ingredient] += 3
                for other in SIBLINGS[ingredient]:
                    want[other] += 1
        return want

    def _value(self, card: str, view: JSON, want: Counter[str]) -> float:
        if card == WILD:
            return 4.0
        if card in SPELL_TYPE:
            kind = SPELL_TYPE[card]
            if kind == "Foul Elixir":
                return -5.0
            bonus = 1.0 if SPELL_CATEGORY[card] in ("Benedicta", "Fortuna") else 0.5
            return {"Thief's Gamble": 2.5, "Crackling Cauldron": 2.0}.get(kind, 1.0) + bonus
        return float(want[card]) + 0.1

    # --- answers -----------------------------------------------------------------------------

    def act(self, request: Request, view: JSON) -> str:
        values = [choice.value for choice in request.choices]
        handler: Callable[[Request, JSON, list[str]], str] = getattr(
            self, f"_{request.kind}", self._first
        )
        return handler(request, view, values)

    def _first(self, request: Request, view: JSON, values: list[str]) -> str:
        return values[0]

    def _draw(self, request: Request, view: JSON, values: list[str]) -> str:
        want = self._wanted(view)
        best, best_value = "deck", 2.5
        for value in values[1:]:
            seat = next(i for i, s in enumerate(view["seats"]) if s["name"] == value[5:])
            top = view["seats"][seat]["pile"][-1]
            if self._value(top, view, want) > best_value:
                best, best_value = value, self._value(top, view, want)
        return best

    def _main(self, request: Request, view: JSON, values: list[str]) -> str:
        owned = _owned_categories(view, self.seat)
        want = self._wanted(view)
        crafts = [v for v in values if v.startswith("craft ")]
        for value in crafts:
            potion = value[6:].split(" with ")[0]
            if _potion(potion).category not in owned:
                return value
        hand = view["hand"]
        leader = max(
            (
                s
                for s in range(len(view["seats"]))
                if s != self.seat and not view["seats"][s]["out"]
            ),
            key=lambda s: (view["seats"][s]["categories"], view["seats"][s]["hand_size"]),
        )
        for value in values:
            if value.startswith("play ") and "Thief's Gamble" in value and " steal " in value:
                target_name = value.split(" on ", 1)[1].split(" steal ")[0]
                potion = value.split(" steal ", 1)[1].split(" wager ")[0]
                target = next(s for s in view["seats"] if s["name"] == target_name)
                if _potion(potion).category not in owned and target["hand_size"] >= 5:
                    return value
        for value in values:
            if value.startswith("perk ") and " ask " in value:
                asked = value.split(" ask ", 1)[1]
                if want[asked] >= 3 and asked not in hand:
                    return value
        for value in values:
            if not value.startswith("perk ") or " ask " in value or " on " in value:
                continue
            perk = _potion(value[5:]).perk
            if perk == "ward":
                return value
            if perk == "hand_reset" and sum(self._value(c, view, want) for c in hand) < len(hand):
                return value
        leader_name = view["seats"][leader]["name"]
        for value in values:
            if not value.startswith("play "):
                continue
            kind = next(
                (k for k in ("Crackling Cauldron", "Astral Projection") if k in value), None
            )
            if kind:
                return value
            venom = value.startswith("play Venom Brew") and value.endswith(f" on {leader_name}")
            if venom and view["seats"][leader]["categories"] >= 2 and self.rng.random() < 0.7:
                return value
        return "end"

    def _astral(self, request: Request, view: JSON, values: list[str]) -> str:
        want = self._wanted(view)
        return max(values, key=lambda v: self._value(v[5:].split(", ")[0], view, want))

    def _discard(self, request: Request, view: JSON, values: list[str]) -> str:
        want = self._wanted(view)
        ranked = sorted(values, key=lambda v: self._value(v.split(" #")[0], view, want))
        return request.join_answer(ranked[: request.min_choices])

    def _block(self, request: Request, view: JSON, values: list[str]) -> str:
        """A Request always hurts (a card lost); a Hand reset only a hand worth keeping."""
        blocks = [v for v in values if v.startswith("block ")]
        if not blocks:
            return "pass"
        if POTIONS[view["potion"]].perk == "hand_reset":
            want = self._wanted(view)
            worth = sum(self._value(card, view, want) for card in view["hand"])
            if worth < 1.5 * len(view["hand"]):
                return "pass"  # a fresh hand of the same size is no loss
        return blocks[0]

    def _pair(self, request: Request, view: JSON, values: list[str]) -> str:
        want = self._wanted(view)
        return min(values, key=lambda v: want[v[5:]])


AGENT: Callable[[int, random.Random], Agent] = AlchemistAgent

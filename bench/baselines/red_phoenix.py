"""Red Phoenix's AI as it was before the rework of issue 17 (``alchemist``, then the default),
frozen here only so ``bench/ai.py red-phoenix --against previous`` can measure the new levels
against it. It reads only the protocol (the request, its own view) and the house card set.

Adapted to the protocol only: experiments are offered as whole commands now (it scored the
guided ``experiment`` step by its best method, the same choice), and it reads the drawn cards
of a keep window from its view instead of the labels. Its strategy: climbs the ladder (buys
four different Level I cards, experiments with the best method it can afford, reproduces
formulas, boosts before a Level III experiment), heals, wards, kills its own monsters, and
spends damage items on the weakest rival; it buys an Acid Flask to throw whenever it has none.
It never declares a Level III experiment below value 8 and never trades, licenses or
dissolves."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.protocol import JSON, Event, Request
from games.red_phoenix.cards import CardSet, house

METHOD_RANK = {
    "magnum_opus": 5,
    "gold_standard": 4,
    "blood_distillation": 3,
    "hasty_fusion": 1,
    "simple_decoction": 2,
}


class AlchemistAgent:
    def __init__(self, seat: int, rng: random.Random, cards: CardSet | None = None) -> None:
        self.seat = seat
        self.rng = rng
        self.cards = cards or house()

    def observe(self, event: Event) -> None:
        pass

    def level(self, card: str) -> int:
        ing = self.cards.ingredients.get(card)
        return ing.level if ing is not None else 1

    def act(self, request: Request, view: JSON) -> str:
        values = [c.value for c in request.choices]
        kind = request.kind
        if kind == "ward":
            return "ward"
        if kind == "trade_response":
            return "decline"
        if kind == "keep":
            return self.keep(request, view)
        if kind == "discard":
            return self.discard(request, view)
        if kind == "confirm":
            return "confirm"
        best = max(values, key=lambda v: self.score(v, view))
        return best

    def keep(self, request: Request, view: JSON) -> str:
        """Its ranking (met success, missed success, simple failure, catastrophe, monster),
        read from the drawn cards in the view (it read them from the labels before)."""
        drawing = view["keep"]
        results = self.cards.results[drawing["level"]]

        def rank(card: str) -> int:
            r = results[card]
            if r.kind == "success":
                return 0 if drawing["value"] >= r.score else 1
            return {"simple": 2, "catastrophe": 3, "monster": 4}[r.kind]

        drawn = drawing["drawn"]
        ordered = sorted(range(len(drawn)), key=lambda i: rank(drawn[i]))
        count = max(1, request.min_choices)
        if request.max_choices > 1:
            good = [i for i in ordered if rank(drawn[i]) == 0][: request.max_choices]
            picked = good if len(good) >= count else ordered[:count]
            return request.join_answer([str(i + 1) for i in picked])
        return f"keep {ordered[0] + 1}"

    def discard(self, request: Request, view: JSON) -> str:
        def worth(value: str) -> tuple[int, int]:
            card = value.split("#")[0]
            ing = self.cards.ingredients.get(card)
            item = 1 if ing is not None and ing.effect is not None else 0
            return self.level(card), item

        ordered = sorted(request.choices, key=lambda c: worth(c.value))
        return request.join_answer([c.value for c in ordered[: request.min_choices]])

    def score(self, value: str, view: Mapping[str, Any]) -> float:
        words = value.split()
        verb = words[0]
        me = view["players"][view["you"]["seat"]]
        hand: list[str] = view["you"]["hand"]
        health, coins, ap = me["health"], me["coins"], view["ap"]
        if verb == "end":
            return 0.0
        flask_ready = "acid_flask" not in hand and "acid_flask" not in me["used"]
        if verb == "take":
            if coins < 2 and flask_ready and int(words[1]) == 1:
                return 77.0
            return 5.0 + int(words[1])
        if verb == "use":
            return self.score_use(words, view, hand, health, coins)
        if verb in ("fast", "slow"):
            return self.score_experiment(words, view, hand, health, coins, ap)
        if verb == "experiment":  # the guided experiment: its best method decides
            speeds = ("slow", "fast") if ap >= 2 else ("slow",)
            return max(
                self.score_experiment([speed, method, *words[1:]], view, hand, health, coins, ap)
                for method in self.cards.methods
                for speed in speeds
            )
        if verb == "back":
            return -10.0
        if verb == "reproduce":
            formula = next(f for f in view["formulas"] if f["id"] == words[1])
            lvl = formula["level"]
            have_higher = sum(1 for c in hand if self.level(c) == lvl + 1)
            return 60.0 + 10.0 * int(lvl) - 8.0 * have_higher
        if verb == "buy":
            cards = words[1:]
            types = {
                c for c in hand if self.level(c) == 1 and self.cards.ingredients[c].effect is None
            }
            if len(cards) > 1:
                if ap >= 2 and self.formula_set(view, hand, cards):
                    return 74.0
                return 45.0 if len(types) < 3 else 20.0
            card = cards[0]
            ing = self.cards.ingredients.get(card)
            if ing is not None and ing.effect == "damage":
                return 76.0 if flask_ready and self.weakest(view) is not None else -1.0
            if card in hand:
                return -1.0
            return 30.0 if len(types) < 4 else 2.0
        return -5.0  # dissolve, license, trade: never

    def score_use(
        self, words: list[str], view: Mapping[str, Any], hand: list[str], health: int, coins: int
    ) -> float:
        card = words[1]
        ing = self.cards.ingredients.get(card)
        if ing is None or ing.effect is None:
            return -5.0
        effect = ing.effect
        if effect == "heal":
            return 95.0 if health <= 10 - ing.amount or health <= 4 else -1.0
        if effect == "coins":
            return 55.0 if coins < 8 else -1.0
        if effect == "boost":
            top = max((self.level(c) for c in hand if c != card), default=0)
            return 80.0 if top >= 3 and view["ap"] >= 1 else -1.0
        if effect == "steal":
            target = words[2]
            size = (
                view["players"].get(target, {}).get("hand_size", 0)
                if target in view["players"]
                else 0
            )
            return 35.0 + size
        target = words[2]
        for m in view["monsters"]:
            if m["id"] == target:
                if m["owner"] == view["you"]["seat"] and m["hp"] <= ing.amount:
                    return 88.0
                return -1.0
        rival = self.rival(view, target)
        if rival is None:
            return -1.0
        if rival["health"] <= ing.amount:
            return 87.0
        return 85.0 if target == self.weakest(view) else 15.0

    def rival(self, view: Mapping[str, Any], handle: str) -> dict[str, Any] | None:
        names = list(view["players"])
        handles = [n for n in names]
        if handle in handles:
            entry: dict[str, Any] = view["players"][handle]
            return entry
        if handle.startswith("P") and handle[1:].isdigit():
            index = int(handle[1:]) - 1
            if 0 <= index < len(names):
                entry = view["players"][names[index]]
                return entry
        return None

    def formula_set(self, view: Mapping[str, Any], hand: list[str], cards: list[str]) -> bool:
        """Whether ``cards`` are the missing ingredients of a formula it may reproduce."""
        me = view["you"]["seat"]
        for f in view["formulas"]:
            if me not in f["knowers"] and f["license"] is None:
                continue
            missing = sorted(c for c in f["ingredients"] if c not in hand)
            if missing == sorted(cards):
                return True
        return False

    def weakest(self, view: Mapping[str, Any]) -> str | None:
        """The handle of the living rival with the least Health (the most cards on a tie)."""
        me = view["you"]["seat"]
        best, key = None, (99, 0)
        for index, (name, p) in enumerate(view["players"].items()):
            if name == me or not p["alive"]:
                continue
            this = (p["health"], -p["hand_size"])
            if this < key:
                handle = name if view["you"]["handle"] == me else f"P{index + 1}"
                best, key = handle, this
        return best

    def leader(self, view: Mapping[str, Any]) -> str | None:
        me = view["you"]["seat"]
        best, best_score = None, -1
        for index, (name, p) in enumerate(view["players"].items()):
            if name == me or not p["alive"]:
                continue
            levels = [f["level"] for f in view["formulas"] if name in f["knowers"]]
            score = sum(levels) * 3 + p["hand_size"] + (10 - p["health"]) // 2
            if score > best_score:
                handle = name if view["you"]["handle"] == me else f"P{index + 1}"
                best, best_score = handle, score
        return best

    def score_experiment(
        self,
        words: list[str],
        view: Mapping[str, Any],
        hand: list[str],
        health: int,
        coins: int,
        ap: int,
    ) -> float:
        speed, method, cards = words[0], words[1], words[2:]
        levels = [self.level(c) for c in cards]
        lvl, value = max(levels), sum(levels) + view["boost"]
        if lvl == 3 and value < 8:
            return -1.0
        if lvl >= 2 and health <= 4:
            return -1.0
        base: float = 50.0 + 12 * lvl + 2 * value
        m = self.cards.methods.get(method)
        if m is None:
            return -5.0
        cost_h = m.health * lvl
        if cost_h and health - cost_h < 5:
            return -1.0
        base += 2 * METHOD_RANK.get(method, 0)
        if m.coins * lvl > 0 and coins - m.coins * lvl < 0:
            return -1.0
        if speed == "fast":
            base += 3
        # an item worth more as an item stays out of low experiments
        items = sum(
            1 for c in cards if self.cards.ingredients[c].effect in ("heal", "ward", "damage")
        )
        if lvl < 3:
            base -= 6 * items
        return base


AGENT = AlchemistAgent

"""The Warlock's Brew AI as it was before its rework (``bidder``, the default until then), frozen
here only so ``bench/ai.py --against previous`` can measure the new AI against it. Do not change
it. Original docstring: computer players. They see what their seat sees: public and own events,
and their own view."""

from __future__ import annotations

import random
from collections import Counter

from games import protocol
from games.protocol import JSON, Event, Request
from games.warlocks_brew.engine import DECLARE, PASS

HIGH, BLOCK, PAIR, FILLER = 1.0, 0.85, 0.6, 0.3  # how much a card is worth to the bidder


def _coins(request: Request) -> list[int]:
    return sorted(int(choice.value) for choice in request.choices if choice.value != DECLARE)


class RandomAgent(protocol.RandomAgent):
    """Any legal coin; under Utter Darkness it now and then declares on a hunch."""

    def act(self, request: Request, view: JSON) -> str:
        if request.kind == "declare":
            return DECLARE if self.rng.random() < 0.3 else PASS
        can_declare = any(choice.value == DECLARE for choice in request.choices)
        if can_declare and self.rng.random() < 0.05:
            return DECLARE
        return str(self.rng.choice(_coins(request)))


class BidderAgent:
    """Values the card on offer (its own triple, blocking a rival's, a pair) and bids to match.

    It remembers every card won (the winner and the card are announced publicly), so it knows
    its own brew even when brews lie face down, and it declares only a triple it remembers.
    """

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.won: dict[int, Counter[str]] = {}

    def observe(self, event: Event) -> None:
        if not event.audience.reaches(self.seat) or event.kind != "reveal":
            return
        for declared in event.data["declared"]:
            if not declared["correct"]:
                self.won.pop(declared["seat"], None)
        winner = event.data["winner"]
        if winner is not None:
            self.won.setdefault(winner, Counter())[event.data["card"]] += 1

    def act(self, request: Request, view: JSON) -> str:
        holds_triple = max(self._brew(view, self.seat).values(), default=0) >= 3
        if request.kind == "declare":
            return DECLARE if holds_triple else PASS
        if holds_triple and any(choice.value == DECLARE for choice in request.choices):
            return DECLARE
        coins = _coins(request)
        worth = self._worth(view)
        sure = [coin for coin in coins if coin > self._rival_ceiling(view)]
        if worth >= BLOCK and sure:
            return str(sure[0])  # nobody can match or beat it: the cheapest certain win
        jitter = self.rng.uniform(-0.6, 0.6)  # so two bidders alike do not always tie
        index = round(worth * (len(coins) - 1) + jitter)
        return str(coins[max(0, min(len(coins) - 1, index))])

    def _brew(self, view: JSON, seat: int) -> Counter[str]:
        shown = view["you"]["brew"] if seat == self.seat else view["players"][seat]["brew"]
        return Counter(shown) if shown is not None else self.won.get(seat, Counter())

    def _rivals(self, view: JSON) -> list[int]:
        players = view["players"]
        return [i for i, p in enumerate(players) if i != self.seat and not p["eliminated"]]

    def _worth(self, view: JSON) -> float:
        card = view["card"]
        if self._brew(view, self.seat)[card] >= 2:
            return HIGH
        if any(self._brew(view, rival)[card] >= 2 for rival in self._rivals(view)):
            return BLOCK
        worth = PAIR if self._brew(view, self.seat)[card] == 1 else FILLER
        if view["deck_left"] < len(view["players"]) and not self._leading(view):
            worth += 0.2  # near the end every card counts
        return worth

    def _leading(self, view: JSON) -> bool:
        mine = view["players"][self.seat]["brew_size"]
        return all(view["players"][r]["brew_size"] < mine for r in self._rivals(view))

    def _rival_ceiling(self, view: JSON) -> int:
        """The highest coin any rival might hold (their coins in front are out of reach)."""
        dealt = max(range(1, 5 if view["options"]["broke_buyers"] else 6))
        if view["options"]["two_players"]:
            return dealt  # coins change hands, so anything up to the top value is possible
        ceiling = 0
        for rival in self._rivals(view):
            front = view["players"][rival]["front"] + view["players"][rival]["table"]
            free = [coin for coin in range(1, dealt + 1) if coin not in front]
            ceiling = max(ceiling, max(free, default=0))
        return ceiling


AGENT = BidderAgent

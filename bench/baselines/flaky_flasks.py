"""The Flaky Flasks AI as it was before its rework (``brewer``, the default until then), frozen
here only so ``bench/ai.py --against previous`` can measure the new AI against it. Do not change
it. It reads only the protocol (requests, views, events) and stable engine helpers: the content
set (``config.content_for``), ``rules.qualifies``, ``rules.payout``, ``rules.best_panel`` and
``rules.run_channel``.

Original docstring: greedy: connect every slot with tiles, fill connected slots with its best
ingredients, propagate the subset of slots whose cauldron sells best, brew what sells, sell each
potion at its best panel and buy the dearest useful item; Hexes the leader, counters attacks.
"""

# No ``from __future__ import annotations``: bench/ai.py loads this file without registering
# it in sys.modules.

import random
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

from games.flaky_flasks import config as options
from games.flaky_flasks.content import Content, sym_parts
from games.flaky_flasks.rules import best_panel, payout, qualifies, run_channel
from games.protocol import JSON, Event, Request


def sellable(
    content: Content, table: Mapping[str, Any], symbols: Sequence[str]
) -> list[tuple[str, int, int]]:
    """Each revealed panel the potion qualifies for now, in board order: (id, coins, fame)
    (the engine's own ``sellable`` of the time, on a table of panels and fumes)."""
    light, dark = table["fumes"]
    dom = "light" if light > dark else "dark" if dark > light else "balanced"
    out = []
    for pid in table["panels"]:
        panel = content.panels[pid]
        if qualifies(panel, symbols, dom):
            coins, fame = payout(panel, symbols)
            out.append((pid, coins, fame))
    return out


def _content(view: Mapping[str, Any]) -> Content:
    return options.content_for(view["config"], view["content_key"])


def _worth(content: Content, table: dict[str, Any], symbols: Sequence[str], round_: int) -> float:
    """What a cauldron would sell for at its best panel now: fame plus a coin weight that
    falls with the round (0 if nothing buys it)."""
    best = best_panel(sellable(content, table, symbols))
    if best is None:
        return 0.0
    return best[2] + best[1] * max(0.2, 1.0 - round_ / 10)


class BrewerAgent:
    """The previous default AI (see the module docstring)."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: JSON) -> str:
        values = [c.value for c in request.choices]
        handler: Callable[[Request, Any, list[str]], str] = getattr(self, f"_{request.kind}")
        answer = handler(request, view, values)
        return answer

    # --- windows ------------------------------------------------------------------------------

    def _setup(self, request: Request, view: Any, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        slots, length = view["config"]["slots"], view["config"]["channel_length"]
        tiles = [s.split("@")[0] for ch in me["channels"] for s in ch] + list(me["spare"])
        rank = {
            "none": 0,
            "charge": 1,
            "colour": 2,
            "shape": 2,
            "add": 3,
            "split": 4,
            "echo": 5,
            "mul": 6,
        }
        tiles.sort(key=lambda t: -content.tiles[t].cost)
        channels: list[list[str]] = [[] for _ in range(slots)]
        for i, tile in enumerate(tiles):
            k = i % slots
            if len(channels[k]) < length:
                channels[k].append(tile)
        parts = []
        for k, ch in enumerate(channels):
            if ch:
                ch.sort(key=lambda t: rank[content.tiles[t].op])
                specs = [
                    t
                    if not content.tiles[t].settings
                    else f"{t}@{content.tiles[t].settings[1 % len(content.tiles[t].settings)]}"
                    for t in ch
                ]
                parts.append(f"{k + 1}={','.join(specs)}")
        return "layout " + " ".join(parts)

    def _hex(self, request: Request, view: Any, values: list[str]) -> str:
        hexes = [v for v in values if v.startswith("hex ")]
        if not hexes:
            return "pass"
        players = view["players"]
        leader = max(
            (p for i, p in enumerate(players) if i != self.seat and not p["out"]),
            key=lambda p: p["fame"],
            default=None,
        )
        for value in hexes:
            words = value.split()
            if len(words) == 2 or (leader is not None and words[2] == leader["name"]):
                return value
        return hexes[0]

    def _counter(self, request: Request, view: Any, values: list[str]) -> str:
        counters = [v for v in values if v.startswith("counter ")]
        chain = view["chain"]
        if not counters or not chain:
            return "pass"
        top = chain[-1]
        if top["kind"] == "hex" and (top.get("target") == self.seat or top.get("target") is None):
            return counters[0]
        if top["kind"] == "counter" and chain[-2]["seat"] == self.seat:
            return counters[0]  # keep my own Hex alive
        return "pass"

    def _work(self, request: Request, view: Any, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        hand = view["me"]["hand"]
        table = {"panels": view["panels"], "fumes": [view["fumes"]["light"], view["fumes"]["dark"]]}
        round_, turn = view["round"], view["phase_turn"]
        if me["stage"] == "play":
            for value in values:
                if value.startswith("charm "):
                    return value
            empty = [k for k, slot in enumerate(me["slots"]) if slot is None]
            connected = [k for k in empty if me["channels"][k]]
            ingredients = [c for c in dict.fromkeys(hand) if content.cards[c].coin is None]
            if connected and ingredients:
                best = max(
                    ((c, k) for c in ingredients for k in connected),
                    key=lambda ck: self._gain(content, table, me, ck[0], ck[1], round_),
                )
                if self._gain(content, table, me, best[0], best[1], round_) > 0 or turn == 1:
                    return f"play {best[0]} {best[1] + 1}"
            coins = [c for c in dict.fromkeys(hand) if content.cards[c].coin is not None]
            broken = [k for k in empty if not me["channels"][k]]
            spot = broken or ([k for k in empty] if turn == 2 else [])
            if coins and spot:
                return f"play {coins[0]} {spot[0] + 1}"
        # propagate the best subset of the slots, then brew what sells
        ready = [
            k
            for k, slot in enumerate(me["slots"])
            if slot is not None and slot["left"] and me["channels"][k]
        ]
        now = list(me["cauldron"])
        best_set: tuple[int, ...] = ()
        best_value = _worth(content, table, now, round_) if len(now) >= 2 else 0.0
        for size in range(1, len(ready) + 1):
            for subset in combinations(ready, size):
                pot = now + [s for k in subset for s in self._out(content, me, k, table)]
                worth = _worth(content, table, pot, round_)
                if worth > best_value:
                    best_set, best_value = subset, worth
        if best_set:
            return f"prop {best_set[0] + 1}"
        if best_value > 0 and "brew" in values:
            return "brew"
        if turn == 1 and ready and not now:
            return f"prop {ready[0] + 1}"  # build towards Turn 2
        if turn == 2 and "brew" in values:
            return "brew"
        return "done"

    def _out(self, content: Content, me: Any, k: int, table: dict[str, Any]) -> list[str]:
        slot = me["slots"][k]
        out, _ = run_channel(content, me["channels"][k], slot["left"], me["jammed"])
        return out

    def _gain(
        self, content: Content, table: dict[str, Any], me: Any, card: str, k: int, round_: int
    ) -> float:
        symbols = content.cards[card].symbols
        out, _ = run_channel(content, me["channels"][k], symbols, me["jammed"])
        pot = list(me["cauldron"]) + out
        return _worth(content, table, pot, round_) + 0.01 * sum(sym_parts(s)[1] for s in out)

    def _market(self, request: Request, view: Any, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        table = {"panels": view["panels"], "fumes": [view["fumes"]["light"], view["fumes"]["dark"]]}
        for potion in me["potions"]:
            best = best_panel(sellable(content, table, potion["symbols"]))
            if best is not None:
                return f"sell {potion['n']} {best[0]}"
        buys = [v for v in values if v.startswith("buy ") and " trash " not in v]
        if not buys:
            return "pass"
        items = [v.split()[1] for v in buys]
        empty_channel = any(not ch for ch in me["channels"])
        tiles = [i for i in items if i in content.tiles]
        cards = [i for i in items if i in content.cards and content.cards[i].coin is None]
        coin_cards = [i for i in items if i in content.cards and content.cards[i].coin is not None]
        if tiles and (empty_channel or not cards):
            pick = max(tiles, key=lambda t: (content.tiles[t].cost, t))
            return f"buy {pick}"
        pool = cards or coin_cards
        if not pool:
            return "pass"
        pick = max(
            pool,
            key=lambda c: (
                sum(sym_parts(s)[1] for s in content.cards[c].symbols),
                content.cards[c].cost,
                c,
            ),
        )
        owned = [c for c, _ in me["collection"]]
        weak = [c for c in owned if content.cards[c].tier == 0 and content.cards[c].coin is None]
        size = sum(n for _, n in me["collection"])
        if weak and size >= 14 and f"buy {pick} trash {weak[0]}" in values:
            return f"buy {pick} trash {weak[0]}"
        return f"buy {pick}"

    def _offer(self, request: Request, view: Any, values: list[str]) -> str:
        return "pass"

    def _reply(self, request: Request, view: Any, values: list[str]) -> str:
        return "refuse"


AGENT: Callable[[int, random.Random], BrewerAgent] = BrewerAgent

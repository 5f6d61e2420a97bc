"""Computer players. Each sees only its own view and the events its seat is told.

* ``random``: any offered answer, uniformly (the baseline).
* ``easy``: legal and a little sensible: it plays ingredients where they reach the cauldron,
  brews a potion that sells, sells it, buys something it can afford; otherwise it picks at
  random and never Hexes.
* ``normal`` (``BrewerAgent``, the practice opponent): greedy one move at a time: it connects
  its slots with tiles, fills connected slots with the ingredients that sell best now,
  propagates the slots whose cauldron sells best, brews what sells, sells each potion at its
  best panel and buys the dearest useful item; it Hexes the leader and counters attacks.
* ``hard`` (``PlannerAgent``): plans each turn whole: every way to play its hand into its
  slots, what each would brew, and for Turn 1 whether brewing now beats keeping the cauldron
  for Turn 2 (over sampled Turn 2 hands); it values coins less as the match nears its end,
  buys by the fame an item should bring in the rounds left, trashes weak starters and lays
  its tiles out so the strongest ones meet its best cards.

Each reads its seat's view as the engine builds it, a ``SeatView`` (``state.py``): the
protocol's ``act`` takes ``JSON``, which is ``Any``, so ``act`` declares the view's real shape
and mypy checks every lookup from there. A helper that takes a ``PublicView`` reads nothing only
the seat knows (its hand, its deck).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from games import protocol
from games.protocol import Agent, Event, Request

from . import config as options
from .content import MAX_CAULDRON, Content, Panel, make_symbol, sym_parts
from .rules import best_panel, dominance_of, run_channel, sellable_at
from .state import PublicPlayer, PublicView, SeatView


class RandomAgent(protocol.RandomAgent):
    """Uniformly one of the offered answers."""


def _content(view: PublicView) -> Content:
    return options.content_for(view["config"], view["content_key"])


def _dominance(view: PublicView) -> str:
    return dominance_of(view["fumes"]["light"], view["fumes"]["dark"])


def _sellable(
    content: Content, view: PublicView, symbols: Sequence[str]
) -> list[tuple[str, int, int]]:
    return sellable_at(content, view["panels"], _dominance(view), symbols)


# --- easy -----------------------------------------------------------------------------------


class EasyAgent:
    """Random, with a little sense (see the module docstring)."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat, self.rng = seat, rng

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: SeatView) -> str:
        values = [c.value for c in request.choices]
        if request.kind == "work":
            return self._work(values, view)
        if request.kind == "market":
            sells = [v for v in values if v.startswith("sell ")]
            buys = [v for v in values if v.startswith("buy ") and " trash " not in v]
            return self.rng.choice(sells or buys or ["pass"])
        if request.kind in ("hex", "counter", "offer"):
            return "pass"
        if request.kind == "reply":
            return "refuse"
        return self.rng.choice(values)

    def _work(self, values: list[str], view: PublicView) -> str:
        me = view["players"][self.seat]
        connected = [
            v for v in values if v.startswith("play ") and me["channels"][int(v.split()[-1]) - 1]
        ]
        props = [v for v in values if v.startswith("prop ")]
        if connected and self.rng.random() < 0.8:
            return self.rng.choice(connected)
        if props:
            return self.rng.choice(props)
        if "brew" in values and self.rng.random() < 0.8:
            return "brew"
        return self.rng.choice(values)


# --- normal: the brewer ---------------------------------------------------------------------


def _worth(content: Content, view: PublicView, symbols: Sequence[str], round_: int) -> float:
    """What a cauldron would sell for at its best panel now: fame plus a coin weight that
    falls with the round (0 if nothing buys it)."""
    best = best_panel(_sellable(content, view, symbols[:MAX_CAULDRON]))  # the rest is void
    if best is None:
        return 0.0
    return best[2] + best[1] * max(0.2, 1.0 - round_ / 10)


class BrewerAgent:
    """Greedy: connect every slot with tiles, fill connected slots with its best ingredients,
    propagate the subset of slots whose cauldron sells best, brew what sells, sell each potion
    at its best panel and buy the dearest useful item; Hexes the leader, counters attacks."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: SeatView) -> str:
        values = [c.value for c in request.choices]
        handler: Callable[[Request, SeatView, list[str]], str] = getattr(self, f"_{request.kind}")
        return handler(request, view, values)

    # --- windows ------------------------------------------------------------------------------

    def _setup(self, request: Request, view: PublicView, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        slots, length = view["config"]["slots"], view["config"]["channel_length"]
        tiles = [s.split("@")[0] for ch in me["channels"] for s in ch] + list(me["spare"])
        tiles.sort(key=lambda t: -content.tiles[t].cost)
        channels: list[list[str]] = [[] for _ in range(slots)]
        for i, tile in enumerate(tiles):
            k = i % slots
            if len(channels[k]) < length:
                channels[k].append(tile)
        parts = []
        for k, ch in enumerate(channels):
            if ch:
                ch.sort(key=lambda t: OP_ORDER[content.tiles[t].op])
                specs = [
                    t
                    if not content.tiles[t].settings
                    else f"{t}@{content.tiles[t].settings[1 % len(content.tiles[t].settings)]}"
                    for t in ch
                ]
                parts.append(f"{k + 1}={','.join(specs)}")
        return "layout " + " ".join(parts)

    def _hex(self, request: Request, view: PublicView, values: list[str]) -> str:
        hexes = [v for v in values if v.startswith("hex ")]
        if not hexes:
            return "pass"
        leader = _leader(view, self.seat)
        for value in hexes:
            words = value.split(maxsplit=2)
            if len(words) == 2 or (leader is not None and words[2] == leader["name"]):
                return value
        return hexes[0]

    def _counter(self, request: Request, view: PublicView, values: list[str]) -> str:
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

    def _work(self, request: Request, view: SeatView, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        hand = view["me"]["hand"]
        round_, turn = view["round"], view["phase_turn"]
        if me["stage"] == "play":
            for value in values:
                if value.startswith("charm "):
                    return value
            empty = [k for k, slot in enumerate(me["slots"]) if slot is None]
            connected = [k for k in empty if me["channels"][k]]
            ingredients = [c for c in dict.fromkeys(hand) if content.cards[c].coin is None]
            if connected and ingredients:
                gains = {
                    (c, k): self._gain(content, view, me, c, k, round_)
                    for c in ingredients
                    for k in connected
                }
                best = max(gains, key=gains.__getitem__)
                if gains[best] > 0 or turn == 1:
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
        outs = {k: self._out(content, me, k) for k in ready}
        best_set: tuple[int, ...] = ()
        best_value = _worth(content, view, now, round_) if len(now) >= 2 else 0.0
        for size in range(1, len(ready) + 1):
            for subset in combinations(ready, size):
                pot = now + [s for k in subset for s in outs[k]]
                worth = _worth(content, view, pot, round_)
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

    def _out(self, content: Content, me: PublicPlayer, k: int) -> list[str]:
        slot = me["slots"][k]
        assert slot is not None  # a ready slot holds a card
        out, _ = run_channel(content, me["channels"][k], slot["left"], me["jammed"])
        return out

    def _gain(
        self, content: Content, view: PublicView, me: PublicPlayer, card: str, k: int, round_: int
    ) -> float:
        symbols = content.cards[card].symbols
        out, _ = run_channel(content, me["channels"][k], symbols, me["jammed"])
        pot = list(me["cauldron"]) + out
        return _worth(content, view, pot, round_) + 0.01 * sum(sym_parts(s)[1] for s in out)

    def _market(self, request: Request, view: PublicView, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        for potion in me["potions"]:
            best = best_panel(_sellable(content, view, potion["symbols"]))
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

    def _offer(self, request: Request, view: PublicView, values: list[str]) -> str:
        return "pass"

    def _reply(self, request: Request, view: PublicView, values: list[str]) -> str:
        return "refuse"


OP_ORDER = {"none": 0, "charge": 1, "colour": 2, "shape": 2, "add": 3, "split": 4, "echo": 5}
OP_ORDER |= {"mul": 6}


def _leader(view: PublicView, seat: int) -> PublicPlayer | None:
    """The other player with the most fame (None when alone)."""
    return max(
        (p for i, p in enumerate(view["players"]) if i != seat and not p["out"]),
        key=lambda p: p["fame"],
        default=None,
    )


# --- hard: the planner ----------------------------------------------------------------------


class Valuer:
    """What a potion is worth to this player now: fame plus ``coin`` fame per coin at its best
    panel (0: nothing buys it), cached by the potion's symbols."""

    def __init__(self, content: Content, panels: Sequence[str], dom: str, coin: float) -> None:
        self.content, self.panels, self.dom, self.coin = content, panels, dom, coin
        self.cache: dict[tuple[str, ...], float] = {}

    def __call__(self, symbols: Sequence[str]) -> float:
        return self.of(pot_key(symbols))

    def of(self, key: tuple[str, ...]) -> float:
        """The worth of a potion given by its ``pot_key``."""
        found = self.cache.get(key)
        if found is None:
            found = 0.0
            if len(key) >= 2:
                for _, coins, fame in sellable_at(self.content, self.panels, self.dom, key):
                    found = max(found, fame + self.coin * coins)
            self.cache[key] = found
        return found

    def best(self, symbols: Sequence[str]) -> str | None:
        """The panel to sell at: the most fame plus coins by this player's weight."""
        options = sellable_at(self.content, self.panels, self.dom, symbols[:MAX_CAULDRON])
        if not options:
            return None
        return max(options, key=lambda o: (o[2] + self.coin * o[1], o[1]))[0]


def pot_key(symbols: Sequence[str]) -> tuple[str, ...]:
    """A potion as the planner compares them: the symbols a cauldron keeps, sorted."""
    return tuple(sorted(symbols[:MAX_CAULDRON]))  # a cauldron voids the rest


def coin_weight(round_: int, rounds: int) -> float:
    """Fame a coin is worth: much early (it buys what earns fame), nothing in the last round."""
    return 1.2 * max(0.0, rounds - round_) / rounds + (0.01 if round_ >= rounds else 0.0)


@dataclass(slots=True)
class TurnPlan:
    """The answers planned for one turn (``key``: round, turn) from ``hand``: what the hand
    should be, as the plan plays its cards."""

    key: tuple[int, int]
    hand: Counter[str]
    steps: list[str]
    cauldron: tuple[str, ...] | None = None  # Turn 1: the cauldron the plan makes
    brew: bool = False  # and whether it is brewed then, or kept for Turn 2


Plan = tuple[tuple[tuple[str, int], ...], tuple[int, ...]]
"""Cards to play (card, slot), then the slots holding cards to propagate."""


class PlannerAgent:
    """Plans each turn whole (see the module docstring)."""

    SAMPLES = 3  # Turn 2 hands drawn to value a kept cauldron
    KEEP = 4  # Turn 1 cauldrons whose keeping is valued
    CARDS, SLOTS = 5, 4  # a turn's plan weighs at most these many cards and free slots
    # and at most this many plans (plays and propagations: a house table makes at most ~630;
    # a big one's held cards multiply them, and fewer cards are weighed)
    PLANS = 1_000

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat, self.rng = seat, rng
        self.outs: dict[tuple[str, int, tuple[str, ...]], list[str]] = {}  # one decision's
        self.turn: TurnPlan | None = None
        self.choice: tuple[tuple[str, ...] | None, bool] = (None, False)  # _turn_one's
        self.totals: dict[str, float] = {}  # each card's worth (one match, one content set)

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: SeatView) -> str:
        values = [c.value for c in request.choices]
        self.outs = {}
        if request.kind == "work":
            return self._work(view, values)
        if request.kind == "market":
            return self._market(view, values)
        if request.kind == "setup":
            return self._setup(view, values)
        if request.kind == "hex":
            return self._hex(view, values)
        if request.kind == "counter":
            return self._counter(view, values)
        return "pass" if request.kind == "offer" else "refuse"

    # --- work ---------------------------------------------------------------------------------

    def _work(self, view: SeatView, values: list[str]) -> str:
        """The turn's planned plays and propagations, one a prompt (planned again when the
        hand is not what the plan expects: a card drawn by an effect), then boost and brew."""
        content = _content(view)
        me = view["players"][self.seat]
        hand = view["me"]["hand"]
        value = self._valuer(view)
        key = (view["round"], view["phase_turn"])
        plan = self.turn
        if plan is None or plan.key != key or plan.hand != Counter(hand):
            steps = self._steps(view, content, me, hand, values, value)
            plan = self.turn = TurnPlan(key, Counter(hand), steps, *self.choice)
        while plan.steps:
            step = plan.steps.pop(0)
            if step in values:
                words = step.split()
                if words[0] in ("play", "charm"):
                    plan.hand[words[1]] -= 1  # Counter equality ignores the zeros
                if words[0] == "charm":
                    plan.steps.clear()  # the cards it draws: plan again
                return step
        boost = self._boost(me, value)
        if boost is not None and boost in values:
            return boost
        if "brew" in values and self._brew_now(view, content, me, value):
            return "brew"
        return "done"

    def _steps(  # sets self.choice (Turn 1's brew-or-keep) through _plan
        self,
        view: SeatView,
        content: Content,
        me: PublicPlayer,
        hand: list[str],
        values: list[str],
        value: Valuer,
    ) -> list[str]:
        """This turn's plays (a Charm first when it is worth it), coins, then propagations."""
        self.choice = (None, False)
        if me["stage"] != "play":
            _, props = self._plan(view, content, me, [], value)
            return [f"prop {k + 1}" for k in props]
        for card_id in dict.fromkeys(hand):
            charm = content.cards[card_id].charm and f"charm {card_id}" in values
            if charm and self._charm_first(content, me, hand, card_id):
                return [f"charm {card_id}"]
        plays, props = self._plan(view, content, me, hand, value)
        used = {k for _, k in plays}
        coins = self._coin_plays(view, content, me, hand, used)
        steps = [f"play {card} {k + 1}" for card, k in plays] + coins
        return steps + [f"prop {k + 1}" for k in props]

    def _valuer(self, view: PublicView) -> Valuer:
        coin = coin_weight(view["round"], view["rounds"])
        return Valuer(_content(view), view["panels"], _dominance(view), coin)

    def _charm_first(
        self, content: Content, me: PublicPlayer, hand: list[str], card_id: str
    ) -> bool:
        """A draw Charm when the hand cannot fill the connected slots anyway; a Charge Charm
        when the card would not be propagated."""
        connected = [k for k, s in enumerate(me["slots"]) if s is None and me["channels"][k]]
        others = [c for c in hand if c != card_id and content.cards[c].coin is None]
        return len(others) < len(connected) + 1

    def _outputs(
        self, content: Content, view: PublicView, me: PublicPlayer, card: str, k: int
    ) -> list[str]:
        """What ``card`` (all its symbols) adds to the cauldron through slot ``k``."""
        return self._through(content, view, me, card, k, content.cards[card].symbols)

    def _through(
        self,
        content: Content,
        view: PublicView,
        me: PublicPlayer,
        card: str,
        k: int,
        symbols: Sequence[str],
    ) -> list[str]:
        key = (card, k, tuple(symbols))
        found = self.outs.get(key)
        if found is None:
            found, _ = run_channel(content, me["channels"][k], symbols, me["jammed"])
            bonus = content.cards[card].bonus
            if bonus is not None and _dominance(view) == bonus[1]:
                found = [make_symbol(s, v + bonus[0], c) for s, v, c in map(sym_parts, found)]
            self.outs[key] = found
        return found

    def _plan(
        self, view: SeatView, content: Content, me: PublicPlayer, hand: list[str], value: Valuer
    ) -> tuple[tuple[tuple[str, int], ...], tuple[int, ...]]:
        """The best cards to play (card, slot) and slots to propagate this turn."""
        turn = view["phase_turn"]
        held = {
            k: self._through(content, view, me, slot["id"], k, slot["left"])
            for k, slot in enumerate(me["slots"])
            if slot is not None and slot["left"] and me["channels"][k]
        }
        free = [k for k, s in enumerate(me["slots"]) if s is None and me["channels"][k]]
        ingredients = [c for c in dict.fromkeys(hand) if content.cards[c].coin is None]
        counts = Counter(hand)
        outs = {(c, k): self._outputs(content, view, me, c, k) for c in ingredients for k in free}

        def worth(pair: tuple[str, int]) -> int:
            return sum(sym_parts(s)[1] for s in outs[pair])

        # bounded on a big table: the strongest cards and channels only
        ingredients = sorted(
            ingredients, key=lambda c: -max((worth((c, k)) for k in free), default=0)
        )
        ingredients = ingredients[: self.CARDS]
        free = sorted(
            sorted(free, key=lambda k: -sum(worth((c, k)) for c in ingredients))[: self.SLOTS]
        )
        cauldron = list(me["cauldron"])
        found: dict[tuple[str, ...], tuple[float, Plan]] = {}
        optional = sorted(held) if len(held) <= self.SLOTS else []  # else every held card goes
        forced = tuple(k for k in sorted(held) if k not in optional)
        every_plays = list(_assignments(ingredients, counts, free))
        while len(every_plays) << len(optional) > self.PLANS and len(ingredients) > 1:
            ingredients = ingredients[:-1]  # the weakest left out
            every_plays = list(_assignments(ingredients, counts, free))
        for plays in every_plays:
            added = [s for pair in plays for s in outs[pair]]
            for size in range(len(optional) + 1):
                for chosen in combinations(optional, size):
                    props = forced + chosen
                    key = pot_key(cauldron + added + [s for k in props for s in held[k]])
                    plan: Plan = (plays, tuple(k for _, k in plays) + props)
                    score = value.of(key) + 0.001 * len(plays)
                    if key not in found or score > found[key][0]:
                        found[key] = (score, plan)
        if not found:
            return (), ()
        if turn == 1 and view["round"] <= view["rounds"]:
            return self._turn_one(view, content, me, found, value)
        return max(found.values(), key=lambda entry: entry[0])[1]

    def _turn_one(
        self,
        view: SeatView,
        content: Content,
        me: PublicPlayer,
        found: dict[tuple[str, ...], tuple[float, Plan]],
        value: Valuer,
    ) -> Plan:
        """Turn 1: brew now and start Turn 2 afresh, or keep the cauldron for Turn 2."""
        fresh = self._turn_two(view, content, me, [], value)
        scored = [(now + fresh, plan, key, True) for key, (now, plan) in found.items()]
        by_size = sorted(found, key=lambda key: (-sum(sym_parts(s)[1] for s in key), key))
        for key in by_size[: self.KEEP]:
            kept = self._turn_two(view, content, me, list(key), value)
            scored.append((kept, found[key][1], key, False))
        _, plan, key, brew = max(scored, key=lambda entry: (entry[0], entry[2], entry[3]))
        self.choice = (key, brew)
        return plan

    def _turn_two(
        self, view: SeatView, content: Content, me: PublicPlayer, cauldron: list[str], value: Valuer
    ) -> float:
        """The expected best Turn 2 potion from ``cauldron``, over sampled hands."""
        deck = list(view["me"]["deck"])
        size = view["config"]["hand_size"]
        # bounded on a big table (as ``_plan``): a hand's first cards, the first channels
        free = [k for k, s in enumerate(me["slots"]) if me["channels"][k]][: self.SLOTS]
        total = 0.0
        for _ in range(self.SAMPLES):
            hand = self.rng.sample(deck, min(size, len(deck)))
            ingredients = [c for c in dict.fromkeys(hand) if content.cards[c].coin is None]
            cards = ingredients[: self.CARDS]
            total += self._greedy(view, content, me, cards, free, cauldron, value)
        return total / self.SAMPLES

    def _greedy(
        self,
        view: PublicView,
        content: Content,
        me: PublicPlayer,
        cards: list[str],
        free: list[int],
        cauldron: list[str],
        value: Valuer,
    ) -> float:
        """A quick Turn 2: add the card and slot that raise the potion most, while any does."""
        pot, best = list(cauldron), value(cauldron)
        cards, free = list(cards), list(free)
        while cards and free:
            options = [
                (value(pot + self._outputs(content, view, me, c, k)), c, k)
                for c in cards
                for k in free
            ]
            score, card, k = max(options)
            if score <= best and best > 0:
                break
            pot += self._outputs(content, view, me, card, k)
            best = max(best, score)
            cards.remove(card)
            free.remove(k)
        return best

    def _coin_plays(
        self, view: PublicView, content: Content, me: PublicPlayer, hand: list[str], used: set[int]
    ) -> list[str]:
        """Coins into broken slots, and in Turn 2 into any slot the plan leaves free."""
        coins = sorted(
            (c for c in hand if content.cards[c].coin is not None),
            key=lambda c: -(content.cards[c].coin or 0),
        )
        empty = [k for k, s in enumerate(me["slots"]) if s is None and k not in used]
        spots = [k for k in empty if not me["channels"][k]]
        if view["phase_turn"] == 2:
            spots += [k for k in empty if me["channels"][k]]
        return [f"play {coin} {k + 1}" for coin, k in zip(coins, spots, strict=False)]

    def _boost(self, me: PublicPlayer, value: Valuer) -> str | None:
        if me["charge"] < 1 or not me["cauldron"]:
            return None
        pot = list(me["cauldron"])
        now = value(pot)
        best: tuple[float, str] | None = None
        for symbol in sorted(set(pot)):
            shape, level, colour = sym_parts(symbol)
            if level >= 12:
                continue
            trial = list(pot)
            trial[trial.index(symbol)] = make_symbol(shape, level + 1, colour)
            gain = value(trial) - now
            if best is None or gain > best[0]:
                best = (gain, symbol)
        return f"boost {best[1]}" if best is not None and best[0] >= 0 else None

    def _brew_now(self, view: SeatView, content: Content, me: PublicPlayer, value: Valuer) -> bool:
        now = value(me["cauldron"])
        turn: int = view["phase_turn"]
        if now <= 0 or turn == 2:
            return turn == 2  # the last chance: a potion nobody buys is lost
        planned = self.turn
        if planned is not None and planned.cauldron == tuple(sorted(me["cauldron"])):
            return planned.brew  # decided with the turn's plan
        fresh = self._turn_two(view, content, me, [], value)
        kept = self._turn_two(view, content, me, list(me["cauldron"]), value)
        return now + fresh >= kept

    # --- the Market ---------------------------------------------------------------------------

    def _market(self, view: PublicView, values: list[str]) -> str:
        value = self._valuer(view)
        me = view["players"][self.seat]
        for potion in me["potions"]:
            panel = value.best(potion["symbols"])
            if panel is not None:
                return f"sell {potion['n']} {panel}"
        if view["round"] >= view["rounds"]:
            return "pass"  # nothing bought now earns fame; coins break ties
        buys = [v for v in values if v.startswith("buy ")]
        scored = [(self._buy_score(view, v), v) for v in buys]
        best = max(scored, default=None)
        return best[1] if best is not None and best[0] > 0 else "pass"

    def _buy_score(self, view: PublicView, value: str) -> float:
        """The fame an item should bring in the rounds left, less what its coins are worth."""
        content = _content(view)
        words = value.split()
        item = words[1]
        left: int = view["rounds"] - view["round"]
        cost = content.cost(item) * coin_weight(view["round"] + 1, view["rounds"]) * 0.5
        me = view["players"][self.seat]
        gain = (
            self._tile_gain(view, content, me, item)
            if item in content.tiles
            else self._card_gain(view, content, me, item)
        )
        if len(words) == 4:
            gain += self._trash_gain(view, content, me, words[3])
        return gain * left - cost

    def _collection(self, me: PublicPlayer) -> list[str]:
        owned = [c for c, n in me["collection"] for _ in range(n)]
        return owned + [s["id"] for s in me["slots"] if s is not None]

    def _card_total(self, content: Content, card: str) -> float:
        """A card's worth per draw: its symbols' values and a little for its effects."""
        known = self.totals.get(card)
        if known is None:
            known = self.totals[card] = self._worth_of(content, card)
        return known

    def _worth_of(self, content: Content, card: str) -> float:
        found = content.cards[card]
        if found.coin is not None:
            return 0.6 * found.coin
        total = float(sum(sym_parts(s)[1] for s in found.symbols))
        total += 1.5 * len(found.symbols)  # the tiles add per symbol
        if found.charm or found.manifest:
            total += 2.0
        if found.hex is not None or found.counter is not None:
            total += 1.0
        if found.bonus is not None:
            total += found.bonus[0] * len(found.symbols) * 0.5
        if "spoils" in found.traits:
            total -= 0.5
        return total

    def _card_gain(self, view: PublicView, content: Content, me: PublicPlayer, card: str) -> float:
        """Per round: the card's worth above the collection's average, times how often it is
        drawn (two hands a round from the whole collection)."""
        owned = self._collection(me)
        average = sum(self._card_total(content, c) for c in owned) / max(1, len(owned))
        hand_size: int = view["config"]["hand_size"]
        drawn = min(1.0, 2 * hand_size / (len(owned) + 1))
        return max(0.0, self._card_total(content, card) - average) * drawn

    def _trash_gain(self, view: PublicView, content: Content, me: PublicPlayer, card: str) -> float:
        owned = self._collection(me)
        average = sum(self._card_total(content, c) for c in owned) / max(1, len(owned))
        hand_size: int = view["config"]["hand_size"]
        drawn = min(1.0, 2 * hand_size / max(1, len(owned)))
        return max(0.0, average - self._card_total(content, card)) * drawn * 0.7

    def _tile_gain(
        self, view: PublicView, content: Content, me: PublicPlayer, tile_id: str
    ) -> float:
        """Per round: a new connected slot sends one more card a turn; a tile chained into a
        channel changes the card sent through it each turn."""
        owned = self._collection(me)
        ingredients = [c for c in owned if content.cards[c].coin is None]
        per_card = sum(self._card_total(content, c) for c in ingredients) / max(1, len(ingredients))
        symbols = sum(len(content.cards[c].symbols) for c in ingredients) / max(1, len(ingredients))
        connected = sum(1 for ch in me["channels"] if ch)
        share = len(ingredients) / max(1, len(owned))
        hand = view["config"]["hand_size"] * share
        gain = (
            2 * per_card * max(0.0, min(1.0, hand - connected))
            if connected < len(me["channels"])
            else 0.0
        )
        room = sum(view["config"]["channel_length"] - len(ch) for ch in me["channels"] if ch)
        if room or connected < len(me["channels"]):
            gain += 2 * self._pass_gain(content, tile_id, symbols, per_card)
        return gain

    def _pass_gain(self, content: Content, tile_id: str, symbols: float, per_card: float) -> float:
        """What one card through this tile gains, roughly."""
        tile = content.tiles[tile_id]
        share = 1 / 3 if tile.if_shape or tile.if_colour else 1.0
        if tile.op == "add":
            return tile.n * symbols * share
        if tile.op == "mul":
            return (tile.n - 1) * (per_card - 1.5 * symbols) * share
        if tile.op == "echo":
            return per_card
        if tile.op == "charge":
            return float(tile.n)
        return 0.3

    # --- setup, Hexes, Counters ----------------------------------------------------------------

    def _setup(self, view: PublicView, values: list[str]) -> str:
        content = _content(view)
        me = view["players"][self.seat]
        slots, length = view["config"]["slots"], view["config"]["channel_length"]
        tiles = [s.split("@")[0] for ch in me["channels"] for s in ch] + list(me["spare"])
        strength = {t: self._pass_gain(content, t, 2.2, 6.0) for t in tiles}
        tiles.sort(key=lambda t: (-strength[t], t))
        channels: list[list[str]] = [[] for _ in range(slots)]
        for i, tile in enumerate(tiles[:slots]):
            channels[i].append(tile)
        for tile in tiles[slots:]:  # the rest strengthen the strongest channels first
            room = [ch for ch in channels if len(ch) < length]
            if room:
                room[0].append(tile)
        colours, shapes = self._majority(content, me)
        parts = []
        for k, ch in enumerate(channels):
            if ch:
                ch.sort(key=lambda t: OP_ORDER[content.tiles[t].op])
                specs = []
                for t in ch:
                    op = content.tiles[t].op
                    setting = colours if op == "colour" else shapes if op == "shape" else ""
                    specs.append(f"{t}@{setting}" if setting else t)
                parts.append(f"{k + 1}={','.join(specs)}")
        answer = "layout " + " ".join(parts)
        return answer

    def _majority(self, content: Content, me: PublicPlayer) -> tuple[str, str]:
        symbols = [s for c in self._collection(me) for s in content.cards[c].symbols]
        colour = Counter(s[-1] for s in symbols).most_common(1)
        shape = Counter(s[0] for s in symbols).most_common(1)
        return (colour[0][0] if colour else "R"), (shape[0][0] if shape else "T")

    def _hex(self, view: PublicView, values: list[str]) -> str:
        hexes = [v for v in values if v.startswith("hex ")]
        leader = _leader(view, self.seat)
        for value in hexes:
            words = value.split(maxsplit=2)
            card = _content(view).cards[words[1]]
            assert card.hex is not None
            if any(a["do"] == "swap_fumes" for a in card.hex["do"]):
                continue  # swapping helps no one in particular
            if len(words) == 2 or (leader is not None and words[2] == leader["name"]):
                return value
        return "pass"

    def _counter(self, view: PublicView, values: list[str]) -> str:
        counters = [v for v in values if v.startswith("counter ")]
        chain = view["chain"]
        if not counters or not chain:
            return "pass"
        top = chain[-1]
        content = _content(view)
        if top["kind"] == "counter":
            return counters[0] if chain[-2]["seat"] == self.seat else "pass"
        card = content.cards[top["card"]]
        assert card.hex is not None
        hurts = any(
            a["do"] in ("discard_last", "jam")
            and (a.get("who") == "others" or top.get("target") == self.seat)
            for a in card.hex["do"]
        )
        return counters[0] if hurts else "pass"


def _assignments(
    cards: list[str], counts: Mapping[str, int], slots: list[int]
) -> Iterator[tuple[tuple[str, int], ...]]:
    """Every way to play some of the distinct ``cards`` (as many copies as held) into some
    of the ``slots``: each as (card, slot) pairs, slots in increasing order."""
    pool = [c for c in cards for _ in range(min(counts[c], len(slots)))]
    seen: set[tuple[tuple[str, int], ...]] = set()
    for size in range(min(len(pool), len(slots)) + 1):
        for chosen_slots in combinations(slots, size):
            for chosen in dict.fromkeys(permutations(pool, size)):
                plays = tuple(zip(chosen, chosen_slots, strict=True))
                if plays not in seen:
                    seen.add(plays)
                    yield plays


AGENTS: dict[str, Callable[[int, random.Random], Agent]] = {
    "random": RandomAgent,
    "easy": EasyAgent,
    "normal": BrewerAgent,
    "hard": PlannerAgent,
}
DEFAULT_AGENT = "normal"

__all__ = ["AGENTS", "DEFAULT_AGENT", "BrewerAgent", "EasyAgent", "Panel", "PlannerAgent"]

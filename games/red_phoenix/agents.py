"""Computer players by level: random, easy, normal, hard (``docs/ai/red-phoenix.md``).
They see what their seat sees: their own view (their hand, the public table, the card set) and
their request, and answer with the page's commands: an offered choice, or a purchase or an
experiment they build and check against the rules themselves.

``normal`` plays for Gold as the rules page's §15.2 bot does: it climbs the ladder (Level I
formulas with different products, Level II experiments for a Level III card, a Gold attempt at
value 9 or more with the boosts it holds, 8 when nothing better is left), reproduces or
dissolves formulas when that brings its hand closer to Gold, picks each experiment's method by
the cards left in the deck (the chance of a met success against the coins, Health and harm),
heals when low, kills the monsters that will hit it, finishes a rival it can and throws a spare
damage item at the weakest rival now and then. It never pays Health to become the weakest
seat (the one damage is thrown at), and in a duel it answers thrown damage with an Acid Flask a
turn. ``hard`` is the same planner, bolder: the Acid Flask a turn in every duel, every spare
damage item thrown, earlier heals, a missed success kept for the consolation card. ``easy`` is
``normal`` with about one answer in three at random. ``random`` answers uniformly among the
offered choices."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

from games import protocol
from games.protocol import JSON, Agent, Event, Request

from .cards import CardSet, Ingredient, Method, Result, card_set_of
from .words import roman

DEFAULT_AGENT = "normal"
LOSS = re.compile(r"would cost you ([0-9]+)")  # the ward prompt's loss
THROWN = re.compile(r" uses .+ on (.+) \([0-9]+ damage\)\.$")  # a damage item thrown at a seat


@dataclass(frozen=True, slots=True)
class Style:
    """How a planner plays: its taste for risk and for hurting rivals."""

    aggression: float = 0.5  # the chance to throw a spare damage item at the weakest rival
    pressure: float = 0.0  # the chance to buy a damage item to throw with an AP to spare
    # against one rival, buy a damage item at the start of each turn: "always", once that
    # rival has thrown one at it ("retaliate"), or "never"
    duel: str = "never"
    gold_value: int = 9  # the least value of a Gold attempt
    level2_value: int = 6  # the least value of a Level II experiment
    safety: int = 4  # the Health a Health cost must leave
    heal_at: int = 5  # heal at this Health or less
    consolation: bool = False  # keep a missed success over a simple failure for the consolation
    ward_from: int = 1  # ward a loss of at least this much (or a lethal one)
    noise: float = 0.0  # the share of answers picked at random among the offered choices
    spare_health: int = 3  # the Health beyond ``safety`` a Health cost must leave but for Gold
    worth: tuple[float, float, float] = (6.0, 12.0, 100.0)  # a met success, by level
    harm_weight: float = 1.0  # how much it fears the harm of drawn cards that must play
    stay_ahead: bool = False  # never pay Health to become the weakest; heal when it is


NORMAL = Style(duel="retaliate", harm_weight=4.0, stay_ahead=True)
HARD = Style(
    aggression=1.0,
    duel="always",
    heal_at=7,
    safety=5,
    consolation=True,
    ward_from=2,
    harm_weight=4.0,
    stay_ahead=True,
)
EASY = Style(aggression=0.3, noise=0.35, harm_weight=4.0, stay_ahead=True)


class RandomAgent(protocol.RandomAgent):
    """Any offered choice, uniformly: the baseline."""


@dataclass
class Plan:
    """An experiment the planner could declare: its cards from the hand, the Level I cards to
    buy to fill it, the boost items to use first, its level and value."""

    cards: tuple[str, ...]
    buy: tuple[str, ...]
    boosts: tuple[str, ...]
    level: int
    value: int

    def rank(self) -> tuple[int, int, int]:
        return self.level, self.value, -len(self.buy)


class Seat:
    """What the planner reads from its view, with the card set's data."""

    def __init__(self, view: Mapping[str, JSON], cs: CardSet) -> None:
        self.view = view
        self.cs = cs
        self.name: str = view["you"]["seat"]
        self.me: Mapping[str, JSON] = view["players"][self.name]
        self.hand: Counter[str] = Counter(view["you"]["hand"])
        self.ap: int = view["ap"]
        self.boost: int = view["boost"]
        self.coins: int = self.me["coins"]
        self.health: int = self.me["health"]
        self.used: set[str] = set(self.me["used"])
        names = list(view["players"])
        own = view["you"]["handle"] == self.name
        self.handles = {n: (n if own else f"P{i + 1}") for i, n in enumerate(names)}

    def ing(self, card: str) -> Ingredient:
        return self.cs.ingredients[card]

    def level(self, card: str) -> int:
        return self.ing(card).level

    def usable(self) -> list[str]:
        """Cards that can be ingredients, highest level first."""
        return sorted(
            (c for c in self.hand if 1 <= self.level(c) <= 3),
            key=lambda c: (-self.level(c), self.ing(c).order),
        )

    def items(self, effect: str) -> list[str]:
        """Held item types with ``effect`` not used this turn."""
        return [c for c in self.hand if self.ing(c).effect == effect and c not in self.used]

    def rivals(self) -> list[tuple[str, Mapping[str, JSON]]]:
        return [(n, p) for n, p in self.view["players"].items() if n != self.name and p["alive"]]

    def monster_damage(self, m: Mapping[str, JSON]) -> int:
        """A monster in play's Damage, from its card."""
        for level in self.cs.results.values():
            if m["card"] in level:
                return level[m["card"]].damage
        return 0

    def my_formulas(self) -> list[Mapping[str, JSON]]:
        return [f for f in self.view["formulas"] if self.name in f["knowers"]]

    def markers_free(self) -> int:
        free: int = self.me["markers_free"]
        return free


class Planner:
    """The ``normal`` and ``hard`` players (and ``easy``, with noise)."""

    def __init__(self, seat: int, rng: random.Random, style: Style = NORMAL) -> None:
        self.seat = seat
        self.rng = rng
        self.style = style
        self.name = ""  # its seat's name, once a view has told it
        self.hurt = False  # a rival has thrown a damage item at it

    def observe(self, event: Event) -> None:
        if event.audience.kind != "public" or not self.name:
            return
        for line in event.data.get("lines", ()):
            hit = THROWN.search(str(line))
            if hit is not None and hit.group(1) == self.name:
                self.hurt = True

    def act(self, request: Request, view: JSON) -> str:
        if self.style.noise and self.rng.random() < self.style.noise:
            return protocol.RandomAgent(self.seat, self.rng).act(request, view)
        t = Seat(view, card_set_of(view.get("card_set_data", "house")))
        self.name = t.name
        if request.kind == "ward":
            return self.ward(t, request)
        if request.kind == "trade_response":
            return "decline"
        if request.kind == "keep":
            return self.keep(t, request)
        if request.kind == "discard":
            return self.discard(t, request)
        return self.action(t, {c.value for c in request.choices})

    # --- reactions and choices -------------------------------------------------------------

    def ward(self, t: Seat, request: Request) -> str:
        """Ward a loss worth a card, or any lethal one (the prompt says how much)."""
        found = LOSS.search(request.prompt)
        loss = int(found.group(1)) if found else t.health
        if loss >= self.style.ward_from or loss >= t.health:
            return "ward"
        return "pass"

    def keep(self, t: Seat, request: Request) -> str:
        drawing = t.view["keep"]
        level, value, drawn = drawing["level"], drawing["value"], drawing["drawn"]
        lo, hi = drawing["keep"]
        results = t.cs.results[level]
        consolation = t.cs.consolation

        def rank(card: str) -> tuple[int, int]:
            r = results[card]
            if r.kind == "success":
                if value < r.score:
                    return (2 if self.style.consolation and consolation else 3), 0
                product = t.cs.ingredients[r.product or ""]
                return (0 if product.wins else 1), -int(r.product in t.hand)
            if r.kind == "simple":
                return 3 if self.style.consolation and consolation else 2, 0
            if r.kind == "catastrophe":
                return 4, r.self_damage + r.discard_random
            return 5, r.damage

        order = sorted(range(len(drawn)), key=lambda i: (rank(drawn[i]), i))
        good = [i for i in order if rank(drawn[i])[0] <= 1][:hi]
        picks = good if len(good) >= lo else order[:lo]
        numbers = sorted(i + 1 for i in picks)
        if request.max_choices > 1:
            return request.join_answer([str(n) for n in numbers])
        return f"keep {numbers[0]}"

    def discard(self, t: Seat, request: Request) -> str:
        """The least useful cards: Level I cards no formula of its needs, then by level."""
        needed = {c for f in t.my_formulas() for c in f["ingredients"]}

        def worth(value: str) -> tuple[int, int, int]:
            card = value.split("#")[0]
            return (t.level(card), int(card in needed), int(t.ing(card).effect is not None))

        ordered = sorted(request.choices, key=lambda c: worth(c.value))
        return request.join_answer([c.value for c in ordered[: request.min_choices]])

    # --- the action window ---------------------------------------------------------------------

    def action(self, t: Seat, offered: set[str]) -> str:
        rules: Sequence[Callable[[Seat, set[str]], str | None]] = (
            self.survive,
            self.finish_rival,
            self.kill_monster,
            self.harass,
            self.opening,
            self.experiment,
            self.ladder,
            self.level_one,
            self.fallback,
            self.harass,
            self.pressure,
            self.economy,
        )
        for rule in rules:
            move = rule(t, offered)
            if move is not None:
                return move
        return "end"

    def survive(self, t: Seat, offered: set[str]) -> str | None:
        """Heal when low: the smallest heal first (an Elixir only when very low: it is a
        Level III card, worth more in a Gold attempt)."""
        weakest = self.style.stay_ahead and all(t.health < p["health"] for _, p in t.rivals())
        if t.health > self.style.heal_at and not (weakest and t.health < 10):
            return None
        for card in sorted(t.items("heal"), key=lambda c: (t.level(c), t.ing(c).amount)):
            if (t.level(card) < 3 or t.health <= 3) and f"use {card}" in offered:
                return f"use {card}"
        return None

    def finish_rival(self, t: Seat, offered: set[str]) -> str | None:
        damage = sorted(t.items("damage"), key=lambda c: -t.ing(c).amount)
        total = sum(t.ing(c).amount for c in damage)
        for name, p in sorted(t.rivals(), key=lambda r: r[1]["health"]):
            if p["health"] <= total:
                for card in damage:
                    move = f"use {card} {t.handles[name]}"
                    if move in offered:
                        return move
        return None

    def kill_monster(self, t: Seat, offered: set[str]) -> str | None:
        """Damage a monster that will hit it (its own, or any with two seats left) when its
        damage items this turn add up to the monster's Health, the biggest first; an Acid
        Flask bought to make up the last point."""
        damage = sorted(t.items("damage"), key=lambda c: -t.ing(c).amount)
        total = sum(t.ing(c).amount for c in damage)
        for m in sorted(t.view["monsters"], key=lambda m: -t.monster_damage(m)):
            if m["owner"] != t.name and len(t.rivals()) > 1:
                continue
            for card in damage:
                move = f"use {card} {m['id']}"
                if total >= m["hp"] and move in offered:
                    return move
            flask = self.flask(t, damage)
            if flask is not None and total + t.ing(flask).amount >= m["hp"] and t.ap >= 1:
                return f"buy {flask}" if f"buy {flask}" in offered else None
        return None

    def flask(self, t: Seat, held: list[str]) -> str | None:
        """A damage item sold in the market that it neither holds nor used this turn."""
        for card in t.cs.market_types():
            ing = t.ing(card)
            fresh = card not in held and card not in t.used and t.view["market"][card] > 0
            if ing.effect == "damage" and fresh and (ing.cost or 0) <= t.coins:
                return card
        return None

    def experiment(self, t: Seat, offered: set[str], gold: int = 0, two: int = 0) -> str | None:
        """A Gold attempt at the Gold value or more, else (without a Level III card, kept for
        Gold) a Level II experiment for one, buying Level I cards to fill it and using boosts
        first."""
        if t.markers_free() < 1 or t.ap < 1:
            return None
        goals = ((3, gold or self.style.gold_value), (2, two or self.style.level2_value))
        for top, least in goals:
            if top == 2 and any(t.level(c) == 3 for c in t.usable()):
                continue
            plan = self.best_plan(t, top, t.hand)
            if plan is not None and plan.level == top and plan.value >= least:
                return self.run_plan(t, plan, offered, fast=top == 3)
        return None

    def fallback(self, t: Seat, offered: set[str]) -> str | None:
        """Nothing better to do this turn: a Gold attempt one short of the Gold value, or a
        Level II experiment one short."""
        return self.experiment(t, offered, self.style.gold_value - 1, self.style.level2_value - 1)

    def potential(self, t: Seat, hand: Counter[str]) -> tuple[int, int]:
        """How close a hand is to Gold: the best Gold attempt's value, then the best Level II
        experiment's (for a Level III card)."""
        three = self.best_plan(t, 3, hand, fill=False)
        two = self.best_plan(t, 2, hand, fill=False)
        return (
            three.value if three is not None and three.level == 3 else 0,
            two.value if two is not None and two.level == 2 else 0,
        )

    def ladder(self, t: Seat, offered: set[str]) -> str | None:
        """A formula whose products bring the hand closer to Gold (``potential``), the
        highest level first: reproduce it, or buy what it needs."""
        now = self.potential(t, t.hand)
        for f in sorted(t.my_formulas(), key=lambda f: -int(f["level"])):
            after = t.hand - Counter(f["ingredients"]) + Counter(f["products"])
            if all(p in t.hand for p in f["products"]) or self.potential(t, after) <= now:
                continue
            if f"reproduce {f['id']}" in offered:
                return f"reproduce {f['id']}"
            missing = sorted(c for c in f["ingredients"] if c not in t.hand)
            buy = "buy " + " ".join(missing)
            if t.ap >= 2 and buy in offered:
                return buy
        return self.unlock(t, offered, now)

    def unlock(self, t: Seat, offered: set[str], now: tuple[int, int]) -> str | None:
        """Dissolve one of its formulas into its hand when the cards it locks bring the hand
        closer to Gold than the formula does (a Level II formula's Level II cards)."""
        for f in t.my_formulas():
            move = f"dissolve {f['id']} keep"
            if f["creator"] != t.name or move not in offered:
                continue
            if self.potential(t, t.hand + Counter(f["ingredients"]))[0] > now[0] + 1:
                return move
        return None

    def level_one(self, t: Seat, offered: set[str]) -> str | None:
        """Level I formulas until two give different products: four different Level I cards,
        then a slow experiment."""
        mine = [f for f in t.my_formulas() if f["level"] == 1]
        products = {p for f in mine for p in f["products"]}
        if len(mine) >= 4 or len(products) >= 3:
            return None
        if t.markers_free() < 1 or t.ap < 1:
            return None
        plain = [c for c in t.usable() if t.level(c) == 1 and t.ing(c).effect is None]
        if len(plain) >= 4 or (len(plain) >= 3 and t.ap == 1):
            plan = Plan(tuple(sorted(plain[:4])), (), (), 1, len(plain[:4]) + t.boost)
            return self.run_plan(t, plan, offered, fast=False)
        return self.shop(t, plain)

    def shop(self, t: Seat, plain: list[str]) -> str | None:
        """Buy the plain Level I cards that make four different ones, taking coins first when
        short (it keeps 1 AP for the experiment)."""
        wanted = fillers(t, 4 - len(plain), set(plain))
        if not wanted or t.ap < 2:
            return None
        cost = sum(t.ing(c).cost or 0 for c in wanted)
        if cost + 1 > t.coins:  # a coin for the method when it costs one
            if t.ap >= 3:
                return "take 1"
            wanted = within(t, wanted, t.coins)
        return "buy " + " ".join(sorted(wanted)) if wanted else None

    def harass(self, t: Seat, offered: set[str]) -> str | None:
        """A spare damage item (a Level I one, or a second copy) at the weakest rival, now
        and then."""
        rivals = sorted(t.rivals(), key=lambda r: (r[1]["health"], -r[1]["hand_size"]))
        if not rivals:
            return None
        for card in t.items("damage"):
            spare = t.level(card) == 1 or t.hand[card] > 1
            if spare and self.rng.random() < self.style.aggression:
                move = f"use {card} {t.handles[rivals[0][0]]}"
                if move in offered:
                    return move
        return None

    def opening(self, t: Seat, offered: set[str]) -> str | None:
        """Against a single rival, a damage item bought at the start of each turn
        (``Style.duel``: in a duel, the last alive wins as surely as Gold)."""
        if len(t.rivals()) != 1 or t.used or t.ap < 2:
            return None
        if self.style.duel == "never" or (self.style.duel == "retaliate" and not self.hurt):
            return None
        flask = self.flask(t, t.items("damage"))
        return f"buy {flask}" if flask is not None and f"buy {flask}" in offered else None

    def pressure(self, t: Seat, offered: set[str]) -> str | None:
        """With an AP to spare, now and then, a damage item from the market to throw at the
        weakest rival (a point of Health for an AP and two coins)."""
        if t.ap < 1 or not t.rivals() or self.rng.random() >= self.style.pressure:
            return None
        flask = self.flask(t, t.items("damage"))
        return f"buy {flask}" if flask is not None and f"buy {flask}" in offered else None

    def economy(self, t: Seat, offered: set[str]) -> str | None:
        """The AP left, taken as coins."""
        return f"take {t.ap}" if t.ap >= 1 and f"take {t.ap}" in offered else None

    # --- experiments --------------------------------------------------------------------------

    def best_plan(self, t: Seat, top: int, hand: Counter[str], fill: bool = True) -> Plan | None:
        """The highest-value experiment of level ``top`` at most from ``hand``, with the boost
        items to use first (each type once a turn), filled up to four cards with Level I cards
        to buy when it has the AP to buy and declare (``fill``; without it, the value a
        filled plan would have, for comparing hands)."""
        usable = sorted(
            (c for c in hand if 1 <= t.level(c) <= top),
            key=lambda c: (-t.level(c), t.ing(c).order),
        )[:6]
        boosts = {c: t.ing(c).amount for c in t.items("boost") if hand[c] > 0}
        best: Plan | None = None
        for size in range(min(4, len(usable)), 0, -1):
            for cards in combinations(usable, size):
                buy = tuple(fillers(t, 4 - size, set(cards))) if fill and t.ap >= 2 else ()
                filled = len(buy) if fill else 4 - size
                if size + filled < 3:
                    continue
                spare = tuple(c for c in boosts if c not in cards)
                level = max(t.level(c) for c in cards)
                value = sum(t.level(c) for c in cards) + filled + t.boost
                value += sum(boosts[c] for c in spare)
                plan = Plan(tuple(sorted(cards)), buy, spare, level, value)
                if best is None or plan.rank() > best.rank():
                    best = plan
        return best

    def run_plan(self, t: Seat, plan: Plan, offered: set[str], fast: bool) -> str | None:
        """The plan's next step: coins for the method it prefers (when it has the AP to
        spare), the Level I cards to fill it, a boost item, then the experiment with the best
        method its coins allow."""
        level = t.cs.ingredients
        buy_cost = sum(level[c].cost or 0 for c in plan.buy)
        methods = self.methods(t, plan)
        need_ap = (2 if fast else 1) + (1 if plan.buy else 0)
        if methods:
            wanted = buy_cost + t.cs.methods[methods[0]].coins * plan.level
            if wanted > t.coins and t.ap > need_ap:
                return "take 1"
        if plan.buy:
            return "buy " + " ".join(sorted(plan.buy)) if buy_cost <= t.coins else None
        for card in plan.boosts:
            if f"use {card}" in offered:
                return f"use {card}"
        affordable = [m for m in methods if t.cs.methods[m].coins * plan.level <= t.coins]
        if not affordable:
            return None
        speed = "fast" if fast and t.ap >= 2 else "slow"
        return f"{speed} {affordable[0]} {' '.join(plan.cards)}"

    def methods(self, t: Seat, plan: Plan) -> list[str]:
        """The methods it would use for ``plan``, best first by worth: the chance of a met
        success (from the cards left in the deck) times what one is worth, less what the
        method costs (coins, Health: dearer the lower it is) and the harm of drawn cards that
        must play. A Health cost must leave ``safety`` Health (more but for a Gold attempt)."""
        gold = plan.level == 3
        floor = self.style.safety + (0 if gold else self.style.spare_health)
        if self.style.stay_ahead and not gold and t.rivals():
            # paying Health must not make it the weakest, the one every thrower aims at
            floor = max(floor, min(p["health"] for _, p in t.rivals()) + 1)
        deck = deck_left(t, roman(plan.level))
        worth = self.style.worth[min(plan.level, 3) - 1]
        ranked = []
        for m in t.cs.methods.values():
            health = m.health * plan.level
            if health and t.health - health < floor:
                continue
            left = max(1, t.health - health)
            odds = draw_odds(t.cs, roman(plan.level), deck, plan.value, m, left)
            harm = health + odds.harm * self.style.harm_weight
            cost = m.coins * plan.level * COIN + harm * (1 + 6 / left)
            ranked.append((odds.success * worth - odds.death * DEATH - cost, m.id))
        return [m for _, m in sorted(ranked, reverse=True)]


COIN = 0.3  # a coin's worth in Health points (3 coins an AP)


@dataclass(frozen=True, slots=True)
class Odds:
    success: float  # the chance to keep (and live to play) a met success
    harm: float  # the Health expected lost to kept cards
    death: float  # the chance that a kept card eliminates the experimenter


DEATH = 100.0  # being eliminated, in the planner's units (a Gold win is worth as much)
ENUMERATE = 3  # a method drawing more cards that all play is judged card by card
# the most kinds of card the odds weigh (10 kinds, 3 cards deep: 1,110 draw orders): a set of
# more unlike cards is weighed with its Health costs at once grouped (a decision stays within
# the event loop's 50 ms on any legal set)
MOST_KINDS = 10


@dataclass(frozen=True, slots=True, order=True)
class Kind:
    """What kept cards do to their experimenter, all that the odds read of them: the Health a
    card costs at once, whether it is a met success, whether that wins the match, and the
    Health it costs in all (the mean of the kind's cards: the odds only add it up)."""

    now: int
    met: bool
    won: bool
    lost: float


def deck_left(t: Seat, level: str) -> Counter[str]:
    """The cards left in a result deck, from what is public: every card of the level but
    those discarded, in formulas, in play as monsters or waiting to be kept (a deck too
    small for a draw is reshuffled with its discards)."""
    results = t.cs.results[level]
    left = Counter(dict(t.cs.copies[level]))
    gone = Counter(t.view["discards"][level])
    for f in t.view["formulas"]:
        if roman(f["level"]) == level:
            gone.update(f["results"])
    gone.update(m["card"] for m in t.view["monsters"] if m["card"] in results)
    keeping = t.view.get("keep")
    if keeping and keeping["level"] == level:
        gone.update(keeping["drawn"])
    if t.view["decks"][level] < 3:
        gone -= Counter(t.view["discards"][level])
    return +(left - gone)


def harm_of(result: Result) -> tuple[float, int]:
    """A kept card's harm to its experimenter: the Health it costs in all, and at once."""
    if result.kind == "catastrophe":
        return result.self_damage + result.discard_random / 2, result.self_damage
    if result.kind == "monster":
        return 3.0 * result.damage, result.damage  # it attacks twice more, unless killed
    return 0.0, 0


def draw_odds(
    cs: CardSet, level: str, deck: Counter[str], value: int, method: Method, health: int
) -> Odds:
    """The odds of an experiment of ``value`` drawing from ``deck`` with ``method`` by an
    experimenter left with ``health``: a met success, the harm and death of the cards kept
    (every card drawn, in order, when the method keeps them all; else the least harmful when
    every card drawn is harmful)."""
    results = cs.results[level]
    n = sum(deck.values())
    draw = min(method.draw, n)
    if draw == 0:
        return Odds(0.0, 0.0, 0.0)
    if method.keep_max >= draw:
        kinds = kinds_of([(results[card], copies) for card, copies in deck.items()], value, cs)
        return played_odds(kinds, min(draw, ENUMERATE), health)
    met = sum(k for c, k in deck.items() if is_met(results[c], value))
    bad = sum(k for c, k in deck.items() if harm_of(results[c])[0] > 0)
    lethal = sum(k for c, k in deck.items() if harm_of(results[c])[1] >= health)
    mean = sum(harm_of(results[c])[0] * k for c, k in deck.items()) / bad if bad else 0.0
    all_bad = comb(bad, draw) / comb(n, draw)
    return Odds(
        1 - comb(n - met, draw) / comb(n, draw),
        all_bad * mean,
        comb(lethal, draw) / comb(n, draw),
    )


def is_met(result: Result, value: int) -> bool:
    return result.kind == "success" and result.score <= value


def kinds_of(
    cards: list[tuple[Result, int]], value: int, cs: CardSet
) -> tuple[tuple[Kind, int], ...]:
    """A deck's cards (each with its copies) as at most ``MOST_KINDS`` kinds, each with its
    copies: cards alike but for the Health they cost in all are one kind, at their mean; when
    that leaves too many, cards whose Health costs at once are close are one kind too (in
    spans of 2, 4, 8 … points, at their mean)."""
    wins = frozenset(c for c, ing in cs.ingredients.items() if ing.wins)
    read = []
    for result, copies in cards:
        lost, now = harm_of(result)
        met = is_met(result, value)
        read.append((Kind(now, met, met and result.product in wins, lost), copies))
    span = 1
    while len(kinds := grouped(read, span)) > MOST_KINDS:
        span *= 2
    return kinds


def grouped(cards: list[tuple[Kind, int]], span: int) -> tuple[tuple[Kind, int], ...]:
    """``cards`` as one kind for each outcome and span of ``span`` Health costs at once."""
    totals: dict[tuple[int, bool, bool], tuple[float, float, int]] = {}
    for kind, copies in cards:
        key = (kind.now // span, kind.met, kind.won)
        now, lost, held = totals.get(key, (0.0, 0.0, 0))
        totals[key] = (now + kind.now * copies, lost + kind.lost * copies, held + copies)
    return tuple(
        sorted(
            (Kind(round(now / held), met, won, lost / held), held)
            for (_, met, won), (now, lost, held) in totals.items()
        )
    )


@lru_cache(maxsize=1024)
def played_odds(kinds: tuple[tuple[Kind, int], ...], draw: int, health: int) -> Odds:
    """Every card drawn plays in draw order: the odds over each order of ``draw`` cards from
    a deck of ``kinds`` (each with its copies) (a met win card ends it won; Health at 0 ends
    it lost; a met success counts if the experimenter lives through the rest). The planner
    asks the same odds of each method that draws as many: they are remembered."""
    return _orders([kind for kind, _ in kinds], [copies for _, copies in kinds], draw, health)


def _orders(kinds: list[Kind], counts: list[int], draw: int, health: int) -> Odds:
    n = sum(counts)
    success = harm = death = 0.0
    for i, kind in enumerate(kinds):
        if not counts[i]:
            continue
        p = counts[i] / n
        if kind.now >= health:
            death += p
            continue
        if kind.won:
            success += p
            continue
        harm += p * kind.lost
        if draw == 1:
            success += p * kind.met
            continue
        counts[i] -= 1
        rest = _orders(kinds, counts, draw - 1, health - kind.now)
        counts[i] += 1
        success += p * ((1.0 - rest.death) if kind.met else rest.success)
        harm += p * rest.harm
        death += p * rest.death
    return Odds(success, harm, death)


def fillers(t: Seat, count: int, taken: set[str]) -> list[str]:
    """Up to ``count`` plain Level I market cards it lacks, the most plentiful first."""
    if count <= 0:
        return []
    market = t.view["market"]
    plain = [
        c
        for c in t.cs.market_types()
        if c not in t.hand and c not in taken and market[c] > 0 and t.ing(c).effect is None
    ]
    return sorted(plain, key=lambda c: -market[c])[:count]  # the fullest stacks: none runs dry


def within(t: Seat, cards: list[str], coins: int) -> list[str]:
    """The first of ``cards`` that ``coins`` pay for, in order (a set's costs may differ)."""
    bought: list[str] = []
    for card in cards:
        coins -= t.ing(card).cost or 0
        if coins < 0:
            break
        bought.append(card)
    return bought


def planner(style: Style) -> Callable[[int, random.Random], Agent]:
    def make(seat: int, rng: random.Random) -> Agent:
        return Planner(seat, rng, style)

    return make


AGENTS: Mapping[str, Callable[[int, random.Random], Agent]] = {
    "random": RandomAgent,
    "easy": planner(EASY),
    "normal": planner(NORMAL),
    "hard": planner(HARD),
}

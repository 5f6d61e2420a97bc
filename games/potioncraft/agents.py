"""Computer players, by level (``docs/ai/potioncraft.md``). They see only what their seat is told:
their own view (their hand, the public table) and the choices of their request; they answer as a
person would type.

* ``random``: any offered answer (the baseline).
* ``easy``: crafts whatever it can, otherwise mostly random: legal, a little sense.
* ``normal`` (the default, the practice opponent): plans its crafts. It scores a hand by how near
  it is to the potions of the categories it still lacks (the one on offer, and the ones still in
  that category's deck), draws the pile top when it beats the deck's expected card, discards what
  its plans need least, uses its spells and perks for itself (Cauldron, Astral Projection, Summon
  from Beyond, Request, Ward), and now and then (``slip``) takes a plain random action.
* ``hard``: the same planner without slips, and cunning: it also plays against the leader
  (Venom Brew, Twist of Fate, Hex Seal, Chain, Potion reshuffle and Hand reset against a player
  near their win, blocks that player's Requests), keeps what the others need off the piles they
  draw from (a discard's and a craft's cards listed so that the new top is the card they need
  least; such cards discarded last; the cards put back on the deck ordered so), gambles only
  when the pair odds are good, with its least useful cards as the wager, and orders a
  Foresight for itself.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache, partial

from games import protocol
from games.protocol import JSON, Agent, Event, Request

from .cards import (
    ALL18_POTIONS,
    CARDS,
    CATEGORY_LOOKUP,
    CATEGORY_OF,
    COPIES,
    FOUL,
    INGREDIENT_LOOKUP,
    POTION_CATEGORIES,
    POTION_LOOKUP,
    POTIONS,
    SIBLINGS,
    SPELL_TYPE,
    STANDARD_POTIONS,
    WILD,
)

END_CHANCE = 0.35  # the random player ends its main phase this often
CLOSENESS = {0: 10.0, 1: 4.0, 2: 1.5, 3: 0.5}  # how good a hand missing 0..3 ingredients is
OUT_WORTH = {1: 0.6, 2: 0.25, 3: 0.1}  # each card name that would bring a potion one nearer
FEED = 0.5  # discarding a card the others need costs this much more
DENIAL = 1.0  # a pile top the leader needs is worth this much more to take
FUTURE = 0.3  # a potion still in its deck counts this much of one on offer (split among them)
SPELL_WORTH = {  # keeping a spell, beyond what it does for the plans
    "Circle Breaker": 1.0,
    "Twist of Fate": 0.4,
    "Venom Brew": 0.8,
    "Astral Projection": 1.2,
    "Foul Elixir": -8.0,
    "Crackling Cauldron": 1.5,
    "Summon from Beyond": 1.5,
    "Hex Seal": 0.6,
    "Thief's Gamble": 0.6,
}


class RandomAgent(protocol.RandomAgent):
    """Any offered answer; in the main phase it ends the turn now and then, else a uniform pick."""

    def act(self, request: Request, view: JSON) -> str:
        if request.kind == "main" and self.rng.random() < END_CHANCE:
            return "end"
        return super().act(request, view)


class EasyAgent(RandomAgent):
    """Random-ish with a little sense: it crafts a potion whenever it can (a new category
    first), draws from the deck, and otherwise plays like the random player."""

    request_only = False  # it reads its view

    def act(self, request: Request, view: JSON) -> str:
        if request.kind == "draw":
            return "deck"
        if request.kind == "main":
            crafts = [c.value for c in request.choices if c.value.startswith("craft ")]
            owned = owned_categories(view, int(view["seat"]))
            new = [c for c in crafts if potion_of(c.split(" with ")[0][6:]) not in owned]
            if new or crafts:
                return self.rng.choice(new or crafts)
        return super().act(request, view)


# --- reading the view ---------------------------------------------------------------------------


def potion_named(shown: str) -> str:
    """A potion's catalog name from its name as shown (``Wheel of Fortune``)."""
    return POTION_LOOKUP[shown.casefold()]


def potion_of(shown: str) -> str:
    return POTIONS[potion_named(shown)].category


def owned_categories(view: JSON, seat: int) -> set[str]:
    return {
        POTIONS[label.removesuffix(" (spent)")].category for label in view["seats"][seat]["potions"]
    }


def seat_index(view: JSON, name: str) -> int:
    return next(i for i, s in enumerate(view["seats"]) if s["name"] == name)


BIT = {card: 1 << index for index, card in enumerate(CARDS)}  # a hand as a set of names: bits


def bits(hand: Counter[str]) -> int:
    return sum(BIT[card] for card, count in hand.items() if count > 0)


def _recipe_bits(potion: str) -> tuple[tuple[str, int, int, int], ...]:
    """Per recipe ingredient: its family, its bit and its two siblings' bits."""
    return tuple(
        (CATEGORY_OF[i], BIT[i], BIT[SIBLINGS[i][0]], BIT[SIBLINGS[i][1]])
        for i in POTIONS[potion].recipe
    )


RECIPE_BITS = {potion: _recipe_bits(potion) for potion in POTIONS}
RELEVANT = {  # the names a potion's reach depends on: its recipe, their siblings, the wild
    potion: BIT[WILD] | sum(d | a | b for _, d, a, b in RECIPE_BITS[potion]) for potion in POTIONS
}


@lru_cache(maxsize=65536)
def reach(potion: str, hand: int, seal: str | None, chained: bool) -> tuple[int, int]:
    """How many recipe ingredients a hand (``bits``) lacks for a craft by cards alone, and its
    outs: the card names one more of which would cover one more (the rules'
    ``crafting.missing``, fast: standard recipes have four families, so covers never overlap)."""
    need = 4 if chained else 3
    covered, outs, uncovered = 0, 0, False
    for family, direct, one, two in RECIPE_BITS[potion]:
        if family == seal:
            continue
        if hand & direct or (not chained and hand & one and hand & two):
            covered += 1
            continue
        uncovered = True
        outs |= direct
        if not chained:
            outs |= (two if hand & one else 0) | (one if hand & two else 0)
    if not chained and uncovered:
        if hand & BIT[WILD]:
            covered += 1
        else:
            outs |= BIT[WILD]
    return max(0, need - min(covered, need)), outs.bit_count()


class Table:
    """What a seat knows of the table now: the categories it lacks, the potions that can still
    come up in each, the seal and chains, the cards it cannot see."""

    def __init__(self, view: JSON) -> None:
        self.view = view
        self.seat = int(view["seat"])
        self.seal: str | None = view["seal"]
        self.chained = set(view["chained"])
        self.revealed: dict[str, str | None] = dict(view["revealed"])
        self.hand = Counter(view["hand"])
        owned = [label.removesuffix(" (spent)") for s in view["seats"] for label in s["potions"]]
        self.lacking = [c for c in POTION_CATEGORIES if c not in owned_categories(view, self.seat)]
        in_set = ALL18_POTIONS if self._all18(owned) else STANDARD_POTIONS
        gone = set(owned) | {p for p in self.revealed.values() if p}
        self.future = {
            c: [p for p in in_set if POTIONS[p].category == c and p not in gone]
            for c in POTION_CATEGORIES
        }
        self._scores: dict[tuple[tuple[str, int], ...], float] = {}
        potions = len(view["seats"][self.seat]["potions"])
        self.room = max(0, int(view["limit"]) - 3 * potions)  # cards kept at the end step
        over = sum(self.hand.values()) - self.room
        self.kept = self.hand - Counter(cheapest(self, self.hand, over)) if over > 0 else self.hand
        self.weakest = cheapest(self, self.kept, 1)

    def _all18(self, owned: Iterable[str]) -> bool:
        sizes = self.view["potion_deck_sizes"]
        for category in POTION_CATEGORIES:
            count = sizes[category] + (self.revealed[category] is not None)
            count += sum(1 for p in owned if POTIONS[p].category == category)
            if count > 5:
                return True
        return False

    def closeness(self, potion: str, hand: int) -> float:
        lacking, outs = reach(potion, hand & RELEVANT[potion], self.seal, potion in self.chained)
        return CLOSENESS.get(lacking, 0.0) + OUT_WORTH.get(lacking, 0.0) * outs

    def score(self, hand: Counter[str]) -> float:
        """How good a hand is for the categories still lacking (plus its spells)."""
        key = tuple(sorted(hand.items()))
        if key in self._scores:
            return self._scores[key]
        total, mask = 0.0, bits(hand)
        for category in self.lacking:
            shown = self.revealed[category]
            best = self.closeness(shown, mask) if shown else 0.0
            later = self.future[category]
            for potion in later:
                best = max(best, FUTURE / len(later) * self.closeness(potion, mask) * 2)
            total += best
        total += sum(SPELL_WORTH[SPELL_TYPE[c]] * n for c, n in hand.items() if c in SPELL_TYPE)
        total += 1.0 * hand[WILD]
        self._scores[key] = total
        return total

    def gain(self, card: str, hand: Counter[str] | None = None) -> float:
        base = self.hand if hand is None else hand
        return self.score(base + Counter([card])) - self.score(base)

    def loss(self, card: str, hand: Counter[str]) -> float:
        rest = hand.copy()
        rest[card] -= 1
        return self.score(hand) - self.score(+rest)

    def unseen(self) -> Counter[str]:
        """The cards this seat cannot see (in the deck or another hand), by count."""
        pool = Counter({card: COPIES[card] for card in CARDS})
        pool -= self.hand
        for seat in self.view["seats"]:
            pool -= Counter(seat["pile"])
        return pool

    def kept_gain(self, card: str) -> float:
        """What one more card is worth once the end step has cut the hand to the table limit
        (a card that would be discarded again is worth nothing): the card in place of the kept
        hand's weakest one, if that is better (fast: the draw weighs every unseen card)."""
        gain = self.gain(card)
        if sum(self.hand.values()) < self.room or gain <= 0 or not self.weakest:
            return gain  # room for it, or no better than nothing
        swapped = self.kept - Counter(self.weakest) + Counter([card])
        return max(0.0, self.score(swapped) - self.score(self.kept))

    def deck_gain(self) -> float:
        pool = self.unseen()
        size = sum(pool.values())
        if not size:
            return 0.0
        return sum(count * self.kept_gain(card) for card, count in pool.items()) / size


def leader(view: JSON, me: int) -> int | None:
    """The opponent nearest to a win: most categories (two or more), then fewest cards to hold."""
    best, key = None, (1, 0)
    for i, seat in enumerate(view["seats"]):
        if i == me or seat["out"]:
            continue
        this = (seat["categories"], -seat["hand_size"])
        if this > key:
            best, key = i, this
    return best


def pair_odds(cards: int) -> float:
    """The chance that ``cards`` unknown cards hold two equal ingredients (27 names, 4 each)."""
    none = 1.0
    for k in range(1, cards):
        none *= max(0.0, 1 - 3 * k / (108 - k))
    return 1 - none


def needs_of(view: JSON, seat: int) -> set[str]:
    """The ingredients of the potions on offer in the categories ``seat`` still lacks."""
    lacking = set(POTION_CATEGORIES) - owned_categories(view, seat)
    found: set[str] = set()
    for category in lacking:
        potion = view["revealed"][category]
        if potion:
            found |= set(POTIONS[potion].recipe)
    return found


# --- the planner ------------------------------------------------------------------------------


class PlannerAgent:
    """Plans its crafts (see the module); ``cunning`` adds the play against the leader,
    ``slip`` is the chance of a plain random action in the main phase."""

    def __init__(
        self, seat: int, rng: random.Random, *, cunning: bool = True, slip: float = 0.0
    ) -> None:
        self.seat = seat
        self.rng = rng
        self.cunning = cunning
        self.slip = slip
        self.turn = -1
        self.tried: set[str] = set()  # the main-phase answers given this turn

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: JSON) -> str:
        table = Table(view)
        handler: Callable[[Request, Table], str] = getattr(self, f"_{request.kind}", self._first)
        return handler(request, table)

    def _first(self, request: Request, table: Table) -> str:
        return request.choices[0].value

    # --- the draw ---------------------------------------------------------------------------

    def _draw(self, request: Request, table: Table) -> str:
        """The pile top that beats the deck's expected card; cunning, a useful card the leader
        needs counts more (taking it keeps it from them; a useless one would only come back)."""
        wanted = self._leader_needs(table)
        feeds = frozenset(self._others_needs(table)) if self.cunning else frozenset()
        best, value = "deck", table.deck_gain()
        for choice in request.choices[1:]:
            owner = seat_index(table.view, choice.value[5:])
            top = table.view["seats"][owner]["pile"][-1]
            if self._discarded_again(top, table, feeds):
                continue  # taking it would only put it back on a pile
            gain = table.kept_gain(top)
            worth = gain + (DENIAL if gain > 0 and top in wanted else 0.0)
            if worth > value:
                best, value = choice.value, worth
        return best

    @staticmethod
    def _discarded_again(card: str, table: Table, feeds: frozenset[str]) -> bool:
        """Whether the end step would discard ``card`` itself if this seat took it."""
        more = table.hand + Counter([card])
        over = sum(more.values()) - table.room
        return over > 0 and card in cheapest(table, more, over, feeds)

    def _leader_needs(self, table: Table) -> set[str]:
        if not self.cunning:
            return set()
        lead = leader(table.view, self.seat)
        return needs_of(table.view, lead) if lead is not None else set()

    # --- the main phase ---------------------------------------------------------------------

    def _main(self, request: Request, table: Table) -> str:
        view = table.view
        if view["turn"] != self.turn:
            self.turn, self.tried = view["turn"], set()
        values = [c.value for c in request.choices if c.value not in self.tried]
        if self.slip and self.rng.random() < self.slip:
            answer = self.rng.choice(values)
        else:
            answer = self._plan(values, table)
        self.tried.add(answer)
        return answer

    def _plan(self, values: list[str], table: Table) -> str:
        steps: list[Callable[[list[str], Table], str | None]] = [
            self._craft,
            self._cheap_spells,
            self._summon,
            self._request,
            self._ward,
        ]
        if self.cunning:
            steps += [self._against_leader, self._gamble, self._reset, self._foresight_perk]
        else:
            steps += [self._plain_gamble]
        for step in steps:
            answer = step(values, table)
            if answer is not None:
                return answer
        return "end"

    def _craft(self, values: list[str], table: Table) -> str | None:
        """A craft of a lacking category, the way that leaves the best hand."""
        best, value = None, -1e9
        for text in values:
            if not text.startswith("craft "):
                continue
            potion = potion_named(text[6:].split(" with ")[0])
            if POTIONS[potion].category not in table.lacking:
                continue
            cards = text.split(" with ", 1)[1].split(" using ")[0].split(", ")
            rest = table.hand - Counter(cards)
            worth = table.score(rest) - (2.0 if " using " in text else 0.0)
            if worth > value:
                best, value = text, worth
        if best is None or not self.cunning:
            return best
        head, _, tail = best.partition(" with ")
        listed, using, perk = tail.partition(" using ")
        ordered = self._pile_order(listed.split(", "), table)
        return f"{head} with {', '.join(ordered)}{using}{perk}"

    def _others_needs(self, table: Table) -> set[str]:
        """The ingredients of the potions on offer in the categories the others lack."""
        view = table.view
        wanted: set[str] = set()
        for seat in range(len(view["seats"])):
            if seat != self.seat and not view["seats"][seat]["out"]:
                wanted |= needs_of(view, seat)
        return wanted

    def _pile_order(self, cards: list[str], table: Table) -> list[str]:
        """Cards going onto this seat's pile, listed so that the last one, the new top that
        the next players may draw, is the one they need least (the wild and the ingredients of
        their potions go under)."""
        wanted = self._others_needs(table)

        def use(card: str) -> int:
            return 2 if card == WILD else 1 if card in wanted else 0

        return sorted(cards, key=use, reverse=True)

    def _cheap_spells(self, values: list[str], table: Table) -> str | None:
        """Spells that only help: a card more (Cauldron), the best of three (Astral
        Projection), an opponent's turn lost (Circle Breaker)."""
        for kind in ("Crackling Cauldron", "Astral Projection", "Circle Breaker"):
            for text in values:
                if text.startswith(f"play {kind} ("):
                    return text
        return None

    def _summon(self, values: list[str], table: Table) -> str | None:
        best, value = None, SPELL_WORTH["Summon from Beyond"]
        for text in values:
            if not text.startswith("play Summon from Beyond") or " take " not in text:
                continue
            card = text.rsplit(" take ", 1)[1]
            if card in SPELL_TYPE and SPELL_TYPE[card] in ("Summon from Beyond", FOUL):
                continue
            if table.gain(card) > value:
                best, value = text, table.gain(card)
        return best

    def _request(self, values: list[str], table: Table) -> str | None:
        """Ask for the ingredient worth most, if somebody else may hold it."""
        pool = table.unseen()
        best, value = None, 2.0
        for text in values:
            if not text.startswith("perk ") or " ask " not in text:
                continue
            card = INGREDIENT_LOOKUP[text.rsplit(" ask ", 1)[1].casefold()]
            if pool[card] and table.gain(card) > value:
                best, value = text, table.gain(card)
        return best

    def _ward(self, values: list[str], table: Table) -> str | None:
        return self._perk_of(values, "ward")

    @staticmethod
    def _perk_of(values: list[str], perk: str) -> str | None:
        """The offered plain ``perk P`` (no ``on`` or ``ask``) of a potion with ``perk``."""
        for text in values:
            plain = text.startswith("perk ") and not any(k in text for k in (" ask ", " on "))
            if plain and POTIONS[potion_named(text[5:])].perk == perk:
                return text
        return None

    def _plain_gamble(self, values: list[str], table: Table) -> str | None:
        """The normal level's gamble: a lacking category from a player holding 6 cards or more."""
        for text in values:
            if text.startswith("play Thief's Gamble") and " steal " in text:
                target = seat_index(table.view, text.split(" on ", 1)[1].split(" steal ")[0])
                potion = text.split(" steal ", 1)[1].split(" wager ")[0]
                seat = table.view["seats"][target]
                if potion_of(potion) in table.lacking and seat["hand_size"] >= 6:
                    return text
        return None

    def _gamble(self, values: list[str], table: Table) -> str | None:
        """A steal of a lacking category when the pair odds pay for the wager: the wager is the
        four cards the plans need least."""
        for text in values:
            if not (text.startswith("play Thief's Gamble") and " steal " in text):
                continue
            spell = text[5:].split(")")[0] + ")"
            name = text.split(" on ", 1)[1].split(" steal ")[0]
            potion = text.split(" steal ", 1)[1].split(" wager ")[0]
            target = table.view["seats"][seat_index(table.view, name)]
            odds = pair_odds(target["hand_size"])
            if potion_of(potion) not in table.lacking or odds < 0.45:
                continue
            rest = table.hand.copy()
            rest[spell] -= 1
            wager = cheapest(table, +rest, 4)
            if len(wager) == 4:
                return f"play {spell} on {name} steal {potion} wager {', '.join(wager)}"
        return None

    def _against_leader(self, values: list[str], table: Table) -> str | None:
        view = table.view
        lead = leader(view, self.seat)
        if lead is None:
            return None
        lead_name = view["seats"][lead]["name"]
        wanted = needs_of(view, lead)
        mine = {i for c in table.lacking if (p := table.revealed[c]) for i in POTIONS[p].recipe}
        for text in values:
            if text.startswith("play Venom Brew") and text.endswith(f" on {lead_name}"):
                return text
        twist = self._twist(values, table, lead)
        if twist is not None:
            return twist
        for text in values:
            if text.startswith("play Hex Seal") and " seal " in text:
                family = CATEGORY_LOOKUP[text.rsplit(" seal ", 1)[1].casefold()]
                hits = {i for i in wanted if CATEGORY_OF[i] == family}
                if hits and not any(CATEGORY_OF[i] == family for i in mine):
                    return text
        for text in values:
            if text.startswith("perk ") and " on " in text:
                target = potion_named(text.rsplit(" on ", 1)[1])
                if set(POTIONS[target].recipe) <= wanted and POTIONS[target].category not in (
                    table.lacking
                ):
                    return text
        if view["seats"][lead]["categories"] >= 2 and not self._near(table):
            return self._perk_of(values, "reshuffle")
        return None

    @staticmethod
    def _near(table: Table) -> bool:
        """Whether a potion on offer of a lacking category is one card away or nearer (a
        reshuffle would throw it away)."""
        mask = bits(table.hand)
        for category in table.lacking:
            potion = table.revealed[category]
            if potion is not None:
                chained = potion in table.chained
                if reach(potion, mask & RELEVANT[potion], table.seal, chained)[0] <= 1:
                    return True
        return False

    def _twist(self, values: list[str], table: Table, lead: int) -> str | None:
        """With 3 players or more, reverse the play when the leader plays next: it then waits
        for every other player."""
        view = table.view
        playing = [i for i, seat in enumerate(view["seats"]) if not seat["out"]]
        if len(playing) < 3:
            return None
        at = playing.index(self.seat)
        step = 1 if view["direction"] == "cw" else -1
        if playing[(at + step) % len(playing)] != lead:
            return None
        return next((t for t in values if t.startswith("play Twist of Fate (")), None)

    def _reset(self, values: list[str], table: Table) -> str | None:
        """A Hand reset when this hand is poor, or the leader is near its win."""
        text = self._perk_of(values, "hand_reset")
        if text is None:
            return None
        lead = leader(table.view, self.seat)
        poor = table.score(table.hand) < 1.5 * max(1, len(table.lacking))
        near = lead is not None and table.view["seats"][lead]["categories"] >= 2
        return text if poor or near else None

    def _foresight_perk(self, values: list[str], table: Table) -> str | None:
        return self._perk_of(values, "foresight")

    # --- the other windows --------------------------------------------------------------------

    def _discard(self, request: Request, table: Table) -> str:
        """The cards the plans need least; cunning, listed so that the pile's new top is the
        one the others need least."""
        if not self.cunning:
            return "discard " + ", ".join(cheapest(table, table.hand, request.min_choices))
        feeds = frozenset(self._others_needs(table))
        dropped = cheapest(table, table.hand, request.min_choices, feeds)
        return "discard " + ", ".join(self._pile_order(dropped, table))

    def _astral(self, request: Request, table: Table) -> str:
        seen = list(table.view["seen"])
        keep = max(seen, key=table.gain)
        rest = list(seen)
        rest.remove(keep)
        return "keep " + ", ".join([keep, *self._bury(rest, table)])

    def _foresight_order(self, seen: list[str], table: Table) -> list[str]:
        """Its best card where its own next draw should find it (after each other player's
        draw), the cards the leader needs deepest."""
        others = sum(
            1 for i, s in enumerate(table.view["seats"]) if i != self.seat and not s["out"]
        )
        ranked = sorted(seen, key=table.gain, reverse=True)
        best, rest = ranked[0], self._bury(ranked[1:], table)
        spot = min(others, len(rest))
        return [*rest[:spot], best, *rest[spot:]]

    def _bury(self, cards: list[str], table: Table) -> list[str]:
        """Cards put back on the deck: those the next player or the leader needs last (the
        next player draws the top card)."""
        if not self.cunning:
            return cards
        view = table.view
        playing = [i for i, seat in enumerate(view["seats"]) if not seat["out"]]
        at = playing.index(self.seat)
        step = 1 if view["direction"] == "cw" else -1
        wanted = needs_of(view, playing[(at + step) % len(playing)])
        lead = leader(view, self.seat)
        if lead is not None:
            wanted |= needs_of(view, lead)
        return sorted(cards, key=lambda card: card == WILD or card in wanted)

    def _foresight(self, request: Request, table: Table) -> str:
        return "order " + ", ".join(self._foresight_order(list(table.view["seen"]), table))

    def _block(self, request: Request, table: Table) -> str:
        view = table.view
        blocks = [c.value for c in request.choices if c.value.startswith("block ")]
        if not blocks:
            return "pass"
        spell = min(blocks, key=lambda b: SPELL_WORTH[SPELL_TYPE[b[6:]]])
        user = seat_index(view, view["user"])
        threat = view["seats"][user]["categories"] >= 2
        if POTIONS[view["potion"]].perk == "hand_reset":
            keep = table.score(table.hand) - table.loss(spell[6:], table.hand)
            if keep >= 2.0 * max(1, len(table.lacking)):
                return spell
            return "pass"
        if self.cunning and threat:
            return spell
        asked = view.get("ask")
        worth = table.loss(asked, table.hand) if asked in table.hand else 0.0
        return spell if worth >= 2.0 else "pass"

    def _pair(self, request: Request, table: Table) -> str:
        options = [c.value for c in request.choices]
        return min(options, key=lambda v: table.loss(v[5:], table.hand) * 2)


def cheapest(
    table: Table, hand: Counter[str], count: int, feeds: frozenset[str] = frozenset()
) -> list[str]:
    """The ``count`` cards of ``hand`` whose loss hurts the plans least, one at a time; a card
    in ``feeds`` (one the others need, on a pile they may draw from) costs ``FEED`` more."""
    rest, chosen = hand.copy(), []
    for _ in range(count):
        cards = [c for c, n in rest.items() if n > 0]
        if not cards:
            break
        card = min(
            cards,
            key=lambda c: (table.loss(c, rest) + FEED * (c in feeds), -CARDS.index(c)),
        )
        rest[card] -= 1
        chosen.append(card)
    return chosen


def planner(*, cunning: bool, slip: float) -> Callable[[int, random.Random], Agent]:
    return partial(PlannerAgent, cunning=cunning, slip=slip)


AGENTS: dict[str, Callable[[int, random.Random], Agent]] = {
    "random": RandomAgent,
    "easy": EasyAgent,
    "normal": planner(cunning=False, slip=0.15),
    "hard": planner(cunning=True, slip=0.0),
}
DEFAULT_AGENT = "normal"

"""Computer players. They see what their seat sees: public and own events, and their own view.

Levels (every game has the same four): ``random`` bids any coin; ``easy`` bids at random but
pays its top coin for a card that wins it the game; ``normal`` (the practice opponent) and
``hard`` are the ``Bidder``: for each coin it could bid it works out, over every combination
of the rivals' bids, who would win the card (the highest bid no one else made), and picks the
coin whose outcomes are worth most: the card's worth to whoever gets it (its own triple, a
rival's triple blocked, a pair, a card toward the count at an empty deck) less the coin left in
front. It learns each rival's habits from the bids every reveal shows (how high they bid for a
card that wins them the game, makes a pair, blocks a rival, or is just a card), starting from
"any coin alike". ``normal`` plays a good coin that is not the best now and then.
With Magic Infused it counts the card's effect (``worth.py``: a Chameleon is a wild third, a
Potent card counts twice at the count, a Cursed card costs what it sends back, a Refund coin
comes back, a Bargain Bin auction goes to the lowest unique bid); in a Deal Window and for a
Cursed choice it plays ``dealer.py``'s policy (``easy`` accepts what helps it, proposes none).
docs/ai/warlocks-brew.md describes the levels and their measured strength.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from games import protocol
from games.protocol import JSON, Agent, Event, Request

from . import dealer
from .config import TRIPLE
from .effects import BARGAIN_BIN, CHAMELEON, CURSED, POTENT, REFUND, label
from .engine import DECLARE, PASS
from .worth import (
    COIN,
    COUNT,
    FIRST,
    PAIR,
    RIVAL_SHARE,
    WILD,
    WIN,
    after_cursed,
    brew_worth,
    holds_triple,
)

BIDS = ("bid", "declare")  # the auction's requests; the others are deals and Cursed choices
TWO_PLAYER_COIN = 0.06  # the two-player rule hands the coin to the rival
HABIT_BUCKETS = 3  # a bid's place in its bidder's hand: low, middle, high
HABIT_PRIOR = 10.0  # how many bids a rival's habit takes to outweigh "any coin alike"
NOISE = 0.15  # ``normal``: the share of bids that take a good coin that is not the best
NOISE_MARGIN = 0.05  # a noisy pick is among the coins within this of the best worth
# ``hard`` varies its bids as much as its rivals' bids have met its own: from BASE_NOISE
# against rivals who meet them as often as random bidders would (TIE_PRIOR) up to MAX_NOISE.
TIE_PRIOR, TIE_PRIOR_WEIGHT = 0.36, 5.0
BASE_NOISE, NOISE_PER_TIE, MAX_NOISE = 0.03, 3.0, 0.5

# A card's meaning to one player, for the habits: just a card, a pair, their triple, a block.
PLAIN, MAKES_PAIR, MAKES_TRIPLE, BLOCKS = range(4)


def _coins(request: Request) -> list[int]:
    return sorted(int(choice.value) for choice in request.choices if choice.value != DECLARE)


class RandomAgent(protocol.RandomAgent):
    """Any legal coin; under Utter Darkness it now and then declares on a hunch."""

    def act(self, request: Request, view: JSON) -> str:
        if request.kind == "declare":
            return DECLARE if self.rng.random() < 0.3 else PASS
        if request.kind not in BIDS:  # a deal or a Cursed choice: any legal answer
            return super().act(request, view)
        can_declare = any(choice.value == DECLARE for choice in request.choices)
        if can_declare and self.rng.random() < 0.05:
            return DECLARE
        return str(self.rng.choice(_coins(request)))


class Memory:
    """What a seat remembers of what it was told: every card each seat won, in order, with its
    effect (auctions, Free Samples and deals are announced publicly), so it knows the brews
    even when they lie face down; and the coins deals moved between hands."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.won: dict[int, list[str]] = {}  # labels, in the order won
        self.coins: dict[int, Counter[int]] = {}  # coins received in deals, less those given

    def observe(self, event: Event) -> None:
        if not event.audience.reaches(self.seat):
            return
        data = event.data
        if event.kind in ("reveal", "free_sample"):
            for declared in data["declared"]:
                if not declared["correct"]:
                    self.won.pop(declared["seat"], None)
            if data["winner"] is not None:
                self._cards(data["winner"]).append(label(data["card"], data["effect"]))
        elif event.kind == "deal":
            by, to = data["seats"]
            self._move(by, to, data["give"])
            self._move(to, by, data["ask"])
        elif event.kind == "cursed":
            cards = self._cards(data["seat"])
            sent = label(data["card"], data["effect"]) if data["card"] else None
            if cards:  # face down nobody is told which card went: the oldest, as a guess
                cards.remove(sent if sent in cards else cards[0])
        elif event.kind == "left":
            self.won.pop(data["seat"], None)

    def _cards(self, seat: int) -> list[str]:
        return self.won.setdefault(seat, [])

    def _move(self, giver: int, taker: int, items: list[str]) -> None:
        source = self._cards(giver)
        places = sorted(
            (int(i.split()[1]) - 1 for i in items if i.startswith("card ")), reverse=True
        )
        moved = [source.pop(place) for place in places if place < len(source)][::-1]
        for item in items:
            if item.startswith("coin "):
                coin = int(item.split()[1])
                self.coins.setdefault(giver, Counter())[coin] -= 1
                self.coins.setdefault(taker, Counter())[coin] += 1
            elif not item.startswith("card ") and item in source:
                source.remove(item)
                moved.append(item)
        self._cards(taker).extend(moved)

    def labels(self, view: JSON, seat: int) -> list[str]:
        """The seat's brew by labels: as shown when face up (or one's own peek), else as
        remembered."""
        shown = view["you"] if seat == self.seat else view["players"][seat]
        if shown["brew"] is None:
            return list(self.won.get(seat, []))
        infused = list(shown.get("infused") or [])
        plain = Counter(shown["brew"])
        for text in infused:
            plain[text.partition(" (")[0]] -= 1
        return [*plain.elements(), *infused]

    def brew(self, view: JSON, seat: int) -> Counter[str]:
        shown = view["you"]["brew"] if seat == self.seat else view["players"][seat]["brew"]
        if shown is not None:
            return Counter(shown)
        return Counter(text.partition(" (")[0] for text in self.won.get(seat, []))

    def holds_triple(self, view: JSON) -> bool:
        return holds_triple(self.labels(view, self.seat))


class EasyAgent(RandomAgent):
    """Random-ish: any coin, but its top coin for a card that completes its triple, and a
    declaration only of a triple it remembers winning."""

    request_only = False  # it reads its view

    def __init__(self, seat: int, rng: random.Random) -> None:
        super().__init__(seat, rng)
        self.memory = Memory(seat)

    def observe(self, event: Event) -> None:
        self.memory.observe(event)

    def act(self, request: Request, view: JSON) -> str:
        if request.kind == "curse":
            return request.choices[0].value  # the first card it won
        if request.kind not in BIDS:  # it takes a deal that helps it, and proposes none
            labels = self.memory.labels
            return dealer.answer_deal(self.seat, request, view, labels, proposes=False)
        triple = self.memory.holds_triple(view)
        if request.kind == "declare":
            return DECLARE if triple else PASS
        if triple and any(choice.value == DECLARE for choice in request.choices):
            return DECLARE
        coins = _coins(request)
        if self.memory.brew(view, self.seat)[view["card"]] == TRIPLE - 1:
            return str(coins[-1])
        return str(self.rng.choice(coins))


class Habits:
    """How high one rival bids, per meaning of the card to them: how many of their bids fell
    low, in the middle or high in their hand. With nothing seen yet every coin is alike."""

    def __init__(self) -> None:
        self.counts = [[0.0] * HABIT_BUCKETS for _ in range(4)]

    def learn(self, meaning: int, hand: Sequence[int], bid: int) -> None:
        if bid in hand:
            self.counts[meaning][_bucket(sorted(set(hand)), bid)] += 1

    def distribution(self, meaning: int, hand: Sequence[int]) -> dict[int, float]:
        """The chance of each coin in ``hand`` being their bid: ``HABIT_PRIOR`` bids' worth
        of "any coin alike", plus each bid seen spread over the coins of its part of the
        hand (a few bids are mostly chance: the prior keeps them from counting for much)."""
        coins = sorted(set(hand))
        seen = sum(self.counts[meaning])
        per_bucket = Counter(_bucket(coins, coin) for coin in coins)
        weights = {}
        counts = self.counts[meaning]
        for coin in coins:
            bucket = _bucket(coins, coin)
            weights[coin] = HABIT_PRIOR / len(coins) + counts[bucket] / per_bucket[bucket]
        total = HABIT_PRIOR + seen
        return {coin: weight / total for coin, weight in weights.items()}


def _bucket(coins: Sequence[int], coin: int) -> int:
    if len(coins) == 1:
        return HABIT_BUCKETS - 1
    return round(coins.index(coin) / (len(coins) - 1) * (HABIT_BUCKETS - 1))


class BidderAgent:
    """Bids the coin worth most over every combination of the rivals' bids (module
    docstring); the hard level."""

    noise: float | None = None  # a fixed share of noisy bids; None: as rivals call for

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.memory = Memory(seat)
        self.habits: dict[int, Habits] = {}
        # how often our bid met a rival's equal bid, from a prior of what random rivals do
        self.ties, self.bids = TIE_PRIOR * TIE_PRIOR_WEIGHT, TIE_PRIOR_WEIGHT
        self.asked: tuple[str, dict[int, tuple[int, list[int]]]] | None = None

    # --- what the seat is told -------------------------------------------------------------

    def observe(self, event: Event) -> None:
        self.memory.observe(event)
        if event.audience.reaches(self.seat) and event.kind == "reveal":
            self._learn(event.data)

    def _learn(self, result: Mapping[str, JSON]) -> None:
        """Each rival's bid of the auction just revealed, against what it meant to them."""
        asked, self.asked = self.asked, None
        if asked is None or asked[0] != result["card"]:
            return
        bids = result["bids"]
        if bids[self.seat] is not None:
            self.bids += 1
            self.ties += any(b == bids[self.seat] for i, b in enumerate(bids) if i != self.seat)
        for rival, (meaning, hand) in asked[1].items():
            bid = result["bids"][rival] if rival < len(result["bids"]) else None
            if bid is not None:
                self.habits.setdefault(rival, Habits()).learn(meaning, hand, int(bid))

    # --- decisions ---------------------------------------------------------------------------

    def act(self, request: Request, view: JSON) -> str:
        if request.kind == "curse":
            return dealer.cursed_choice(request, view, self.memory.labels(view, self.seat))
        if request.kind not in BIDS:
            return dealer.answer_deal(self.seat, request, view, self.memory.labels)
        triple = self.memory.holds_triple(view)
        if request.kind == "declare":
            return DECLARE if triple else PASS
        if triple and any(choice.value == DECLARE for choice in request.choices):
            return DECLARE
        coins = _coins(request)
        worth = self.worths(view, coins)
        ranked = sorted(worth, key=lambda coin: (worth[coin], -coin), reverse=True)
        if self.rng.random() < self.noise_now():
            good = [coin for coin in ranked if worth[coin] >= worth[ranked[0]] - NOISE_MARGIN]
            return str(self.rng.choice(good))
        return str(ranked[0])

    def noise_now(self) -> float:
        """The share of bids to vary: rivals who bid like us tie with us, and a tie wins
        nothing, so the more our bids have met theirs, the more we vary (a little always)."""
        if self.noise is not None:
            return self.noise
        excess = self.ties / self.bids - TIE_PRIOR
        return min(MAX_NOISE, BASE_NOISE + max(0.0, excess) * NOISE_PER_TIE)

    def worths(self, view: JSON, coins: Sequence[int]) -> dict[int, float]:
        """Each coin's expected worth: the card's worth to whoever wins it, less the coin."""
        card = view["card"]
        rivals = self._bidding_rivals(view)
        hands = self._rival_hands(view, rivals)
        meanings = {rival: self._meaning(view, rival, card) for rival in rivals}
        self.asked = (card, {rival: (meanings[rival], hands[rival]) for rival in rivals})
        bids = [
            self.habits.get(rival, Habits()).distribution(meanings[rival], hands[rival])
            for rival in rivals
        ]
        gains = [self._gain(view, rival, card) for rival in rivals]
        mine = self._gain(view, self.seat, card)
        odds = Odds(bids, lowest=view["card_effect"] == BARGAIN_BIN)
        worth = {}
        for coin in coins:
            spent = self._coin_cost(view, coin)
            won, theirs = odds.of(coin)
            nobody = max(0.0, 1 - won - sum(theirs))
            worth[coin] = (
                won * (mine - spent)
                - nobody * spent * _stays_in_front(view, self.seat)
                - RIVAL_SHARE * sum(p * gain for p, gain in zip(theirs, gains, strict=True))
            )
        return worth

    def _bidding_rivals(self, view: JSON) -> list[int]:
        asked = view["rebidders"] if view["round"] > 1 else range(len(view["players"]))
        return [
            i
            for i in asked
            if i != self.seat and not view["players"][i]["eliminated"]
            if view["players"][i]["hand_size"] > 0
        ]

    def _rival_hands(self, view: JSON, rivals: Sequence[int]) -> dict[int, list[int]]:
        """Each rival's hand: every coin dealt less those in front and on the table. Under the
        two-player rule coins change hands, so the rival holds what is left of both sets."""
        dealt = list(range(1, 5 if view["options"]["broke_buyers"] else 6))
        players = view["players"]
        if view["options"]["two_players"]:
            pool = Counter(dealt * 2)
            pool -= Counter(view["you"]["hand"])
            for player in players:
                pool -= Counter(player["front"] + player["table"])
            return {rival: sorted(pool.elements()) for rival in rivals}
        hands = {}
        for rival in rivals:
            hand = Counter(dealt)
            hand.update(self.memory.coins.get(rival, Counter()))  # deals moved coins
            hand -= Counter(players[rival]["front"] + players[rival]["table"])
            hands[rival] = sorted(hand.elements()) or dealt
        return hands

    def _meaning(self, view: JSON, seat: int, card: str) -> int:
        have = self.memory.brew(view, seat)[card]
        if have >= TRIPLE - 1:
            return MAKES_TRIPLE
        others = [i for i in range(len(view["players"])) if i != seat]
        if any(self.memory.brew(view, i)[card] >= TRIPLE - 1 for i in others):
            return BLOCKS
        return MAKES_PAIR if have == TRIPLE - 2 else PLAIN

    def _gain(self, view: JSON, seat: int, card: str) -> float:
        """What the card is worth to ``seat``: the game, or progress toward it (the card's
        effect counted: a wild Chameleon, a Potent card at the count, a Cursed card less the
        card it sends back)."""
        effect = view["card_effect"]
        brew = self.memory.labels(view, seat)
        after = [*brew, label(card, effect)]
        if effect == CURSED:
            after = after_cursed(after)
        if holds_triple(after) and not view["options"]["utter_darkness"]:
            return WIN
        have = self.memory.brew(view, seat)[card]
        left = self._copies_left(view, card)
        progress = 0.0
        if holds_triple(after):
            progress = WIN * 0.9  # under Utter Darkness it must still declare
        elif have == TRIPLE - 2 and left >= 1:
            progress = PAIR
        elif have == 0 and left >= 2:
            progress = FIRST
        if effect == CHAMELEON:
            progress = max(progress, WILD)
        elif effect == CURSED and len(brew) >= 1:
            progress -= max(0.0, brew_worth(brew) - brew_worth(after[:-1]))
        deck = max(1, int(view["deck_left"]))
        return progress + COUNT * (1 + 4 / deck) * (2 if effect == POTENT else 1)

    def _copies_left(self, view: JSON, card: str) -> int:
        """Copies of ``card`` still to come (the deck holds what no one won, removed or set
        aside in view)."""
        copies = int(view["options"]["copies"]) - int(view["options"]["limited_supply"])
        if card in view["options"]["impotent_ingredient"]:
            copies -= TRIPLE
        gone = sum(self.memory.brew(view, i)[card] for i in range(len(view["players"])))
        gone += int(view["discarded"].count(card)) + int(view["storefront"].count(card)) + 1
        return max(0, copies - gone)

    def _coin_cost(self, view: JSON, coin: int) -> float:
        """A coin won with stays in front until there are three, then all come back; under
        the two-player rule it goes to the rival's hand; a Refund sends it back to hand."""
        if view["card_effect"] == REFUND:
            return 0.0
        if view["options"]["two_players"]:
            return TWO_PLAYER_COIN * coin
        return COIN * coin * _stays_in_front(view, self.seat)


def _stays_in_front(view: JSON, seat: int) -> float:
    """How long a coin put in front now stays there, relatively: a third coin sends them all
    back at once."""
    front = len(view["players"][seat]["front"])
    return 0.0 if front >= 2 else 1.0 if front == 0 else 0.5


# --- who wins an auction, over every combination of independent bids -------------------------
#
# The highest unique bid wins, so an outcome depends only on how many bid each value, counted
# 0, 1 or "2 or more": 3^5 = 243 tallies of five coin values. Each bidder's chances spread a
# distribution over tallies, one bidder at a time, in time linear in the bidders (trying every
# combination grows as 5^bidders).

VALUES = 5
TALLIES = 3**VALUES


def _tally_tables() -> tuple[list[list[int]], list[int], list[int]]:
    """Per value, the tally after one more bid of it; per tally, the values bid exactly once
    and the values bid by nobody, as bits (bit v for value v)."""
    add = [[0] * TALLIES for _ in range(VALUES + 1)]
    once, none = [0] * TALLIES, [0] * TALLIES
    for tally in range(TALLIES):
        for value in range(1, VALUES + 1):
            place = 3 ** (value - 1)
            count = tally // place % 3
            add[value][tally] = tally + place if count < 2 else tally
            once[tally] |= (count == 1) << value
            none[tally] |= (count == 0) << value
    return add, once, none


ADD, ONCE, NONE = _tally_tables()
ABOVE = [sum(1 << v for v in range(value + 1, VALUES + 1)) for value in range(VALUES + 1)]
BELOW = [sum(1 << v for v in range(1, value)) for value in range(VALUES + 1)]


def _spread(bidders: Sequence[Mapping[int, float]]) -> list[float]:
    """The chance of each tally after these bidders bid."""
    tallies = [0.0] * TALLIES
    tallies[0] = 1.0
    for chances in bidders:
        after = [0.0] * TALLIES
        for tally, p in enumerate(tallies):
            if p:
                for value, q in chances.items():
                    after[ADD[value][tally]] += p * q
        tallies = after
    return tallies


def _wins(tally: int, value: int, lowest: bool = False) -> bool:
    """Whether a bid of ``value`` wins against a tally of the other bids: nobody else bid it
    and no higher value (Bargain Bin: no lower one) was bid exactly once."""
    beaten_by = BELOW[value] if lowest else ABOVE[value]
    return bool(NONE[tally] >> value & 1) and not ONCE[tally] & beaten_by


class Odds:
    """For rivals bidding independently (each a chance per coin value): who wins the card
    for each coin we may bid."""

    def __init__(self, rivals: Sequence[Mapping[int, float]], lowest: bool = False) -> None:
        self.rivals, self.lowest = rivals, lowest
        self.all = _spread(rivals)
        self.without = [_spread([*rivals[:i], *rivals[i + 1 :]]) for i in range(len(rivals))]

    def of(self, coin: int) -> tuple[float, list[float]]:
        """The chance that our ``coin`` wins, and that each rival wins."""
        won = sum(p for tally, p in enumerate(self.all) if p and _wins(tally, coin, self.lowest))
        theirs = []
        for chances, others in zip(self.rivals, self.without, strict=True):
            total = 0.0
            for tally, p in enumerate(others):
                if p:
                    with_ours = ADD[coin][tally]
                    total += p * sum(
                        q for v, q in chances.items() if _wins(with_ours, v, self.lowest)
                    )
            theirs.append(total)
        return won, theirs


class NormalBidder(BidderAgent):
    """The practice opponent: the same reckoning, but now and then a good coin that is not
    the best."""

    noise = NOISE


AgentFactory = Callable[[int, random.Random], Agent]
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "easy": EasyAgent,
    "normal": NormalBidder,
    "hard": BidderAgent,
}
DEFAULT_AGENT = "normal"

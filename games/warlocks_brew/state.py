"""Warlock's Brew state: plain data, dumped to and loaded from JSON.

Magic Infused (§G2) adds an effect to some cards: ``deck_effects`` runs beside ``deck`` and
``Seat.effects`` beside ``Seat.brew`` ("" for a card without one). The Deal Window (§A7) adds
the offers under way and, per seat, whether it is done dealing and the offer it is drafting.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Literal

from games.plain import copy_json
from games.protocol import JSON

from .effects import counted, label, triple_of

Phase = Literal["bid", "curse", "deals", "last_call", "over"]
PHASES: tuple[Phase, ...] = ("bid", "curse", "deals", "last_call", "over")
DraftStep = Literal["give", "ask", "send"]


@dataclass(slots=True)
class Draft:
    """An offer a seat is composing, step by step (partner, what it gives, what it asks)."""

    to: int
    step: DraftStep = "give"
    give: list[str] = field(default_factory=list)  # item texts (``deals.py``)
    ask: list[str] = field(default_factory=list)
    favour: str = ""

    def clone(self) -> Draft:
        return Draft(self.to, self.step, list(self.give), list(self.ask), self.favour)

    def dump(self) -> dict[str, JSON]:
        return {
            "to": self.to,
            "step": self.step,
            "give": list(self.give),
            "ask": list(self.ask),
            "favour": self.favour,
        }


@dataclass(slots=True)
class Offer:
    """A proposal sent by seat ``by`` to seat ``to``, waiting for its answer. ``stamps``: each
    party's ``Seat.removed`` when it was made (cards named by position, face down, must not
    have moved)."""

    id: int
    by: int
    to: int
    give: list[str]
    ask: list[str]
    favour: str
    stamps: list[int]

    def clone(self) -> Offer:
        give, ask, stamps = list(self.give), list(self.ask), list(self.stamps)
        return Offer(self.id, self.by, self.to, give, ask, self.favour, stamps)

    def dump(self) -> dict[str, JSON]:
        return {
            "id": self.id,
            "by": self.by,
            "to": self.to,
            "give": list(self.give),
            "ask": list(self.ask),
            "favour": self.favour,
            "stamps": list(self.stamps),
        }


@dataclass(slots=True)
class Seat:
    name: str
    dealt: list[int]  # the coins this seat was dealt, for the conservation check
    hand: list[int]  # sorted
    front: list[int] = field(default_factory=list)  # sorted; spent until they return
    table: list[int] = field(default_factory=list)  # revealed bids of earlier rebid rounds
    brew: list[str] = field(default_factory=list)  # ingredients won, in order
    eliminated: bool = False  # Utter Darkness: a wrong declaration
    effects: list[str] = field(default_factory=list)  # beside ``brew``: each card's effect
    removed: int = 0  # cards that ever left the brew (positions of the rest moved)
    ready: bool = False  # the Deal Window: done proposing
    proposals: int = 0  # offers started in this Deal Window
    draft: Draft | None = None

    def __post_init__(self) -> None:
        self.marks()  # a snapshot from before effects

    def clone(self) -> Seat:
        return replace(
            self,
            dealt=list(self.dealt),
            hand=list(self.hand),
            front=list(self.front),
            table=list(self.table),
            brew=list(self.brew),
            effects=list(self.effects),
            draft=None if self.draft is None else self.draft.clone(),
        )

    def dump(self) -> dict[str, JSON]:
        """As ``dataclasses.asdict`` (the same keys in the same order), written out: asdict
        deep-copies every leaf, several times the cost of the whole step."""
        return {
            "name": self.name,
            "dealt": list(self.dealt),
            "hand": list(self.hand),
            "front": list(self.front),
            "table": list(self.table),
            "brew": list(self.brew),
            "eliminated": self.eliminated,
            "effects": list(self.effects),
            "removed": self.removed,
            "ready": self.ready,
            "proposals": self.proposals,
            "draft": None if self.draft is None else self.draft.dump(),
        }

    def marks(self) -> list[str]:
        """Each card's effect, beside ``brew`` ("" for none): kept in step with the brew even
        where a brew was set as a whole (a test's table, a snapshot from before effects)."""
        size = len(self.brew)
        if len(self.effects) != size:
            self.effects = (self.effects + [""] * size)[:size]
        return self.effects

    def labels(self) -> list[str]:
        """The brew's cards as the game names them: ``Toadstool (Potent)``."""
        return [label(c, e) for c, e in zip(self.brew, self.marks(), strict=True)]

    def add(self, card: str, effect: str) -> None:
        self.marks()
        self.brew.append(card)
        self.effects.append(effect)

    def take(self, index: int) -> tuple[str, str]:
        """The card at ``index`` leaves the brew: (card, effect)."""
        self.marks()
        self.removed += 1
        return self.brew.pop(index), self.effects.pop(index)

    def brew_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(self.brew).items()))

    def triple(self) -> str | None:
        """The ingredient this brew holds three of (E2: a Chameleon may be the third)."""
        return triple_of(self.brew, self.marks())

    def has_triple(self) -> bool:
        return self.triple() is not None

    def size(self) -> int:
        """Ingredients at the deck-empty count (E1: a Potent card counts twice)."""
        return counted(self.marks())

    def infused(self) -> list[str]:
        """The brew's cards that carry an effect, by label."""
        return [label(c, e) for c, e in zip(self.brew, self.marks(), strict=True) if e]

    def pairs(self) -> int:
        return sum(1 for count in Counter(self.brew).values() if count >= 2)


@dataclass(slots=True)
class State:
    config: dict[str, JSON]
    seats: list[Seat]
    deck: list[str]  # top card first; the card on offer is not in it
    deck_effects: list[str] = field(default_factory=list)  # beside ``deck`` (hidden)
    effects: list[str] = field(default_factory=list)  # Magic Infused: the effects in play
    storefront: list[str] = field(default_factory=list)  # set aside, anyone may look
    snakeoil: list[str] = field(default_factory=list)  # set aside, nobody may look
    discarded: list[str] = field(default_factory=list)  # cards removed by ties, public
    auction: int = 0  # the auction under way (1, 2, ...)
    card: str | None = None  # the card on offer
    card_effect: str = ""  # its effect, announced with it
    phase: Phase = "bid"
    round: int = 1  # 2, 3, ... are rebids (no_unique = "rebid")
    rebidders: list[int] = field(default_factory=list)  # seats still bidding in a rebid
    winners: list[int] = field(default_factory=list)
    end_reason: str = ""
    end_detail: str = ""
    cursed: int | None = None  # the seat choosing what a Cursed card sends back (E4)
    offers: list[Offer] = field(default_factory=list)  # the Deal Window's, waiting
    next_offer: int = 1  # offers are numbered through the match
    deals_made: int = 0  # in this Deal Window

    def __post_init__(self) -> None:
        self.deck_effects += [""] * (len(self.deck) - len(self.deck_effects))

    def active(self) -> list[int]:
        """Seats still in the game (Utter Darkness eliminates)."""
        return [i for i, seat in enumerate(self.seats) if not seat.eliminated]

    def finish(self, winners: list[int], reason: str, detail: str) -> None:
        """The match is over: ``winners`` (several share the victory; none: nobody wins)."""
        self.phase = "over"
        self.winners = sorted(winners)
        self.end_reason = reason
        self.end_detail = detail
        self.rebidders = []
        self.cursed = None
        self.offers = []
        for seat in self.seats:
            seat.draft = None

    def clone(self) -> State:
        """An independent copy (the config is shared: nothing ever changes it)."""
        return replace(
            self,
            seats=[seat.clone() for seat in self.seats],
            deck=list(self.deck),
            storefront=list(self.storefront),
            snakeoil=list(self.snakeoil),
            discarded=list(self.discarded),
            rebidders=list(self.rebidders),
            winners=list(self.winners),
            deck_effects=list(self.deck_effects),
            offers=[offer.clone() for offer in self.offers],
        )

    def dump(self) -> JSON:
        """As ``dataclasses.asdict`` (the same keys in the same order), written out."""
        return {
            "config": copy_json(self.config),
            "seats": [seat.dump() for seat in self.seats],
            "deck": list(self.deck),
            "deck_effects": list(self.deck_effects),
            "effects": list(self.effects),
            "storefront": list(self.storefront),
            "snakeoil": list(self.snakeoil),
            "discarded": list(self.discarded),
            "auction": self.auction,
            "card": self.card,
            "card_effect": self.card_effect,
            "phase": self.phase,
            "round": self.round,
            "rebidders": list(self.rebidders),
            "winners": list(self.winners),
            "end_reason": self.end_reason,
            "end_detail": self.end_detail,
            "cursed": self.cursed,
            "offers": [offer.dump() for offer in self.offers],
            "next_offer": self.next_offer,
            "deals_made": self.deals_made,
        }

    @classmethod
    def load(cls, data: JSON) -> State:
        fields = copy_json(dict(data))  # the state must not share lists with its source
        fields["seats"] = [_seat(seat) for seat in fields["seats"]]
        fields["offers"] = [Offer(**offer) for offer in fields.get("offers", [])]
        if fields["phase"] not in PHASES:
            raise ValueError(f"unknown phase {fields['phase']!r}")
        return cls(**fields)


def _seat(data: JSON) -> Seat:
    draft = data.get("draft")
    return Seat(**{**data, "draft": None if draft is None else Draft(**draft)})

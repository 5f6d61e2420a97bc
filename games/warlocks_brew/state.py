"""Warlock's Brew state: plain data, dumped to and loaded from JSON."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Literal

from games.protocol import JSON

Phase = Literal["bid", "last_call", "over"]
PHASES: tuple[Phase, ...] = ("bid", "last_call", "over")


@dataclass(slots=True)
class Seat:
    name: str
    dealt: list[int]  # the coins this seat was dealt, for the conservation check
    hand: list[int]  # sorted
    front: list[int] = field(default_factory=list)  # sorted; spent until they return
    table: list[int] = field(default_factory=list)  # revealed bids of earlier rebid rounds
    brew: list[str] = field(default_factory=list)  # ingredients won, in order
    eliminated: bool = False  # Utter Darkness: a wrong declaration

    def clone(self) -> Seat:
        return replace(
            self,
            dealt=list(self.dealt),
            hand=list(self.hand),
            front=list(self.front),
            table=list(self.table),
            brew=list(self.brew),
        )

    def brew_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(self.brew).items()))

    def has_triple(self) -> bool:
        return any(count >= 3 for count in Counter(self.brew).values())

    def pairs(self) -> int:
        return sum(1 for count in Counter(self.brew).values() if count >= 2)


@dataclass(slots=True)
class State:
    config: dict[str, JSON]
    seats: list[Seat]
    deck: list[str]  # top card first; the card on offer is not in it
    storefront: list[str] = field(default_factory=list)  # set aside, anyone may look
    snakeoil: list[str] = field(default_factory=list)  # set aside, nobody may look
    discarded: list[str] = field(default_factory=list)  # cards removed by ties, public
    auction: int = 0  # the auction under way (1, 2, ...)
    card: str | None = None  # the card on offer
    phase: Phase = "bid"
    round: int = 1  # 2, 3, ... are rebids (no_unique = "rebid")
    rebidders: list[int] = field(default_factory=list)  # seats still bidding in a rebid
    winners: list[int] = field(default_factory=list)
    end_reason: str = ""
    end_detail: str = ""

    def active(self) -> list[int]:
        """Seats still in the game (Utter Darkness eliminates)."""
        return [i for i, seat in enumerate(self.seats) if not seat.eliminated]

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
        )

    def dump(self) -> JSON:
        return asdict(self)

    @classmethod
    def load(cls, data: JSON) -> State:
        fields = copy.deepcopy(dict(data))  # the state must not share lists with its source
        fields["seats"] = [Seat(**seat) for seat in fields["seats"]]
        if fields["phase"] not in PHASES:
            raise ValueError(f"unknown phase {fields['phase']!r}")
        return cls(**fields)

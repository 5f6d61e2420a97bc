"""Potioncraft state: plain data, dumped to and loaded from JSON.

Cards are their catalog names. Decks are lists top first; piles bottom first (the last card is
the top). ``pending`` is the open window with what it needs to finish the action that opened it.
``outcomes`` is not part of the state: a script replay puts the script's random outcomes there
for one ``resolve`` (the chance source takes them instead of drawing from the seed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.plain import copy_json
from games.protocol import JSON

from .cards import POTION_CATEGORIES, POTIONS


@dataclass(slots=True)
class Owned:
    """A potion on a crafting table."""

    name: str
    up: bool = True  # face up: its perk unused
    turn: int = 0  # the turn number it was acquired on (ready on a later turn, AMB 19)

    @property
    def category(self) -> str:
        return POTIONS[self.name].category

    def label(self) -> str:
        return self.name if self.up else f"{self.name} (spent)"


@dataclass(slots=True)
class State:
    config: dict[str, JSON]
    names: list[str]
    hands: list[list[str]]  # each in catalog order
    piles: list[list[str]]
    potions: list[list[Owned]]
    deck: list[str]
    potion_decks: dict[str, list[str]]
    revealed: dict[str, str | None]
    seed: int = 0
    chance: int = 0  # random events drawn so far (each from derive_rng(seed, "chance", n))
    drawn: list[JSON] = field(default_factory=list)  # outcomes of the last resolve, in order
    direction: str = "cw"
    turn: int = 0
    active: int = 0
    actions: int = 0  # main-phase actions taken this turn
    chained: list[str] = field(default_factory=list)
    seal: str | None = None
    skips: list[int] = field(default_factory=list)
    wards: list[int] = field(default_factory=list)
    cauldron: list[bool] = field(default_factory=list)
    mimic_log: list[str] = field(default_factory=list)
    out: list[bool] = field(default_factory=list)  # seats that left
    news: list[str] = field(default_factory=list)  # per seat: a line for its next prompt, or ""
    pending: dict[str, Any] | None = None
    over: bool = False
    winners: list[int] = field(default_factory=list)
    end_reason: str | None = None
    outcomes: list[JSON] | None = None  # script replay only; never dumped

    @property
    def seats(self) -> int:
        return len(self.names)

    def in_play(self) -> list[int]:
        return [seat for seat in range(self.seats) if not self.out[seat]]

    def clone(self) -> State:
        """An independent copy: ``load(dump())``, field by field without the round trip."""
        return State(
            config=dict(self.config),
            names=list(self.names),
            hands=[list(h) for h in self.hands],
            piles=[list(p) for p in self.piles],
            potions=[[Owned(o.name, o.up, o.turn) for o in row] for row in self.potions],
            deck=list(self.deck),
            potion_decks={c: list(self.potion_decks[c]) for c in POTION_CATEGORIES},
            revealed={c: self.revealed[c] for c in POTION_CATEGORIES},
            seed=self.seed,
            chance=self.chance,
            drawn=copy_json(self.drawn),
            direction=self.direction,
            turn=self.turn,
            active=self.active,
            actions=self.actions,
            chained=list(self.chained),
            seal=self.seal,
            skips=list(self.skips),
            wards=list(self.wards),
            cauldron=list(self.cauldron),
            mimic_log=list(self.mimic_log),
            out=list(self.out),
            news=list(self.news),
            pending=copy_json(self.pending),
            over=self.over,
            winners=list(self.winners),
            end_reason=self.end_reason,
            outcomes=None if self.outcomes is None else list(self.outcomes),
        )

    def dump(self) -> JSON:
        return {
            "config": dict(self.config),
            "names": list(self.names),
            "hands": [list(h) for h in self.hands],
            "piles": [list(p) for p in self.piles],
            "potions": [[[o.name, o.up, o.turn] for o in row] for row in self.potions],
            "deck": list(self.deck),
            "potion_decks": {c: list(self.potion_decks[c]) for c in POTION_CATEGORIES},
            "revealed": dict(self.revealed),
            "seed": self.seed,
            "chance": self.chance,
            "drawn": copy_json(self.drawn),
            "direction": self.direction,
            "turn": self.turn,
            "active": self.active,
            "actions": self.actions,
            "chained": list(self.chained),
            "seal": self.seal,
            "skips": list(self.skips),
            "wards": list(self.wards),
            "cauldron": list(self.cauldron),
            "mimic_log": list(self.mimic_log),
            "out": list(self.out),
            "news": list(self.news),
            "pending": copy_json(self.pending),
            "over": self.over,
            "winners": list(self.winners),
            "end_reason": self.end_reason,
        }

    @classmethod
    def load(cls, data: JSON, outcomes: list[JSON] | None = None) -> State:
        fields = dict(data)
        return cls(
            config=dict(fields["config"]),
            names=list(fields["names"]),
            hands=[list(h) for h in fields["hands"]],
            piles=[list(p) for p in fields["piles"]],
            potions=[
                [Owned(str(n), bool(u), int(t)) for n, u, t in row] for row in fields["potions"]
            ],
            deck=list(fields["deck"]),
            potion_decks={c: list(fields["potion_decks"][c]) for c in POTION_CATEGORIES},
            revealed={c: fields["revealed"][c] for c in POTION_CATEGORIES},
            seed=int(fields["seed"]),
            chance=int(fields["chance"]),
            drawn=copy_json(fields["drawn"]),
            direction=str(fields["direction"]),
            turn=int(fields["turn"]),
            active=int(fields["active"]),
            actions=int(fields["actions"]),
            chained=list(fields["chained"]),
            seal=fields["seal"],
            skips=list(fields["skips"]),
            wards=list(fields["wards"]),
            cauldron=list(fields["cauldron"]),
            mimic_log=list(fields["mimic_log"]),
            out=list(fields["out"]),
            news=list(fields.get("news") or [""] * len(fields["names"])),  # older dumps: none
            pending=copy_json(fields["pending"]),
            over=bool(fields["over"]),
            winners=list(fields["winners"]),
            end_reason=fields["end_reason"],
            outcomes=outcomes,
        )

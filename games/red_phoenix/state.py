"""The plain state of a match: a config (never changed after setup, shared between states) and a
game dict of plain JSON values (copied whole by ``clone``)."""

from __future__ import annotations

import marshal
import re
from collections.abc import Mapping, Sequence
from typing import Any

from games.protocol import JSON

from .cards import CardSet, card_set_of

Game = dict[str, Any]  # the mutable part, plain JSON data


class State:
    """One moment of a match. Engines never mutate a state they returned: ``clone`` first."""

    __slots__ = ("cards", "config", "g", "handles", "names")

    def __init__(self, config: Mapping[str, JSON], names: Sequence[str], g: Game) -> None:
        self.config = config
        self.names = list(names)
        self.handles = seat_handles(self.names)
        self.cards: CardSet = card_set_of(config["card_set"])
        self.g = g

    def clone(self) -> State:
        new = State.__new__(State)
        new.config, new.names, new.handles, new.cards = (
            self.config,
            self.names,
            self.handles,
            self.cards,
        )
        new.g = marshal.loads(marshal.dumps(self.g))
        return new

    def dump(self) -> JSON:
        return {
            "config": self.config,
            "names": self.names,
            "game": marshal.loads(marshal.dumps(self.g)),
        }


def seat_handles(names: Sequence[str]) -> list[str]:
    """The word each seat is named by in answers (``trade P2``): its name when every name is a
    valid one-word seat name (§12.2) and they differ, else ``P1``, ``P2``, ..."""
    if all(valid_seat_name(n) for n in names) and len({n.lower() for n in names}) == len(names):
        return list(names)
    return [f"P{i + 1}" for i in range(len(names))]


def valid_seat_name(name: str) -> bool:
    return bool(
        re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,31}", name)
        and not re.fullmatch(r"[FfMm][0-9]+", name)
        and name.lower() not in ("give", "get", "note")
    )


def hand_list(hand: Mapping[str, int]) -> list[str]:
    """A hand (id -> count) as a sorted list of ids."""
    return [card for card in sorted(hand) for _ in range(hand[card])]


def add(counts: dict[str, int], card: str, n: int = 1) -> None:
    counts[card] = counts.get(card, 0) + n


def remove(counts: dict[str, int], card: str, n: int = 1) -> None:
    left = counts[card] - n
    if left < 0:
        raise ValueError(f"no {card} to remove")
    if left:
        counts[card] = left
    else:
        del counts[card]

"""The plain state of a match: a config (never changed after setup, shared between states) and a
game dict of plain JSON values (copied whole by ``clone``).

The game dict's shape is declared below as ``TypedDict`` classes, so the type checker sees every
key the rules read and write; the shape itself is plain JSON (lists, dicts, strings, numbers),
stored and reloaded as it is. Seats are indexes into ``names``.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Mapping, Sequence
from typing import Literal, NotRequired, TypedDict, cast

from games.protocol import JSON

from .cards import CardSet, CardSetJSON, card_set_of

Origin = Literal["market", "supply"]
Level = Literal["I", "II", "III"]
Speed = Literal["fast", "slow"]
Timer = Literal["turn", "reaction"]
WindowKind = Literal["action", "keep", "ward", "trade_response", "discard"]
Status = Literal["waiting", "draw", "keep", "play", "done"]
Phase = Literal["slow", "act", "mon", "limit", "done"]
EndReason = Literal["gold", "last_alive", "round_limit"]


class Config(TypedDict):
    """The options of rules page §16, checked by ``config.parse_config``."""

    card_set: Literal["house"] | CardSetJSON
    seed: NotRequired[int]  # a moderator's chosen deal
    starting_health: int
    starting_coins: int
    ap_per_turn: int
    coins_per_ap: int
    hand_limit: int
    formula_markers: int
    monster_attacks: int
    max_trade_offers: int
    max_rounds: int
    window_s: int
    reaction_window_s: int
    action_timeout: Literal["take_coins", "end"]
    simple_failure: Literal["market", "nothing"]
    consolation_rule: Literal["no_card", "no_success"]


class Experiment(TypedDict):
    """One experiment in a seat's lab (§5), from its declaration to its end."""

    uid: int
    speed: Speed
    method: str
    cards: list[str]  # sorted ingredient ids
    level: int
    value: int
    status: Status
    drawn: list[str]  # result ids in draw order
    kept: list[str]
    pos: int  # the next kept card to play
    met: list[str]  # met success cards, in draw order
    gained: bool  # a card reached the hand (§5.7 consolation)
    keep: NotRequired[list[int]]  # [lo, hi] while its keep window is open
    # what remains of the card just played: ["discard", n] random discards, ["monster", "M1"]
    post: NotRequired[list[str | int]]


class Player(TypedDict):
    alive: bool
    health: int
    coins: int
    hand: dict[str, int]  # card id -> count
    knows: list[str]  # formula ids
    used: list[str]  # item types used this turn
    lab: list[Experiment]
    turns: int


class Formula(TypedDict):
    id: str
    creator: int | None  # None once the creator is eliminated
    level: int
    value: int
    ingredients: list[str]
    results: list[str]
    products: list[str]
    knowers: list[int]  # creator first, then in the order they learned it
    license: int | None
    created: int  # the turn it was made in


class Monster(TypedDict):
    id: str
    card: str
    level: Level
    owner: int
    hp: int
    attacks_left: int
    arrived: int  # the turn it arrived in
    damage: int


class Record(TypedDict):
    """What the current turn has done so far (§3.2 step 3)."""

    repro: list[list[int | str]]  # [seat, formula id] pairs reproduced this turn
    lic: list[str]  # formulas whose licence changed this turn
    offers: int
    traded: bool


class TradeSide(TypedDict):
    cards: dict[str, int]
    formulas: list[str]
    coins: int


class TurnFrame(TypedDict):
    f: Literal["turn"]
    seat: int
    phase: Phase
    todo: NotRequired[list[str]]  # monsters still to attack (phase mon)
    cur: NotRequired[str | None]  # the monster attacking now


class ExpFrame(TypedDict):
    f: Literal["exp"]
    seat: int
    uid: int


class DamageFrame(TypedDict):
    f: Literal["dmg"]
    start: int
    amt: list[int]  # Health to lose, per seat
    order: list[int]  # the seats to ask to ward, clockwise from start
    i: int  # the next of them
    warded: list[int]
    src: str  # the event's cause, in words


class TradeFrame(TypedDict):
    f: Literal["trade"]
    to: int
    give: TradeSide
    get: TradeSide
    note: str


class DiscardFrame(TypedDict):
    f: Literal["discard"]
    seat: int
    timer: Timer
    n: int


Frame = TurnFrame | ExpFrame | DamageFrame | TradeFrame | DiscardFrame


class Pending(TypedDict):
    """The open window."""

    seat: int
    kind: WindowKind
    timer: Timer


class Chance(TypedDict):
    """Every random outcome: drawn from ``seed`` and recorded (a live match), or taken in order
    from a script's lists (``seed`` None, ``ri`` and ``pi`` the next to take)."""

    seed: int | None
    n: int  # draws so far
    reshuffles: dict[str, list[list[str]]]
    picks: list[str]
    ri: dict[str, int]
    pi: int


class Game(TypedDict):
    """The mutable part of a state, plain JSON data."""

    turn: int
    active: int
    first: int
    ap: int
    boost: int
    players: list[Player]
    market: dict[str, int]
    supply: dict[str, int]
    decks: dict[str, list[str]]  # level -> top card first
    discards: dict[str, list[str]]
    formulas: list[Formula]
    monsters: list[Monster]
    nf: int  # the next formula number
    nm: int  # the next monster number
    nx: int  # the next experiment uid
    rec: Record
    stack: list[Frame]  # the innermost last
    pending: Pending | None
    over: bool
    winners: list[int]
    end_reason: EndReason | None
    chance: Chance
    drawn: list[list[str]]  # [level, id] drawn during the step
    private: list[list[int | str]]  # [seat, line]: this step's private results


def as_config(config: Mapping[str, JSON]) -> Config:
    """A config ``parse_config`` has checked, with its shape for the type checker."""
    return cast(Config, config)


class State:
    """One moment of a match. Engines never mutate a state they returned: ``clone`` first."""

    __slots__ = ("cards", "config", "g", "handles", "names")

    def __init__(self, config: Mapping[str, JSON], names: Sequence[str], g: Game) -> None:
        self.config = as_config(config)
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
        new.g = copy_game(self.g)
        return new

    def dump(self) -> JSON:
        return {
            "config": self.config,
            "names": self.names,
            "game": copy_game(self.g),
        }

    def pile(self, card: str) -> dict[str, int]:
        """The market or supply stack a card comes from and goes back to (its origin)."""
        return pile(self.g, self.cards.origin(card))


def copy_game(g: Game) -> Game:
    """A deep copy (marshal is the fastest for plain JSON data)."""
    copied: Game = marshal.loads(marshal.dumps(g))  # type: ignore[arg-type]
    return copied


def pile(g: Game, origin: Origin) -> dict[str, int]:
    return g["market"] if origin == "market" else g["supply"]


def turn_frame(g: Game) -> TurnFrame:
    frame = g["stack"][-1]
    assert frame["f"] == "turn", frame["f"]
    return frame


def damage_frame(g: Game) -> DamageFrame:
    frame = g["stack"][-1]
    assert frame["f"] == "dmg", frame["f"]
    return frame


def trade_frame(g: Game) -> TradeFrame:
    frame = g["stack"][-1]
    assert frame["f"] == "trade", frame["f"]
    return frame


def discard_frame(g: Game) -> DiscardFrame:
    frame = g["stack"][-1]
    assert frame["f"] == "discard", frame["f"]
    return frame


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

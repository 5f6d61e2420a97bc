"""Floral Extract's state: plain data, dumped to and loaded from JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from games.protocol import JSON, ConfigError
from games.text import excerpt

from .books import is_per_seat
from .effects import WINDOW_MODULUS, effects_table, window_code, window_runes
from .rules import (
    ADVANTAGE_SYMBOLS,
    OTHER_SYMBOLS,
    POTS,
    SEAT_NAMES,
    WEATHER_BY_NAME,
    WEATHER_NAMES,
    Flower,
)

HISTORY_KEEP = 6  # the longest guessing window

Entry = int | str
"""A cast in a history: an own identity (int) or a declared opponent symbol (str)."""


@dataclass(slots=True)
class Player:
    symbols: str
    identity: dict[str, int]  # own symbol -> identity: the secret rune map
    pots: list[Flower | None] = field(default_factory=lambda: [None] * POTS)
    planted: str = ""  # flower codes ever planted, in order
    blooms: int = 0
    points: int = 0
    wrong_since_correct: int = 0
    charge: int = 0
    # Tuples, replaced rather than changed, so copying a player every turn can share them.
    correct_pairs: tuple[tuple[str, int], ...] = ()
    score_turns: tuple[int, ...] = ()  # the turn of each point, for the tie-break
    history: tuple[Entry, ...] = ()  # the last casts of H, oldest first
    # The basic-spell window (effects.py): the last non-stall own runes since the last
    # declaration, at most 5, as a base-8 number with the newest rune in the lowest digit.
    window: int = 0
    symbol_of: list[str] = field(default_factory=list)  # identity -> own symbol (derived)

    def __post_init__(self) -> None:
        if not self.symbol_of:
            self.symbol_of = [""] * 8
            for symbol, ident in self.identity.items():
                self.symbol_of[ident] = symbol

    @property
    def stalled_last(self) -> bool:
        """Whether the last cast was the stall: V1 forbids another one now."""
        return bool(self.history) and self.history[-1] == 0

    @property
    def can_plant(self) -> bool:
        return None in self.pots and len(self.planted) < 5

    def dump(self) -> JSON:
        return {
            "symbols": self.symbols,
            "identity": dict(self.identity),
            "pots": [_dump_flower(f) for f in self.pots],
            "planted": self.planted,
            "blooms": self.blooms,
            "points": self.points,
            "wrong_since_correct": self.wrong_since_correct,
            "charge": self.charge,
            "correct_pairs": [list(p) for p in self.correct_pairs],
            "score_turns": list(self.score_turns),
            "history": list(self.history),
            "window": window_runes(self.window),
        }

    @classmethod
    def load(cls, data: JSON) -> Player:
        return cls(
            symbols=data["symbols"],
            identity=dict(data["identity"]),
            pots=[_load_flower(f) for f in data["pots"]],
            planted=data["planted"],
            blooms=data["blooms"],
            points=data["points"],
            wrong_since_correct=data["wrong_since_correct"],
            charge=data["charge"],
            correct_pairs=tuple((s, i) for s, i in data["correct_pairs"]),
            score_turns=tuple(data["score_turns"]),
            history=tuple(data["history"]),
            window=window_code(data["window"]),
        )

    def copy(self) -> Player:
        """A deep copy; written out because resolving copies both players every turn."""
        new = Player.__new__(Player)
        new.symbols = self.symbols
        new.identity = self.identity  # never changes after setup
        new.symbol_of = self.symbol_of
        first, second, third = self.pots  # unrolled: this runs twice every turn
        new.pots = [first and first.copy(), second and second.copy(), third and third.copy()]
        new.planted = self.planted
        new.blooms = self.blooms
        new.points = self.points
        new.wrong_since_correct = self.wrong_since_correct
        new.charge = self.charge
        new.correct_pairs = self.correct_pairs
        new.score_turns = self.score_turns
        new.history = self.history
        new.window = self.window
        return new

    def push_rune(self, identity: int) -> None:
        """An own non-stall rune enters the basic-spell window."""
        self.window = (self.window * 8 + identity) % WINDOW_MODULUS

    def push_history(self, entry: Entry) -> None:
        self.history = (*self.history[1 - HISTORY_KEEP :], entry)


def _dump_flower(flower: Flower | None) -> JSON:
    if flower is None:
        return None
    return [
        flower.code,
        flower.stage,
        flower.prev_watered,
        flower.prev_grew,
        flower.dry_turns,
        flower.combos,
    ]


def _load_flower(data: JSON) -> Flower | None:
    if data is None:
        return None
    code, stage, prev_watered, prev_grew, dry_turns, combos = data
    return Flower(code, stage, prev_watered, prev_grew, dry_turns, combos)


Phase = Literal["plant", "cast", "over"]


@dataclass(slots=True)
class State:
    config: dict[str, JSON]  # parsed config with a concrete spellbook and maps
    players: list[Player]
    weather: int
    turns_completed: int = 0
    phase: Phase = "plant"
    winner: int | None = None
    end_reason: str | None = None
    effects: tuple[bytes, ...] = ()  # per seat: effects.effects_table of its spellbook

    def __post_init__(self) -> None:
        if not self.effects:
            self.effects = compile_books(self.config["spellbook"])

    @property
    def advantage(self) -> int:
        return SEAT_NAMES.index(self.config["advantage"])

    @property
    def sliding(self) -> bool:
        return bool(self.config["azalea_shrink_mode"] == "sliding")

    def dump(self) -> JSON:
        return {
            "config": self.config,
            "players": [p.dump() for p in self.players],
            "weather": WEATHER_NAMES[self.weather],
            "turns_completed": self.turns_completed,
            "phase": self.phase,
            "winner": self.winner,
            "end_reason": self.end_reason,
        }

    def copy(self) -> State:
        """A deep copy; written out because resolving copies the state every turn."""
        new = State.__new__(State)
        new.config = self.config  # never changes after setup
        first, second = self.players
        new.players = [first.copy(), second.copy()]
        new.weather = self.weather
        new.turns_completed = self.turns_completed
        new.phase = self.phase
        new.winner = self.winner
        new.end_reason = self.end_reason
        new.effects = self.effects
        return new

    @classmethod
    def load(cls, data: JSON) -> State:
        return cls(
            config=data["config"],
            players=[Player.load(p) for p in data["players"]],
            weather=WEATHER_BY_NAME[data["weather"]],
            turns_completed=data["turns_completed"],
            phase=data["phase"],
            winner=data["winner"],
            end_reason=data["end_reason"],
        )


def per_seat_books(raw: JSON) -> list[JSON]:
    """A shared book (the default) or one book per seat: ``{"P1": {...}, "P2": {...}}``."""
    if is_per_seat(raw):
        return [raw[name] for name in SEAT_NAMES]
    return [raw, raw]


def book_field(raw: JSON, seat: int) -> str:
    """The field a refusal of ``seat``'s book names: ``spellbook``, or ``spellbook.P1``."""
    return f"spellbook.{SEAT_NAMES[seat]}" if is_per_seat(raw) else "spellbook"


def compile_books(raw: JSON) -> tuple[bytes, ...]:
    """Each seat's effects table: a shared book or one book per seat."""
    return tuple(
        effects_table(book, book_field(raw, seat)) for seat, book in enumerate(per_seat_books(raw))
    )


def alphabets(advantage: int) -> list[str]:
    """Each seat's own symbols: the advantage player owns A-H."""
    return [ADVANTAGE_SYMBOLS if seat == advantage else OTHER_SYMBOLS for seat in range(2)]


def check_map(raw: JSON, symbols: str, field_name: str) -> dict[str, int]:
    """A rune map must be a bijection from the seat's 8 symbols onto 0..7."""
    if not isinstance(raw, dict):
        raise ConfigError(field_name, "must map each of the 8 symbols to an identity")
    keys = {str(k).upper() for k in raw}
    if keys != set(symbols):
        raise ConfigError(field_name, f"must have exactly the symbols {symbols}")
    rune_map = {str(k).upper(): v for k, v in raw.items()}
    for symbol, ident in rune_map.items():
        if isinstance(ident, bool) or not isinstance(ident, int) or not 0 <= ident <= 7:
            raise ConfigError(
                f"{field_name}.{symbol}", f"must be an identity 0-7, got {excerpt(ident)}"
            )
    if sorted(rune_map.values()) != list(range(8)):
        raise ConfigError(field_name, "is not a bijection: every identity 0-7 must appear once")
    return {s: rune_map[s] for s in symbols}

"""Floral Extract's constants and the growth of each flower (rules §8-§9)."""

from __future__ import annotations

from dataclasses import dataclass

SUNNY, CHILLY, RAINY = 1, 2, 3
WEATHER_NAMES = {SUNNY: "sunny", CHILLY: "chilly", RAINY: "rainy"}
WEATHER_BY_NAME = {name: value for value, name in WEATHER_NAMES.items()}

FLOWERS = "ACHWX"
FLOWER_NAMES = {
    "A": "Azalea",
    "C": "Chrysanthemum",
    "H": "Hyacinth",
    "W": "Wisteria",
    "X": "Xanthium",
}
BLOOM_AT = {"A": 8, "C": 30, "H": 15, "W": 7, "X": 6}
POTS = 3

ADVANTAGE_SYMBOLS = "ABCDEFGH"
OTHER_SYMBOLS = "STUVWXYZ"
SEAT_NAMES = ("P1", "P2")

WIN_POINTS = 4
PHASE_TURNS = 5
SABOTAGE_POT = {8: 1, 10: 2, 12: 3}


def spell_x(turn: int) -> int:
    """X(t) of the basic spells: 1, 2, 3, 1, 2, 3, ... from turn 1."""
    return (turn - 1) % 3 + 1


@dataclass(slots=True)
class Flower:
    """One flower in a pot, with the memory its growth rule needs."""

    code: str
    stage: int = 0
    prev_watered: bool = False  # Azalea: watered on its previous turn
    prev_grew: bool = True  # Azalea (sliding): grew on its previous turn; a new one "did"
    dry_turns: int = 0  # Azalea (reset): consecutive turns without growth
    combos: int = 0  # Xanthium: bit set of the (weather, watered, fertilized) seen

    def copy(self) -> Flower:
        new = Flower.__new__(Flower)  # skips __init__: copying runs for every flower every turn
        new.code = self.code
        new.stage = self.stage
        new.prev_watered = self.prev_watered
        new.prev_grew = self.prev_grew
        new.dry_turns = self.dry_turns
        new.combos = self.combos
        return new

    def grow(self, weather: int, watered: bool, fertilized: bool, sliding: bool) -> None:
        """One end-of-turn growth step (§9), stage floored at 0."""
        GROWTH[self.code](self, weather, watered, fertilized, sliding)

    @property
    def bloomed(self) -> bool:
        return self.stage >= BLOOM_AT[self.code]


def _azalea(f: Flower, weather: int, watered: bool, fertilized: bool, sliding: bool) -> None:
    grew = weather != CHILLY and not (watered and f.prev_watered)
    if grew:
        f.stage += 1
    if sliding:
        # the literal "did not grow this turn and the previous one": -1 on every such turn
        if not grew and not f.prev_grew:
            f.stage = max(0, f.stage - 1)
        f.prev_grew = grew
    else:
        # reset reading: -1 on every second consecutive non-growth turn
        f.dry_turns = 0 if grew else f.dry_turns + 1
        if f.dry_turns == 2:
            f.stage = max(0, f.stage - 1)
            f.dry_turns = 0
    f.prev_watered = watered


def _chrysanthemum(f: Flower, weather: int, watered: bool, fertilized: bool, sliding: bool) -> None:
    # erratum: watered means 0 -> 3, so +1 base, +2 water, +3 fertilizer
    f.stage += 1 + 2 * watered + 3 * fertilized


def _hyacinth(f: Flower, weather: int, watered: bool, fertilized: bool, sliding: bool) -> None:
    if weather == SUNNY:
        f.stage += 2
    elif weather == CHILLY:
        f.stage = max(0, f.stage - 1)


def _wisteria(f: Flower, weather: int, watered: bool, fertilized: bool, sliding: bool) -> None:
    if weather == CHILLY:
        return
    s = f.stage
    if s == 0 or ((s % 2 == 1 or watered) and (s % 3 != 0 or fertilized)):
        f.stage += 1


def _xanthium(f: Flower, weather: int, watered: bool, fertilized: bool, sliding: bool) -> None:
    bit = 1 << ((weather - 1) * 4 + watered * 2 + fertilized)
    if not f.combos & bit:
        f.combos |= bit
        f.stage += 1


GROWTH = {
    "A": _azalea,
    "C": _chrysanthemum,
    "H": _hyacinth,
    "W": _wisteria,
    "X": _xanthium,
}

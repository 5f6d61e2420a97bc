"""Spell conditions and spellbooks: the JSON form, validation and fast evaluation.

A condition looks at a window of the last ``n`` (3..5) own non-stall identities, oldest first.
Conditions are compiled into lookup tables indexed by the window read as a base-8 number (newest
identity in the lowest digit), so evaluating a spell during play is one index operation.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from games.protocol import JSON, ConfigError
from games.text import excerpt, field_name

SPELLS = ("water", "fertilize", "weather")
IDENTITIES = range(8)
MAX_CONDITIONS = 12  # of one spell, joined with |: any one of them triggers it
OPS: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    "=": operator.eq,
    ">=": operator.ge,
    ">": operator.gt,
}


@dataclass(frozen=True, slots=True)
class SetCondition:
    """Every one of the last n runes is in ``members`` (repeats allowed)."""

    n: int
    members: tuple[int, ...]
    type: Literal["set"] = "set"

    def holds(self, window: Sequence[int]) -> bool:
        return all(v in self.members for v in window)

    def to_json(self) -> JSON:
        return {"type": "set", "n": self.n, "set": list(self.members)}


@dataclass(frozen=True, slots=True)
class SumCondition:
    """The last n runes add up to a total within lo..hi, inclusive."""

    n: int
    lo: int
    hi: int
    type: Literal["sum"] = "sum"

    def holds(self, window: Sequence[int]) -> bool:
        return self.lo <= sum(window) <= self.hi

    def to_json(self) -> JSON:
        return {"type": "sum", "n": self.n, "lo": self.lo, "hi": self.hi}


@dataclass(frozen=True, slots=True)
class ChainCondition:
    """``v1 o1 v2 o2 ... vn`` holds, read from the oldest rune to the newest."""

    n: int
    ops: tuple[str, ...]
    type: Literal["chain"] = "chain"

    def holds(self, window: Sequence[int]) -> bool:
        return all(OPS[op](a, b) for op, a, b in zip(self.ops, window, window[1:], strict=False))

    def to_json(self) -> JSON:
        return {"type": "chain", "n": self.n, "ops": list(self.ops)}


Condition = SetCondition | SumCondition | ChainCondition


@dataclass(frozen=True, slots=True)
class Spellbook:
    """Each basic spell with its conditions; any one of them triggers the spell."""

    water: tuple[Condition, ...]
    fertilize: tuple[Condition, ...]
    weather: tuple[Condition, ...]

    def conditions(self, spell: str) -> tuple[Condition, ...]:
        result: tuple[Condition, ...] = getattr(self, spell)
        return result

    def to_json(self) -> JSON:
        def one(conds: tuple[Condition, ...]) -> JSON:
            return conds[0].to_json() if len(conds) == 1 else [c.to_json() for c in conds]

        return {spell: one(self.conditions(spell)) for spell in SPELLS}


# --- parsing the JSON form ------------------------------------------------------------------


def _int(value: JSON, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(field, f"must be a whole number, got {excerpt(value)}")
    if not lo <= value <= hi:
        raise ConfigError(field, f"must be between {lo} and {hi}, got {excerpt(value)}")
    return value


def parse_condition(raw: JSON, field: str) -> Condition:
    """One condition from its JSON form; ConfigError names the bad field."""
    if not isinstance(raw, Mapping):
        raise ConfigError(field, "must be an object with a type: set, sum or chain")
    kind = raw.get("type")
    expected = {"set": {"n", "set"}, "sum": {"n", "lo", "hi"}, "chain": {"n", "ops"}}
    if not isinstance(kind, str) or kind not in expected:
        raise ConfigError(f"{field}.type", f"must be set, sum or chain, got {excerpt(kind)}")
    unknown = set(raw) - expected[kind] - {"type"}
    if unknown:
        name = field_name(sorted(map(str, unknown))[0])
        raise ConfigError(f"{field}.{name}", f"is not a field of a {kind} condition")
    missing = expected[kind] - set(raw)
    if missing:
        raise ConfigError(f"{field}.{sorted(missing)[0]}", "is missing")
    n = _int(raw["n"], f"{field}.n", 3, 5)
    if kind == "set":
        return _parse_set(raw["set"], n, f"{field}.set")
    if kind == "sum":
        lo = _int(raw["lo"], f"{field}.lo", 0, 7 * n)
        hi = _int(raw["hi"], f"{field}.hi", 0, 7 * n)
        if lo > hi:
            raise ConfigError(f"{field}.lo", f"the range {lo}-{hi} is inverted")
        return SumCondition(n, lo, hi)
    return _parse_chain(raw["ops"], n, f"{field}.ops")


def _parse_set(raw: JSON, n: int, field: str) -> SetCondition:
    if not isinstance(raw, list) or not 3 <= len(raw) <= 5:
        raise ConfigError(field, "must list 3 to 5 identities")
    members = [_int(v, f"{field}[{i}]", 0, 7) for i, v in enumerate(raw)]
    if len(set(members)) != len(members):
        raise ConfigError(field, "lists an identity twice")
    return SetCondition(n, tuple(sorted(members)))


def _parse_chain(raw: JSON, n: int, field: str) -> ChainCondition:
    if not isinstance(raw, list) or len(raw) != n - 1:
        raise ConfigError(field, f"must list exactly {n - 1} operators for {n} runes")
    ops = []
    for i, op in enumerate(raw):
        op = ALIASES.get(op, op) if isinstance(op, str) else None
        if op not in OPS:
            raise ConfigError(f"{field}[{i}]", f"must be one of < <= = >= >, got {excerpt(raw[i])}")
        ops.append(op)
    return ChainCondition(n, tuple(ops))


ALIASES = {"≤": "<=", "≥": ">=", "==": "="}


def check_conditions(count: int, field: str) -> None:
    """A spell has 1 to ``MAX_CONDITIONS`` conditions: a house bound that keeps setting up a
    match and every step cheap (a book of 2,000 stalled the setup for 2 s)."""
    if count > MAX_CONDITIONS:
        raise ConfigError(field, f"has {count} conditions; at most {MAX_CONDITIONS}")


def parse_spellbook(raw: JSON, field: str = "spellbook") -> Spellbook:
    """A spellbook from its JSON form: each spell one condition or a list of them."""
    if not isinstance(raw, Mapping):
        raise ConfigError(field, "must be an object with water, fertilize and weather")
    unknown = set(raw) - set(SPELLS)
    if unknown:
        name = field_name(sorted(map(str, unknown))[0])
        raise ConfigError(f"{field}.{name}", "is not a basic spell")
    spells: dict[str, tuple[Condition, ...]] = {}
    for spell in SPELLS:
        if spell not in raw:
            raise ConfigError(f"{field}.{spell}", "is missing")
        value = raw[spell]
        if isinstance(value, list):
            if not value:
                raise ConfigError(f"{field}.{spell}", "needs at least one condition")
            check_conditions(len(value), f"{field}.{spell}")
            spells[spell] = tuple(
                parse_condition(c, f"{field}.{spell}[{i}]") for i, c in enumerate(value)
            )
        else:
            spells[spell] = (parse_condition(value, f"{field}.{spell}"),)
    return Spellbook(**spells)


# --- compiled form ----------------------------------------------------------------------


def window_code(window: Sequence[int]) -> int:
    """The window (oldest first) as a base-8 number with the newest rune in the lowest digit."""
    code = 0
    for v in window:
        code = code * 8 + v
    return code


@lru_cache(maxsize=512)
def table(condition: Condition) -> bytes:
    """For every window of ``condition.n`` identities, 1 if the condition holds there."""
    out = bytearray(8**condition.n)
    for code in holding_codes(condition):
        out[code] = 1
    return bytes(out)


@lru_cache(maxsize=512)
def holding_codes(condition: Condition, identities: range = IDENTITIES) -> tuple[int, ...]:
    """The codes of the windows of ``identities`` where the condition holds, built one rune at
    a time (oldest first) and pruned as soon as a prefix cannot hold: much quicker than testing
    every window."""
    partial = [(0, 0, 0)]  # (code so far, its newest rune, its total)
    for k in range(condition.n):
        partial = [
            (code * 8 + v, v, total + v)
            for code, last, total in partial
            for v in identities
            if _extends(condition, k, last, total, v)
        ]
    return tuple(code for code, _, _ in partial)


def _extends(condition: Condition, k: int, last: int, total: int, v: int) -> bool:
    """Whether rune ``v`` in position ``k`` (0 = oldest) keeps the prefix able to hold."""
    if isinstance(condition, SetCondition):
        return v in condition.members
    if isinstance(condition, SumCondition):
        runes_left = condition.n - k - 1
        return condition.lo <= total + v + 7 * runes_left and total + v <= condition.hi
    return k == 0 or OPS[condition.ops[k - 1]](last, v)


@dataclass(frozen=True, slots=True)
class CompiledSpell:
    """A spell's conditions as (n, modulus, table) triples for quick evaluation."""

    checks: tuple[tuple[int, int, bytes], ...]

    def fires(self, code: int, clean: int) -> bool:
        """Whether any condition holds for the window ``code`` with ``clean`` usable runes."""
        for n, modulus, lookup in self.checks:  # noqa: SIM110 (a loop beats any() here)
            if clean >= n and lookup[code % modulus]:
                return True
        return False


def compile_spell(conditions: Sequence[Condition]) -> CompiledSpell:
    return CompiledSpell(tuple((c.n, 8**c.n, table(c)) for c in conditions))


# --- validation warnings ----------------------------------------------------------------


def trigger_share(condition: Condition) -> float:
    """The share of all windows of non-stall identities (1..7) on which the condition holds."""
    codes = _usable_codes(condition.n)
    return sum(map(table(condition).__getitem__, codes)) / len(codes)


@lru_cache(maxsize=8)
def _usable_codes(n: int) -> tuple[int, ...]:
    """The codes of every window of n non-stall identities."""
    return tuple(window_code(w) for w in itertools.product(range(1, 8), repeat=n))


ALMOST_ALWAYS = 0.5


def warnings(book: Spellbook) -> list[str]:
    """Conditions that can never trigger, or that hold on most windows."""
    found = []
    for spell in SPELLS:
        for condition in book.conditions(spell):
            share = trigger_share(condition)
            if share == 0:
                found.append(
                    f"{spell}: {describe(condition)} can never trigger "
                    "(stalls never enter the window, so identity 0 never counts)"
                )
            elif share >= ALMOST_ALWAYS:
                found.append(
                    f"{spell}: {describe(condition)} holds on {share:.0%} of windows: "
                    "it would fire almost every turn"
                )
    return found


def describe(condition: Condition) -> str:
    """The condition in the moderators' text form, e.g. ``set 3 {1,2,3}``."""
    if isinstance(condition, SetCondition):
        return f"set {condition.n} {{{','.join(map(str, condition.members))}}}"
    if isinstance(condition, SumCondition):
        return f"sum {condition.n} {condition.lo}-{condition.hi}"
    return f"chain {condition.n} {' '.join(condition.ops)}"

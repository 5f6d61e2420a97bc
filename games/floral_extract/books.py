"""Spellbooks for moderators: the short text form, presets, checks and a random generator.

The text form puts each spell's name, a colon and its conditions; spells are separated by ``;``,
new lines or plain spaces, and ``|`` joins several conditions of one spell (any one triggers it)::

    water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <=

Per-player books put ``P1:`` and ``P2:`` in front of each player's three spells.

Trigger rates are measured under *random casting*: every turn a player casts one of the identities
allowed (0-7 uniformly, never 0 twice in a row), so 1 turn in 9 is a stall and the non-stall runes
are independent and uniform over 1-7. ``expected_rates`` is that model's exact long-run answer,
``trigger_rates`` simulates it through the engine's own lookup tables.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from games.protocol import JSON, ConfigError
from games.text import EXCERPT_CHARS, excerpt, read_number

from .rules import SEAT_NAMES
from .spellbook import (
    ALIASES,
    OPS,
    SPELLS,
    ChainCondition,
    Condition,
    SetCondition,
    Spellbook,
    SumCondition,
    check_conditions,
    compile_spell,
    describe,
    parse_condition,
    parse_spellbook,
    warnings,
)

# Package data, so an installed (non-editable) package has its presets too.
PRESET_DIR: Traversable = files("games.floral_extract") / "presets"
EXAMPLE = "water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <"

# Per-turn trigger rates (random casting) a spell should fall in; outside it check() warns.
BAND = (0.02, 0.25)
# Generated books aim inside the band, so none sits on its edge.
TARGET = (0.04, 0.20)
# A generated spell may share at most this part of the rarer spell's windows with another spell.
MAX_OVERLAP = 0.5
# Under random casting 1 turn in 9 is a stall, which evaluates no basic spell.
NON_STALL_SHARE = 8 / 9


@dataclass(frozen=True, slots=True)
class SeatBooks:
    """One spellbook per player (allowed by AMBIGUITY 20; the default is one shared book)."""

    books: tuple[Spellbook, Spellbook]

    def to_json(self) -> JSON:
        return {seat: book.to_json() for seat, book in zip(SEAT_NAMES, self.books, strict=True)}


Book = Spellbook | SeatBooks


def is_per_seat(raw: JSON) -> bool:
    """Whether a spellbook value gives each seat its own book (``{"P1": …, "P2": …}``) rather
    than one shared book (the two may still be alike)."""
    return isinstance(raw, dict) and set(raw) == set(SEAT_NAMES)


def from_json(raw: JSON) -> Book:
    """A shared book, or one per seat (``{"P1": {...}, "P2": {...}}``), from its JSON form."""
    if is_per_seat(raw):
        first, second = (parse_spellbook(raw[s], f"spellbook.{s}") for s in SEAT_NAMES)
        return SeatBooks((first, second))
    return parse_spellbook(raw)


# --- resolving a config value -------------------------------------------------------------


def resolve_text(value: str, rng: random.Random, field: str = "spellbook") -> Book:
    """A string spellbook config value: ``random``, a preset name, or the text form."""
    if value.strip().lower() == "random":
        return random_spellbook(rng)
    preset = preset_named(value)
    if preset is not None:
        return load_preset(preset)
    if ":" not in value:
        raise ConfigError(
            field,
            f"{excerpt(value.strip())} is not 'random', a preset ({', '.join(preset_names())}) "
            f"or a spellbook such as {EXAMPLE!r}",
        )
    return parse_text(value, field)


def seat_presets(value: JSON) -> dict[str, str]:
    """The seats a per-player value gives a preset's name (JSON ``{"P1": "classic", …}`` or
    text ``P1: classic; P2: gentle``), each with its preset; nothing for any other value."""
    if isinstance(value, str):
        try:
            sections = _sections(value, "spellbook")
        except ConfigError:
            return {}
        named = {seat: body for seat, body in sections if seat in SEAT_NAMES}
    elif is_per_seat(value):
        named = {seat: value[seat] for seat in SEAT_NAMES if isinstance(value[seat], str)}
    else:
        return {}
    presets = {seat: preset_named(str(name)) for seat, name in named.items()}
    return {seat: preset for seat, preset in presets.items() if preset is not None}


# --- the text form --------------------------------------------------------------------------

# A header starts a word (the look-behind keeps the scan linear on long words).
_HEADER = re.compile(r"(?<![\w-])([A-Za-z][\w-]*)\s*:")
_SPELL_NAMES = {name: name for name in SPELLS} | {"fertilise": "fertilize"}
_SEATS = {seat.lower(): seat for seat in SEAT_NAMES}
_SEPARATORS = " \t\r\n;"

Section = tuple[str, str]  # (spell or seat name, the text after its colon)


def parse_text(text: str, field: str = "spellbook") -> Book:
    """A spellbook (or per-player books) from the text form; ConfigError names the bad spell."""
    sections = _sections(text, field)
    if any(name in SEAT_NAMES for name, _ in sections):
        return _seat_books(sections, field)
    return _book(sections, field)


def format_text(book: Book) -> str:
    """The text form, one spell per line (the same as ``render.spellbook_text``)."""
    if isinstance(book, SeatBooks):
        return "\n".join(
            f"{seat}: {format_text(one)}" for seat, one in zip(SEAT_NAMES, book.books, strict=True)
        )
    return "\n".join(
        f"{spell}: {' | '.join(describe(c) for c in book.conditions(spell))}" for spell in SPELLS
    )


def _sections(text: str, field: str) -> list[Section]:
    if not text.strip():
        raise ConfigError(field, f"is empty; write for example {EXAMPLE!r}")
    headers = list(_HEADER.finditer(text))
    head = text[: headers[0].start()] if headers else text
    if head.strip(_SEPARATORS):
        raise ConfigError(field, f"expected a spell name such as 'water:' first, got {_clip(head)}")
    sections = []
    for header, following in itertools.zip_longest(headers, headers[1:]):
        name = header.group(1).lower()
        if name not in _SPELL_NAMES and name not in _SEATS:
            raise ConfigError(
                field,
                f"{_clip(header.group(1))} is not a spell: the spells are water, fertilize, "
                "weather",
            )
        end = following.start() if following else len(text)
        body = text[header.end() : end].strip(_SEPARATORS)
        sections.append((_SEATS.get(name) or _SPELL_NAMES[name], body))
    return sections


def _seat_books(sections: list[Section], field: str) -> SeatBooks:
    if sections[0][0] not in SEAT_NAMES:
        raise ConfigError(field, "per-player books put every spell under P1: or P2:")
    groups: dict[str, list[Section]] = {}
    for name, body in sections:
        if name in SEAT_NAMES:
            if name in groups:
                raise ConfigError(f"{field}.{name}", "is given twice")
            if body and preset_named(body) is None:
                raise ConfigError(
                    f"{field}.{name}",
                    f"expected 'water:' or another spell, or a preset, got {_clip(body)}",
                )
            current = groups[name] = [(name, body)] if body else []
        elif current and current[0][0] in SEAT_NAMES:
            raise ConfigError(f"{field}.{current[0][0]}", "gives a preset and spells: pick one")
        else:
            current.append((name, body))
    for seat in SEAT_NAMES:
        if seat not in groups:
            raise ConfigError(f"{field}.{seat}", "is missing: per-player books need P1: and P2:")
    p1, p2 = (_seat_book(groups[seat], f"{field}.{seat}") for seat in SEAT_NAMES)
    return SeatBooks((p1, p2))


def _seat_book(sections: list[Section], field: str) -> Spellbook:
    """One player's book: its spells, or a preset's name (``P1: classic``)."""
    if sections and sections[0][0] in SEAT_NAMES:
        return load_preset(sections[0][1])
    return _book(sections, field)


def _book(sections: Sequence[Section], field: str) -> Spellbook:
    spells: dict[str, tuple[Condition, ...]] = {}
    for name, body in sections:
        if name in spells:
            raise ConfigError(f"{field}.{name}", "is given twice; join its conditions with |")
        spells[name] = _conditions(body, f"{field}.{name}")
    for spell in SPELLS:
        if spell not in spells:
            raise ConfigError(f"{field}.{spell}", f"is missing; write for example {EXAMPLE!r}")
    return Spellbook(**spells)


def _conditions(body: str, field: str) -> tuple[Condition, ...]:
    if not body:
        raise ConfigError(field, "has no condition; write for example set 3 {1,2,3}")
    parts = body.split("|")
    check_conditions(len(parts), field)
    if len(parts) == 1:
        return (parse_condition_text(body, field),)
    return tuple(parse_condition_text(part, f"{field}[{i}]") for i, part in enumerate(parts))


_KIND = re.compile(r"([A-Za-z]+)\s*(.*)", re.DOTALL)  # matched on stripped text
_LENGTH = re.compile(r"([0-9]+)\s*(.*)", re.DOTALL)
_BRACES = re.compile(r"\{([^{}]*)\}")
_RANGE = re.compile(r"([0-9]+)\s*(?:-|–|—|\.\.)\s*([0-9]+)")
_OP = re.compile(r"<=|>=|==|≤|≥|<|>|=")
_EXAMPLES = {"set": "set 3 {1,2,3}", "sum": "sum 3 19-21", "chain": "chain 3 < <"}


def parse_condition_text(text: str, field: str = "condition") -> Condition:
    """One condition such as ``set 3 {1,2,3}``, ``sum 3 19-21`` or ``chain 3 < <=``."""
    if not text.strip():
        raise ConfigError(field, "has an empty condition (nothing around a |)")
    match = _KIND.fullmatch(text.strip())
    kind = match.group(1).lower() if match else ""
    if not match or kind not in _EXAMPLES:
        raise ConfigError(field, f"expected a condition set, sum or chain, got {_clip(text)}")
    rest = match.group(2)
    length = _LENGTH.fullmatch(rest)
    if not length:
        raise ConfigError(
            field,
            f"{kind} needs a window length first, like {_EXAMPLES[kind]}, got {_clip(rest)}",
        )
    n = read_number(length.group(1))
    if n is None or not 3 <= n <= 5:
        got = _clip(length.group(1)) if n is None else n
        raise ConfigError(field, f"{kind} window length must be 3, 4 or 5, got {got}")
    condition = _PARSERS[kind](n, length.group(2), field)
    parse_condition(condition.to_json(), field)  # the JSON form's own checks, as a safety net
    return condition


def _parse_set(n: int, rest: str, field: str) -> SetCondition:
    braces = _BRACES.fullmatch(rest)
    if not braces:
        raise ConfigError(
            field, f"set needs identities in braces like {{1,2,3}}, got {_clip(rest)}"
        )
    members: list[int] = []
    for item in re.split(r"[\s,]+", braces.group(1).strip()):
        if not re.fullmatch(r"[0-7]", item):
            raise ConfigError(field, f"set identities are 0-7, got {_clip(item)}")
        if int(item) in members:
            raise ConfigError(field, f"set lists identity {item} twice")
        members.append(int(item))
    if not 3 <= len(members) <= 5:
        raise ConfigError(field, f"set lists 3 to 5 identities, got {len(members)}")
    return SetCondition(n, tuple(sorted(members)))


def _parse_sum(n: int, rest: str, field: str) -> SumCondition:
    span = _RANGE.fullmatch(rest)
    if not span:
        raise ConfigError(field, f"sum needs a range like 19-21, got {_clip(rest)}")
    lo, hi = read_number(span.group(1)), read_number(span.group(2))
    if lo is None or hi is None:
        raise ConfigError(field, f"a sum's totals are at most {7 * n}, got {_clip(rest)}")
    if lo > hi:
        raise ConfigError(field, f"sum range {lo}-{hi} is inverted: put the low total first")
    if hi > 7 * n:
        raise ConfigError(field, f"the total of {n} runes is at most {7 * n}, got {lo}-{hi}")
    return SumCondition(n, lo, hi)


def _parse_chain(n: int, rest: str, field: str) -> ChainCondition:
    if _OP.sub("", rest).strip():  # anything but operators and spaces
        raise ConfigError(field, f"chain operators are < <= = >= > (or ≤ ≥), got {_clip(rest)}")
    ops = tuple(ALIASES.get(op, op) for op in _OP.findall(rest))
    if len(ops) != n - 1:
        raise ConfigError(
            field, f"chain {n} needs {n - 1} operators between its {n} runes, got {len(ops)}"
        )
    return ChainCondition(n, ops)


_PARSERS: dict[str, Callable[[int, str, str], Condition]] = {
    "set": _parse_set,
    "sum": _parse_sum,
    "chain": _parse_chain,
}


def _clip(text: str) -> str:
    """Moderator text quoted in an error: spaces collapsed, cut short (``excerpt``)."""
    return excerpt(" ".join(text[: EXCERPT_CHARS * 2].split()))


# --- presets --------------------------------------------------------------------------------


def preset_names() -> list[str]:
    """The presets in the package's presets/ folder, by file name."""
    return sorted(
        entry.name.removesuffix(".json")
        for entry in PRESET_DIR.iterdir()
        if entry.name.endswith(".json") and entry.is_file()
    )


def preset_named(value: str) -> str | None:
    """The preset a spellbook config value names (case and outer spaces ignored), or None."""
    key = value.strip().lower()
    return key if key in preset_names() else None


def load_preset(name: str) -> Spellbook:
    """A preset's spellbook, by name (case-insensitive)."""
    key = name.strip().lower()
    return parse_spellbook(_preset_data(key)["spellbook"], f"presets/{key}.json: spellbook")


def preset_description(name: str) -> str:
    """The one-line description a moderator sees when choosing a preset."""
    return str(_preset_data(name.strip().lower())["description"])


def _preset_data(key: str) -> dict[str, JSON]:
    if key not in preset_names():
        raise ConfigError(
            "spellbook",
            f"{excerpt(key)} is not a preset; the presets are {', '.join(preset_names())}",
        )
    data = json.loads(PRESET_DIR.joinpath(f"{key}.json").read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ConfigError(f"presets/{key}.json", "must be an object")
    return data


# --- checks ---------------------------------------------------------------------------------


def check(book: Book) -> list[str]:
    """Warnings for a moderator: spells that never, rarely, often or always fire by accident,
    and conditions that say more than they do (an identity 0, totals out of reach)."""
    if isinstance(book, SeatBooks):
        return [
            f"{seat}: {warning}"
            for seat, one in zip(SEAT_NAMES, book.books, strict=True)
            for warning in check(one)
        ]
    found = warnings(book)
    flagged = {warning.split(":")[0] for warning in found}
    for spell in SPELLS:
        found += [f"{spell}: {note}" for c in book.conditions(spell) if (note := _dead_part(c))]
    rates = expected_rates(book)
    for spell in SPELLS:
        rate = rates[spell]
        if spell in flagged:
            continue
        if rate < BAND[0]:
            found.append(
                f"{spell} fires on only {rate:.1%} of turns of random play "
                f"(below {BAND[0]:.0%}): players must build it on purpose"
            )
        elif rate > BAND[1]:
            found.append(
                f"{spell} fires on {rate:.0%} of turns of random play "
                f"(above {BAND[1]:.0%}): it will often fire by accident"
            )
    for first, second in itertools.combinations(SPELLS, 2):
        hits = _spell_hits(book.conditions(first))
        if hits and hits == _spell_hits(book.conditions(second)):
            found.append(f"{first} and {second} always fire together (the same runes trigger both)")
    return found


def _dead_part(condition: Condition) -> str | None:
    """A note when part of a satisfiable condition can never matter."""
    if _share(_hits(condition)) == 0:
        return None  # warnings() already says it never triggers
    if isinstance(condition, SetCondition) and 0 in condition.members:
        return (
            f"{describe(condition)}: identity 0 never counts (stalls are skipped), "
            "so the 0 in the set does nothing"
        )
    if isinstance(condition, SumCondition) and condition.lo < condition.n:
        return (
            f"{describe(condition)}: totals below {condition.n} cannot happen "
            "(every counted rune is 1-7)"
        )
    return None


# --- trigger rates --------------------------------------------------------------------------

_WINDOW = 5  # the longest window: every condition is judged on the last 5 non-stall runes


@dataclass(frozen=True, slots=True)
class _Windows:
    """Every window of 5 non-stall identities (1..7), as bitsets with one byte per window."""

    count: int
    everything: int
    position: tuple[tuple[int, ...], ...]  # [j][v]: identity v at position j (0 is the oldest)
    sums: dict[tuple[int, int], int]  # (n, total): the last n add up to total


@cache
def _windows() -> _Windows:
    windows = list(itertools.product(range(1, 8), repeat=_WINDOW))
    count = len(windows)
    by_position: list[list[list[int]]] = [[[] for _ in range(8)] for _ in range(_WINDOW)]
    by_sum: dict[tuple[int, int], list[int]] = {}
    for index, window in enumerate(windows):
        for j, v in enumerate(window):
            by_position[j][v].append(index)
        for n in range(3, _WINDOW + 1):
            by_sum.setdefault((n, sum(window[-n:])), []).append(index)
    return _Windows(
        count,
        _bitset(range(count), count),
        tuple(tuple(_bitset(ix, count) for ix in column) for column in by_position),
        {key: _bitset(ix, count) for key, ix in by_sum.items()},
    )


def _bitset(indices: Iterable[int], count: int) -> int:
    marks = bytearray(count)
    for index in indices:
        marks[index] = 1
    return int.from_bytes(marks, "little")


@lru_cache(maxsize=128)
def _pair(j: int, op: str) -> int:
    """Windows whose runes at positions j and j+1 satisfy ``op``."""
    pos = _windows().position
    hits = 0
    for a, b in itertools.product(range(1, 8), repeat=2):
        if OPS[op](a, b):
            hits |= pos[j][a] & pos[j + 1][b]
    return hits


@lru_cache(maxsize=4096)
def _hits(condition: Condition) -> int:
    """The windows (of 5 non-stall runes) on which the condition holds."""
    w = _windows()
    first = _WINDOW - condition.n
    if isinstance(condition, SetCondition):
        hits = w.everything
        for j in range(first, _WINDOW):
            hits &= _union(w.position[j][v] for v in condition.members)
        return hits
    if isinstance(condition, SumCondition):
        totals = range(condition.lo, condition.hi + 1)
        return _union(w.sums.get((condition.n, total), 0) for total in totals)
    hits = w.everything
    for k, op in enumerate(condition.ops):
        hits &= _pair(first + k, op)
    return hits


def _union(bitsets: Iterable[int]) -> int:
    result = 0
    for bits in bitsets:
        result |= bits
    return result


def _spell_hits(conditions: Iterable[Condition]) -> int:
    return _union(_hits(c) for c in conditions)


def _share(hits: int) -> float:
    return hits.bit_count() / _windows().count


def window_share(conditions: Iterable[Condition]) -> float:
    """The share of windows of non-stall identities on which any of the conditions holds."""
    return _share(_spell_hits(conditions))


def expected_rates(book: Spellbook) -> dict[str, float]:
    """Each spell's long-run share of turns on which it fires under random casting (exact)."""
    return {spell: NON_STALL_SHARE * window_share(book.conditions(spell)) for spell in SPELLS}


def trigger_rates(book: Spellbook, rng: random.Random, turns: int = 20_000) -> dict[str, float]:
    """Each spell's share of ``turns`` simulated turns of random casting on which it fired,
    judged by the engine's compiled tables."""
    compiled = [compile_spell(book.conditions(spell)) for spell in SPELLS]
    fired = [0] * len(SPELLS)
    code = clean = 0
    last = -1
    for _ in range(turns):
        rune = rng.randrange(1, 8) if last == 0 else rng.randrange(8)  # never two stalls in a row
        last = rune
        if rune == 0:
            continue  # a stall evaluates no basic spell
        code = (code * 8 + rune) % 8**_WINDOW
        clean = min(clean + 1, _WINDOW)
        for i, spell in enumerate(compiled):
            fired[i] += spell.fires(code, clean)
    return {spell: fired[i] / turns for i, spell in enumerate(SPELLS)}


def reachable(conditions: Iterable[Condition]) -> bool:
    """Whether some run of non-stall identities fires the spell."""
    return _spell_hits(conditions) != 0


# --- the random generator -------------------------------------------------------------------

_MAX_DRAWS = 10_000
_LENGTHS = (3, 3, 4, 4, 5)  # short windows are easier to read, so they come up more


def random_spellbook(rng: random.Random) -> Spellbook:
    """A playable book: one set, one sum and one chain in random order, each spell firing on
    TARGET of random-casting turns and sharing at most MAX_OVERLAP of its windows with another."""
    chosen: list[Condition] = []
    for kind in rng.sample(sorted(_DRAWERS), len(SPELLS)):
        chosen.append(_draw(kind, chosen, rng))
    water, fertilize, weather = ((c,) for c in chosen)
    return Spellbook(water, fertilize, weather)


def _draw(kind: str, taken: Sequence[Condition], rng: random.Random) -> Condition:
    for _ in range(_MAX_DRAWS):
        condition = _DRAWERS[kind](rng.choice(_LENGTHS), rng)
        if _fits(condition, taken):
            return condition
    raise RuntimeError(f"no {kind} condition fits the target band")  # never seen in practice


def _fits(condition: Condition, taken: Sequence[Condition]) -> bool:
    hits = _hits(condition)
    if not TARGET[0] <= NON_STALL_SHARE * _share(hits) <= TARGET[1]:
        return False
    return all(_overlap(hits, _hits(other)) <= MAX_OVERLAP for other in taken)


def _overlap(a: int, b: int) -> float:
    return (a & b).bit_count() / min(a.bit_count(), b.bit_count())


def _draw_set(n: int, rng: random.Random) -> Condition:
    members = rng.sample(range(1, 8), rng.randint(3, 5))  # 0 would never count
    return SetCondition(n, tuple(sorted(members)))


def _draw_sum(n: int, rng: random.Random) -> Condition:
    lo = rng.randint(n, 7 * n)
    return SumCondition(n, lo, min(7 * n, lo + rng.randint(0, n)))


def _draw_chain(n: int, rng: random.Random) -> Condition:
    return ChainCondition(n, tuple(rng.choice(list(OPS)) for _ in range(n - 1)))


_DRAWERS: dict[str, Callable[[int, random.Random], Condition]] = {
    "set": _draw_set,
    "sum": _draw_sum,
    "chain": _draw_chain,
}

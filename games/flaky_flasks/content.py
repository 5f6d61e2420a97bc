"""Content sets (rules page §11): the house set (``house.json``, Appendix A) and a group's own
set in the same JSON shape, read through one checked reader that names the first bad field.

Symbols are kept as their canonical text (``T3R``); ``sym_key`` gives the canonical order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Literal, TypedDict, cast

from games.protocol import JSON, ConfigError
from games.text import checked_text, excerpt, field_name

SHAPES, COLOURS = "TSP", "RGB"
MIN_VALUE, MAX_VALUE = 1, 12
_SYMBOL = re.compile(r"([TSP])(\d{1,2})([RGB])")
_ID = re.compile(r"[a-z0-9_-]+")
TRAITS = ("spoils", "fractured")
DOMINANCE = ("light", "dark", "balanced")
TILE_OPS = ("none", "add", "mul", "colour", "shape", "split", "echo", "charge")
SETTINGS = {"colour": COLOURS, "shape": SHAPES}
ACTIONS = ("draw", "charge", "fume", "swap_fumes", "discard_last", "jam")
SELF_ACTIONS = ("draw", "charge")
COUNTER_ACTIONS = ("draw", "charge", "fume", "swap_fumes")
WHEN_INT = ("min", "max", "max_identical", "sum", "min_sum", "max_sum", "has_value")
WHEN_BOOL = ("one_shape", "one_colour", "all_shapes", "all_colours", "distinct_values")
# What a content set may hold (docs/flaky-flasks.md, Content sets): about twice the house set's
# largest, so a step's state stays small (a few KB a player) whatever a group writes
MAX_CARDS, MAX_TILES, MAX_PANELS = 60, 40, 40  # entries (the house set: 32, 15, 13)
MAX_SYMBOLS = 6  # symbols on one card (3)
MAX_COPIES = 6  # market copies of one card or tile (3)
MAX_STARTER_CARDS, MAX_STARTER_TILES = 20, 8  # every player's start (12 and 1)
MAX_ACTIONS = 4  # actions in one effect (2)
MAX_AMOUNT = 10  # an action's n, a Counter's Charge (3)
MAX_PRICE = 99  # a cost or a coin card's value (22)
MAX_COUNT = 999  # a panel condition's number (24)
MAX_FACTOR = 99  # a payout formula's sum, count and flat, either sign (10)
MAX_CAULDRON = 60  # symbols a cauldron holds: a propagation past it voids the rest (§2.3)


def parse_symbol(text: str) -> str | None:
    """The canonical text of a symbol (case-insensitive input), or None."""
    match = _SYMBOL.fullmatch(text.upper()) if text.isascii() else None
    if match is None or match.group(2).startswith("0"):
        return None
    value = int(match.group(2))
    if not MIN_VALUE <= value <= MAX_VALUE:
        return None
    return f"{match.group(1)}{value}{match.group(3)}"


def name_key(text: str) -> str:
    """How a typed name or id is compared with the content's: case, apostrophes and every other
    mark ignored (``will-o-wisp`` is Will-o'-Wisp, ``dragons blood`` Dragon's Blood)."""
    text = text.casefold().replace("'", "").replace("\u2019", "")
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def sym_parts(symbol: str) -> tuple[str, int, str]:
    """(shape, value, colour) of a canonical symbol text."""
    found = _PARTS.get(symbol)
    return found if found is not None else (symbol[0], int(symbol[1:-1]), symbol[-1])


_PARTS = {
    f"{s}{v}{c}": (s, v, c)
    for s in SHAPES
    for v in range(MIN_VALUE, MAX_VALUE + 1)
    for c in COLOURS
}


def make_symbol(shape: str, value: int, colour: str) -> str:
    return f"{shape}{min(MAX_VALUE, max(MIN_VALUE, value))}{colour}"


def sym_key(symbol: str) -> tuple[int, int, int]:
    return SHAPES.index(symbol[0]), int(symbol[1:-1]), COLOURS.index(symbol[-1])


def canonical(symbols: Sequence[str]) -> list[str]:
    return sorted(symbols, key=sym_key)


class Action(TypedDict, total=False):
    """One effect action (§6.2 rule 5): ``do`` and the keys that action takes."""

    do: str  # draw, charge, fume, swap_fumes, discard_last, jam
    n: int  # draw, charge, fume
    kind: Literal["light", "dark"]  # fume
    who: Literal["target", "others"]  # discard_last, jam


class HexEffect(TypedDict):
    target: bool
    do: tuple[Action, ...]


class ChargeCost(TypedDict):
    charge: int


class CounterEffect(TypedDict):
    cost: Literal["discard"] | ChargeCost
    do: tuple[Action, ...]


class When(TypedDict, total=False):
    """A panel's condition (§11): every key present must hold."""

    min: int
    max: int
    max_identical: int
    sum: int
    min_sum: int
    max_sum: int
    has_value: int
    one_shape: bool
    one_colour: bool
    all_shapes: bool
    all_colours: bool
    distinct_values: bool
    shapes: list[str]
    colours: list[str]
    dominance: str


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    tier: int
    cost: int
    copies: int
    coin: int | None
    symbols: tuple[str, ...]
    traits: frozenset[str]
    bonus: tuple[int, str] | None
    manifest: tuple[Action, ...]
    charm: tuple[Action, ...]
    hex: HexEffect | None
    counter: CounterEffect | None

    def counter_charge(self) -> int:
        """The Charge a Counter costs (0: it costs discarding the card)."""
        assert self.counter is not None
        cost = self.counter["cost"]
        return 0 if cost == "discard" else cost["charge"]


@dataclass(frozen=True, slots=True)
class Tile:
    id: str
    name: str
    tier: int
    cost: int
    copies: int
    op: str
    n: int
    if_shape: str | None
    if_colour: str | None

    @property
    def settings(self) -> str:
        return SETTINGS.get(self.op, "")


@dataclass(frozen=True, slots=True)
class Panel:
    id: str
    name: str
    tier: int
    when: When
    coins: tuple[int, int, int]
    fame: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Content:
    name: str
    starter_cards: tuple[str, ...]
    starter_tiles: tuple[str, ...]
    cards: Mapping[str, Card]
    tiles: Mapping[str, Tile]
    panels: Mapping[str, Panel]
    card_rank: Mapping[str, int]  # catalogue order
    tile_rank: Mapping[str, int]
    panel_rank: Mapping[str, int]
    index: Mapping[str, str]  # ``name_key`` of every id and name -> the id (``find``)

    def find(self, text: str) -> str | None:
        """The id of the card, tile or panel ``text`` names (its name or its id, as
        ``name_key`` compares them), or None."""
        return self.index.get(name_key(text))

    def named(self, item: str) -> str:
        """The name of a card, tile or panel."""
        if item in self.cards:
            return self.cards[item].name
        return self.tiles[item].name if item in self.tiles else self.panels[item].name

    def market_deck(self, kind: str, tier: int) -> list[str]:
        """A tier's card (``river``) or tile (``tableau``) deck in catalogue order."""
        items = self.cards if kind == "river" else self.tiles
        return [i for i, item in items.items() if item.tier == tier for _ in range(item.copies)]

    def pool(self, tier: int) -> list[str]:
        return [p for p, panel in self.panels.items() if panel.tier == tier]

    def cat(self, ids: list[str]) -> list[str]:
        """Card ids in catalogue order."""
        return sorted(ids, key=self.card_rank.__getitem__)

    def tcat(self, ids: list[str]) -> list[str]:
        return sorted(ids, key=self.tile_rank.__getitem__)

    def cost(self, item: str) -> int:
        """The market price of a card or a tile."""
        return self.cards[item].cost if item in self.cards else self.tiles[item].cost


class _Reader:
    """Checks one JSON document field by field; every error names the field."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def path(self, where: str) -> str:
        return f"{self.prefix}.{where}" if where else self.prefix

    def fail(self, where: str, message: str) -> ConfigError:
        return ConfigError(self.path(where), message)

    def obj(
        self, value: JSON, where: str, keys: Sequence[str], optional: Sequence[str] = ()
    ) -> Mapping[str, JSON]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"must be an object, got {excerpt(value)}")
        for key in value:
            if key not in keys and key not in optional:
                raise self.fail(
                    f"{where}.{field_name(key)}" if where else field_name(key), "unknown key"
                )
        for key in keys:
            if key not in value:
                raise self.fail(f"{where}.{key}" if where else key, "is required")
        return value

    def integer(self, value: JSON, where: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(where, f"must be a whole number {low}..{high}, got {excerpt(value)}")
        return value

    def text(self, value: JSON, where: str) -> str:
        return checked_text(value, self.path(where))

    def flag(self, value: JSON, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"must be true or false, got {excerpt(value)}")
        return value

    def items(self, value: JSON, where: str, most: int, empty: bool = True) -> list[JSON]:
        if not isinstance(value, list) or len(value) > most or (not empty and not value):
            size = "" if empty else "non-empty "
            raise self.fail(where, f"must be a {size}list of at most {most} entries")
        return value

    def choice(self, value: JSON, where: str, allowed: Sequence[str]) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise self.fail(where, f"must be one of {', '.join(allowed)}, got {excerpt(value)}")
        return value

    def ident(self, value: JSON, where: str) -> str:
        if not isinstance(value, str) or len(value) > 40 or not _ID.fullmatch(value):
            raise self.fail(where, f"must be an id of a-z, 0-9, _ and -, got {excerpt(value)}")
        return value

    def symbol(self, value: JSON, where: str) -> str:
        symbol = parse_symbol(value) if isinstance(value, str) else None
        if symbol is None:
            raise self.fail(where, f"must be a symbol like T3R (value 1-12), got {excerpt(value)}")
        return symbol

    def actions(
        self, value: JSON, where: str, allowed: Sequence[str], target: bool
    ) -> tuple[Action, ...]:
        out: list[Action] = []
        for i, raw in enumerate(self.items(value, where, MAX_ACTIONS)):
            at = f"{where}[{i}]"
            if not isinstance(raw, Mapping) or "do" not in raw:
                raise self.fail(at, "must be an action object with a 'do' key")
            do = self.choice(raw["do"], f"{at}.do", allowed)
            if do in ("draw", "charge"):
                self.obj(raw, at, ("do", "n"))
                out.append({"do": do, "n": self.integer(raw["n"], f"{at}.n", 0, MAX_AMOUNT)})
            elif do == "fume":
                self.obj(raw, at, ("do", "kind", "n"))
                kind = self.choice(raw["kind"], f"{at}.kind", ("light", "dark"))
                light_or_dark: Literal["light", "dark"] = "light" if kind == "light" else "dark"
                n = self.integer(raw["n"], f"{at}.n", 0, MAX_AMOUNT)
                out.append({"do": do, "kind": light_or_dark, "n": n})
            elif do == "swap_fumes":
                self.obj(raw, at, ("do",))
                out.append({"do": do})
            else:
                self.obj(raw, at, ("do", "who"))
                who = self.choice(raw["who"], f"{at}.who", ("target", "others"))
                if who == "target" and not target:
                    raise self.fail(f"{at}.who", "'target' needs a Hex with \"target\": true")
                out.append({"do": do, "who": "target" if who == "target" else "others"})
        return tuple(out)

    def formula(self, value: JSON, where: str) -> tuple[int, int, int]:
        raw = self.obj(value, where, (), ("sum", "count", "flat"))
        return tuple(
            self.integer(raw.get(k, 0), f"{where}.{k}", -MAX_FACTOR, MAX_FACTOR)
            for k in ("sum", "count", "flat")
        )  # type: ignore[return-value]


def read_content(raw: JSON, prefix: str = "content_set") -> Content:
    """A content set checked against the §11 schema; ConfigError names the first bad field."""
    r = _Reader(prefix)
    top = r.obj(raw, "", ("name", "starter", "cards", "tiles", "panels"))
    name = r.text(top["name"], "name")
    seen: set[str] = set()

    def unique(value: JSON, where: str) -> str:
        ident = r.ident(value, where)
        if ident in seen:
            raise r.fail(
                where, f"id {ident!r} is used twice (ids are unique across cards, tiles and panels)"
            )
        seen.add(ident)
        return ident

    cards: dict[str, Card] = {}
    for i, entry in enumerate(r.items(top["cards"], "cards", MAX_CARDS, empty=False)):
        at = f"cards[{i}]"
        common = ("id", "name", "tier", "cost", "copies")
        if not isinstance(entry, Mapping):
            raise r.fail(at, "must be an object")
        has = [k for k in ("coin", "symbols") if k in entry]
        if len(has) != 1:
            raise r.fail(at, "must have exactly one of 'coin' and 'symbols'")
        effects = ("traits", "bonus", "manifest", "charm", "hex", "counter")
        if has == ["coin"]:
            r.obj(entry, at, (*common, "coin"))
        else:
            r.obj(entry, at, (*common, "symbols"), effects)
        ident = unique(entry["id"], f"{at}.id")
        hex_: HexEffect | None = None
        counter: CounterEffect | None = None
        symbols: tuple[str, ...] = ()
        traits: frozenset[str] = frozenset()
        bonus = None
        manifest: tuple[Action, ...] = ()
        charm: tuple[Action, ...] = ()
        coin = None
        if has == ["coin"]:
            coin = r.integer(entry["coin"], f"{at}.coin", 0, MAX_PRICE)
        else:
            raw_symbols = r.items(entry["symbols"], f"{at}.symbols", MAX_SYMBOLS, empty=False)
            symbols = tuple(r.symbol(s, f"{at}.symbols[{k}]") for k, s in enumerate(raw_symbols))
            if "traits" in entry:
                raw_traits = r.items(entry["traits"], f"{at}.traits", len(TRAITS))
                traits = frozenset(
                    r.choice(t, f"{at}.traits[{k}]", TRAITS) for k, t in enumerate(raw_traits)
                )
            if "bonus" in entry:
                b = r.obj(entry["bonus"], f"{at}.bonus", ("n", "if"))
                bonus = (
                    r.integer(b["n"], f"{at}.bonus.n", -MAX_VALUE, MAX_VALUE),
                    r.choice(b["if"], f"{at}.bonus.if", DOMINANCE),
                )
            if "manifest" in entry:
                manifest = r.actions(entry["manifest"], f"{at}.manifest", SELF_ACTIONS, False)
            if "charm" in entry:
                charm = r.actions(entry["charm"], f"{at}.charm", SELF_ACTIONS, False)
            if "hex" in entry:
                h = r.obj(entry["hex"], f"{at}.hex", ("target", "do"))
                target = r.flag(h["target"], f"{at}.hex.target")
                hex_ = {"target": target, "do": r.actions(h["do"], f"{at}.hex.do", ACTIONS, target)}
            if "counter" in entry:
                c = r.obj(entry["counter"], f"{at}.counter", ("cost", "do"))
                cost = c["cost"]
                paid: Literal["discard"] | ChargeCost = "discard"
                if cost != "discard":
                    cost_obj = (
                        r.obj(cost, f"{at}.counter.cost", ("charge",))
                        if isinstance(cost, Mapping)
                        else None
                    )
                    if cost_obj is None:
                        raise r.fail(
                            f"{at}.counter.cost",
                            f'must be "discard" or {{"charge": n}}, got {excerpt(cost)}',
                        )
                    paid = {
                        "charge": r.integer(
                            cost_obj["charge"], f"{at}.counter.cost.charge", 1, MAX_AMOUNT
                        )
                    }
                counter = {
                    "cost": paid,
                    "do": r.actions(c["do"], f"{at}.counter.do", COUNTER_ACTIONS, False),
                }
        cards[ident] = Card(
            ident,
            r.text(entry["name"], f"{at}.name"),
            r.integer(entry["tier"], f"{at}.tier", 0, 3),
            r.integer(entry["cost"], f"{at}.cost", 0, MAX_PRICE),
            r.integer(entry["copies"], f"{at}.copies", 0, MAX_COPIES),
            coin,
            symbols,
            traits,
            bonus,
            manifest,
            charm,
            hex_,
            counter,
        )
    tiles: dict[str, Tile] = {}
    for i, entry in enumerate(r.items(top["tiles"], "tiles", MAX_TILES)):
        at = f"tiles[{i}]"
        base = ("id", "name", "tier", "cost", "copies", "op")
        if not isinstance(entry, Mapping):
            raise r.fail(at, "must be an object")
        op = r.choice(entry.get("op"), f"{at}.op", TILE_OPS)
        needs_n = op in ("add", "mul", "charge")
        r.obj(entry, at, (*base, "n") if needs_n else base, ("if_shape", "if_colour"))
        ident = unique(entry["id"], f"{at}.id")
        tiles[ident] = Tile(
            ident,
            r.text(entry["name"], f"{at}.name"),
            r.integer(entry["tier"], f"{at}.tier", 0, 3),
            r.integer(entry["cost"], f"{at}.cost", 0, MAX_PRICE),
            r.integer(entry["copies"], f"{at}.copies", 0, MAX_COPIES),
            op,
            r.integer(entry["n"], f"{at}.n", 0, MAX_VALUE) if needs_n else 0,
            r.choice(entry["if_shape"], f"{at}.if_shape", tuple(SHAPES))
            if "if_shape" in entry
            else None,
            r.choice(entry["if_colour"], f"{at}.if_colour", tuple(COLOURS))
            if "if_colour" in entry
            else None,
        )
    panels: dict[str, Panel] = {}
    for i, entry in enumerate(r.items(top["panels"], "panels", MAX_PANELS, empty=False)):
        at = f"panels[{i}]"
        r.obj(entry, at, ("id", "name", "tier", "when", "coins", "fame"))
        ident = unique(entry["id"], f"{at}.id")
        when = r.obj(
            entry["when"],
            f"{at}.when",
            (),
            (*WHEN_INT, *WHEN_BOOL, "shapes", "colours", "dominance"),
        )
        checked: dict[str, JSON] = {}
        for key, value in when.items():
            w = f"{at}.when.{key}"
            if key in WHEN_INT:
                checked[key] = r.integer(value, w, 0, MAX_COUNT)
            elif key in WHEN_BOOL:
                checked[key] = r.flag(value, w)
            elif key == "dominance":
                checked[key] = r.choice(value, w, DOMINANCE)
            else:
                letters = SHAPES if key == "shapes" else COLOURS
                checked[key] = [
                    r.choice(v, f"{w}[{k}]", tuple(letters))
                    for k, v in enumerate(r.items(value, w, len(letters)))
                ]
        panels[ident] = Panel(
            ident,
            r.text(entry["name"], f"{at}.name"),
            r.integer(entry["tier"], f"{at}.tier", 1, 3),
            cast(When, checked),  # every key and value checked above
            r.formula(entry["coins"], f"{at}.coins"),
            r.formula(entry["fame"], f"{at}.fame"),
        )
    if not any(p.tier == 1 for p in panels.values()):
        raise r.fail("panels", "must hold at least one Tier 1 panel")
    starter = r.obj(top["starter"], "starter", ("cards", "tiles"))
    starter_cards = []
    for k, c in enumerate(r.items(starter["cards"], "starter.cards", MAX_STARTER_CARDS)):
        if c not in cards:
            raise r.fail(f"starter.cards[{k}]", f"{excerpt(c)} is not a card id")
        starter_cards.append(str(c))
    starter_tiles = []
    for k, t in enumerate(r.items(starter["tiles"], "starter.tiles", MAX_STARTER_TILES)):
        if t not in tiles:
            raise r.fail(f"starter.tiles[{k}]", f"{excerpt(t)} is not a tile id")
        starter_tiles.append(str(t))
    return Content(
        name,
        tuple(starter_cards),
        tuple(starter_tiles),
        cards,
        tiles,
        panels,
        {c: k for k, c in enumerate(cards)},
        {t: k for k, t in enumerate(tiles)},
        {p: k for k, p in enumerate(panels)},
        _name_index(r, top, cards, tiles, panels),
    )


def _name_index(
    r: _Reader,
    top: Mapping[str, JSON],
    cards: Mapping[str, Card],
    tiles: Mapping[str, Tile],
    panels: Mapping[str, Panel],
) -> dict[str, str]:
    """Every id and name, as typed (``name_key``), -> its id: names are unique within a set,
    across cards, tiles and panels, and no name is another item's id."""
    index: dict[str, str] = {}
    named = [
        ("cards", [(i, c.name) for i, c in cards.items()]),
        ("tiles", [(i, t.name) for i, t in tiles.items()]),
        ("panels", [(i, p.name) for i, p in panels.items()]),
    ]
    for kind, items in named:
        for i, (ident, name) in enumerate(items):
            for field, text in (("id", ident), ("name", name)):
                key = name_key(text)
                where = f"{kind}[{i}].{field}"
                if not key:
                    raise r.fail(where, f"{excerpt(text)} needs a letter or a digit")
                other = index.setdefault(key, ident)
                if other != ident:
                    raise r.fail(
                        where,
                        f"{excerpt(text)} reads as the name or id of {other!r}"
                        " (names are unique within a content set, across cards, tiles and panels)",
                    )
    return index


def _house_json() -> JSON:
    return json.loads(resources.files(__package__).joinpath("house.json").read_text("utf-8"))


HOUSE_JSON: JSON = _house_json()
HOUSE = read_content(HOUSE_JSON)

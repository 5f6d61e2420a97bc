"""The card set (rules page §1 and Appendix A): one JSON document, read through a checked reader
that names the field of any error. The house set is package data (``house.json``); a moderator
may pass a group's own set in the same format (``config["card_set"]``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal, NotRequired, TypedDict, cast

from games.protocol import JSON, ConfigError
from games.text import checked_text, excerpt, field_name

LEVELS = ("I", "II", "III")
LEVEL_OF = {"I": 1, "II": 2, "III": 3}
EFFECTS = ("damage", "steal", "heal", "coins", "boost", "ward")
KINDS = ("success", "simple", "catastrophe", "monster")
RESERVED = frozenset({"give", "get", "note", "keep", "off"})
# words that join or end the parts of an answer, never a whole name (``use Greek Fire on Bob``,
# ``buy Salt and Lead``, ``trade Bob give 3 coins``)
GRAMMAR_WORDS = RESERVED | {"and", "on", "coin", "coins"}
WORD = re.compile(r"[a-z0-9#×]+")
ID_RE = re.compile(r"[a-z][a-z0-9_]*")
RESULT_ID_RE = re.compile(r"[a-z][a-z0-9_:@]*")
FORMULA_OR_MONSTER = re.compile(r"[fm][0-9]+")
MAX_ID = 40
# What a card set may hold (docs/red-phoenix.md, Your own card set): house bounds about twice
# to five times the house set's (20 types, 5 methods, 22 result cards of 24 copies a level),
# so a step's state stays small (its decks are lists of card ids)
MAX_COPIES = 60  # of one ingredient type, or of one result card
MAX_NUMBER = 1000  # a cost, an amount, a score, a monster's Health or damage
MAX_TYPES = 40
MAX_METHODS = 10
MAX_RESULTS = 60  # result cards a level
MAX_DECK = 120  # a level's result deck, copies included

Origin = Literal["market", "supply"]
Effect = Literal["damage", "steal", "heal", "coins", "boost", "ward"]
Kind = Literal["success", "simple", "catastrophe", "monster"]


# --- the card-set JSON (rules page Appendix A), as ``read_card_set`` accepts it ------------------


class MarketJSON(TypedDict):
    cost: int
    stack: dict[str, int]  # "2".."5" seats -> the market stack


class ItemJSON(TypedDict):
    effect: Effect
    amount: NotRequired[int]  # none for a ward


class IngredientJSON(TypedDict):
    id: str
    name: str
    level: int
    copies: int
    market: NotRequired[MarketJSON]
    item: NotRequired[ItemJSON]
    wins: NotRequired[bool]


class MethodJSON(TypedDict):
    id: str
    name: str
    draw: int
    keep_min: int
    keep_max: int
    coins: int  # per level
    health: int  # per level


class DamageJSON(TypedDict, total=False):
    self: int
    others: int
    most_cards: int


class ResultJSON(TypedDict):
    """One result card; the keys after ``kind`` depend on it (success: product, score; simple:
    gain; catastrophe: damage, discard_random; monster: hp, damage)."""

    id: str
    kind: Kind
    name: NotRequired[str]
    copies: NotRequired[int]
    product: NotRequired[str]
    score: NotRequired[int]
    gain: NotRequired[str | None]
    damage: NotRequired[DamageJSON | int]
    discard_random: NotRequired[int]
    hp: NotRequired[int]


class ResultsJSON(TypedDict):
    I: list[ResultJSON]  # noqa: E741 (the level's name)
    II: list[ResultJSON]
    III: list[ResultJSON]


class CardSetJSON(TypedDict):
    name: str
    consolation: str | None
    ingredients: list[IngredientJSON]
    methods: list[MethodJSON]
    results: ResultsJSON


@dataclass(frozen=True, slots=True)
class Ingredient:
    id: str
    name: str
    level: int
    copies: int
    cost: int | None  # None: not a market type
    stack: Mapping[int, int]  # seats -> market stack
    effect: Effect | None
    amount: int
    wins: bool
    order: int  # listing order (§11's default)


@dataclass(frozen=True, slots=True)
class Method:
    id: str
    name: str
    draw: int
    keep_min: int
    keep_max: int
    coins: int
    health: int


@dataclass(frozen=True, slots=True)
class Result:
    id: str
    name: str
    kind: Kind
    level: str
    product: str | None = None
    score: int = 0
    gain: str | None = None
    self_damage: int = 0
    others_damage: int = 0
    most_damage: int = 0
    discard_random: int = 0
    hp: int = 0
    damage: int = 0


@dataclass(frozen=True, slots=True)
class CardSet:
    name: str
    consolation: str | None
    ingredients: Mapping[str, Ingredient]  # listing order
    methods: Mapping[str, Method]
    results: Mapping[str, Mapping[str, Result]]  # level -> id -> card
    copies: Mapping[str, Mapping[str, int]]  # level -> id -> copies
    raw: CardSetJSON
    # how answers name things (``words``): an ingredient or a method by its id or its name
    card_words: Mapping[tuple[str, ...], str]
    method_words: Mapping[tuple[str, ...], str]
    name_words: int  # the most words of any of these names

    def deck(self, level: str) -> list[str]:
        """Every card of a level (each copy), in listing order."""
        return [rid for rid, n in self.copies[level].items() for _ in range(n)]

    def market_types(self) -> list[str]:
        return [i.id for i in self.ingredients.values() if i.cost is not None]

    def origin(self, card: str) -> Origin:
        return "market" if self.ingredients[card].cost is not None else "supply"

    def rank(self, card: str) -> tuple[int, int]:
        """§11: lowest level first, then listing order."""
        ing = self.ingredients[card]
        return ing.level, ing.order


def words(text: str) -> tuple[str, ...]:
    """The words an answer or a name is read as: lower case, apostrophes dropped, ``_`` and
    every other sign a space, so ``Fool's Gold``, ``fools_gold`` and ``FOOLS GOLD`` read alike
    (rules page §12.2 matches ids case-insensitively; names are read the same way)."""
    text = text.lower().replace("’", "").replace("'", "").replace("_", " ")
    return tuple(WORD.findall(text))


class Names:
    """The names of one card set as answers read them, each checked unique: an ingredient, a
    method or a named result card never reads as another's name or id."""

    def __init__(self) -> None:
        self.owner: dict[tuple[str, ...], str] = {}  # words -> the field that claimed them
        self.cards: dict[tuple[str, ...], str] = {}
        self.methods: dict[tuple[str, ...], str] = {}

    def claim(self, text: str, field: str, thing: str) -> tuple[str, ...]:
        """``text`` as the name of ``thing`` (a field path: the same thing may claim a name
        and its id); ConfigError naming ``field`` when it reads as another's or as a word of
        the answer grammar."""
        key = words(text)
        if not key:
            raise ConfigError(field, f"{excerpt(text)} has no letter or digit to type")
        if len(key) == 1 and (
            key[0] in GRAMMAR_WORDS or FORMULA_OR_MONSTER.fullmatch(key[0]) or key[0].isdigit()
        ):
            raise ConfigError(field, f"{excerpt(text)} reads as a word of the answer grammar")
        other = self.owner.setdefault(key, thing)
        if other != thing:
            raise ConfigError(field, f"{excerpt(text)} reads as the same name as {other}")
        return key

    def alias(self, key: tuple[str, ...], thing: str, table: dict[tuple[str, ...], str]) -> None:
        """``The Gold Standard`` also answers to ``gold standard`` when nothing else does."""
        if len(key) > 1 and key[0] == "the" and self.owner.setdefault(key[1:], thing) == thing:
            table[key[1:]] = table[key]


def _names(
    where: str,
    ingredients: Mapping[str, Ingredient],
    methods: Mapping[str, Method],
    results: Mapping[str, Mapping[str, Result]],
    named: Mapping[str, Mapping[str, bool]],
) -> Names:
    names = Names()
    for i, ing in enumerate(ingredients.values()):
        at = f"{where}.ingredients[{i}]"
        for text, field in ((ing.id, f"{at}.id"), (ing.name, f"{at}.name")):
            names.cards[names.claim(text, field, at)] = ing.id
    for i, method in enumerate(methods.values()):
        at = f"{where}.methods[{i}]"
        for text, field in ((method.id, f"{at}.id"), (method.name, f"{at}.name")):
            names.methods[names.claim(text, field, at)] = method.id
    for key, thing in list(names.owner.items()):
        table = names.cards if key in names.cards else names.methods
        names.alias(key, thing, table)
    for level in LEVELS:
        for i, (rid, card) in enumerate(results[level].items()):
            # a success or a simple failure shows by what it makes (``Success: Gold (8)``)
            if named[level][rid] and card.kind in ("catastrophe", "monster"):
                at = f"{where}.results.{level}[{i}]"
                names.claim(card.name, f"{at}.name", f"the result card {rid}")
    return names


def _obj(value: JSON, where: str) -> Mapping[str, JSON]:
    if not isinstance(value, Mapping):
        raise ConfigError(where, f"must be an object, got {excerpt(value)}")
    return value


def _keys(value: Mapping[str, JSON], where: str, required: set[str], optional: set[str]) -> None:
    for key in value:
        if key not in required | optional:
            raise ConfigError(f"{where}.{field_name(key)}", "unknown key")
    for key in sorted(required):
        if key not in value:
            raise ConfigError(f"{where}.{key}", "is required")


def _int(value: JSON, where: str, low: int, high: int = MAX_NUMBER) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            where, f"must be a whole number from {low} to {high}, got {excerpt(value)}"
        )
    return value


def _text(value: JSON, where: str) -> str:
    return checked_text(value, where)


def _ident(value: JSON, where: str, pattern: re.Pattern[str] = ID_RE) -> str:
    if not isinstance(value, str) or len(value) > MAX_ID or not pattern.fullmatch(value):
        raise ConfigError(
            where,
            "must be lower-case letters, digits and _ starting with a letter, "
            f"got {excerpt(value)}",
        )
    return value


def _list(value: JSON, where: str, high: int) -> list[JSON]:
    if not isinstance(value, list) or not value:
        raise ConfigError(where, "must be a non-empty list")
    if len(value) > high:
        raise ConfigError(where, f"must have at most {high} entries")
    return value


def read_card_set(raw: JSON, where: str = "card_set") -> CardSet:
    """A checked card set; ConfigError names the first bad field."""
    top = _obj(raw, where)
    _keys(top, where, {"name", "consolation", "ingredients", "methods", "results"}, set())
    name = _text(top["name"], f"{where}.name")
    ingredients: dict[str, Ingredient] = {}
    for i, item in enumerate(_list(top["ingredients"], f"{where}.ingredients", MAX_TYPES)):
        at = f"{where}.ingredients[{i}]"
        ing = _ingredient(_obj(item, at), at, len(ingredients))
        if ing.id in ingredients:
            raise ConfigError(f"{at}.id", f"{ing.id} is listed twice")
        ingredients[ing.id] = ing
    if not any(ing.wins for ing in ingredients.values()):
        raise ConfigError(
            f"{where}.ingredients", 'no type has "wins": true: the game could not end'
        )
    consolation = top["consolation"]
    if consolation is not None and consolation not in ingredients:
        raise ConfigError(f"{where}.consolation", f"{excerpt(consolation)} is not an ingredient id")
    methods: dict[str, Method] = {}
    for i, item in enumerate(_list(top["methods"], f"{where}.methods", MAX_METHODS)):
        at = f"{where}.methods[{i}]"
        method = _method(_obj(item, at), at)
        if method.id in methods or method.id in ingredients:
            raise ConfigError(f"{at}.id", f"{method.id} is used twice")
        methods[method.id] = method
    results_raw = _obj(top["results"], f"{where}.results")
    _keys(results_raw, f"{where}.results", set(LEVELS), set())
    results: dict[str, dict[str, Result]] = {}
    copies: dict[str, dict[str, int]] = {}
    named: dict[str, dict[str, bool]] = {}
    for level in LEVELS:
        results[level], copies[level], named[level] = {}, {}, {}
        for i, item in enumerate(
            _list(results_raw[level], f"{where}.results.{level}", MAX_RESULTS)
        ):
            at = f"{where}.results.{level}[{i}]"
            card, n = _result(_obj(item, at), at, level, ingredients)
            if card.id in results[level]:
                raise ConfigError(f"{at}.id", f"{card.id} is listed twice in level {level}")
            results[level][card.id], copies[level][card.id] = card, n
            named[level][card.id] = isinstance(item, Mapping) and "name" in item
        if sum(copies[level].values()) > MAX_DECK:
            raise ConfigError(
                f"{where}.results.{level}",
                f"holds {sum(copies[level].values())} cards with their copies; at most {MAX_DECK}",
            )
    winners = [
        card.id
        for level in LEVELS
        for card in results[level].values()
        if card.kind == "success" and card.product is not None and ingredients[card.product].wins
    ]
    if not winners:
        raise ConfigError(
            f"{where}.results", "no success card produces a win card: the game could not end"
        )
    names = _names(where, ingredients, methods, results, named)
    return CardSet(
        name,
        consolation,
        ingredients,
        methods,
        results,
        copies,
        cast(CardSetJSON, raw),
        names.cards,
        names.methods,
        max(map(len, [*names.cards, *names.methods])),
    )


def _ingredient(item: Mapping[str, JSON], at: str, order: int) -> Ingredient:
    _keys(item, at, {"id", "name", "level", "copies"}, {"market", "item", "wins"})
    iid = _ident(item["id"], f"{at}.id")
    if iid in RESERVED or FORMULA_OR_MONSTER.fullmatch(iid):
        raise ConfigError(f"{at}.id", f"{iid} is a word of the answer grammar")
    name = _text(item["name"], f"{at}.name")
    level = _int(item["level"], f"{at}.level", 1, 9)
    count = _int(item["copies"], f"{at}.copies", 1, MAX_COPIES)
    cost: int | None = None
    stack: dict[int, int] = {}
    if "market" in item:
        market = _obj(item["market"], f"{at}.market")
        _keys(market, f"{at}.market", {"cost", "stack"}, set())
        cost = _int(market["cost"], f"{at}.market.cost", 0)
        stacks = _obj(market["stack"], f"{at}.market.stack")
        _keys(stacks, f"{at}.market.stack", {"2", "3", "4", "5"}, set())
        for seats in ("2", "3", "4", "5"):
            stack[int(seats)] = _int(stacks[seats], f"{at}.market.stack.{seats}", 0, count)
    effect: Effect | None = None
    amount = 0
    if "item" in item:
        spec = _obj(item["item"], f"{at}.item")
        effect_raw = spec.get("effect")
        if effect_raw not in EFFECTS:
            raise ConfigError(f"{at}.item.effect", f"must be one of {', '.join(EFFECTS)}")
        effect = cast(Effect, effect_raw)
        if effect == "ward":
            _keys(spec, f"{at}.item", {"effect"}, set())
        else:
            _keys(spec, f"{at}.item", {"effect", "amount"}, set())
            amount = _int(spec["amount"], f"{at}.item.amount", 1)
    wins = item.get("wins", False)
    if wins is not True and wins is not False:
        raise ConfigError(f"{at}.wins", "must be true or false")
    return Ingredient(iid, name, level, count, cost, stack, effect, amount, wins, order)


def _method(item: Mapping[str, JSON], at: str) -> Method:
    _keys(item, at, {"id", "name", "draw", "keep_min", "keep_max", "coins", "health"}, set())
    mid = _ident(item["id"], f"{at}.id")
    if mid in RESERVED or FORMULA_OR_MONSTER.fullmatch(mid):
        raise ConfigError(f"{at}.id", f"{mid} is a word of the answer grammar")
    draw = _int(item["draw"], f"{at}.draw", 1, 10)
    keep_min = _int(item["keep_min"], f"{at}.keep_min", 1, draw)
    keep_max = _int(item["keep_max"], f"{at}.keep_max", keep_min, draw)
    coins = _int(item["coins"], f"{at}.coins", 0)
    health = _int(item["health"], f"{at}.health", 0)
    return Method(mid, _text(item["name"], f"{at}.name"), draw, keep_min, keep_max, coins, health)


def _result(
    item: Mapping[str, JSON], at: str, level: str, ingredients: Mapping[str, Ingredient]
) -> tuple[Result, int]:
    kind = item.get("kind")
    if kind not in KINDS:
        raise ConfigError(f"{at}.kind", f"must be one of {', '.join(KINDS)}")
    extra = {
        "success": ({"product", "score"}, set()),
        "simple": ({"gain"}, set()),
        "catastrophe": ({"damage"}, {"discard_random"}),
        "monster": ({"hp", "damage"}, set()),
    }[str(kind)]
    _keys(item, at, {"id", "kind", *extra[0]}, {"copies", "name", *extra[1]})
    rid = _ident(item["id"], f"{at}.id", RESULT_ID_RE)
    name = _text(item["name"], f"{at}.name") if "name" in item else rid
    n = _int(item["copies"], f"{at}.copies", 1, MAX_COPIES) if "copies" in item else 1
    if kind == "success":
        product = item["product"]
        if product not in ingredients:
            raise ConfigError(f"{at}.product", f"{excerpt(product)} is not an ingredient id")
        score = _int(item["score"], f"{at}.score", 0)
        return Result(rid, name, "success", level, product=str(product), score=score), n
    if kind == "simple":
        gain = item["gain"]
        if gain is not None and (gain not in ingredients or ingredients[str(gain)].cost is None):
            raise ConfigError(f"{at}.gain", f"{excerpt(gain)} is not a market ingredient id")
        return Result(rid, name, "simple", level, gain=None if gain is None else str(gain)), n
    if kind == "catastrophe":
        damage = _obj(item["damage"], f"{at}.damage")
        _keys(damage, f"{at}.damage", set(), {"self", "others", "most_cards"})
        amounts = {
            k: _int(damage.get(k, 0), f"{at}.damage.{k}", 0)
            for k in ("self", "others", "most_cards")
        }
        discard = _int(item.get("discard_random", 0), f"{at}.discard_random", 0)
        return Result(
            rid,
            name,
            "catastrophe",
            level,
            self_damage=amounts["self"],
            others_damage=amounts["others"],
            most_damage=amounts["most_cards"],
            discard_random=discard,
        ), n
    hp = _int(item["hp"], f"{at}.hp", 1)
    dmg = _int(item["damage"], f"{at}.damage", 0)
    return Result(rid, name, "monster", level, hp=hp, damage=dmg), n


@lru_cache(maxsize=1)
def house_raw() -> str:
    return resources.files(__package__).joinpath("house.json").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def house() -> CardSet:
    return read_card_set(json.loads(house_raw()))


@lru_cache(maxsize=32)
def _compiled(text: str) -> CardSet:
    return read_card_set(json.loads(text))


def card_set_of(value: Any) -> CardSet:
    """The card set a parsed config names: ``"house"`` or a set object (cached by content)."""
    if value == "house":
        return house()
    return _compiled(json.dumps(value, sort_keys=True))

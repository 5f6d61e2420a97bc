"""The typed answer grammar (``potioncraft.md`` §13.3): text -> ``Act`` and back to the canonical
text. Only the form is checked here; whether the act is legal now is the engine's question."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.text import excerpt

from .cards import (
    CARD_LOOKUP,
    CATEGORY_LOOKUP,
    INGREDIENT_LOOKUP,
    POTION_LOOKUP,
    SPELL_LOOKUP,
    SPELL_TYPE,
    normal,
    potion_label,
)

MAX_TEXT = 2000  # longer answers are refused unread


@dataclass(frozen=True, slots=True)
class Act:
    """One parsed answer. ``seat`` is a seat index, ``cards`` a card list in the order given."""

    kind: str  # deck pile play craft perk end keep order discard block pass pair
    seat: int | None = None
    card: str | None = None  # play/block: the spell; summon: the card to take; pair: ingredient
    cards: tuple[str, ...] = ()  # craft/keep/order/discard/wager
    potion: str | None = None  # craft/perk/steal target potion
    using: str | None = None  # craft: the perk potion; perk: the `on` potion
    name: str | None = None  # craft `as` / perk `ask` ingredient; hex seal category
    extra: dict[str, str] = field(default_factory=dict)


class BadAnswer(ValueError):
    pass


def parse(raw: str, names: Sequence[str]) -> Act:
    """The act a text spells; BadAnswer with a reason when it spells none."""
    if len(raw) > MAX_TEXT:
        raise BadAnswer(f"that answer is too long ({len(raw)} characters)")
    text = normal(raw)
    low = text.casefold()
    word, _, rest = low.partition(" ")
    if word in ("deck", "end", "pass"):
        if rest:
            raise BadAnswer(f"`{word}` takes nothing after it, got {excerpt(text)}")
        return Act(word)
    if word == "pile":
        return Act("pile", seat=_seat(rest, names))
    if word == "play":
        return _play(rest, names)
    if word == "craft":
        return _craft(rest)
    if word == "perk":
        return _perk(rest)
    if word in ("keep", "order", "discard"):
        return Act(word, cards=_cards(rest))
    if word == "block":
        return Act("block", card=_spell(rest))
    if word == "pair":
        return Act("pair", card=_ingredient(rest))
    raise BadAnswer(
        f"{excerpt(text)} is not an answer; send deck, pile <seat>, play …, craft …, perk …,"
        " end, keep …, order …, discard …, block …, pass or pair …"
    )


def _seat(text: str, names: Sequence[str]) -> int:
    """A player as typed: their name, their seat (``P2``), or the start of their name up to a
    space when only one name starts so (``ai 2`` for ``AI 2 (easy)``); any case."""
    folded = [name.casefold() for name in names]
    if text in folded:
        return folded.index(text)
    seat = _SEAT.fullmatch(text)
    if seat is not None and 1 <= int(seat[1]) <= len(names):
        return int(seat[1]) - 1
    starts = [i for i, name in enumerate(folded) if text and name.startswith(text + " ")]
    if len(starts) == 1:
        return starts[0]
    seats = ", ".join(f"{name} (P{i + 1})" for i, name in enumerate(names))
    raise BadAnswer(f"{excerpt(text)} is not a player; players: {seats}")


def _card(text: str) -> str:
    if text not in CARD_LOOKUP:
        raise BadAnswer(f"{excerpt(text)} is not a card (write card names in full)")
    return CARD_LOOKUP[text]


def _cards(text: str) -> tuple[str, ...]:
    """A card list: names separated by commas; ``Bat Wing ×2`` (or ``x2``) is two copies, and a
    menu's ``Bat Wing #2`` (the second copy) is one."""
    if not text:
        raise BadAnswer("list the cards, separated by commas")
    cards: list[str] = []
    for part in text.split(","):
        part = _COPY.sub("", part.strip())
        times = _TIMES.search(part)
        count = 1 if times is None else int(times[1])
        if not 1 <= count <= MAX_COPIES:
            raise BadAnswer(f"{excerpt(part)}: at most {MAX_COPIES} copies of a card")
        cards += [_card(part[: times.start()] if times else part)] * count
        if len(cards) > MAX_CARDS:
            raise BadAnswer(f"list at most {MAX_CARDS} cards")
    return tuple(cards)


def _spell(text: str) -> str:
    if text not in SPELL_LOOKUP:
        raise BadAnswer(f"{excerpt(text)} is not a spell card (write e.g. Hex Seal (Fortuna))")
    return SPELL_LOOKUP[text]


def _ingredient(text: str) -> str:
    if text not in INGREDIENT_LOOKUP:
        raise BadAnswer(f"{excerpt(text)} is not an ingredient")
    return INGREDIENT_LOOKUP[text]


def _potion(text: str) -> str:
    if text not in POTION_LOOKUP:
        raise BadAnswer(f"{excerpt(text)} is not a potion")
    return POTION_LOOKUP[text]


_COPY = re.compile(r" #[0-9]{1,2}$")  # a menu's second copy of a card: "coffin nails #2"
_TIMES = re.compile(r"(?: ?×| x)([0-9]{1,2})$")  # copies, as a hand shows them: "bat wing ×2"
_SEAT = re.compile(r"p([0-9])")
MAX_COPIES = 4  # of an ingredient (§1.1)
MAX_CARDS = 200
_ON = re.compile(r"on (.+?) steal (.+?) wager (.+)")
_FROM = re.compile(r"from (.+?) take (.+)")


def _play(rest: str, names: Sequence[str]) -> Act:
    close = rest.find(")")
    if close < 0:
        raise BadAnswer("name the spell card with its category, e.g. play Hex Seal (Fortuna)")
    spell = _spell(rest[: close + 1].strip())
    args = rest[close + 1 :].strip()
    kind = SPELL_TYPE[spell]
    if kind == "Venom Brew":
        if not args.startswith("on "):
            raise BadAnswer(f"write play {spell} on <player>")
        return Act("play", card=spell, seat=_seat(args[3:].strip(), names))
    if kind == "Summon from Beyond":
        match = _FROM.fullmatch(args)
        if match is None:
            raise BadAnswer(f"write play {spell} from <player> take <card>")
        return Act(
            "play", card=spell, seat=_seat(match[1].strip(), names), name=_card(match[2].strip())
        )
    if kind == "Hex Seal":
        if not args.startswith("seal ") or args[5:].strip() not in CATEGORY_LOOKUP:
            raise BadAnswer(f"write play {spell} seal <ingredient category, in full>")
        return Act("play", card=spell, name=CATEGORY_LOOKUP[args[5:].strip()])
    if kind == "Thief's Gamble":
        match = _ON.fullmatch(args)
        if match is None:
            raise BadAnswer(f"write play {spell} on <player> steal <potion> wager <4 cards>")
        wager = _cards(match[3])
        if len(wager) != 4:
            raise BadAnswer(f"the wager is exactly 4 cards, not {len(wager)}")
        seat = _seat(match[1].strip(), names)
        return Act("play", card=spell, seat=seat, potion=_potion(match[2].strip()), cards=wager)
    if args:
        raise BadAnswer(f"{spell} takes no arguments, got {excerpt(args)}")
    return Act("play", card=spell)


def _craft(rest: str) -> Act:
    potion_text, has_with, after = rest.partition(" with ")
    if not has_with:
        raise BadAnswer("write craft <potion> with <card>, <card>, …")
    potion = _potion(potion_text.strip())
    cards_text, has_using, using_text = after.partition(" using ")
    using = name = None
    if has_using:
        using_text, has_as, as_text = using_text.partition(" as ")
        using = _potion(using_text.strip())
        if has_as:
            name = _ingredient(as_text.strip())
    return Act("craft", potion=potion, cards=_cards(cards_text), using=using, name=name)


def _perk(rest: str) -> Act:
    head, has_on, on_text = rest.partition(" on ")
    if has_on:
        return Act("perk", potion=_potion(head.strip()), using=_potion(on_text.strip()))
    head, has_ask, ask_text = rest.partition(" ask ")
    if has_ask:
        return Act("perk", potion=_potion(head.strip()), name=_ingredient(ask_text.strip()))
    return Act("perk", potion=_potion(rest.strip()))


def canonical(act: Act, names: Sequence[str], shown: bool = False) -> str:
    """The canonical text of an act (§13.3): lower-case keywords, catalog names, ``, ``; with
    ``shown``, potions as players see them (``potion_label``: what buttons and menus send)."""
    listed = ", ".join(act.cards)

    def label(potion: str | None) -> str:
        assert potion is not None
        return potion_label(potion) if shown else potion

    if act.kind in ("deck", "end", "pass"):
        return act.kind
    if act.kind == "pile":
        assert act.seat is not None
        return f"pile {names[act.seat]}"
    if act.kind in ("keep", "order", "discard"):
        return f"{act.kind} {listed}"
    if act.kind == "block":
        return f"block {act.card}"
    if act.kind == "pair":
        return f"pair {act.card}"
    if act.kind == "craft":
        text = f"craft {label(act.potion)} with {listed}"
        if act.using is not None:
            text += f" using {label(act.using)}"
            if act.name is not None:
                text += f" as {act.name}"
        return text
    if act.kind == "perk":
        if act.using is not None:
            return f"perk {label(act.potion)} on {label(act.using)}"
        if act.name is not None:
            return f"perk {label(act.potion)} ask {act.name}"
        return f"perk {label(act.potion)}"
    assert act.kind == "play" and act.card is not None
    kind = SPELL_TYPE[act.card]
    text = f"play {act.card}"
    if kind == "Venom Brew":
        assert act.seat is not None
        text += f" on {names[act.seat]}"
    elif kind == "Summon from Beyond":
        assert act.seat is not None
        text += f" from {names[act.seat]} take {act.name}"
    elif kind == "Hex Seal":
        text += f" seal {act.name}"
    elif kind == "Thief's Gamble":
        assert act.seat is not None
        text += f" on {names[act.seat]} steal {label(act.potion)} wager {listed}"
    return text

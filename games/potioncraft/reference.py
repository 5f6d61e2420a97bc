"""A match's content by name (``GameInfo.reference``: ``/cards`` on Discord, ``cards`` in the
terminal): every potion of the match's set with its recipe, category and perk, what each perk and
each spell does, the ingredient families, and how crafting and blocking work. Public."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from games.protocol import JSON, TOPIC_CHARS, Topic

from .cards import (
    CATEGORY_OF,
    CRAFT_PERKS,
    DISPLAY_NAMES,
    INGREDIENT_CATEGORIES,
    PERK_EFFECT,
    PERK_TEXT,
    POTION_CATEGORIES,
    POTIONS,
    SPELL_EFFECT,
    SPELL_GIST,
    SPELL_TYPES,
    potions_of,
)
from .state import State

FAMILIES = INGREDIENT_CATEGORIES
ABBREVIATION = {family: short for family, short, _ in FAMILIES}


def crafting_text(state: State) -> str:
    limit = state.config["table_limit"]
    chained = (
        "all 4 exact cards"
        if state.config["chain_mode"] == "exact4"
        else "3 exact cards, no substitution"
    )
    return (
        "Win: own a Maleficia, a Benedicta and a Fortuna potion (spent ones count)."
        " Craft a potion on offer with 3 of its 4 recipe ingredients; each one is paid with its"
        " card, or with the other 2 cards of its family (substitution), or once per craft with"
        " the Secret Ingredient. List exactly the cards spent. A sealed family (Hex Seal) counts"
        f" in no way; a chained potion (Chain perk) needs {chained}. A crafted potion goes face"
        " up on your table; its perk is usable once, from your next turn on, then it turns"
        f" face down. End of turn: cards in hand + 3 per potion may be at most {limit} (+1 with"
        " the Cauldron bonus); you discard the excess from your hand."
    )


def potion_line(potion: str) -> str:
    recipe = ", ".join(f"{i} ({ABBREVIATION[CATEGORY_OF[i]]})" for i in POTIONS[potion].recipe)
    shown = DISPLAY_NAMES.get(potion)
    name = f"{shown} (the rules page's potion {potion})" if shown else potion
    return f"{name}: {recipe}. Perk: {PERK_TEXT[POTIONS[potion].perk]}."


def perk_effect(kind: str, config: Mapping[str, JSON]) -> str:
    """What a perk does under the match's options (potioncraft.md §9, §16)."""
    text = PERK_EFFECT[kind]
    if kind == "hand_reset" and config["hand_reset_deal"] == "full":
        text = text.replace(
            "is dealt as many cards", "is dealt up to the table limit, less 3 per potion"
        )
    if kind == "request" and not config["request_block_passes"]:
        text = text.replace("(then the next holder is asked)", "(then the request ends)")
    if kind == "chain" and config["chain_mode"] != "exact4":
        text = text.replace("its 4 exact ingredient cards", "3 of its exact ingredient cards")
    return text


def spell_effect(kind: str, config: Mapping[str, JSON], seats: int, short: bool = False) -> str:
    """What a spell type does under the match's options (potioncraft.md §8, §16); ``short``:
    in a few words, for prompts."""
    text = (SPELL_GIST if short else SPELL_EFFECT)[kind]
    if kind == "Foul Elixir":
        text = text.replace("2 random cards", f"{config['foul_elixir_discards']} random cards")
    if kind == "Twist of Fate" and seats == 2:
        if config["two_player_twist"] == "skip":
            return "with 2 players: the other player loses their next turn"
        return "with 2 players: no effect (the direction changes nothing)"
    return text


def blocking_text() -> str:
    return (
        "Only two perks can be blocked, each with one spell (any type but Foul Elixir) of the"
        " category that beats the perk's potion: Maleficia beats Fortuna, Fortuna beats"
        " Benedicta, Benedicta beats Maleficia. Hand reset (Maleficia potions): every other"
        " player may block with a Benedicta spell, all at once. Request (Benedicta potions):"
        " the holder asked may block with a Fortuna spell. A blocking spell goes to its"
        " owner's pile without its effect. Spells cannot be blocked; a ward (Petal Ward"
        " Elixir's perk) cancels the next Circle Breaker, Venom Brew or Thief's Gamble aimed"
        " at its owner."
    )


def pack(title: str, lines: Iterable[str]) -> list[Topic]:
    """Lines as topics of at most ``TOPIC_CHARS`` characters, ``title (1/2)``… when split."""
    pages: list[list[str]] = [[]]
    for line in lines:
        if pages[-1] and len("\n".join([*pages[-1], line])) > TOPIC_CHARS:
            pages.append([])
        pages[-1].append(line[:TOPIC_CHARS])
    if len(pages) == 1:
        return [Topic(title, "\n".join(pages[0]))]
    return [Topic(f"{title} ({i}/{len(pages)})", "\n".join(p)) for i, p in enumerate(pages, 1)]


def topics(state: State) -> Sequence[Topic]:
    in_set = potions_of(str(state.config["potion_set"]))
    found = pack("How to win and craft", [crafting_text(state)])
    for category in POTION_CATEGORIES:
        potions = [p for p in in_set if POTIONS[p].category == category]
        found += pack(f"{category} potions", (potion_line(p) for p in potions))
    perks = dict.fromkeys(POTIONS[p].perk for p in in_set)
    config, seats = state.config, len(state.in_play())
    for title, kinds in (
        ("Perks", [k for k in perks if k not in CRAFT_PERKS]),
        ("Perks used in a craft", [k for k in perks if k in CRAFT_PERKS]),
    ):
        found += pack(title, (f"{PERK_TEXT[k]}: {perk_effect(k, config)}" for k in kinds))
    found += pack(
        "Spells",
        [
            "3 of each, one per category (the category matters only for blocking).",
            *(f"{kind}: {spell_effect(kind, config, seats)}." for kind in SPELL_TYPES),
        ],
    )
    found += pack("Blocking", [blocking_text()])
    found += pack(
        "Ingredient families",
        [
            "4 copies of each ingredient, and 1 Secret Ingredient that stands in for any one.",
            *(f"{family} ({short}): {', '.join(three)}" for family, short, three in FAMILIES),
        ],
    )
    return found

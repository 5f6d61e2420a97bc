"""The Potioncraft card catalog (``potioncraft.md`` §1): ingredients, the wild, spells and potions,
in catalog order (§1.4), with name lookup for typed answers and scripts."""

from __future__ import annotations

from collections.abc import Iterable

POTION_CATEGORIES = ("Maleficia", "Benedicta", "Fortuna")
# §10: each category beats one other: Maleficia > Fortuna > Benedicta > Maleficia
BEATS = {"Maleficia": "Fortuna", "Fortuna": "Benedicta", "Benedicta": "Maleficia"}
BLOCKED_BY = {beaten: winner for winner, beaten in BEATS.items()}

INGREDIENT_CATEGORIES: tuple[tuple[str, str, tuple[str, str, str]], ...] = (
    ("Occult Rituals", "OR", ("Coffin Nails", "Ashes of a Burnt Letter", "Eye of Newt")),
    ("Body & Transformation", "BT", ("Hair of a Virgin", "Spider Silk", "Mermaid Scale")),
    ("Sacred Herbs & Botanicals", "SH", ("Nightshade", "Yew Tree Branch", "Whispering Bark")),
    ("Purification & Blessing", "PB", ("White Sage", "Four Leaf Clover", "Frankincense")),
    ("Mythical Beasts", "MB", ("Unicorn Hair", "Manticore Venom", "Fairy Dust")),
    ("Death & the Beyond", "DB", ("Graveyard Dirt", "Ghoul Tongue", "Raven Feather")),
    ("Celestial & Dream Magic", "CD", ("Moonstone Powder", "Starflower", "Lightning Bug Glow")),
    ("Crystals & Earthbound Magic", "CE", ("Clear Quartz", "Amethyst", "Crushed Pearl")),
    ("Witch's Pantry", "WP", ("Pumpkin Guts", "Ghost Pepper Essence", "Bat Wing")),
)
CATEGORY_NAMES = tuple(name for name, _, _ in INGREDIENT_CATEGORIES)
INGREDIENTS = tuple(i for _, _, three in INGREDIENT_CATEGORIES for i in three)
CATEGORY_OF = {i: name for name, _, three in INGREDIENT_CATEGORIES for i in three}
SIBLINGS = {
    i: tuple(o for o in three if o != i) for _, _, three in INGREDIENT_CATEGORIES for i in three
}
WILD = "Secret Ingredient"
INGREDIENT_COPIES = 4

SPELL_TYPES = (
    "Circle Breaker",
    "Twist of Fate",
    "Venom Brew",
    "Astral Projection",
    "Foul Elixir",
    "Crackling Cauldron",
    "Summon from Beyond",
    "Hex Seal",
    "Thief's Gamble",
)
SPELLS = tuple(f"{kind} ({cat})" for kind in SPELL_TYPES for cat in POTION_CATEGORIES)
SPELL_TYPE = {f"{kind} ({cat})": kind for kind in SPELL_TYPES for cat in POTION_CATEGORIES}
SPELL_CATEGORY = {f"{kind} ({cat})": cat for kind in SPELL_TYPES for cat in POTION_CATEGORIES}
FOUL = "Foul Elixir"

CARDS = (*INGREDIENTS, WILD, *SPELLS)
CATALOG = {card: index for index, card in enumerate(CARDS)}
COPIES = {card: INGREDIENT_COPIES if card in CATEGORY_OF else 1 for card in CARDS}
DECK_SIZE = sum(COPIES.values())  # 136


class Potion:
    __slots__ = ("category", "name", "perk", "recipe")

    def __init__(self, name: str, category: str, recipe: tuple[str, ...], perk: str) -> None:
        self.name, self.category, self.recipe, self.perk = name, category, recipe, perk


_STANDARD = (
    (
        "Severance Draught",
        "Maleficia",
        "Coffin Nails, Whispering Bark, Ghost Pepper Essence, Clear Quartz",
        "reshuffle",
    ),
    (
        "Silence of the Grave",
        "Maleficia",
        "Ghoul Tongue, Coffin Nails, Nightshade, White Sage",
        "hand_reset",
    ),
    (
        "Witch's Chain",
        "Maleficia",
        "Graveyard Dirt, Ashes of a Burnt Letter, Bat Wing, Spider Silk",
        "chain",
    ),
    (
        "Maledicta Vitae",
        "Maleficia",
        "Fairy Dust, Starflower, Whispering Bark, Raven Feather",
        "hand_reset",
    ),
    (
        "Hex of Hollow Flame",
        "Maleficia",
        "Raven Feather, Manticore Venom, Pumpkin Guts, Eye of Newt",
        "reshuffle",
    ),
    (
        "Lover's Whisper",
        "Benedicta",
        "Hair of a Virgin, Unicorn Hair, White Sage, Starflower",
        "request",
    ),
    (
        "Petal Ward Elixir",
        "Benedicta",
        "Four Leaf Clover, Starflower, Spider Silk, Amethyst",
        "ward",
    ),
    (
        "Heartfire Infusion",
        "Benedicta",
        "Ghost Pepper Essence, Unicorn Hair, Crushed Pearl, Moonstone Powder",
        "mimic",
    ),
    (
        "Mirror Dew",
        "Benedicta",
        "Clear Quartz, Moonstone Powder, Fairy Dust, Frankincense",
        "mimic",
    ),
    (
        "Wispwine",
        "Benedicta",
        "Frankincense, Lightning Bug Glow, Raven Feather, Crushed Pearl",
        "request",
    ),
    (
        "Dreambinder Elixir",
        "Fortuna",
        "Moonstone Powder, Spider Silk, White Sage, Fairy Dust",
        "foresight",
    ),
    (
        "Twist of Fate",
        "Fortuna",
        "Amethyst, Hair of a Virgin, Eye of Newt, Four Leaf Clover",
        "recycle",
    ),
    (
        "Illusion's Glee",
        "Fortuna",
        "Mermaid Scale, Fairy Dust, Lightning Bug Glow, Whispering Bark",
        "pairs_wild",
    ),
    (
        "Oracle's Dew",
        "Fortuna",
        "Clear Quartz, Mermaid Scale, Bat Wing, Lightning Bug Glow",
        "foresight",
    ),
    (
        "Serpent's Luck",
        "Fortuna",
        "Yew Tree Branch, Four Leaf Clover, Manticore Venom, Ghost Pepper Essence",
        "pairs_wild",
    ),
)
_EXTRA = (
    (
        "Bind of the Forgotten",
        "Maleficia",
        "Graveyard Dirt, Nightshade, Yew Tree Branch, Ashes of a Burnt Letter",
        "chain",
    ),
    (
        "Basilisk Balm",
        "Benedicta",
        "Fairy Dust, Crushed Pearl, Pumpkin Guts, Hair of a Virgin",
        "ward",
    ),
    (
        "Veilpiercer Tonic",
        "Fortuna",
        "Ashes of a Burnt Letter, Frankincense, Eye of Newt, Mermaid Scale",
        "recycle",
    ),
)
POTIONS = {
    name: Potion(name, cat, tuple(recipe.split(", ")), perk)
    for name, cat, recipe, perk in (*_STANDARD, *_EXTRA)
}
STANDARD_POTIONS = tuple(name for name, *_ in _STANDARD)
ALL18_POTIONS = tuple(POTIONS)
PERK_TEXT = {
    "reshuffle": "Potion reshuffle",
    "hand_reset": "Hand reset",
    "chain": "Chain",
    "request": "Request",
    "ward": "Ward",
    "mimic": "Mimic",
    "pairs_wild": "Pairs-wild",
    "foresight": "Foresight",
    "recycle": "Recycle",
}
CRAFT_PERKS = ("mimic", "pairs_wild")  # used only inside a craft
SPENT = " (spent)"


def potions_of(potion_set: str) -> tuple[str, ...]:
    return ALL18_POTIONS if potion_set == "all18" else STANDARD_POTIONS


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards in catalog order (§1.4): how hands are shown."""
    return sorted(cards, key=CATALOG.__getitem__)


def is_spell(card: str) -> bool:
    return card in SPELL_TYPE


def is_ingredient(card: str) -> bool:
    return card in CATEGORY_OF


def normal(text: str) -> str:
    """§13.3 normalisation: typographic apostrophes, runs of whitespace, surrounding space; the
    result is casefolded for lookups."""
    return " ".join(text.replace("\u2019", "'").split())


def _lookup(names: Iterable[str]) -> dict[str, str]:
    return {name.casefold(): name for name in names}


CARD_LOOKUP = _lookup(CARDS)
INGREDIENT_LOOKUP = _lookup(INGREDIENTS)
SPELL_LOOKUP = _lookup(SPELLS)
POTION_LOOKUP = _lookup(POTIONS) | {"twist of fate (potion)": "Twist of Fate"}
CATEGORY_LOOKUP = _lookup(CATEGORY_NAMES) | {
    abbr.casefold(): name for name, abbr, _ in INGREDIENT_CATEGORIES
}
POTION_CATEGORY_LOOKUP = _lookup(POTION_CATEGORIES)


def potion_label(name: str) -> str:
    """A potion as humans see it: the potion Twist of Fate is marked so (§1.2)."""
    return "Twist of Fate (potion)" if name == "Twist of Fate" else name

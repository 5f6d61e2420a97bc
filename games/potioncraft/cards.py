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
DISPLAY_NAMES = {"Twist of Fate": "Wheel of Fortune"}
"""Potions shown under another name so that every name in a match is unique: the rules page's
potion Twist of Fate shares its name with a spell. Moves, scripts and exports keep the page's
name (any implementation replays them); typed answers take either."""


def potion_label(name: str) -> str:
    """A potion as players see it (``DISPLAY_NAMES``)."""
    return DISPLAY_NAMES.get(name, name)


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
PERK_GIST = {  # what a perk does, in a few words (prompts)
    "reshuffle": "new potions on offer",
    "hand_reset": "every hand dealt anew",
    "chain": "a potion on offer then needs its 4 exact cards",
    "request": "a player gives you an ingredient you name",
    "ward": "stops the next spell aimed at you",
    "mimic": "in a craft, copies an ingredient already used",
    "pairs_wild": "in a craft, a pair counts as any ingredient",
    "foresight": "reorder the deck's top cards",
    "recycle": "all piles shuffled into the deck",
}
PERK_EFFECT = {  # the whole effect (the reference; potioncraft.md §9)
    "reshuffle": "the 3 potions on offer go back into their decks, which are shuffled, and the"
    " new tops are revealed.",
    "hand_reset": "every other player may block it with a Benedicta spell; everybody else,"
    " you included, puts their hand into the deck, shuffled, and is dealt as many cards.",
    "chain": "`perk <potion> on <potion on offer>`: that potion can then be crafted only with"
    " its 4 exact ingredient cards (no substitution, no wild), until it is crafted.",
    "request": "`perk <potion> ask <ingredient>`: the first player after you holding it gives"
    " you one, unless they block with a Fortuna spell (then the next holder is asked).",
    "ward": "you gain a ward: the next Circle Breaker, Venom Brew or Thief's Gamble aimed at"
    " you is cancelled.",
    "mimic": "used inside a craft: `craft … using <potion> as <ingredient>`, the ingredient"
    " (one already spent in a craft this game) counts as held.",
    "pairs_wild": "used inside a craft: `craft … using <potion>`, two equal ingredient cards"
    " count as any one recipe ingredient.",
    "foresight": "you see the top 2 cards per player of the deck and put them back in the"
    " order you choose.",
    "recycle": "every pile and the deck are shuffled together into a new deck.",
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
POTION_LOOKUP = (
    _lookup(POTIONS)
    | {label.casefold(): name for name, label in DISPLAY_NAMES.items()}
    | {"twist of fate (potion)": "Twist of Fate"}
)
CATEGORY_LOOKUP = _lookup(CATEGORY_NAMES) | {
    abbr.casefold(): name for name, abbr, _ in INGREDIENT_CATEGORIES
}
POTION_CATEGORY_LOOKUP = _lookup(POTION_CATEGORIES)


SPELL_GIST = {  # what each spell type does, in a few words (prompts)
    "Circle Breaker": "the next player loses their next turn",
    "Twist of Fate": "the direction of play is reversed",
    "Venom Brew": "a player you choose discards a random card",
    "Astral Projection": "see the deck's top 3 cards and keep 1",
    "Foul Elixir": "never played: when drawn, it and 2 random cards of the hand are discarded",
    "Crackling Cauldron": "draw a card; your table limit is +1 until you next craft",
    "Summon from Beyond": "take any card from any pile",
    "Hex Seal": "seal an ingredient family: none of it counts in crafts",
    "Thief's Gamble": "wager 4 cards to steal a potion: it works if they hold a pair, else you"
    " lose a turn",
}
SPELL_EFFECT = {  # what each spell type does (potioncraft.md §8), for prompts and the reference
    "Circle Breaker": "the next player loses their next turn",
    "Twist of Fate": "the direction of play is reversed",
    "Venom Brew": "a player you choose discards a random card",
    "Astral Projection": "see the deck's top 3 cards, keep 1, put the others back in your order",
    "Foul Elixir": "never played: when it reaches a hand, it and 2 random cards of that hand"
    " go to that player's pile",
    "Crackling Cauldron": "draw a card; your table limit is +1 until you next craft",
    "Summon from Beyond": "take any card from any player's pile",
    "Hex Seal": "seal an ingredient family: no card of it counts in any craft until the next"
    " Hex Seal",
    "Thief's Gamble": "wager 4 other cards to steal a player's potion: if they hold a pair of"
    " equal ingredients they discard it and the potion is yours, else you lose your next turn;"
    " the wager is discarded either way",
}

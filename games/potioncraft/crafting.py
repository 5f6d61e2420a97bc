"""Crafting (``potioncraft.md`` §7, §9.6, §9.7): which card lists claim a potion.

A craft fulfils exactly three recipe ingredients (four for a chained potion in ``exact4`` mode),
each in one way: direct, substitution, the wild, a pair (Pairs-wild) or a mimic (Mimic). The
listed cards must be exactly the cards some such assignment spends (AMBIGUITY 18).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import product

from .cards import CATALOG, CATEGORY_OF, POTIONS, SIBLINGS, WILD, is_ingredient

Need = tuple[Counter[str], bool]  # the named cards spent, and whether a pair comes on top


def needs(
    potion: str,
    *,
    seal: str | None,
    chained: bool,
    chain_mode: str,
    perk: str | None = None,
    mimic_as: str | None = None,
    mimic_log: tuple[str, ...] | list[str] = (),
    hand: Counter[str] | None = None,
) -> Iterator[Need]:
    """Every way to claim ``potion`` as the cards it spends (repeats possible); with ``hand``,
    only ways whose cards each are in it (a faster search for the crafts a hand can make)."""
    recipe = POTIONS[potion].recipe
    if any(CATEGORY_OF[i] == seal for i in recipe) and chained and chain_mode == "exact4":
        return
    if chained:
        if perk is not None:
            return  # no pair and no mimic on a chained potion
        if chain_mode == "exact4":
            yield Counter(recipe), False
            return
        for skip in range(4):
            chosen = recipe[:skip] + recipe[skip + 1 :]
            if all(CATEGORY_OF[i] != seal for i in chosen):
                yield Counter(chosen), False
        return
    for skip in range(4):
        chosen = recipe[:skip] + recipe[skip + 1 :]
        if any(CATEGORY_OF[i] == seal for i in chosen):
            continue
        options = []
        for ingredient in chosen:
            ways: list[tuple[str, tuple[str, ...]]] = [
                ("d", (ingredient,)),
                ("s", SIBLINGS[ingredient]),
                ("w", (WILD,)),
            ]
            if perk == "pairs_wild":
                ways.append(("p", ()))
            if perk == "mimic" and ingredient == mimic_as and mimic_as in mimic_log:
                ways.append(("m", ()))
            if hand is not None:
                ways = [(k, cards) for k, cards in ways if all(hand[c] for c in cards)]
            options.append(ways)
        for combo in product(*options):
            kinds = [kind for kind, _ in combo]
            if kinds.count("w") > 1:
                continue
            if kinds.count("p") != (1 if perk == "pairs_wild" else 0):
                continue
            if kinds.count("m") != (1 if perk == "mimic" else 0):
                continue
            spent: Counter[str] = Counter()
            for _, cards in combo:
                spent.update(cards)
            yield spent, "p" in kinds


def _pair_name(rest: Counter[str], seal: str | None) -> str | None:
    """The ingredient of a remainder that is exactly one pair of a usable name."""
    if sum(rest.values()) != 2 or len(rest) != 1:
        return None
    (name,) = rest
    return name if is_ingredient(name) and CATEGORY_OF[name] != seal else None


def matches(listed: Counter[str], need: Need, seal: str | None) -> bool:
    spent, pair = need
    if not pair:
        return listed == spent
    if any(listed[card] < count for card, count in spent.items()):
        return False
    return _pair_name(listed - spent, seal) is not None


def from_hand(hand: Counter[str], need: Need, seal: str | None) -> list[str] | None:
    """A card list for ``need`` taken from ``hand`` (catalog order), or None."""
    spent, pair = need
    if any(hand[card] < count for card, count in spent.items()):
        return None
    cards = list(spent.elements())
    if pair:
        left = hand - spent
        names = [
            n for n, c in left.items() if c >= 2 and is_ingredient(n) and CATEGORY_OF[n] != seal
        ]
        if not names:
            return None
        name = max(names, key=lambda n: (left[n], -CATALOG[n]))
        cards += [name, name]
    return sorted(cards, key=CATALOG.__getitem__)


# --- how near a hand is to a potion (prompts) ---------------------------------------------------

CARD, SWAP, SEALED = "card", "swap", "sealed"  # how a hand covers one recipe ingredient
DISTINCT_FAMILIES = frozenset(  # every recipe but two of potion_set all18
    p for p in POTIONS if len({CATEGORY_OF[i] for i in POTIONS[p].recipe}) == 4
)


def fit_marks(potion: str, hand: Counter[str], seal: str | None, chained: bool) -> list[str]:
    """Per recipe ingredient of ``potion``: ``CARD`` (the hand holds it), ``SWAP`` (the hand
    holds the other two of its family, and the potion is not chained), ``SEALED``, or ``""``."""
    marks = []
    for ingredient in POTIONS[potion].recipe:
        if CATEGORY_OF[ingredient] == seal:
            marks.append(SEALED)
        elif hand[ingredient]:
            marks.append(CARD)
        elif not chained and all(hand[s] for s in SIBLINGS[ingredient]):
            marks.append(SWAP)
        else:
            marks.append("")
    return marks


def missing(
    potion: str, hand: Counter[str], *, seal: str | None, chained: bool, chain_mode: str
) -> tuple[int, bool]:
    """How many recipe ingredients of ``potion`` the hand still lacks for a craft by cards alone
    (no perk), and whether the best way found spends the Secret Ingredient: the most ingredients
    the hand's cards cover at once, each card spent once (§7.1), at most one wild."""
    recipe = POTIONS[potion].recipe
    exact = chained and chain_mode == "exact4"
    need = 4 if exact else 3
    if potion in DISTINCT_FAMILIES:  # covers never share a card but the wild: count them
        held = [
            CATEGORY_OF[i] != seal
            and (hand[i] > 0 or (not chained and all(hand[s] for s in SIBLINGS[i])))
            for i in recipe
        ]
        gaps = any(not h and CATEGORY_OF[i] != seal for h, i in zip(held, recipe, strict=True))
        wild = not chained and hand[WILD] > 0 and gaps and sum(held) < need
        return max(0, need - min(sum(held) + wild, need)), wild
    options: list[list[tuple[str, ...]]] = []
    for ingredient in recipe:
        ways: list[tuple[str, ...]] = []
        if CATEGORY_OF[ingredient] != seal:
            ways.append((ingredient,))
            if not chained:
                ways += [SIBLINGS[ingredient], (WILD,)]
        options.append([w for w in ways if all(hand[c] for c in w)] + [()])
    best, wild = 0, False
    for combo in product(*options):
        spent = Counter(card for way in combo for card in way)
        if any(hand[card] < count for card, count in spent.items()):
            continue
        covered = sum(1 for way in combo if way)
        uses_wild = WILD in spent
        if covered > best or (covered == best and wild and not uses_wild):
            best, wild = covered, uses_wild
    return max(0, need - min(best, need)), wild

"""Every piece of a card set in words, by name: what a card is and what it does, as prompts, the
table, the events and the reference show it (never an id: ids are for scripts)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from games.text import names_text

from .cards import CardSet, Ingredient, Method, Result
from .state import Config

ROMAN_OF = {1: "I", 2: "II", 3: "III", 4: "IV"}


def roman(level: int) -> str:
    return ROMAN_OF.get(level, str(level))


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


# --- ingredients and items ---------------------------------------------------------------------


def card_name(cs: CardSet, card: str) -> str:
    return cs.ingredients[card].name


def cards_text(cs: CardSet, cards: Iterable[str]) -> str:
    """``Salt ×2, Lead and Greek Fire``: cards by name in the card list's order (by level),
    copies counted."""
    counts = Counter(cards)
    ordered = sorted(counts, key=cs.rank)
    return names_text([counted(card_name(cs, c), counts[c]) for c in ordered]) or "nothing"


def counted(name: str, n: int) -> str:
    return name if n == 1 else f"{name} ×{n}"


def effect_text(ing: Ingredient) -> str:
    """An item's effect, short (``3 damage``, ``heals 5``): hands, labels, acknowledgements;
    ``item_text`` says it whole."""
    n = ing.amount
    return {
        None: "",
        "damage": f"{n} damage",
        "steal": f"steals {plural(n, 'random card')}",
        "heal": f"heals {n}",
        "coins": f"+{n} coins",
        "boost": f"+{n} to your next experiment",
        "ward": "out of turn: no loss from one damage event",
    }[ing.effect]


def item_text(ing: Ingredient) -> str:
    """What an item does when used (rules page §7.1), or "" for a plain ingredient."""
    n = ing.amount
    return {
        None: "",
        "damage": f"{n} damage to a rival or a monster",
        "steal": f"steals {plural(n, 'random card')} from a rival",
        "heal": f"heals {n} Health",
        "coins": f"+{n} coins",
        "boost": f"+{n} to the value of your next experiment this turn",
        "ward": "out of turn: cancels all your loss from one damage event",
    }[ing.effect]


def card_text(cs: CardSet, card: str) -> str:
    """``Greek Fire (Level III; item: 3 damage to a rival or a monster)``."""
    ing = cs.ingredients[card]
    parts = [f"Level {roman(ing.level)}"]
    if ing.cost is not None:
        parts.append(f"{plural(ing.cost, 'coin')} in the market")
    if ing.effect is not None:
        parts.append(f"item: {item_text(ing)}")
    if ing.wins:
        parts = ["making it wins the game"]
    return f"{ing.name} ({'; '.join(parts)})"


def hand_by_level(cs: CardSet, hand: Mapping[str, int], items: bool = True) -> str:
    """``Level I: Salt ×2, Lead; Level III: Greek Fire (3 damage to a rival or a monster)``:
    a hand by level (an experiment's value is the sum of its levels), each item with what it
    does (once)."""
    if not hand:
        return "empty"
    levels: dict[int, list[str]] = {}
    for card in sorted(hand, key=cs.rank):
        ing = cs.ingredients[card]
        text = counted(ing.name, hand[card])
        if items and ing.effect is not None:
            text += f" ({effect_text(ing)})"
        levels.setdefault(ing.level, []).append(text)
    return "; ".join(f"Level {roman(lv)}: {', '.join(texts)}" for lv, texts in levels.items())


# --- methods --------------------------------------------------------------------------------


def keep_text(method: Method) -> str:
    if method.keep_min == method.keep_max == method.draw:
        return f"draw {method.draw}" + (", all play" if method.draw > 1 else "")
    keep = (
        str(method.keep_min)
        if method.keep_min == method.keep_max
        else f"{method.keep_min}-{method.keep_max}"
    )
    return f"draw {method.draw}, keep {keep}"


def cost_text(coins: int, health: int) -> str:
    parts = [plural(coins, "coin")] if coins else []
    parts += [f"{health} Health"] if health else []
    return " and ".join(parts) or "free"


def method_brief(method: Method) -> str:
    """``The Gold Standard 2 coins, best of 2``: a method's cost per level and draw, short."""
    cost = cost_text(method.coins, method.health).replace(" and ", " + ")
    if method.keep_min == method.keep_max == method.draw:
        draw = f"draw {method.draw}" + (" (all play)" if method.draw > 1 else "")
    elif method.keep_min == method.keep_max == 1:
        draw = f"best of {method.draw}"
    else:
        draw = keep_text(method)
    return f"{method.name} {cost}, {draw}"


def method_text(method: Method, level: int | None = None) -> str:
    """``Blood Distillation: 1 Health a level, draw 2, keep 1`` (with ``level``: that level's
    cost, ``2 Health``)."""
    if level is None:
        cost = cost_text(method.coins, method.health)
        cost = cost if cost == "free" else f"{cost} a level"
    else:
        cost = cost_text(method.coins * level, method.health * level)
    return f"{method.name}: {cost}, {keep_text(method)}"


# --- result cards ---------------------------------------------------------------------------


def result_name(cs: CardSet, result: Result) -> str:
    """``Success: Dusky Resin (4)``, ``Simple Failure: Salt``, ``Dire Wolf``."""
    if result.kind == "success":
        assert result.product is not None
        return f"Success: {card_name(cs, result.product)} ({result.score})"
    if result.kind == "simple":
        gain = card_name(cs, result.gain) if result.gain is not None else "nothing"
        return f"Simple Failure: {gain}"
    return result.name


def damage_text(result: Result) -> str:
    parts = [f"you lose {result.self_damage}"] if result.self_damage else []
    if result.others_damage:
        parts.append(f"every other alchemist loses {result.others_damage}")
    if result.most_damage:
        parts.append(f"the other(s) with the most cards lose {result.most_damage}")
    if result.discard_random:
        parts.append(f"then you discard {plural(result.discard_random, 'random card')}")
    return "; ".join(parts) or "no effect"


def result_text(cs: CardSet, result: Result, config: Config) -> str:
    """What a kept result card does (rules page §5.6), in words."""
    if result.kind == "success":
        assert result.product is not None
        product = card_name(cs, result.product)
        if cs.ingredients[result.product].wins:
            return f"at value {result.score}+ you make {product} and win"
        return f"at value {result.score}+ you take {product} and keep a formula"
    if result.kind == "simple":
        if config["simple_failure"] == "nothing" or result.gain is None:
            return "no effect"
        return f"you take {card_name(cs, result.gain)} from the market"
    if result.kind == "catastrophe":
        return damage_text(result)
    return (
        f"comes into play before you (Health {result.hp}) and hits you and the rival(s) with"
        f" the most cards for {result.damage}, now and after your next"
        f" {plural(config['monster_attacks'], 'turn')}"
    )


def drawn_text(cs: CardSet, result: Result, value: int, config: Config) -> str:
    """A drawn card for a keep choice: its name and what keeping it does at ``value``."""
    name = result_name(cs, result)
    if result.kind == "success":
        assert result.product is not None
        if value < result.score:
            return f"{name}: not met at value {value}, no effect"
        product = card_name(cs, result.product)
        if cs.ingredients[result.product].wins:
            return f"{name}: met, you make {product} and win"
        return f"{name}: met, you take {product} and keep a formula"
    return f"{name}: {result_text(cs, result, config)}"


def deck_outlook(
    cs: CardSet, level: str, deck: Sequence[str], value: int, products: bool = True
) -> str:
    """What drawing from a deck of these cards does for an experiment of ``value``: how many
    successes it meets (and, with ``products``, what they make), misses, failures,
    catastrophes and monsters."""
    counts: Counter[str] = Counter(cs.results[level][card].kind for card in deck)
    met = [cs.results[level][c] for c in deck if cs.results[level][c].kind == "success"]
    made = [r for r in met if value >= r.score]
    parts = [f"{len(made)} met"]
    kinds = sorted({r.product or "" for r in made}, key=cs.rank)
    if products and kinds:
        parts[0] += f" ({names_text([card_name(cs, p) for p in kinds])})"
    if len(met) > len(made):
        parts.append(f"{len(met) - len(made)} missed")
    parts[-1] += " successes" if len(met) > 1 else " success"
    for kind, word in (
        ("simple", "simple failure"),
        ("catastrophe", "catastrophe"),
        ("monster", "monster"),
    ):
        if counts[kind]:
            parts.append(plural(counts[kind], word))
    return f"of {len(deck)} cards, {', '.join(parts)}"


def seat_word(names: Sequence[str], handles: Sequence[str], seat: int) -> str:
    """A seat as prompts name it: its name, and the word answers use when that differs
    (``AI (normal) [P2]``)."""
    name, handle = names[seat], handles[seat]
    return name if name == handle else f"{name} [{handle}]"

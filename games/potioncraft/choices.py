"""The answers a window offers as choices (``potioncraft.md`` §13.4): every legal answer that can
be listed, and for answers with too many forms (card lists, wagers) the useful canonical ones;
anything else of the grammar may be typed."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import permutations

from games.protocol import Choice

from .cards import CATEGORY_NAMES, INGREDIENTS, POTIONS, SPELL_TYPE, WILD, potion_label
from .crafting import from_hand, needs
from .grammar import canonical, parse
from .rules import eligible_blocks, name, order_from, ready
from .state import State

LABEL = 80


def label(text: str) -> str:
    return text if len(text) <= LABEL else text[: LABEL - 1] + "…"


def _choice(value: str, group: str, text: str | None = None, stage: str = "") -> Choice:
    return Choice(value, label(text or value), group, stage)


WAYS_PER_POTION = 6  # card lists offered per revealed potion (others may be typed)


def crafts(state: State, seat: int) -> list[str]:
    """The legal crafts as canonical text: per revealed potion, the first way found, then others
    (up to ``WAYS_PER_POTION`` in all): fewest cards first, the wild and perks last."""
    return [text for ways in craft_ways(state, seat) for text in ways]


def first_crafts(state: State, seat: int) -> list[str]:
    """One craft per revealed potion the hand can make."""
    return [ways[0] for ways in craft_ways(state, seat)]


def craft_ways(state: State, seat: int) -> tuple[tuple[str, ...], ...]:
    perks: list[tuple[str | None, str | None]] = [(None, None)]
    for owned in state.potions[seat]:
        kind = POTIONS[owned.name].perk
        if kind in ("mimic", "pairs_wild") and ready(state, owned):
            if kind == "pairs_wild":
                perks.append((owned.name, None))
            else:
                perks += [(owned.name, x) for x in state.mimic_log]
    return _crafts(
        tuple(state.hands[seat]),
        tuple(p for p in state.revealed.values() if p is not None),
        state.seal,
        tuple(state.chained),
        str(state.config["chain_mode"]),
        tuple(state.mimic_log),
        tuple(perks),
    )


@lru_cache(maxsize=512)
def _crafts(
    hand_cards: tuple[str, ...],
    revealed: tuple[str, ...],
    seal: str | None,
    chained: tuple[str, ...],
    chain_mode: str,
    mimic_log: tuple[str, ...],
    perks: tuple[tuple[str | None, str | None], ...],
) -> tuple[tuple[str, ...], ...]:
    hand = Counter(hand_cards)
    found = []
    for potion in revealed:
        ways: dict[str, None] = {}
        for using, mimic_as in perks:
            if mimic_as is not None and mimic_as not in POTIONS[potion].recipe:
                continue
            perk = POTIONS[using].perk if using else None
            for need in needs(
                potion,
                seal=seal,
                chained=potion in chained,
                chain_mode=chain_mode,
                perk=perk,
                mimic_as=mimic_as,
                mimic_log=mimic_log,
                hand=hand,
            ):
                cards = from_hand(hand, need, seal)
                if cards is None:
                    continue
                text = f"craft {potion} with {', '.join(cards)}"
                if using:
                    text += f" using {using}" + (f" as {mimic_as}" if mimic_as else "")
                ways[text] = None
        if ways:
            first, *rest = ways
            rest.sort(key=lambda text: (WILD in text, " using " in text, text.count(",")))
            found.append((first, *rest[: WAYS_PER_POTION - 1]))
    return tuple(found)


def shown(state: State, text: str) -> str:
    """A canonical answer as buttons and menus send it: potions named as players see them."""
    return canonical(parse(text, state.names), state.names, shown=True)


def craft_label(text: str) -> str:
    """``craft X with a, b, c`` (as shown) as a menu option: ``X: a, b, c``."""
    potion, _, rest = text.removeprefix("craft ").partition(" with ")
    return f"{potion}: {rest}"


def main_choices(state: State, seat: int) -> list[Choice]:
    # two steps on Discord (§13.4): the potion, then the cards that pay for it
    texts = [shown(state, text) for text in crafts(state, seat)]
    choices = [
        _choice(text, "craft", craft_label(text), craft_label(text).partition(": ")[0])
        for text in texts
    ]
    hand = state.hands[seat]
    others = order_from(state, seat)
    first_of: dict[str, str] = {}
    for card in hand:
        if card in SPELL_TYPE:
            first_of.setdefault(SPELL_TYPE[card], card)
    for spell in dict.fromkeys(c for c in hand if c in SPELL_TYPE):
        kind = SPELL_TYPE[spell]
        play = f"play {spell}"
        if kind == "Foul Elixir":
            continue
        if kind == "Venom Brew":
            choices += [_choice(f"{play} on {name(state, o)}", "spell") for o in others]
        elif kind == "Hex Seal":
            choices += [
                _choice(f"{play} seal {k}", "spell") for k in CATEGORY_NAMES if k != state.seal
            ]
        elif kind == "Summon from Beyond":
            if first_of[kind] != spell:
                continue
            for s in range(state.seats):
                for card in dict.fromkeys(reversed(state.piles[s])):
                    choices.append(_choice(f"{play} from {name(state, s)} take {card}", "spell"))
        elif kind == "Thief's Gamble":
            if first_of[kind] != spell:
                continue
            rest = [c for c in hand if c != spell]
            if len(rest) < 4:
                continue
            wager = ", ".join(rest[-4:])
            for o in others:
                for owned in state.potions[o]:
                    value = f"{play} on {name(state, o)} steal {potion_label(owned.name)}"
                    value += f" wager {wager}"
                    text = f"{play} on {name(state, o)}: steal {potion_label(owned.name)}"
                    choices.append(_choice(value, "spell", text))
        else:
            choices.append(_choice(play, "spell"))
    for owned in state.potions[seat]:
        if not ready(state, owned):
            continue
        kind = POTIONS[owned.name].perk
        perk = f"perk {potion_label(owned.name)}"
        if kind in ("mimic", "pairs_wild"):
            continue
        if kind == "chain":
            choices += [
                _choice(f"{perk} on {potion_label(p)}", "perk")
                for p in state.revealed.values()
                if p is not None and p not in state.chained
            ]
        elif kind == "request":
            choices += [_choice(f"{perk} ask {i}", "perk") for i in INGREDIENTS]
        else:
            choices.append(_choice(perk, "perk"))
    choices.append(_choice("end", "turn", "End turn"))
    return choices


def draw_label(state: State, option: str, seat: int) -> str:
    """``deck`` or ``pile P2`` as a button: the pile's top card is public, so it is named."""
    if option == "deck":
        return "Draw from deck"
    owner = state.names.index(option[5:])
    whose = "your pile" if owner == seat else f"{option[5:]}'s pile"
    return f"Take {state.piles[owner][-1]} from {whose}"


def window_choices(state: State, seat: int) -> list[Choice]:
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    if window == "draw":
        return [_choice(o, "draw", draw_label(state, o, seat)) for o in pending["options"]]
    if window == "main":
        return main_choices(state, seat)
    if window == "astral":
        return [
            _choice(f"keep {', '.join(order)}", "keep", f"Keep {order[0]}")
            if len(order) == 2
            else _choice(f"keep {', '.join(order)}", "keep")
            for order in permutations(pending["cards"])
        ]
    if window == "foresight":
        cards = list(pending["cards"])
        orders = [cards] + [[c, *cards[:i], *cards[i + 1 :]] for i, c in enumerate(cards) if i]
        orders.append(cards[::-1])
        values = dict.fromkeys(f"order {', '.join(order)}" for order in orders)
        return [_choice(v, "order") for v in values]
    if window == "discard":
        seen: Counter[str] = Counter()
        result = []
        for card in state.hands[seat]:
            seen[card] += 1
            value = card if seen[card] == 1 else f"{card} #{seen[card]}"
            result.append(_choice(value, "discard"))
        return result
    if window == "block":
        spells = eligible_blocks(state, seat, pending["potion"])
        return [_choice("pass", "block", "Pass")] + [
            _choice(f"block {s}", "block", f"Block with {s}") for s in spells
        ]
    return [_choice(f"pair {o}", "pair") for o in pending["options"]]

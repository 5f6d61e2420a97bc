"""A match's content by name (``GameInfo.reference``: ``/cards`` on Discord, ``cards`` in
``play``, ``/phoenix cards``): how an experiment works, every ingredient and item, every method
and every result card of the match's card set with what it does. Public; each topic fits an
embed field (``TOPIC_CHARS``), a long list going on in a topic of its own."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from games.protocol import JSON, TOPIC_CHARS, Topic
from games.text import names_text

from .cards import LEVELS, CardSet, Result, card_set_of
from .config import MIN_SEATS, parse_config
from .render import formula_line, lab_text
from .state import Config, State, as_config
from .words import card_name, card_text, counted, method_text, plural, result_text, roman


def reference(state: State) -> list[Topic]:
    """The card set's topics, then what is on the table now: every formula (what it takes and
    makes, who knows it, its licence) and every experiment in a lab."""
    table = [formula_line(state, f) for f in state.g["formulas"]]
    labs = [
        f"{state.names[s]}: {lab_text(state, exp)}"
        for s, player in enumerate(state.g["players"])
        for exp in player["lab"]
    ]
    return [
        *topics(state.cards, state.config),
        *chunks("Formulas on the table", table),
        *chunks("Experiments in the labs", labs),
    ]


def reference_text(config: Mapping[str, JSON]) -> str:
    """The reference of a match's config as one text (``/phoenix cards``)."""
    parsed = as_config(parse_config(config, MIN_SEATS))
    return "\n\n".join(
        f"{t.title}\n{t.text}" for t in topics(card_set_of(parsed["card_set"]), parsed)
    )


def topics(cs: CardSet, config: Config) -> list[Topic]:
    sections = [("How an experiment works", rules_lines(cs, config))]
    for number in sorted({ing.level for ing in cs.ingredients.values()}):
        cards = [c for c, ing in cs.ingredients.items() if ing.level == number]
        title = f"Level {roman(number)} cards" + (" (the market)" if number == 1 else "")
        sections.append((title, [ingredient_line(cs, c) for c in cards]))
    sections.append(("Methods (costs per level of the experiment)", method_lines(cs)))
    for level in LEVELS:
        count = sum(cs.copies[level].values())
        sections.append((f"Level {level} results ({count} cards)", result_lines(cs, level, config)))
    return [topic for title, lines in sections for topic in chunks(title, lines)]


def chunks(title: str, lines: Sequence[str]) -> Iterator[Topic]:
    """``lines`` as topics of at most ``TOPIC_CHARS`` characters, titled (1), (2)... when
    they take several."""
    parts: list[list[str]] = [[]]
    for line in lines:
        line = line if len(line) <= TOPIC_CHARS else line[: TOPIC_CHARS - 1] + "…"
        if parts[-1] and len("\n".join([*parts[-1], line])) > TOPIC_CHARS:
            parts.append([])
        parts[-1].append(line)
    if not lines:
        return
    for i, part in enumerate(parts, start=1):
        yield Topic(title if len(parts) == 1 else f"{title} ({i})", "\n".join(part))


def rules_lines(cs: CardSet, config: Config) -> list[str]:
    consolation = (
        f"If no card reached your hand, you take {card_name(cs, cs.consolation)} as consolation."
        if cs.consolation
        else ""
    )
    lines = [
        "Put 3 or 4 different cards into an experiment. Its level is their highest level,"
        " its value the sum of their levels plus the boosts you used this turn.",
        "Slow (1 AP): its cards are drawn at the start of your next turn. Fast (2 AP): now.",
        "Draw from the result deck of its level; the method says how many cards you draw"
        " and keep (choose which). Kept cards play in the order drawn.",
        "A success you meet (value at least its score) gives you its product; the experiment"
        " then stays on the table as a formula (F1, F2, ...) you can reproduce on later turns"
        " by handing in one of each of its ingredients again.",
        "A success you miss does nothing; a simple failure gives you the Level I card it"
        " names; a catastrophe costs Health; a monster comes into play before you.",
        consolation,
        "Make a card that wins (Gold) and you win at once; the last alchemist alive wins too.",
        f"Each experiment in your lab and each formula you know takes one of your"
        f" {config['formula_markers']} formula markers.",
    ]
    return [line for line in lines if line]


def ingredient_line(cs: CardSet, card: str) -> str:
    return f"{card_text(cs, card)}, {plural(cs.ingredients[card].copies, 'copy', 'copies')}"


def method_lines(cs: CardSet) -> list[str]:
    return [method_text(m) for m in cs.methods.values()]


def result_lines(cs: CardSet, level: str, config: Config) -> list[str]:
    """A deck's cards: the successes by product (their scores), the simple failures together,
    each catastrophe and monster with what it does."""
    cards = cs.results[level]
    copies = cs.copies[level]
    lines = []
    products: dict[str, list[Result]] = {}
    for result in cards.values():
        if result.kind == "success" and result.product is not None:
            products.setdefault(result.product, []).append(result)
    for product, successes in products.items():
        scores = ", ".join(counted(str(r.score), copies[r.id]) for r in successes)
        name = card_name(cs, product)
        wins = " and win" if cs.ingredients[product].wins else ""
        lines.append(f"Success: {name} (scores {scores}): value ≥ score: you take {name}{wins}.")
    simple = [r for r in cards.values() if r.kind == "simple"]
    if simple:
        gains = [
            counted(card_name(cs, r.gain) if r.gain else "nothing", copies[r.id]) for r in simple
        ]
        effect = (
            "no effect"
            if config["simple_failure"] == "nothing"
            else "you take the named card from the market, if one is left"
        )
        lines.append(f"Simple Failure: {names_text(gains)}: {effect}.")
    for result in cards.values():
        if result.kind in ("catastrophe", "monster"):
            kind = "catastrophe" if result.kind == "catastrophe" else "monster"
            lines.append(
                f"{counted(result.name, copies[result.id])} ({kind}):"
                f" {result_text(cs, result, config)}."
            )
    return lines

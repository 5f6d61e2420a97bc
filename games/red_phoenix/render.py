"""What players see of the table: the views (the trace's public state, §13), the table in words
for ``/look``, ``help`` and the channel, and the step events. The public table never holds a
hand's contents; a seat's own look adds its hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.protocol import JSON
from games.text import names_text

from .answers import free_markers
from .cards import CardSet
from .state import Experiment, Formula, Monster, State, hand_list
from .words import card_name, cards_text, hand_by_level, plural, roman, seat_word

EVENT_CHARS = 1800
DESCRIBE_CHARS = 1900  # /look adds a line naming the match; a message holds 2,000
SUMMARY_CHARS = 1000
LINE_START = 80  # the least of a line ``fit_lines`` keeps when the whole does not fit


def cut(text: str, limit: int = EVENT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit_lines(lines: Sequence[str], limit: int, more: str = "… (more in help)") -> str:
    """Whole lines while they fit in ``limit`` characters, then ``more``."""
    kept: list[str] = []
    size = 0
    for line in lines:
        room = limit - len(more) - 1 - size
        if len(line) + 1 > room:
            if room > LINE_START:  # the start of a long line says more than nothing
                kept.append(cut(line, room - 1))
            return "\n".join([*kept, more])
        kept.append(line)
        size += len(line) + 1
    return "\n".join(kept)


def hand_text(cs: CardSet, hand: Mapping[str, int]) -> str:
    """A seat's hand as only it (and the moderators) may read it; the final stop keeps one
    hand's text from being the start of another's."""
    count = sum(hand.values())
    return f"Your hand ({plural(count, 'card')}): {hand_by_level(cs, hand)}."


def knows_sorted(ids: Sequence[str]) -> list[str]:
    return sorted(ids, key=lambda fid: int(fid[1:]))


# --- the table as data (the trace's fields, rules page's script format) -----------------------


def lab_entry(exp: Experiment) -> dict[str, JSON]:
    return {
        "speed": exp["speed"],
        "method": exp["method"],
        "cards": list(exp["cards"]),
        "level": exp["level"],
        "value": exp["value"],
    }


def formula_entry(state: State, f: Formula) -> dict[str, JSON]:
    names = state.names
    return {
        "id": f["id"],
        "creator": None if f["creator"] is None else names[f["creator"]],
        "level": f["level"],
        "value": f["value"],
        "ingredients": list(f["ingredients"]),
        "results": list(f["results"]),
        "products": list(f["products"]),
        "knowers": [names[s] for s in f["knowers"]],
        "license": f["license"],
    }


def monster_entry(state: State, m: Monster) -> dict[str, JSON]:
    return {
        "id": m["id"],
        "card": m["card"],
        "owner": state.names[m["owner"]],
        "hp": m["hp"],
        "attacks_left": m["attacks_left"],
    }


def pending_entry(state: State) -> dict[str, JSON] | None:
    pending = state.g["pending"]
    if pending is None:
        return None
    reaction = pending["timer"] == "reaction"
    return {
        "seat": state.names[pending["seat"]],
        "kind": pending["kind"],
        "deadline_s": state.config["reaction_window_s" if reaction else "window_s"],
    }


def player_entry(state: State, seat: int) -> dict[str, JSON]:
    p = state.g["players"][seat]
    return {
        "alive": p["alive"],
        "health": p["health"],
        "coins": p["coins"],
        "hand_size": sum(p["hand"].values()),
        "knows": knows_sorted(p["knows"]),
        "markers_free": free_markers(state, seat),
        "used": sorted(p["used"]),
        "lab": [lab_entry(e) for e in p["lab"]],
        "turns": p["turns"],
    }


def table(state: State) -> dict[str, JSON]:
    """The public state (§13)."""
    g = state.g
    return {
        "turn": g["turn"],
        "active": state.names[g["active"]],
        "ap": g["ap"],
        "boost": g["boost"],
        "players": {state.names[s]: player_entry(state, s) for s in range(len(g["players"]))},
        "market": dict(g["market"]),
        "supply": dict(g["supply"]),
        "decks": {lv: len(d) for lv, d in g["decks"].items()},
        "discards": {lv: sorted(d) for lv, d in g["discards"].items()},
        "formulas": [formula_entry(state, f) for f in g["formulas"]],
        "monsters": [monster_entry(state, m) for m in g["monsters"]],
        "pending": pending_entry(state),
        "game_over": g["over"],
        "winners": [state.names[s] for s in g["winners"]],
        "end_reason": g["end_reason"],
        "card_set": state.cards.name,
    }


def drawing(state: State) -> dict[str, JSON] | None:
    """The experiment waiting for its keep choice (public, §13: drawn cards are shown)."""
    pending = state.g["pending"]
    if pending is None or pending["kind"] != "keep":
        return None
    exp = next(e for e in state.g["players"][pending["seat"]]["lab"] if e["status"] == "keep")
    return {
        "seat": state.names[pending["seat"]],
        "level": roman(exp["level"]),
        "value": exp["value"],
        "drawn": list(exp["drawn"]),
        "keep": list(exp["keep"]),
    }


def view(state: State, seat: int | None) -> JSON:
    data = table(state)
    data["keep"] = drawing(state)
    data["card_set_data"] = state.config["card_set"]  # "house" or the set itself, for the AI
    if seat is not None:
        data["you"] = {
            "seat": state.names[seat],
            "handle": state.handles[seat],
            "hand": hand_list(state.g["players"][seat]["hand"]),
        }
    return data


# --- the table in words ------------------------------------------------------------------------


def lab_text(state: State, exp: Experiment) -> str:
    method = state.cards.methods[exp["method"]].name
    return (
        f"{exp['speed']} {method} with {cards_text(state.cards, exp['cards'])}"
        f" (level {roman(exp['level'])}, value {exp['value']})"
    )


def player_line(state: State, seat: int) -> str:
    p = state.g["players"][seat]
    who = seat_word(state.names, state.handles, seat)
    if not p["alive"]:
        return f"{who}: out"
    line = (
        f"{who}: Health {p['health']}, {plural(p['coins'], 'coin')},"
        f" {plural(sum(p['hand'].values()), 'card')}"
    )
    if p["knows"]:
        line += f", knows {names_text(knows_sorted(p['knows']))}"
    for exp in p["lab"]:
        line += f"; lab: {lab_text(state, exp)}"
    return line


def formula_line(state: State, f: Formula) -> str:
    cs = state.cards
    creator = state.names[f["creator"]] if f["creator"] is not None else "nobody now"
    knowers = names_text([state.names[s] for s in f["knowers"]])
    fee = f", licence {plural(f['license'], 'coin')}" if f["license"] is not None else ""
    return (
        f"{f['id']}: {cards_text(cs, f['ingredients'])} → {cards_text(cs, f['products'])}"
        f" (level {roman(f['level'])}, by {creator}, known by {knowers}{fee})"
    )


def monster_line(state: State, m: Monster) -> str:
    name = state.cards.results[m["level"]][m["card"]].name
    return (
        f"{m['id']} {name} before {state.names[m['owner']]}: Health {m['hp']},"
        f" attacks for {m['damage']}, {plural(m['attacks_left'], 'attack')} left"
    )


def market_line(state: State) -> str:
    cs = state.cards
    stacks = [
        f"{card_name(cs, c)} {state.g['market'][c]} ({plural(cs.ingredients[c].cost or 0, 'coin')})"
        for c in cs.market_types()
    ]
    return "Market: " + ", ".join(stacks)


def supply_line(state: State) -> str:
    cs = state.cards
    # the card list's order: a state read back from storage may hold its keys sorted
    supply = [
        f"{card_name(cs, c)} {state.g['supply'][c]}"
        for c in cs.ingredients
        if c in state.g["supply"]
    ]
    return "Supply: " + (", ".join(supply) or "empty")


def decks_line(state: State) -> str:
    g = state.g
    decks = ", ".join(
        f"Level {lv} {len(g['decks'][lv])} (discards {len(g['discards'][lv])})" for lv in g["decks"]
    )
    return f"Result decks: {decks}"


def board_lines(state: State) -> list[str]:
    """The whole public table in words, most needed first: the players, market, supply and
    decks, the monsters, the formulas."""
    g = state.g
    lines = [player_line(state, s) for s in range(len(g["players"]))]
    lines += [market_line(state), supply_line(state), decks_line(state)]
    lines += [monster_line(state, m) for m in g["monsters"]]
    lines += [formula_line(state, f) for f in g["formulas"]]
    return lines


def headline(state: State) -> str:
    g = state.g
    if g["over"]:
        winners = names_text([state.names[s] for s in g["winners"]]) or "nobody"
        return f"Game over ({(g['end_reason'] or '').replace('_', ' ')}): {winners} won."
    boost = f", boost +{g['boost']}" if g["boost"] else ""
    return (
        f"{state.cards.name}, turn {g['turn']}: {state.names[g['active']]} to act"
        f" ({g['ap']} AP left{boost})."
    )


def describe(state: State, seat: int | None) -> str:
    """The table in words for ``/look`` (and a seat's own hand, with what each item does)."""
    lines = [headline(state)]
    if seat is not None:
        lines.append(hand_text(state.cards, state.g["players"][seat]["hand"]))
    lines += board_lines(state)
    return fit_lines(lines, DESCRIBE_CHARS, "… (the formulas go on: /phoenix cards, help)")


def summary(state: State) -> str:
    """The table at the start of a turn, for the channel (§13): whose turn, Health, coins and
    hand size per player, the market, the decks, the formulas, the monsters. Never a hand's
    contents."""
    g = state.g
    lines = [f"**Table, turn {g['turn']}: {state.names[g['active']]} to act.**"]
    lines += [player_line(state, s) for s in range(len(g["players"]))]
    cs = state.cards
    stacks = [f"{card_name(cs, c)} {g['market'][c]}" for c in cs.market_types() if g["market"][c]]
    lines.append(f"Market: {', '.join(stacks) or 'empty'}")
    lines.append(decks_line(state))
    lines += [monster_line(state, m) for m in g["monsters"]]
    lines += [formula_line(state, f) for f in g["formulas"]]
    return fit_lines(lines, SUMMARY_CHARS, "… (/look shows the whole table)")


def public_event(
    lines: Sequence[str], data: Mapping[str, JSON], table_text: str = ""
) -> tuple[Mapping[str, JSON], str]:
    if not table_text:
        return {"lines": list(lines), "table": dict(data)}, cut("\n".join(lines))
    text = cut("\n".join(lines), EVENT_CHARS - len(table_text) - 1) + "\n" + table_text
    return {"lines": list(lines), "table": dict(data), "summary": table_text}, text


def moderator_event(state: State) -> tuple[Mapping[str, JSON], str]:
    cs = state.cards
    hands = {state.names[s]: hand_list(p["hand"]) for s, p in enumerate(state.g["players"])}
    text = "\n".join(
        f"{state.names[s]}: {hand_by_level(cs, p['hand'], items=False)}"
        for s, p in enumerate(state.g["players"])
    )
    return {"hands": hands}, cut(text)

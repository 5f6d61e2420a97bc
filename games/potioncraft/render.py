"""What each audience sees (``potioncraft.md`` §14): views, descriptions, prompts, secrets."""

from __future__ import annotations

from games.protocol import JSON, Secret

from .cards import BLOCKED_BY, PERK_TEXT, POTION_CATEGORIES, POTIONS, potion_label
from .choices import first_crafts
from .rules import categories, eligible_blocks, limit, name, ready, table_count
from .state import State

DEFAULTS_TEXT = {
    "draw": "deck",
    "main": "end",
    "astral": "keep the top card, the rest unchanged",
    "foresight": "the order unchanged",
    "discard": "the last cards of your hand in catalog order",
    "block": "pass",
    "pair": "the first pair",
}


def hand_text(hand: list[str]) -> str:
    """A hand as its owner sees it: the phrase that is a leak anywhere else."""
    return f"Your hand: {', '.join(hand)}." if hand else "Your hand: empty."


def secrets(state: State, seat: int) -> list[Secret]:
    hand, pending = state.hands[seat], state.pending
    found = []
    if hand and not state.out[seat]:
        found.append(Secret(texts=(hand_text(hand),), data=({"hand": list(hand)},)))
    if pending is not None and seat in pending["seats"] and "cards" in pending:
        found.append(Secret(data=({"seen": list(pending["cards"])},)))
    return found


def _seat_view(state: State, seat: int) -> JSON:
    return {
        "name": name(state, seat),
        "hand_size": len(state.hands[seat]),
        "table_count": table_count(state, seat),
        "potions": [o.label() for o in state.potions[seat]],
        "categories": categories(state, seat),
        "pile": list(state.piles[seat]),
        "skips": state.skips[seat],
        "wards": state.wards[seat],
        "cauldron": state.cauldron[seat],
        "out": state.out[seat],
    }


def view(state: State, seat: int | None) -> JSON:
    pending = state.pending
    data: dict[str, JSON] = {
        "turn": state.turn,
        "active": name(state, state.active),
        "direction": state.direction,
        "seats": [_seat_view(state, s) for s in range(state.seats)],
        "deck_size": len(state.deck),
        "revealed": dict(state.revealed),
        "potion_deck_sizes": {c: len(state.potion_decks[c]) for c in POTION_CATEGORIES},
        "chained": sorted(state.chained),
        "seal": state.seal,
        "mimic_log": list(state.mimic_log),
        "window": None if pending is None else pending["window"],
        "over": state.over,
        "winners": [name(state, s) for s in state.winners],
        "end_reason": state.end_reason,
    }
    if seat is not None:
        data["seat"] = seat
        data["hand"] = list(state.hands[seat])
        data["limit"] = limit(state, seat)
        if pending is not None and seat in pending["seats"]:
            data["prompted"] = pending["window"]
            if pending["window"] in ("astral", "foresight"):
                data["seen"] = list(pending["cards"])
            if pending["window"] == "discard":
                data["count"] = pending["count"]
            if pending["window"] in ("block", "pair"):
                data["potion"] = pending.get("potion") or pending.get("steal")
                data["user"] = name(state, pending.get("user", pending.get("thief", 0)))
    return data


def table_text(state: State) -> str:
    lines = [
        f"Turn {state.turn}, {name(state, state.active)} active, direction {state.direction}."
        f" Deck: {len(state.deck)} cards."
    ]
    row = ", ".join(
        f"{c}: {potion_label(p) if p else 'empty'}" + (" (chained)" if p in state.chained else "")
        for c, p in state.revealed.items()
    )
    lines.append(f"Revealed: {row}." + (f" Sealed: {state.seal}." if state.seal else ""))
    for s in range(state.seats):
        potions = ", ".join(o.label() for o in state.potions[s]) or "no potions"
        top = state.piles[s][-1] if state.piles[s] else "empty"
        extra = "".join(
            [
                f", {state.skips[s]} skip(s)" if state.skips[s] else "",
                f", {state.wards[s]} ward(s)" if state.wards[s] else "",
                ", Cauldron bonus" if state.cauldron[s] else "",
                ", left" if state.out[s] else "",
            ]
        )
        lines.append(
            f"{name(state, s)}: {len(state.hands[s])} cards in hand, {potions};"
            f" pile {len(state.piles[s])} (top: {top}){extra}."
        )
    if state.over:
        winners = ", ".join(name(state, s) for s in state.winners)
        lines.append(f"Over: {winners} won ({state.end_reason}).")
    return "\n".join(lines)


def describe(state: State, seat: int | None) -> str:
    text = table_text(state)
    if seat is None:
        return text
    own = [hand_text(state.hands[seat])]
    perks = [potion_label(o.name) for o in state.potions[seat] if ready(state, o)]
    if perks:
        own.append("Ready perks: " + ", ".join(perks) + ".")
    return "\n".join(own) + "\n" + text


def prompt(state: State, seat: int) -> str:
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    hand = hand_text(state.hands[seat])
    if window == "draw":
        options = ", ".join(
            o if o == "deck" else f"{o} ({state.piles[state.names.index(o[5:])][-1]})"
            for o in pending["options"]
        )
        text = f"Turn {state.turn}: your draw. {hand} Options: {options}."
    elif window == "main":
        ready_perks = [
            f"{potion_label(o.name)} ({PERK_TEXT[POTIONS[o.name].perk]})"
            for o in state.potions[seat]
            if ready(state, o)
        ]
        found = first_crafts(state, seat)
        text = f"Turn {state.turn}: your move. {hand}"
        if ready_perks:
            text += " Ready perks: " + ", ".join(ready_perks) + "."
        if found:
            text += " Crafts you can make now: " + "; ".join(f"`{c}`" for c in found[:3]) + "."
        text += " Send `play …`, `craft …`, `perk …` or `end`."
    elif window == "astral":
        text = (
            f"Top of the deck: {', '.join(pending['cards'])}."
            " Send `keep <card>, <new top>, <next>`."
        )
    elif window == "foresight":
        text = (
            f"Top {len(pending['cards'])}: {', '.join(pending['cards'])}."
            " Send `order …` (all of them, new top first)."
        )
    elif window == "discard":
        count = pending["count"]
        text = (
            f"{hand} Table count {table_count(state, seat)}, limit {limit(state, seat)}:"
            f" discard exactly {count}. Send `discard <card>, …`."
        )
    elif window == "block":
        user = name(state, pending["user"])
        what = "Hand reset" if pending["perk"] == "hand_reset" else f"Request for {pending['ask']}"
        beater = BLOCKED_BY[POTIONS[pending["potion"]].category]
        spells = eligible_blocks(state, seat, pending["potion"])
        text = f"{user} uses {pending['potion']} ({POTIONS[pending['potion']].category}): {what}."
        if spells:
            text += f" You may block with a {beater} spell: " + ", ".join(
                f"`block {spell}`" for spell in spells
            )
            text += " or `pass`."
        else:
            text += f" You hold no {beater} spell and will be affected: send `pass`."
    else:
        thief = name(state, pending["thief"])
        text = (
            f"{thief}'s Thief's Gamble found pairs in your hand. Discard which pair?"
            f" {', '.join(pending['options'])}."
        )
    return text[:1500]

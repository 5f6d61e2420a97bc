"""Cursed (rules page §G2, E4): the winner of a Cursed card returns one *other* ingredient of
their choice from their brew to the bottom of the deck, in a short window of its own.

The choice is one of the other cards: by name (and effect) while the owner may look at their
brew, by place (``card 2``) under Utter Darkness, where nobody may. When the window closes
without a choice, the bot returns the card of the ingredient its owner holds fewest of (the one
won first among those); under Utter Darkness, card 1 (the first card won).
"""

from __future__ import annotations

from collections import Counter

from games.protocol import PUBLIC, Accepted, Choice, Event, Refused, Request, Verdict

from . import render
from .effects import CURSED, label
from .offers import seat_items
from .state import State

WINDOW_S = 20.0  # the choice's window; the bid window when that is shorter
TIMER = "curse"


def must_choose(state: State, seat: int) -> bool:
    """Whether the winner of the Cursed card has another card to send back (else: skipped)."""
    return len(state.seats[seat].brew) > 1


def _blind(state: State) -> bool:
    return bool(state.config["utter_darkness"])


def options(state: State, seat: int) -> list[tuple[str, str]]:
    """(answer, label) of each card the seat may send back: every card but the Cursed one."""
    cards = seat_items(state.seats[seat])[:-1]  # the Cursed card is the last one won
    if _blind(state):
        return [(f"card {i + 1}", f"card {i + 1} (face down)") for i in range(len(cards))]
    return [(card, card) for card in dict.fromkeys(cards)]


def default_answer(state: State, seat: int) -> str:
    cards = seat_items(state.seats[seat])[:-1]
    if _blind(state):
        return "card 1"
    held = Counter(state.seats[seat].brew)
    brew = state.seats[seat].brew[:-1]
    fewest = min(range(len(cards)), key=lambda i: (held[brew[i]], i))
    return cards[fewest]


def request(state: State, seat: int) -> Request:
    card = label(str(state.card), CURSED)
    default = default_answer(state, seat)
    if _blind(state):
        where = (
            "Your brew lies face down and you may not look: pick a card by its place "
            "(card 1 is the first you won)."
        )
    else:
        where = f"Your brew: {render.brew_text(state.seats[seat])}."
    prompt = (
        f"You won {card}: send one other ingredient from your brew to the bottom of the deck. "
        f"{where} If you don't choose in time: your {default} goes back."
    )
    choices = tuple(Choice(value, text, "return") for value, text in options(state, seat))
    window = min(WINDOW_S, float(state.config["window"]))
    return Request(
        seat,
        "curse",
        prompt,
        choices,
        f"your {default} goes back",
        window,
        occasion=f"the Cursed card of auction {state.auction}",
        presentation={"return": "menu"},
        timer=TIMER,
        help="Send the name of an ingredient in your brew (with its effect if it has one, "
        "e.g. Toadstool (Potent)), or card N under Utter Darkness.\n"
        + render.describe(state, seat),
    )


def check(state: State, seat: int, raw: str) -> Verdict:
    if seat != state.cursed:
        return Refused("You have nothing to decide right now.")
    text = " ".join(raw.split()).casefold()
    for value, _ in options(state, seat):
        if text == value.casefold() or (text.isdigit() and value == f"card {text}"):
            return Accepted(value, f"You send back your {value}.")
    names = ", ".join(value for value, _ in options(state, seat))
    return Refused(f"Send one of: {names}.")


def apply(state: State, seat: int, answer: str | None) -> Event:
    """The chosen card (None: the default) goes to the bottom of the deck."""
    timeout = answer is None
    answer = default_answer(state, seat) if answer is None else answer
    cards = seat_items(state.seats[seat])[:-1]
    index = int(answer.split()[1]) - 1 if answer.startswith("card ") and _blind(state) else None
    index = cards.index(answer) if index is None else index
    player = state.seats[seat]
    card, effect = player.take(index)
    state.deck.append(card)
    state.deck_effects.append(effect)
    face_down = render.brews_face_down(state)
    what = "one face-down card" if face_down else label(card, effect)
    late = " (the window closed: the default)" if timeout else ""
    text = f"Cursed: {player.name} sends {what} back to the bottom of the deck{late}."
    data = {
        "seat": seat,
        "card": None if face_down else card,
        "effect": None if face_down else effect,
        "timeout": timeout,
        "deck_left": len(state.deck),
    }
    return Event(PUBLIC, "cursed", data, text)

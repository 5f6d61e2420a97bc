"""The Deal Window's prompts (rules page §A7): what each player is asked while it is open,
in words that say what each choice does. ``deals.py`` holds the window's rules."""

from __future__ import annotations

from dataclasses import replace

from games.protocol import HELP_CHARS, Choice, Presentation, Request

from . import render
from .deals import (
    CANCEL,
    MAX_PROPOSALS,
    MAX_WAITING,
    READY,
    SEND,
    asked_seats,
    hand_over,
    has_content,
    incoming,
    outgoing,
    partners,
    why_not,
)
from .offers import (
    NOTHING,
    clipped,
    face_down,
    has_copies,
    items_text,
    offer_line,
    own_items,
    seat_items,
)
from .state import Draft, Offer, State

PROMPT_CHARS = 1700  # a deal prompt's text, before the host adds its deadline
OFFER_LINE_CHARS = 160  # an offer's line when the prompt would be longer
TIMER = "deal"  # its length is the ``deal_window`` option (not a timer the host sets)
STEP_KIND = {"give": "deal_give", "ask": "deal_ask", "send": "deal_send"}
DEFAULT = "the window closes; offers not answered lapse"
PRESENTATION: dict[str, Presentation] = {"propose": "menu", "withdraw": "menu"}


def requests(state: State) -> list[Request]:
    return [request(state, seat) for seat in asked_seats(state)]


def request(state: State, seat: int) -> Request:
    draft = state.seats[seat].draft
    if draft is not None:
        return _draft_request(state, seat, draft)
    return _main_request(state, seat)


def _request(state: State, seat: int, kind: str, prompt: str, choices: list[Choice]) -> Request:
    return Request(
        seat,
        kind,
        prompt,
        tuple(choices),
        DEFAULT,
        float(state.config["deal_window"]),
        close="each",  # every player at their own pace, on the window's one deadline
        occasion=f"the deal window after auction {state.auction}",
        presentation=PRESENTATION,
        timer=TIMER,
        clock=f"deals:{state.auction}",
        help=_help(state, seat),
    )


def _main_request(state: State, seat: int) -> Request:
    player = state.seats[seat]
    offers, choices = [], []
    for offer in incoming(state, seat):
        why = why_not(state, offer)
        note = f" It can no longer be made: {why}." if why else _outcome_note(state, offer, seat)
        offers.append(offer_line(state, offer, seat) + note)
        if not why:
            choices.append(Choice(f"accept {offer.id}", f"Accept offer {offer.id}", "answer"))
        choices.append(Choice(f"decline {offer.id}", f"Decline offer {offer.id}", "answer"))
    offers += [
        offer_line(state, o, seat) + " Waiting for an answer." for o in outgoing(state, seat)
    ]
    if player.ready:
        said = "You are Ready: answer the offer made to you; you make no more offers."
    else:
        choices += [
            Choice(
                f"propose {state.seats[i].name}",
                f"Propose a deal to {state.seats[i].name}",
                "propose",
            )
            for i in can_propose_to(state, seat)
        ]
        choices += [
            Choice(f"withdraw {o.id}", f"Withdraw offer {o.id}", "withdraw")
            for o in outgoing(state, seat)
        ]
        choices.append(Choice(READY, "Ready: done dealing", "ready"))
        said = _choices_said(state, seat, bool(incoming(state, seat)))
    head = [
        f"Deal window after auction {state.auction}: trade before the next card.",
        holdings_line(state, seat),
    ]
    return _request(state, seat, "deal", _fit(head, offers, said), choices)


def _outcome_note(state: State, offer: Offer, seat: int) -> str:
    """What accepting an offer would win, while brews lie face up (its win check, told)."""
    if face_down(state):
        return ""
    after = state.clone()
    hand_over(after, offer.to, offer.by, offer.ask)
    hand_over(after, offer.by, offer.to, offer.give)
    winners = [i for i in (offer.by, offer.to) if after.seats[i].has_triple()]
    if not winners:
        return ""
    if len(winners) == 2:
        return " Accepting it gives you both three of a kind: a shared victory."
    if winners == [seat]:
        return " Accepting it gives you three of a kind: you win."
    name = state.seats[offer.by].name
    return f" Accepting it gives {name} three of a kind: {name} wins."


def _fit(head: list[str], offers: list[str], tail: str) -> str:
    """The prompt's lines, the offers' cut short if the whole would be too long."""
    text = "\n".join([*head, *offers, tail])
    if len(text) <= PROMPT_CHARS:
        return text
    short = [
        line if len(line) <= OFFER_LINE_CHARS else line[: OFFER_LINE_CHARS - 1] + "…"
        for line in offers
    ]
    return "\n".join([*head, *short, tail])[:PROMPT_CHARS]


def can_propose_to(state: State, seat: int) -> list[int]:
    """The players ``seat`` may start an offer to now: while it has offers left to make, each
    other player still in with fewer than ``MAX_WAITING`` offers to answer."""
    if state.seats[seat].proposals >= MAX_PROPOSALS:
        return []
    return [i for i in partners(state, seat) if len(incoming(state, i)) < MAX_WAITING]


def _choices_said(state: State, seat: int, offers: bool) -> str:
    said = []
    if state.seats[seat].proposals < MAX_PROPOSALS:
        partner = state.seats[partners(state, seat)[0]].name
        said.append(
            "Propose a deal: pick a player, then what you give and what you ask for (or type "
            f"it in one line: offer {partner} give coin 1 for coin 2)."
        )
    else:
        said.append(f"You have made {MAX_PROPOSALS} offers, the most in one window.")
    if offers:
        said.append("Accept trades at once; Decline turns the offer down.")
    said.append(
        "Ready: you are done dealing (you still answer offers made to you); the next card "
        "comes when everyone is Ready."
    )
    return " ".join(said)


def holdings_line(state: State, seat: int) -> str:
    player = state.seats[seat]
    if not face_down(state):
        brew = render.brew_text(player)
    elif state.config["utter_darkness"]:
        brew = f"{len(player.brew)} face-down cards (card 1 is the first you won)"
    else:
        brew = ", ".join(f"card {i + 1}: {card}" for i, card in enumerate(seat_items(player)))
        brew = brew or "empty"
    return (
        f"You have: brew {brew}; coins in hand {render.coins_text(player.hand)} "
        "(coins in front stay put)."
    )


def _draft_request(state: State, seat: int, draft: Draft) -> Request:
    partner = state.seats[draft.to].name
    waiting = len(incoming(state, seat))
    note = (
        f" {waiting} offer(s) to you wait until this one is sent or cancelled." if waiting else ""
    )
    cancel = " Type cancel to drop this offer."
    if draft.step in ("give", "ask"):
        number, whose = (1, seat) if draft.step == "give" else (2, draft.to)
        question = (
            f"what do you give {partner}? Pick any of your cards in front and coins in hand"
            if draft.step == "give"
            else f"what do you ask {partner} for? Pick any of {partner}'s cards in front and "
            "coins in hand"
        )
        blind = " Brews lie face down: cards are named by their place." if face_down(state) else ""
        items, cut = own_items(state, whose, seat)
        more = (
            " The menu holds the first cards: type the others by place, e.g. `card 30`."
            if cut
            else ""
        )
        copies = (
            " The menu picks one of each: type more, e.g. `2 Toadstool, coin 3, coin 3`."
            if has_copies(state, whose)
            else ""
        )
        prompt = (
            f"Your offer to {partner}, step {number} of 3: {question}, or Nothing.{blind}{more}"
            f"{copies}{cancel}{note}"
        )
        choices = [Choice(v, text, draft.step) for v, text in items]
        choices.append(Choice(NOTHING, "Nothing", draft.step))
        base = _request(state, seat, STEP_KIND[draft.step], prompt, choices)
        return replace(base, max_choices=len(choices))
    favour = (
        f" Favour: “{draft.favour}”."
        if draft.favour
        else " To add a favour (recorded, not enforced), type favour and its text, e.g. "
        "`favour I won't bid on the next Toadstool`."
    )
    prompt = (
        f"Your offer to {partner}, step 3 of 3: you give {clipped(items_text(draft.give), 500)};"
        f" you get {clipped(items_text(draft.ask, partner), 500)}. Send it to {partner}, or"
        f" Cancel.{favour}{note}"
    )
    full = len(incoming(state, draft.to)) >= MAX_WAITING
    if full:
        prompt += (
            f" {partner} has {MAX_WAITING} offers to answer already: send once one is answered."
        )
    sendable = has_content(draft) and not full
    choices = [Choice(SEND, f"Send the offer to {partner}", "send")] if sendable else []
    choices.append(Choice(CANCEL, "Cancel: drop it", "send"))
    return _request(state, seat, STEP_KIND["send"], prompt, choices)


def _help(state: State, seat: int) -> str:
    bo = state.seats[partners(state, seat)[0]].name
    return (
        f"Deal commands: `offer {bo} give Toadstool, coin 3 for Bat Wing` (one line; add "
        f"`favour TEXT` at its end), `propose {bo}` (then what you give, what you ask, `send`), "
        "`accept 3`, `decline 3`, `withdraw 3`, `cancel`, `ready`. Items: an ingredient in "
        "front by name (with its effect: `Toadstool (Potent)`), `coin 3` from your hand, "
        "`2 Toadstool`, `nothing`; with brews face down a card by its place, `card 2`. A deal "
        "is made when its partner accepts, if both still hold what it names.\n"
        + render.table_text(state, seat)
    )[:HELP_CHARS]

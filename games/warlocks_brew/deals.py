"""The Deal Window (rules page §A7): between two auctions every player may trade ingredients in
front, coins in hand and favours (free text the bot only records) with any other player.

The window is one ``"each"`` window: every player goes at their own pace on its one deadline,
and each answer resolves alone. A player proposes a deal to one other player (step by step:
the partner, what they give, what they ask for, a favour; or in one typed line), the partner
accepts or declines it, and an accepted deal is checked again and executed at once, atomically.
A player who presses Ready makes no more offers but still answers those made to them; the
window closes when every player is Ready with no offer waiting, or at its deadline (offers
still waiting lapse). After every executed deal the win check runs: a deal completing triples
for both parties is a shared victory. Under Utter Darkness no win is automatic (§A9).
"""

from __future__ import annotations

import re

from games.protocol import (
    PUBLIC,
    Accepted,
    Event,
    Refused,
    Verdict,
    to_seat,
)
from games.text import names_text

from . import render
from .effects import label
from .offers import (
    NOTHING,
    Bad,
    clipped,
    face_down,
    favour_text,
    items_text,
    missing,
    offer_data,
    read_items,
    seat_items,
)
from .state import Draft, Offer, Phase, State

MAX_PROPOSALS = 3  # offers a player may start in one window: a window's steps stay bounded
MAX_WAITING = 3  # offers waiting for one player's answer: a prompt stays within Discord's
SAID_CHARS = 150  # the items an acknowledgement repeats
READY, SEND, CANCEL = "ready", "send", "cancel"
FAVOUR_WORDS = ("favour", "favor")


# --- opening and closing ---------------------------------------------------------------------


def open_window(state: State) -> list[Event]:
    _reset(state, "deals")
    seconds = state.config["deal_window"]
    text = (
        f"Deal window: up to {seconds} s to trade ingredients in front, coins in hand and "
        "favours, privately, two players at a time. The next card comes when everyone is Ready."
    )
    return [Event(PUBLIC, "deal_window", {"auction": state.auction, "seconds": seconds}, text)]


def close_window(state: State) -> list[Event]:
    """The window's end: offers still waiting lapse (each proposer is told), drafts go."""
    events = [
        Event(
            to_seat(offer.by),
            "offer_lapsed",
            {"offer": offer.id},
            f"Your offer {offer.id} to {state.seats[offer.to].name} lapsed unanswered.",
        )
        for offer in state.offers
    ]
    made = state.deals_made
    _reset(state, "bid")
    count = "no deal" if made == 0 else "1 deal" if made == 1 else f"{made} deals"
    text = f"The deal window is closed: {count} made."
    return [*events, Event(PUBLIC, "deals_closed", {"deals": made}, text)]


def _reset(state: State, phase: Phase) -> None:
    state.phase, state.offers, state.deals_made = phase, [], 0
    for seat in state.seats:
        seat.ready, seat.proposals, seat.draft = False, 0, None


def drop_seat(state: State, seat: int) -> None:
    """A seat that is out: its offers go, and so do the drafts addressed to it."""
    state.offers = [o for o in state.offers if seat not in (o.by, o.to)]
    for player in state.seats:
        if player.draft is not None and player.draft.to == seat:
            player.draft = None


# --- who is asked, and what ------------------------------------------------------------------


def incoming(state: State, seat: int) -> list[Offer]:
    return [offer for offer in state.offers if offer.to == seat]


def outgoing(state: State, seat: int) -> list[Offer]:
    return [offer for offer in state.offers if offer.by == seat]


def asked_seats(state: State) -> list[int]:
    """Every player still dealing: drafting, not Ready, or with an offer to answer."""
    return [
        i
        for i in state.active()
        if state.seats[i].draft is not None or not state.seats[i].ready or incoming(state, i)
    ]


def partners(state: State, seat: int) -> list[int]:
    return [i for i in state.active() if i != seat]


def has_content(draft: Draft) -> bool:
    return bool(draft.give or draft.ask or draft.favour)


# --- answers ---------------------------------------------------------------------------------


def check(state: State, seat: int, raw: str) -> Verdict:
    if seat not in asked_seats(state):
        return Refused("You have nothing to decide right now.")
    text = " ".join(raw.split())
    word, _, rest = text.partition(" ")
    word = word.casefold()
    player = state.seats[seat]
    try:
        if player.draft is not None:
            return _check_draft(state, seat, player.draft, word, rest, text)
        return _check_main(state, seat, word, rest)
    except Bad as bad:
        return Refused(str(bad))


def _check_draft(state: State, seat: int, draft: Draft, word: str, rest: str, text: str) -> Verdict:
    partner = state.seats[draft.to].name
    if word == CANCEL and not rest:
        return Accepted(CANCEL, f"You drop your offer to {partner}.")
    if word in FAVOUR_WORDS:
        favour = favour_text(rest)
        if not favour:
            raise Bad("Write the favour after the word, e.g. favour I won't bid on Toadstool.")
        if draft.favour:  # once an offer: a window's steps stay bounded
            raise Bad("This offer has its favour already: cancel it to start again.")
        return Accepted(f"favour {favour}", f"Favour noted: “{favour}”.")
    if draft.step == "send":
        if word == SEND and not rest:
            if not has_content(draft):
                raise Bad("The offer names nothing: add an item or a favour, or cancel.")
            _check_room(state, draft.to)
            return Accepted(SEND, f"Your offer goes to {partner}.")
        raise Bad(f"Send the offer to {partner}, cancel it, or type favour and its text.")
    listed = rest if word == draft.step else text
    items = read_items(state, listed)
    whose = seat if draft.step == "give" else draft.to
    why = missing(state, whose, items)
    if why:
        raise Bad(f"You can't name that: {why}.")
    said = clipped(items_text(items, "" if draft.step == "give" else partner), SAID_CHARS)
    summary = (
        f"You give {said}. Next: what you ask {partner} for."
        if draft.step == "give"
        else f"You ask for {said}. Next: send it."
    )
    return Accepted(f"{draft.step} {', '.join(items) or NOTHING}", summary)


def _check_main(state: State, seat: int, word: str, rest: str) -> Verdict:
    player = state.seats[seat]
    if word in ("accept", "decline"):
        offer = _offer_to(state, seat, rest)
        if word == "accept":
            why = why_not(state, offer)
            if why:
                raise Bad(f"Offer {offer.id} can no longer be made: {why}.")
            return Accepted(f"accept {offer.id}", f"You accept offer {offer.id}.")
        return Accepted(f"decline {offer.id}", f"You decline offer {offer.id}.")
    if player.ready:
        raise Bad("You are Ready: accept or decline the offer made to you.")
    if word == READY and not rest:
        return Accepted(READY, "You are Ready: you make no more offers in this window.")
    if word == "withdraw":
        offer = _own_offer(state, seat, rest)
        return Accepted(f"withdraw {offer.id}", f"You withdraw offer {offer.id}.")
    if word in ("propose", "offer"):
        if player.proposals >= MAX_PROPOSALS:
            raise Bad(f"You have made {MAX_PROPOSALS} offers, the most in one window.")
        partner, tail = _partner(state, seat, rest)
        name = state.seats[partner].name
        _check_room(state, partner)
        if word == "propose":
            if tail:
                raise Bad(
                    f"Send propose {name} alone, or the whole offer: offer {name} give … for …"
                )
            return Accepted(f"propose {name}", f"Your offer to {name}: first, what you give.")
        return _check_offer_line(state, seat, partner, tail)
    raise Bad(
        "Propose a deal (propose NAME, or offer NAME give … for …), accept or decline an "
        "offer, or send ready."
    )


def _check_offer_line(state: State, seat: int, partner: int, tail: str) -> Verdict:
    """``offer Bo give Toadstool, coin 3 for Bat Wing favour …`` (``give`` is optional)."""
    give_text, ask_text, favour = _offer_parts(tail)
    give, ask = read_items(state, give_text), read_items(state, ask_text)
    why = missing(state, seat, give) or missing(state, partner, ask)
    if why:
        raise Bad(f"You can't offer that: {why}.")
    if not (give or ask or favour):
        raise Bad("The offer names nothing: add an item or a favour.")
    name = state.seats[partner].name
    line = f"offer {name} give {', '.join(give) or NOTHING} for {', '.join(ask) or NOTHING}"
    line += f" favour {favour}" if favour else ""
    return Accepted(line, f"Your offer goes to {name}.")


_GIVE = re.compile(r"^give\s+", re.IGNORECASE)
_FOR = re.compile(r"\s+for\s+", re.IGNORECASE)
_FAVOUR = re.compile(r"(?:^|\s+)favou?r(?:\s+|$)", re.IGNORECASE)


def _offer_parts(text: str) -> tuple[str, str, str]:
    """An offer line after the partner's name: (what is given, what is asked, the favour)."""
    body, *favour = _FAVOUR.split(text, maxsplit=1)
    parts = _FOR.split(_GIVE.sub("", body.strip()), maxsplit=1)
    if len(parts) != 2:
        raise Bad("Write the offer as: offer NAME give ITEMS for ITEMS (nothing for none).")
    return parts[0], parts[1], favour_text(favour[0]) if favour else ""


def _check_room(state: State, partner: int) -> None:
    if len(incoming(state, partner)) >= MAX_WAITING:
        name = state.seats[partner].name
        raise Bad(
            f"{name} has {MAX_WAITING} offers to answer already: try again once one is answered."
        )


def _partner(state: State, seat: int, text: str) -> tuple[int, str]:
    """The player a text starts with (the longest name that fits), and the rest."""
    folded = text.casefold()
    found = sorted(
        (i for i in partners(state, seat) if _starts_with_name(folded, state.seats[i].name)),
        key=lambda i: -len(state.seats[i].name),
    )
    if not found:
        names = names_text([state.seats[i].name for i in partners(state, seat)])
        raise Bad(f"Name the player to deal with: {names}.")
    partner = found[0]
    return partner, text[len(state.seats[partner].name) :].strip()


def _starts_with_name(folded: str, name: str) -> bool:
    name = name.casefold()
    return folded == name or folded.startswith(name + " ")


def _offer_to(state: State, seat: int, text: str) -> Offer:
    offers = incoming(state, seat)
    if not text and len(offers) == 1:
        return offers[0]
    wanted = _number(text)
    offer = next((o for o in offers if o.id == wanted), None)
    if offer is None:
        ids = ", ".join(str(o.id) for o in offers) or "none"
        raise Bad(f"Name an offer made to you by its number (waiting: {ids}).")
    return offer


def _own_offer(state: State, seat: int, text: str) -> Offer:
    wanted = _number(text)
    offer = next((o for o in outgoing(state, seat) if o.id == wanted), None)
    if offer is None:
        ids = ", ".join(str(o.id) for o in outgoing(state, seat)) or "none"
        raise Bad(f"Name one of your waiting offers by its number ({ids}).")
    return offer


def _number(text: str) -> int | None:
    text = text.strip().removeprefix("#")
    return int(text) if text.isdigit() and len(text) <= 6 else None


def why_not(state: State, offer: Offer) -> str:
    """Why an offer cannot be made now ("" when it can): an item has moved."""
    return missing(state, offer.by, offer.give, offer.stamps[0]) or missing(
        state, offer.to, offer.ask, offer.stamps[1]
    )


# --- applying --------------------------------------------------------------------------------


def apply(state: State, seat: int, move: str) -> list[Event]:
    """One accepted answer (``check``'s move) applied to ``state``."""
    word, _, rest = move.partition(" ")
    player = state.seats[seat]
    if word == READY:
        player.ready = True
        return []
    if word == "propose":
        player.proposals += 1
        player.draft = Draft(to=_partner(state, seat, rest)[0])
        return []
    if word in ("give", "ask", "favour", SEND, CANCEL):
        return _apply_draft(state, seat, word, rest)
    if word == "offer":
        partner, tail = _partner(state, seat, rest)
        give, ask, favour = _offer_parts(tail)
        player.proposals += 1
        draft = Draft(partner, "send", read_items(state, give), read_items(state, ask), favour)
        return _send(state, seat, draft)
    offer = next(o for o in state.offers if o.id == int(rest))
    state.offers.remove(offer)
    if word == "accept":
        return execute(state, offer)
    other, verb = (offer.by, "declined") if word == "decline" else (offer.to, "withdrew")
    text = f"{player.name} {verb} offer {offer.id}."
    return [Event(to_seat(other), f"offer_{verb}", {"offer": offer.id}, text)]


def _apply_draft(state: State, seat: int, word: str, rest: str) -> list[Event]:
    player = state.seats[seat]
    draft = player.draft
    assert draft is not None
    if word == CANCEL:
        player.draft = None
    elif word == "favour":
        draft.favour = rest
    elif word == "give":
        draft.give, draft.step = read_items(state, rest), "ask"
    elif word == "ask":
        draft.ask, draft.step = read_items(state, rest), "send"
    else:
        player.draft = None
        return _send(state, seat, draft)
    return []


def _send(state: State, seat: int, draft: Draft) -> list[Event]:
    stamps = [state.seats[seat].removed, state.seats[draft.to].removed]
    offer = Offer(state.next_offer, seat, draft.to, draft.give, draft.ask, draft.favour, stamps)
    state.next_offer += 1
    state.offers.append(offer)
    return []


def execute(state: State, offer: Offer) -> list[Event]:
    """Both parties confirmed: the items change hands at once, then the win check (§A7)."""
    by, to = state.seats[offer.by], state.seats[offer.to]
    got_by = hand_over(state, offer.to, offer.by, offer.ask)
    got_to = hand_over(state, offer.by, offer.to, offer.give)
    state.deals_made += 1
    shown = _shown(state, offer.give, by.name), _shown(state, offer.ask, to.name)
    text = (
        f"Deal (offer {offer.id}): {by.name} gives {to.name} {shown[0]}; "
        f"{to.name} gives {by.name} {shown[1]}."
    )
    if offer.favour:
        text += f" Favour (recorded, not enforced): “{offer.favour}”."
    data = {**offer_data(state, offer), "seats": [offer.by, offer.to]}
    events = [Event(PUBLIC, "deal", data, text)]
    events += _peeks(state, [(offer.by, got_by), (offer.to, got_to)])
    if not state.config["utter_darkness"]:
        winners = [i for i in (offer.by, offer.to) if state.seats[i].has_triple()]
        if winners:
            names = names_text(render.names(state, winners))
            state.finish(winners, "deal", f"{names} completed three of a kind in a deal.")
    return events


def hand_over(state: State, giver: int, receiver: int, items: list[str]) -> list[str]:
    """Move ``items`` from ``giver`` to ``receiver``; the cards' labels, as received."""
    source, target = state.seats[giver], state.seats[receiver]
    places = sorted((int(i.split()[1]) - 1 for i in items if i.startswith("card ")), reverse=True)
    moved = [source.take(place) for place in places][::-1]
    got = []
    for item in items:
        if item.startswith("coin "):
            coin = int(item.split()[1])
            source.hand.remove(coin)
            target.hand = sorted([*target.hand, coin])
        elif not item.startswith("card "):
            index = seat_items(source).index(item)
            moved.append(source.take(index))
    for card, effect in moved:
        target.add(card, effect)
        got.append(label(card, effect))
    return got


def _shown(state: State, items: list[str], owner: str) -> str:
    """What the channel is told a party gave: with brews face down, cards only as a count."""
    if not face_down(state):
        return items_text(items)
    cards = sum(1 for item in items if item.startswith("card "))
    coins = [item for item in items if not item.startswith("card ")]
    parts = ([f"{cards} face-down card" + ("s" if cards > 1 else "")] if cards else []) + coins
    return names_text(parts) or NOTHING


def _peeks(state: State, received: list[tuple[int, list[str]]]) -> list[Event]:
    """Under Vision of Blindness, what each party received, to that party alone."""
    if not face_down(state) or state.config["utter_darkness"]:
        return []
    return [
        Event(to_seat(seat), "received", {"cards": cards}, f"You received: {names_text(cards)}.")
        for seat, cards in received
        if cards
    ]

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
from dataclasses import replace

from games.protocol import (
    HELP_CHARS,
    PUBLIC,
    Accepted,
    Choice,
    Event,
    Presentation,
    Refused,
    Request,
    Verdict,
    to_seat,
)
from games.text import names_text

from . import render
from .effects import label
from .offers import (
    NOTHING,
    Bad,
    face_down,
    favour_text,
    has_copies,
    items_text,
    missing,
    offer_data,
    offer_line,
    own_items,
    read_items,
    seat_items,
)
from .state import Draft, Offer, State

MAX_PROPOSALS = 3  # offers a player may start in one window: a window's steps stay bounded
MAX_WAITING = 3  # offers waiting for one player's answer: a prompt stays within Discord's
PROMPT_CHARS = 1700  # a deal prompt's text, before the host adds its deadline
OFFER_LINE_CHARS = 160  # an offer's line when the prompt would be longer
TIMER = "deal"  # its length is the ``deal_window`` option (not a timer the host sets)
READY, SEND, CANCEL = "ready", "send", "cancel"
FAVOUR_WORDS = ("favour", "favor")
STEP_KIND = {"give": "deal_give", "ask": "deal_ask", "send": "deal_send"}
DEFAULT = "the window closes; offers not answered lapse"
PRESENTATION: dict[str, Presentation] = {"propose": "menu", "withdraw": "menu"}


# --- opening and closing ---------------------------------------------------------------------


def open_window(state: State) -> list[Event]:
    state.phase = "deals"
    state.offers, state.deals_made = [], 0
    for seat in state.seats:
        seat.ready, seat.proposals, seat.draft = False, 0, None
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
    state.phase, state.offers, state.deals_made = "bid", [], 0
    for seat in state.seats:
        seat.ready, seat.proposals, seat.draft = False, 0, None
    count = "no deal" if made == 0 else "1 deal" if made == 1 else f"{made} deals"
    text = f"The deal window is closed: {count} made."
    return [*events, Event(PUBLIC, "deals_closed", {"deals": made}, text)]


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
    _hand_over(after, offer.to, offer.by, offer.ask)
    _hand_over(after, offer.by, offer.to, offer.give)
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


def partners(state: State, seat: int) -> list[int]:
    return [i for i in state.active() if i != seat]


def holdings_line(state: State, seat: int) -> str:
    player = state.seats[seat]
    if not face_down(state):
        brew = render.brew_text(player)
    elif state.config["utter_darkness"]:
        brew = f"{len(player.brew)} face-down cards (card 1 is the first you won)"
    else:
        brew = ", ".join(f"card {i + 1} {card}" for i, card in enumerate(seat_items(player)))
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
        f"Your offer to {partner}, step 3 of 3: you give {items_text(draft.give)}; you get "
        f"{items_text(draft.ask, partner)}. Send it to {partner}, or Cancel.{favour}{note}"
    )
    full = len(incoming(state, draft.to)) >= MAX_WAITING
    if full:
        prompt += (
            f" {partner} has {MAX_WAITING} offers to answer already: send once one is answered."
        )
    sendable = _has_content(draft) and not full
    choices = [Choice(SEND, f"Send the offer to {partner}", "send")] if sendable else []
    choices.append(Choice(CANCEL, "Cancel: drop it", "send"))
    return _request(state, seat, STEP_KIND["send"], prompt, choices)


def _has_content(draft: Draft) -> bool:
    return bool(draft.give or draft.ask or draft.favour)


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
            if not _has_content(draft):
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
    said = items_text(items, "" if draft.step == "give" else partner)
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
    got_by = _hand_over(state, offer.to, offer.by, offer.ask)
    got_to = _hand_over(state, offer.by, offer.to, offer.give)
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


def _hand_over(state: State, giver: int, receiver: int, items: list[str]) -> list[str]:
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

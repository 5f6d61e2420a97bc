"""What each audience may see: views, and the events with their plain-text rendering.

The secret of a seat is its hand (A9: hands are shown in DM only) and, under Vision of Blindness
and Utter Darkness, every brew (face down: counts only; the owner may peek only under Vision).
Bids are never in the state before the reveal, so no view can leak one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.protocol import JSON, MODERATORS, PUBLIC, TOPIC_CHARS, Event, Secret, Topic, to_seat
from games.text import names_text

from .state import Seat, State


def brews_face_down(state: State) -> bool:
    return bool(state.config["vision_of_blindness"] or state.config["utter_darkness"])


def owner_may_peek(state: State) -> bool:
    return not state.config["utter_darkness"]


def coins_text(coins: Sequence[int]) -> str:
    return ", ".join(map(str, sorted(coins))) or "none"


def brew_text(seat: Seat, face_down: bool = False) -> str:
    if face_down:
        return f"{len(seat.brew)} face down"
    parts = [name if n == 1 else f"{name} ×{n}" for name, n in seat.brew_counts().items()]
    return ", ".join(parts) or "empty"


def names(state: State, seats: Sequence[int]) -> list[str]:
    return [state.seats[i].name for i in seats]


def public_players(state: State) -> list[JSON]:
    face_down = brews_face_down(state)
    return [
        {
            "name": seat.name,
            "brew": None if face_down else seat.brew_counts(),
            "brew_size": len(seat.brew),
            "front": sorted(seat.front),
            "table": sorted(seat.table),
            "hand_size": len(seat.hand),
            "eliminated": seat.eliminated,
        }
        for seat in state.seats
    ]


def view(state: State, seat: int | None) -> JSON:
    public: dict[str, JSON] = {
        "game": "warlocks-brew",
        "phase": state.phase,
        "turn": state.auction,  # an auction is the game's turn (a rebid is not a new one)
        "auction": state.auction,
        "round": state.round,
        "card": state.card,
        "deck_left": len(state.deck),
        "players": public_players(state),
        "discarded": list(state.discarded),
        "storefront": list(state.storefront),  # Storefront Disaster: anyone may look
        "snakeoil_count": len(state.snakeoil),  # Snakeoil Salesman: nobody may look
        "rebidders": list(state.rebidders),
        "winners": list(state.winners),
        "end_reason": state.end_reason,
        "options": dict(state.config),
    }
    if seat is not None:
        own = state.seats[seat]
        public["you"] = {
            "seat": seat,
            "hand": sorted(own.hand),
            "brew": own.brew_counts() if owner_may_peek(state) else None,
        }
    return public


def auction_post(state: State) -> Event:
    """The one public post of an auction: the card, the deck, every brew and coins in front."""
    face_down = brews_face_down(state)
    label = f"Auction {state.auction}" + (f", rebid {state.round - 1}" if state.round > 1 else "")
    lines = [f"{label}: {state.card} is up. Deck: {len(state.deck)} left."]
    for seat in state.seats:
        if seat.eliminated:
            lines.append(f"{seat.name}: eliminated")
            continue
        line = f"{seat.name}: brew {brew_text(seat, face_down)}; in front {coins_text(seat.front)}"
        if seat.table:
            line += f"; on the table {coins_text(seat.table)}"
        lines.append(line)
    if state.round > 1:
        lines.append(f"Rebid: {names_text(names(state, state.rebidders))} bid again.")
    data = {
        "auction": state.auction,
        "round": state.round,
        "card": state.card,
        "deck_left": len(state.deck),
        "players": public_players(state),
        "rebidders": list(state.rebidders),
    }
    return Event(PUBLIC, "auction", data, "\n".join(lines))


def seat_notes(state: State) -> list[Event]:
    """Under Vision of Blindness, each seat's private peek at its face-down brew (its hand is
    in its prompt)."""
    if not (brews_face_down(state) and owner_may_peek(state)):
        return []
    events = []
    for i in state.active():
        seat = state.seats[i]
        data = {"hand": sorted(seat.hand), "brew": seat.brew_counts()}
        text = f"Your brew (peek): {brew_text(seat)}."
        events.append(Event(to_seat(i), "hand", data, text))
    return events


# --- what a bidder needs -------------------------------------------------------------------------


def still_unseen(state: State, card: str) -> int:
    """Copies of ``card`` nobody has seen yet: in the deck or set aside face down."""
    return state.deck.count(card) + state.snakeoil.count(card)


def holders_line(state: State, seat: int) -> str:
    """Who holds the card on offer, as far as this seat may see, and how many copies may
    still come."""
    card = state.card
    assert card is not None
    face_down = brews_face_down(state)
    held = []
    for i in state.active():
        if face_down and (i != seat or not owner_may_peek(state)):
            continue
        count = state.seats[i].brew.count(card)
        if count:
            name = "you" if i == seat else state.seats[i].name
            held.append(f"{name} {count}" + (" (one more wins)" if count >= 2 else ""))
    unseen = still_unseen(state, card)
    more = f"at most {unseen}" if state.snakeoil else str(unseen)
    holds = "; ".join(held) if held else ("nobody you can see" if face_down else "nobody")
    return f"{card} held: {holds}. Copies still to come: {more}."


def rival_coins(state: State, seat: int, bidders: list[int]) -> str:
    """What each rival bidding now can bid: their hand (their dealt coins less those in front
    and on the table; under the two-player rule what is left of both sets)."""
    parts = []
    for i in bidders:
        if i == seat:
            continue
        other = state.seats[i]
        if state.config["two_players"]:
            parts.append(f"{other.name} holds {len(other.hand)} coins")
        else:
            parts.append(f"{other.name} {coins_text(other.hand)}")
    return "Rivals can bid: " + "; ".join(parts) + "." if parts else "Nobody else can bid."


def bid_help(state: State, seat: int) -> str:
    """The grammar of a bid and the whole table."""
    values = coin_values_text(state)
    declare = " or 'declare'" if state.config["utter_darkness"] else ""
    lines = [
        f"Send a coin value you hold ({values}){declare}. "
        + BIDDING_RULES[state.config["no_unique"]],
        describe(state, seat),
    ]
    if state.config["two_players"]:
        lines.append("Two-player rule: the winner's coin goes to the other player's hand.")
    return "\n".join(lines)


BIDDING_RULES = {
    mode: "The highest bid that nobody else made wins the card; "
    + (
        "if no bid is unique the card leaves the game and every bid coin stays in front. "
        if mode == "remove"
        else "if no bid is unique (and not all are equal) the tied bidders bid again with "
        "the coins left; all equal: the card leaves and every bid coin stays in front. "
    )
    + "The winner's coin stays in front; three coins in front all go back to hand. Three of "
    "one ingredient wins; at an empty deck the most ingredients win, then the most pairs."
    for mode in ("remove", "rebid")
}


def coin_values_text(state: State) -> str:
    return "1-4" if state.config["broke_buyers"] else "1-5"


def hidden_state(state: State) -> Event:
    """Everything, for the moderators' log channel."""
    data = {
        "deck": list(state.deck),
        "snakeoil": list(state.snakeoil),
        "seats": [
            {"name": s.name, "hand": sorted(s.hand), "brew": s.brew_counts()} for s in state.seats
        ],
    }
    lines = [f"Deck (top first): {', '.join(state.deck) or 'empty'}."]
    if state.snakeoil:
        lines.append(f"Snakeoil (hidden): {', '.join(state.snakeoil)}.")
    lines += [f"{s.name}: hand {coins_text(s.hand)}; brew {brew_text(s)}" for s in state.seats]
    return Event(MODERATORS, "hidden_state", data, "\n".join(lines))


def start_post(state: State) -> Event:
    variants = [key for key in VARIANT_NAMES if state.config[key]]
    lines = [
        f"Warlock's Brew: {names_text([s.name for s in state.seats])}.",
        f"Deck: {len(state.deck)} cards. Each player holds coins "
        f"{coins_text(state.seats[0].dealt)}. Three of one ingredient wins.",
    ]
    if variants:
        lines.append("Variants: " + ", ".join(VARIANT_NAMES[key] for key in variants) + ".")
    if state.storefront:
        lines.append("Set aside (anyone may look): " + ", ".join(sorted(state.storefront)) + ".")
    if state.snakeoil:
        lines.append(f"Set aside face down, never shown: {len(state.snakeoil)} cards.")
    data = {
        "players": [s.name for s in state.seats],
        "deck_size": len(state.deck),
        "coins": list(state.seats[0].dealt),
        "variants": variants,
        "storefront": sorted(state.storefront),
        "snakeoil_count": len(state.snakeoil),
    }
    return Event(PUBLIC, "start", data, "\n".join(lines))


VARIANT_NAMES = {
    "two_players": "Two Players",
    "broke_buyers": "Broke Buyers",
    "limited_supply": "Limited Supply",
    "small_selection": "Small Selection",
    "impotent_ingredient": "Impotent Ingredient",
    "storefront_disaster": "Storefront Disaster",
    "snakeoil_salesman": "Snakeoil Salesman",
    "vision_of_blindness": "Vision of Blindness",
    "utter_darkness": "Utter Darkness",
}


def reveal_event(state: State, result: dict[str, JSON]) -> Event:
    """The public result of a window: every bid, declarations, the winner, returns."""
    lines = [_bids_line(state, result)]
    for declared in result["declared"]:
        name = state.seats[declared["seat"]].name
        verdict = "correct!" if declared["correct"] else "wrong: eliminated, brew and coins leave"
        brew = ", ".join(f"{k} ×{n}" for k, n in declared["brew"].items()) or "nothing"
        lines.append(f"{name} declares a win and reveals {brew}: {verdict}")
    lines += _result_lines(state, result)
    data = {**result, "deck_left": len(state.deck)}  # before the next card is drawn
    return Event(PUBLIC, "reveal", data, "\n".join(line for line in lines if line))


def _bids_line(state: State, result: dict[str, JSON]) -> str:
    if result["last_call"]:
        return "Last call before the count."
    parts = []
    for seat in result["in_round"]:
        coin = result["bids"][seat]
        name = state.seats[seat].name
        if coin is not None:
            parts.append(f"{name} {coin}" + (" (timeout)" if seat in result["timeouts"] else ""))
        elif seat not in [d["seat"] for d in result["declared"]]:
            parts.append(f"{name} passes (no coins)")
    round_note = f", rebid {result['round'] - 1}" if result["round"] > 1 else ""
    bids = "; ".join(parts) or "none"
    return f"Auction {result['auction']}{round_note}, {result['card']}. Bids: {bids}."


def _result_lines(state: State, result: dict[str, JSON]) -> list[str]:
    card, winner = result["card"], result["winner"]
    lines: list[str] = []
    if winner is not None:
        coin = result["bids"][winner]
        line = f"{state.seats[winner].name} wins {card} with the {coin} coin."
        if result["coin_to"] is not None:
            line += (
                f" Two-player rule: the coin goes to {state.seats[result['coin_to']].name}'s hand."
            )
        lines.append(line)
    elif result["removed"]:
        if any(coin is not None for coin in result["bids"]):
            lines.append(
                f"No unique bid: {card} leaves the game and every bid coin stays in front."
            )
        else:
            lines.append(f"Nobody bid: {card} leaves the game.")
    elif result["rebid"]:
        lines.append(f"No unique bid: {names_text(names(state, state.rebidders))} bid again.")
    lines += [
        f"{state.seats[seat].name} has three coins in front: they all go back to hand."
        for seat in result["returned"]
    ]
    return lines


def game_over_post(state: State) -> Event:
    winners = names(state, state.winners)
    if not winners:
        headline = "Game over: nobody wins."
    elif len(winners) == 1:
        headline = f"Game over: {winners[0]} wins."
    else:
        headline = f"Game over: shared victory for {names_text(winners)}."
    lines = [f"{headline} {state.end_detail}".strip()]
    # The match is over, so every brew is shown, face-down variants included.
    lines += [f"{s.name}: {brew_text(s)}" for s in state.seats if not s.eliminated]
    data = {
        "winners": list(state.winners),
        "reason": state.end_reason,
        "detail": state.end_detail,
        "brews": [s.brew_counts() for s in state.seats],
    }
    return Event(PUBLIC, "game_over", data, "\n".join(lines))


def last_call_post(state: State) -> Event:
    text = (
        "The deck is empty. Last call: declare now if you hold three of one ingredient; "
        "otherwise the count decides (most ingredients, then most pairs)."
    )
    return Event(PUBLIC, "last_call", {"players": public_players(state)}, text)


def describe(state: State, seat: int | None) -> str:
    """The view as plain text: the table for everyone, plus the seat's own hand and brew."""
    face_down = brews_face_down(state)
    if state.phase == "over":
        head = f"Over after auction {state.auction}: {state.end_reason}."
    else:
        head = (
            f"Auction {state.auction}: {state.card or 'no card'} on offer, {len(state.deck)} left."
        )
    lines = [head]
    for other in state.seats:
        status = " (eliminated)" if other.eliminated else ""
        lines.append(
            f"{other.name}{status}: brew {brew_text(other, face_down)} · "
            f"in front {coins_text(other.front)} · {len(other.hand)} coins in hand"
        )
    if seat is not None:
        own = state.seats[seat]
        lines.append(f"Your hand: {coins_text(own.hand)}.")
        if face_down and owner_may_peek(state):
            lines.append(f"Your brew (face down, you peek): {brew_text(own)}.")
    return "\n".join(lines)


def secrets(state: State, seat: int) -> list[Secret]:
    """The seat's hand (A9: shown in DM only) and, while brews lie face down, its brew; none
    once the match is over (the brews are shown) or the seat is out (it holds nothing).

    A sealed bid is no secret of a state: bids are never in the state before the reveal,
    which makes them public, so only ``submit`` ever sees one and it changes nothing.
    """
    own = state.seats[seat]
    if state.phase == "over" or own.eliminated:
        return []
    found = []
    if own.hand:  # an empty hand is public: every hand's size is
        found.append(
            Secret((f"Your hand: {coins_text(own.hand)}.",), ({"hand": sorted(own.hand)},))
        )
    if brews_face_down(state) and own.brew:
        found.append(
            Secret(
                (
                    f"{own.name}: brew {brew_text(own)};",  # the auction post
                    f"{own.name}: brew {brew_text(own)} ·",  # a description
                    f"Your brew (peek): {brew_text(own)}.",  # its note
                ),
                # tied to the seat: another seat's equal brew, revealed, is no leak of this one
                (
                    {"name": own.name, "brew": own.brew_counts()},
                    {"seat": seat, "brew": own.brew_counts()},
                ),
            )
        )
    return found


# --- the match's reference (``/cards``) ----------------------------------------------------------


VARIANT_RULES = {
    "two_players": "the auction winner's coin goes to the other player's hand.",
    "broke_buyers": "nobody gets the 5 coin.",
    "limited_supply": "{n} copies of every ingredient are left out.",
    "small_selection": "these ingredients are left out: {types}.",
    "impotent_ingredient": "three copies each are left out of: {types}.",
    "storefront_disaster": "{n} random cards are set aside, face up: anyone may look.",
    "snakeoil_salesman": "{n} random cards are set aside, face down: nobody may look.",
    "vision_of_blindness": "brews lie face down (counts only); their owners may peek.",
    "utter_darkness": "brews lie face down and nobody may peek; declare a win at any bid: "
    "three of one ingredient wins, anything else eliminates you.",
}


def reference(state: State) -> list[Topic]:
    """The match's content: its ingredients (names, copies), what has gone and what may still
    come, the coins and the variants in force. Public."""
    from .config import type_counts

    dealt = type_counts(state.config)
    shown = Counter(card for seat in state.seats for card in seat.brew)
    gone = shown + Counter(state.discarded) + Counter(state.storefront)
    if state.card is not None:
        gone[state.card] += 1
    lines = [
        f"{name}: {count} copies"
        + (f", {count - gone[name]} not seen yet" if count - gone[name] < count else "")
        for name, count in dealt.items()
    ]
    deck = (
        f"{sum(dealt.values())} cards in all. Each player holds coins "
        f"{coins_text(state.seats[0].dealt)}."
    )
    if state.snakeoil:
        deck += f" {len(state.snakeoil)} of the unseen cards are set aside face down."
    if state.storefront:
        deck += f" Set aside face up: {', '.join(sorted(state.storefront))}."
    return [
        Topic("Ingredients", "\n".join([*lines, deck])[:TOPIC_CHARS]),
        Topic("Variants", variants_text(state)),
        Topic("Bidding", BIDDING_RULES[state.config["no_unique"]]),
    ]


def variants_text(state: State) -> str:
    config = state.config
    active = [key for key in VARIANT_NAMES if config[key]]
    if not active:
        return "None: the standard game."
    lines = []
    for key in active:
        value = config[key]
        detail = VARIANT_RULES[key].format(
            n=value, types=", ".join(value) if isinstance(value, list) else ""
        )
        lines.append(f"{VARIANT_NAMES[key]}: {detail}")
    return "\n".join(lines)[:TOPIC_CHARS]

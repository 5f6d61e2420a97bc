"""What each audience may see: views, and the events with their plain-text rendering.

The secret of a seat is its hand (A9: hands are shown in DM only), under Vision of Blindness
and Utter Darkness every brew (face down: counts only; the owner may peek only under Vision),
and in a Deal Window the offers it made or was made (both parties know them until the deal is
made) and the offer it is drafting. Bids are never in the state before the reveal, so no view
can leak one. Which card carries which Magic Infused effect is nobody's until its reveal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.protocol import JSON, MODERATORS, PUBLIC, TOPIC_CHARS, Event, Secret, Topic, to_seat
from games.text import names_text

from .effects import BARGAIN_BIN, CHAMELEON, CURSED, EFFECT_IDS, RULES, label, triple_of
from .offers import offer_data, offer_line
from .state import Offer, Seat, State


def brews_face_down(state: State) -> bool:
    return bool(state.config["vision_of_blindness"] or state.config["utter_darkness"])


def owner_may_peek(state: State) -> bool:
    return not state.config["utter_darkness"]


def coins_text(coins: Sequence[int]) -> str:
    return ", ".join(map(str, sorted(coins))) or "none"


def brew_text(seat: Seat, face_down: bool = False) -> str:
    if face_down:
        return f"{len(seat.brew)} face down"
    labels = Counter(seat.labels())
    parts = [name if n == 1 else f"{name} ×{n}" for name, n in sorted(labels.items())]
    return ", ".join(parts) or "empty"


def card_on_offer(state: State) -> str:
    """The card up for auction, with its effect: ``Toadstool (Cursed)``."""
    return label(str(state.card), state.card_effect)


def effect_line(state: State) -> str:
    """What the effect of the card on offer does ("" for a card without one)."""
    effect = state.card_effect
    return f"{effect}: {RULES[effect]}" if effect else ""


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
            "infused": None if face_down else seat.infused(),
            "ready": seat.ready,
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
        "card_effect": state.card_effect,
        "effects": list(state.effects),  # Magic Infused: in play
        "effects_in_deck": effects_in_deck(state),  # not revealed yet (hidden: which card)
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
            "infused": own.infused() if owner_may_peek(state) else None,
            "offers": [offer_data(state, o) for o in state.offers if seat in (o.by, o.to)],
            "draft": _draft_data(state, seat),
            "proposals": own.proposals,
        }
    return public


def _draft_data(state: State, seat: int) -> JSON:
    draft = state.seats[seat].draft
    if draft is None:
        return None
    return {
        "drafting_to": state.seats[draft.to].name,
        "step": draft.step,
        "give": list(draft.give),
        "ask": list(draft.ask),
        "favour": draft.favour,
    }


def effects_in_deck(state: State) -> list[str]:
    """The effects still to be revealed (public: which card carries them is not)."""
    return [effect for effect in state.effects if effect in state.deck_effects]


def auction_post(state: State) -> Event:
    """The one public post of an auction: the card, the deck, every brew and coins in front."""
    face_down = brews_face_down(state)
    title = f"Auction {state.auction}" + (f", rebid {state.round - 1}" if state.round > 1 else "")
    lines = [f"{title}: {card_on_offer(state)} is up. Deck: {len(state.deck)} left."]
    if state.card_effect:
        lines.append(effect_line(state))
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
        "effect": state.card_effect,
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
            held.append(f"{name} {count}" + (" (one more wins)" if _wins_with(state, i) else ""))
    unseen = still_unseen(state, card)
    more = f"at most {unseen}" if state.snakeoil else str(unseen)
    holds = "; ".join(held) if held else ("nobody you can see" if face_down else "nobody")
    line = f"{card} held: {holds}. Copies still to come: {more}."
    if state.card_effect == CHAMELEON:
        seen = [i for i in state.active() if not face_down or (i == seat and owner_may_peek(state))]
        wins = ["you" if i == seat else state.seats[i].name for i in seen if _wins_with(state, i)]
        nobody = "nobody you can see" if face_down else "nobody"
        line += f" As a Chameleon it completes three for: {names_text(wins) or nobody}."
    return line


def _wins_with(state: State, seat: int) -> bool:
    """Whether the card on offer would complete a triple for ``seat`` (E2 counted)."""
    player = state.seats[seat]
    return (
        triple_of([*player.brew, str(state.card)], [*player.marks(), state.card_effect]) is not None
    )


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
    deck = [
        label(card, effect) for card, effect in zip(state.deck, state.deck_effects, strict=True)
    ]
    data = {
        "deck": deck,
        "snakeoil": list(state.snakeoil),
        "seats": [
            {"name": s.name, "hand": sorted(s.hand), "brew": s.brew_counts()} for s in state.seats
        ],
        "offers": [offer_data(state, offer) for offer in state.offers],
    }
    lines = [f"Deck (top first): {', '.join(deck) or 'empty'}."]
    if state.snakeoil:
        lines.append(f"Snakeoil (hidden): {', '.join(state.snakeoil)}.")
    lines += [f"{s.name}: hand {coins_text(s.hand)}; brew {brew_text(s)}" for s in state.seats]
    lines += [offer_line(state, offer) for offer in state.offers]
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
    if state.effects:
        lines.append(
            f"Magic Infused: {len(state.effects)} cards of the deck carry an effect: "
            f"{names_text(state.effects)}; each is announced when its card comes up."
        )
    if state.config["deal_window"]:
        lines.append(
            f"Deals: after each auction a deal window of up to {state.config['deal_window']} s "
            "to trade ingredients in front, coins in hand and favours with another player."
        )
    data = {
        "players": [s.name for s in state.seats],
        "deck_size": len(state.deck),
        "coins": list(state.seats[0].dealt),
        "variants": variants,
        "storefront": sorted(state.storefront),
        "snakeoil_count": len(state.snakeoil),
        "effects": list(state.effects),
        "deal_window": state.config["deal_window"],
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
    "magic_infused": "Magic Infused",
    "deal_window": "Deal Window",
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
    card = label(str(result["card"]), result["effect"])
    return f"Auction {result['auction']}{round_note}, {card}. Bids: {bids}."


def _result_lines(state: State, result: dict[str, JSON]) -> list[str]:
    card, winner = label(str(result["card"]), result["effect"]), result["winner"]
    lines: list[str] = []
    if winner is not None:
        coin = result["bids"][winner]
        name = state.seats[winner].name
        lowest = ": the lowest unique bid wins" if result["effect"] == BARGAIN_BIN else ""
        line = f"{name} wins {card} with the {coin} coin{lowest}."
        if result["refund"]:
            line += f" Refund: the coin goes back to {name}'s hand."
        elif result["coin_to"] is not None:
            line += (
                f" Two-player rule: the coin goes to {state.seats[result['coin_to']].name}'s hand."
            )
        if state.phase == "curse":
            line += f" Cursed: {name} now sends one other ingredient back to the deck."
        elif result["effect"] == CURSED:
            line += f" Cursed: {name} holds no other ingredient, so nothing goes back."
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
    lines += _returns_lines(state, result)
    return lines


def _returns_lines(state: State, result: dict[str, JSON]) -> list[str]:
    return [
        f"{state.seats[seat].name} has three coins in front: they all go back to hand."
        for seat in result["returned"]
    ]


def returns_events(state: State, result: dict[str, JSON]) -> list[Event]:
    """The coins that went back to hand after a Cursed choice (none: no event)."""
    lines = _returns_lines(state, result)
    if not lines:
        return []
    return [Event(PUBLIC, "returned", {"returned": list(result["returned"])}, "\n".join(lines))]


def free_sample_event(state: State, result: dict[str, JSON]) -> Event:
    """E6: a Free Sample revealed, and who got it."""
    card = label(str(result["card"]), result["effect"])
    head = f"Auction {result['auction']}: {card} is revealed and not auctioned."
    winner = result["winner"]
    if winner is not None:
        line = f"It goes to {state.seats[winner].name}, who has the fewest ingredients."
    else:
        tied = names_text(names(state, result["tied"]))
        line = f"{tied} tie for the fewest ingredients: it leaves the game."
    lines = [head, line, *_returns_lines(state, result)]
    data = {**result, "deck_left": len(state.deck)}
    return Event(PUBLIC, "free_sample", data, "\n".join(lines))


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
    """The view as plain text: the table for everyone, what is under way, plus the seat's
    own hand, brew and offers."""
    return table_text(state, seat, under_way=True)


def table_text(state: State, seat: int | None, under_way: bool = False) -> str:
    """The table for everyone, plus the seat's own hand and brew; with ``under_way``, who the
    window waits for and the seat's offers (a prompt's help leaves them out: they change while
    the seat's own prompt does not, or the prompt shows them)."""
    face_down = brews_face_down(state)
    if state.phase == "over":
        head = f"Over after auction {state.auction}: {state.end_reason}."
    elif state.phase == "deals":
        head = f"Deal window after auction {state.auction}; {len(state.deck)} cards left."
    else:
        card = card_on_offer(state) if state.card else "no card"
        head = f"Auction {state.auction}: {card} on offer, {len(state.deck)} left."
    lines = [head]
    if state.effects:
        hidden = ", ".join(effects_in_deck(state)) or "none"
        lines.append(f"Effects in play: {', '.join(state.effects)}; still in the deck: {hidden}.")
    for other in state.seats:
        status = " (eliminated)" if other.eliminated else ""
        lines.append(
            f"{other.name}{status}: brew {brew_text(other, face_down)} · "
            f"in front {coins_text(other.front)} · {len(other.hand)} coins in hand"
        )
    lines += _phase_lines(state) if under_way else []
    if seat is not None:
        own = state.seats[seat]
        lines.append(f"Your hand: {coins_text(own.hand)}.")
        if face_down and owner_may_peek(state):
            lines.append(f"Your brew (face down, you peek): {brew_text(own)}.")
        if under_way:
            lines += [offer_line(state, o, seat) for o in state.offers if seat in (o.by, o.to)]
    return "\n".join(lines)


def _phase_lines(state: State) -> list[str]:
    if state.phase == "curse" and state.cursed is not None:
        name = state.seats[state.cursed].name
        return [f"{name} chooses the ingredient the Cursed card sends back to the deck."]
    if state.phase == "deals":
        ready = [s.name for s in state.seats if s.ready and not s.eliminated]
        return [f"Ready: {names_text(ready) or 'nobody yet'}. Deals made: {state.deals_made}."]
    return []


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
    found += [offer_secret(state, offer) for offer in state.offers if seat in (offer.by, offer.to)]
    draft = _draft_data(state, seat)
    if draft is not None:
        found.append(Secret((), (draft,)))
    return found


def offer_secret(state: State, offer: Offer) -> Secret:
    """An offer waiting for its answer: a secret of both its parties (the same one)."""
    texts = tuple(offer_line(state, offer, viewer) for viewer in (None, offer.by, offer.to))
    data = offer_data(state, offer)
    return Secret(texts, ({"offer": data["offer"], "give": data["give"], "ask": data["ask"]},))


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
    "magic_infused": "{n} cards of the deck carry an effect, announced when the card comes up.",
    "deal_window": "after each auction, {n} s to trade ingredients in front, coins in hand and "
    "favours (recorded only); it ends early when everyone is Ready.",
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
    topics = [
        Topic("Ingredients", "\n".join([*lines, deck])[:TOPIC_CHARS]),
        Topic("Variants", variants_text(state)),
        Topic("Bidding", BIDDING_RULES[state.config["no_unique"]]),
    ]
    if state.effects:
        topics.append(Topic("Effects", effects_text(state)))
    if state.config["deal_window"]:
        topics.append(Topic("Deals", DEALS_TEXT.format(n=state.config["deal_window"])))
    return topics


def effects_text(state: State) -> str:
    """Each effect in play, what it does, and whether its card has come up yet."""
    hidden = effects_in_deck(state)
    lines = [
        f"{effect} ({EFFECT_IDS[effect]}): {RULES[effect]}"
        + (" Not revealed yet." if effect in hidden else " Revealed.")
        for effect in state.effects
    ]
    return "\n".join(lines)[:TOPIC_CHARS]


DEALS_TEXT = (
    "After each auction, a deal window of up to {n} s: propose a deal to another player (what "
    "you give, what you ask for: ingredients in front, coins in hand, and a favour, free text "
    "the bot records but does not enforce). The partner accepts or declines; an accepted deal "
    "is made at once if both still hold what it names, then three of a kind wins (both "
    "parties: a shared victory). The window ends when everyone is Ready. Typed: `offer Bo give "
    "Toadstool, coin 3 for Bat Wing`, `accept 3`, `decline 3`, `ready`."
)


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

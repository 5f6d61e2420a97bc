"""Warlock's Brew engine: the game protocol over the plain state of ``state.py``.

Flow of one bid window: read the bids (timeout default: the lowest coin in hand), settle any
Utter Darkness declarations, run the auction (highest unique bid, A1; the lowest under Bargain
Bin, E5), let the winner of a Cursed card choose what goes back (E4, a window of its own), then
the after-auction checks in the rules' order (A3: triple, three coins back, empty deck), then the
Deal Window when it is on (A7, ``deals.py``), then the next card (a Free Sample, E6, is handed
out as it is revealed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from games.protocol import (
    JSON,
    PUBLIC,
    Accepted,
    Choice,
    ConfigError,
    Event,
    Move,
    Outcome,
    Presentation,
    Refused,
    Request,
    Secret,
    Setup,
    Verdict,
    derive_rng,
    to_seat,
)
from games.text import OTHER_NUMERALS, excerpt, has_other_numerals

from . import cursed, deal_prompts, deals, render
from .config import COIN_RETURN_AT, build_deck, coin_values, parse_config
from .effects import BARGAIN_BIN, CURSED, EFFECTS, FREE_SAMPLE, REFUND, infuse
from .rules import all_bid_the_same, count_winners, unique_bidder
from .state import Seat, State

DECLARE = "declare"
QUIET_DECLARE: dict[str, Presentation] = {"declare": "menu"}  # grey buttons, a menu from three
PASS = "pass"
MIN_SEATS, MAX_SEATS = 2, 6
_COIN_TEXT = re.compile(r"([0-9]{1,4})(?: ?coins?)?")  # ASCII digits: their one reading


class WarlocksBrew:
    name = "warlocks-brew"
    title = "Warlock's Brew"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        check_seats(seats)
        return parse_config(raw, seats)

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        check_seats(setup.seats)
        config = parse_config(setup.config, setup.seats)
        return start_match(config, seat_names(setup), *setup_deck(config, setup.seed))

    def requests(self, state: State) -> list[Request]:
        return open_requests(state)

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        return check_answer(state, seat, raw)

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        if state.phase == "over":
            raise ValueError("the match is over")
        _check_moves(state, moves)
        new = state.clone()
        if new.phase == "last_call":
            return new, _resolve_last_call(new, moves)
        if new.phase == "curse":
            return new, _resolve_curse(new, moves)
        if new.phase == "deals":
            return new, _resolve_deals(new, moves)
        return new, _resolve_bids(new, moves)

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        """Host end rule: count the brews now, exactly as if the deck had just run out."""
        new = state.clone()
        if new.phase == "over":
            return new, []
        for seat in new.seats:  # an interrupted rebid: the coins on the table go home
            seat.hand = sorted(seat.hand + seat.table)
            seat.table = []
        new.card, new.card_effect = None, ""
        _count(new, "ended", f"Ended by the host ({reason}); counted as if the deck were empty.")
        data = {"reason": reason}
        text = f"The match was ended early ({reason}). The brews are counted as at an empty deck."
        return new, [Event(PUBLIC, "ended", data, text), *_continue(new, rebid=False)]

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """A seat that leaves is out, exactly like a wrong declaration (its coins and brew
        leave the game); the auction under way is bid again without it."""
        if state.phase == "over":
            raise ValueError("the match is over")
        if not 0 <= seat < len(state.seats) or state.seats[seat].eliminated:
            raise ValueError(f"seat {seat} is not in the match")
        new = state.clone()
        return new, _leave(new, seat)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        return Outcome(tuple(state.winners), state.end_reason, state.end_detail)

    def view(self, state: State, seat: int | None) -> JSON:
        return render.view(state, seat)

    def describe(self, state: State, seat: int | None) -> str:
        return render.describe(state, seat)

    def secrets(self, state: State, seat: int) -> list[Secret]:
        return render.secrets(state, seat)

    def dump(self, state: State) -> JSON:
        return state.dump()

    def load(self, data: JSON) -> State:
        return State.load(data)


def check_seats(seats: int) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ConfigError("seats", f"Warlock's Brew needs {MIN_SEATS} to {MAX_SEATS} players")


def seat_names(setup: Setup) -> list[str]:
    if setup.names:
        if len(setup.names) != setup.seats:
            raise ConfigError("names", f"expected {setup.seats} names")
        return list(setup.names)
    return [f"P{i + 1}" for i in range(setup.seats)]


def setup_deck(
    config: dict[str, JSON], seed: int
) -> tuple[list[str], list[str], list[str], list[str]]:
    """The deck a seed sets up (top card first), the Storefront and Snakeoil cards set aside,
    and the effect of each card of the deck (Magic Infused, G2; "" for none)."""
    deck, storefront, snakeoil = build_deck(config, derive_rng(seed, "deck"))
    effects = infuse(len(deck), int(config["magic_infused"]), derive_rng(seed, "magic"))
    return deck, storefront, snakeoil, effects


def start_match(
    config: dict[str, JSON],
    names: Sequence[str],
    deck: Sequence[str],
    storefront: Sequence[str] = (),
    snakeoil: Sequence[str] = (),
    effects: Sequence[str] = (),
) -> tuple[State, list[Event]]:
    """The state before the first reveal, from a deck already built (top card first) and the
    effect of each of its cards (Magic Infused; "" for none)."""
    coins = coin_values(config)
    seats = [Seat(name, list(coins), list(coins)) for name in names]
    state = State(dict(config), seats, list(deck), list(effects), storefront=list(storefront))
    state.snakeoil = list(snakeoil)
    state.effects = [effect for effect in EFFECTS if effect in effects]
    events = [render.start_post(state), render.hidden_state(state)]
    return state, events + _next_auction(state)


# --- requests and answers -------------------------------------------------------------------


def round_seats(state: State) -> list[int]:
    """Seats taking part in this bidding round: everyone still in, or the tied ones in a rebid."""
    if state.phase != "bid":
        return []
    pool = state.rebidders if state.round > 1 else state.active()
    return [i for i in pool if not state.seats[i].eliminated]


def bidding_seats(state: State) -> list[int]:
    """Seats asked to bid now; a seat with an empty hand passes without being asked (A6)."""
    return [i for i in round_seats(state) if state.seats[i].hand]


def open_requests(state: State) -> list[Request]:
    window = float(state.config["window"])
    if state.phase == "last_call":
        return [_last_call_request(state, seat, window) for seat in asked_seats(state)]
    if state.phase == "curse":
        return [cursed.request(state, seat) for seat in asked_seats(state)]
    if state.phase == "deals":
        return deal_prompts.requests(state)
    return [_bid_request(state, seat, window) for seat in asked_seats(state)]


def _bid_request(state: State, seat: int, window: float) -> Request:
    hand = state.seats[seat].hand
    choices = [Choice(str(coin), f"{coin} coin", "coins") for coin in sorted(set(hand))]
    lines = [f"Auction {state.auction}: {render.card_on_offer(state)}."]
    if state.round > 1:
        lines[0] += " Rebid: no bid was unique, so bid again with the coins left in hand."
    if state.card_effect:
        lines.append(render.effect_line(state))
    lines.append(render.holders_line(state, seat))
    lines.append(render.rival_coins(state, seat, bidding_seats(state)))
    lines.append(f"Your hand: {render.coins_text(hand)}. Bid one coin.")
    if state.config["utter_darkness"]:
        choices.append(Choice(DECLARE, "Declare a win", "declare"))
        lines.append(
            "Or declare a win: three of one ingredient wins, anything else eliminates you."
        )
    return Request(
        seat,
        "bid",
        "\n".join(lines),
        tuple(choices),
        "lowest coin",
        window,
        presentation=QUIET_DECLARE,
        help=render.bid_help(state, seat),
    )


def _last_call_request(state: State, seat: int, window: float) -> Request:
    choices = (Choice(DECLARE, "Declare a win", "declare"), Choice(PASS, "Pass", "declare"))
    prompt = "The deck is empty. Declare a win now, or pass and let the count decide."
    help_text = (
        "Send 'declare' to reveal your brew: three of one ingredient wins, anything else "
        "eliminates you. Send 'pass' to let the count decide among those still in: the most "
        "ingredients, then the most pairs.\n" + render.describe(state, seat)
    )
    return Request(
        seat,
        "declare",
        prompt,
        choices,
        PASS,
        window,
        presentation=QUIET_DECLARE,
        help=help_text,
    )


def asked_seats(state: State) -> list[int]:
    if state.phase == "curse":
        return [] if state.cursed is None else [state.cursed]
    if state.phase == "deals":
        return deals.asked_seats(state)
    return state.active() if state.phase == "last_call" else bidding_seats(state)


def check_answer(state: State, seat: int, raw: str) -> Verdict:
    if seat not in asked_seats(state):
        return Refused("You have nothing to decide right now.")
    if state.phase == "curse":
        return cursed.check(state, seat, raw)
    if state.phase == "deals":
        return deals.check(state, seat, raw)
    text = " ".join(raw.split()).casefold()
    if state.phase == "last_call":
        if text in (DECLARE, PASS):
            return Accepted(text, "You declare a win." if text == DECLARE else "You pass.")
        return Refused("Send 'declare' to reveal your brew and claim the win, or 'pass'.")
    if state.config["utter_darkness"] and text == DECLARE:
        return Accepted(DECLARE, "You declare a win; your brew is revealed with the bids.")
    return _check_coin(state, seat, text)


def _check_coin(state: State, seat: int, text: str) -> Verdict:
    values = coin_values(state.config)
    match = _COIN_TEXT.fullmatch(text)
    coin = int(match.group(1)) if match else None
    if coin is None or coin not in values:
        also = " or 'declare'" if state.config["utter_darkness"] else ""
        hint = f" ({OTHER_NUMERALS})" if has_other_numerals(text) else ""
        return Refused(f"Send a coin value {values[0]}-{values[-1]}{also}{hint}.")
    hand = state.seats[seat].hand
    if coin not in hand:
        return Refused(f"You don't hold a {coin} coin. Your hand: {render.coins_text(hand)}.")
    return Accepted(str(coin), f"You bid your {coin} coin.")


def _check_moves(state: State, moves: Mapping[int, Move | None]) -> None:
    """Moves come from ``submit``; anything else is a host bug, so fail loudly."""
    for seat, move in moves.items():
        if move is None:
            continue
        verdict = check_answer(state, seat, str(move))
        if not isinstance(verdict, Accepted) or verdict.move != move:
            raise ValueError(f"seat {seat}: {excerpt(move)} is not a legal move now")


# --- resolving a window ---------------------------------------------------------------------


def _new_result(state: State) -> dict[str, JSON]:
    return {
        "auction": state.auction,
        "round": state.round,
        "card": state.card,
        "last_call": state.phase == "last_call",
        "in_round": round_seats(state),
        "bidding": bidding_seats(state),
        "bids": [None] * len(state.seats),
        "timeouts": [],
        "declared": [],
        "winner": None,
        "coin_to": None,
        "removed": False,
        "rebid": False,
        "returned": [],
        "effect": state.card_effect,
        "refund": False,
    }


def _resolve_bids(state: State, moves: Mapping[int, Move | None]) -> list[Event]:
    result = _new_result(state)
    bids: dict[int, int] = {}
    declarers: list[int] = []
    for seat in result["bidding"]:
        move = moves.get(seat)
        if move == DECLARE:
            declarers.append(seat)
            continue
        if move is None:  # timeout default: the lowest coin in hand
            result["timeouts"].append(seat)
        bids[seat] = min(state.seats[seat].hand) if move is None else int(move)
        result["bids"][seat] = bids[seat]
    _declare(state, declarers, result)
    if state.phase == "over":
        return [render.reveal_event(state, result), *_continue(state, rebid=False)]
    _auction(state, bids, result)
    if result["rebid"]:
        return [render.reveal_event(state, result), *_continue(state, rebid=True)]
    winner = result["winner"]
    if state.card_effect == CURSED and winner is not None and cursed.must_choose(state, winner):
        state.phase, state.cursed = "curse", winner  # E4: the winner's choice first
        return [render.reveal_event(state, result), render.hidden_state(state)]
    _after_auction(state, result)
    return [render.reveal_event(state, result), *_continue(state, deals_due=True)]


def _resolve_curse(state: State, moves: Mapping[int, Move | None]) -> list[Event]:
    """E4: the chosen card (or the default) goes to the bottom of the deck; then the checks."""
    seat = state.cursed
    assert seat is not None
    move = moves.get(seat)
    event = cursed.apply(state, seat, None if move is None else str(move))
    state.phase, state.cursed = "bid", None
    result = _new_result(state)
    result["winner"] = seat
    _after_auction(state, result)
    return [event, *render.returns_events(state, result), *_continue(state, deals_due=True)]


def _resolve_deals(state: State, moves: Mapping[int, Move | None]) -> list[Event]:
    """A7: each answer applied in arrival order (an answer a deal just made impossible is
    refused to its seat); the window closes once nobody has anything left to do, or when its
    deadline gives nobody's answer."""
    events: list[Event] = []
    answered = [(seat, move) for seat, move in moves.items() if move is not None]
    for seat, move in answered:
        if state.phase != "deals":
            break
        verdict = deals.check(state, seat, str(move))
        if isinstance(verdict, Accepted) and verdict.move == move:
            events += deals.apply(state, seat, str(move))
        else:
            reason = verdict.reason if isinstance(verdict, Refused) else "it changed"
            text = f"Your answer {excerpt(move)} came too late: {reason}"
            events.append(Event(to_seat(seat), "too_late", {"move": move}, text))
    if state.phase == "over":
        return [*events, *_continue(state)]
    if not answered or not deals.asked_seats(state):
        return [*events, *deals.close_window(state), *_continue(state)]
    return [*events, render.hidden_state(state)]


def _resolve_last_call(state: State, moves: Mapping[int, Move | None]) -> list[Event]:
    result = _new_result(state)
    _declare(state, [seat for seat in state.active() if moves.get(seat) == DECLARE], result)
    if state.phase != "over":
        _count(state, "deck_empty", "The deck ran out.")
    return [render.reveal_event(state, result), *_continue(state, rebid=False)]


def _declare(state: State, declarers: list[int], result: dict[str, JSON]) -> None:
    """Utter Darkness: each declarer reveals; three of a kind wins, anything else eliminates.

    Declarations in one window are simultaneous, so several right ones share the victory.
    """
    right = [seat for seat in declarers if state.seats[seat].has_triple()]
    for seat in declarers:
        brew = state.seats[seat].brew_counts()
        result["declared"].append({"seat": seat, "correct": seat in right, "brew": brew})
        if seat not in right:
            _eliminate(state, seat)
    if right:
        state.finish(right, "declared", "Declared three of a kind.")
    elif declarers and len(state.active()) <= 1:
        survivors = state.active()
        reason = "last_survivor" if survivors else "all_eliminated"
        state.finish(survivors, reason, "Everyone else was eliminated.")


def _eliminate(state: State, seat: int) -> None:
    player = state.seats[seat]
    player.eliminated = True
    player.hand, player.front, player.table, player.brew = [], [], [], []
    player.effects, player.draft = [], None


def _leave(state: State, seat: int) -> list[Event]:
    name = state.seats[seat].name
    _eliminate(state, seat)
    state.rebidders = [i for i in state.rebidders if i != seat]
    text = f"{name} left the match and is out; their coins and ingredients leave the game."
    events = [Event(PUBLIC, "left", {"seat": seat, "name": name}, text)]
    survivors = state.active()
    if len(survivors) <= 1:
        state.finish(survivors, "opponent_left", f"{name} left the match.")
    elif state.phase == "bid" and not bidding_seats(state):
        return [*events, *_resolve_bids(state, {})]  # nobody left to bid (A6)
    elif state.phase == "curse" and state.cursed == seat:  # its choice goes with it
        state.phase, state.cursed = "bid", None
        _after_auction(state, _new_result(state))
        return [*events, *_continue(state, deals_due=True)]
    elif state.phase == "curse":
        return [*events, render.hidden_state(state)]  # the choice still waits
    elif state.phase == "deals":
        deals.drop_seat(state, seat)
        if not deals.asked_seats(state):
            return [*events, *deals.close_window(state), *_continue(state)]
        return [*events, render.hidden_state(state)]
    return [*events, *_continue(state, rebid=True)]  # the same card, asked again


def _auction(state: State, bids: dict[int, int], result: dict[str, JSON]) -> None:
    for seat, coin in bids.items():
        state.seats[seat].hand.remove(coin)
    winner = unique_bidder(bids, lowest=state.card_effect == BARGAIN_BIN)
    if winner is not None:
        _award(state, winner, bids, result)
    elif _rebid_applies(state, bids):
        _start_rebid(state, bids, result)
    else:
        _remove_card(state, bids, result)
    _tidy(state)


def _rebid_applies(state: State, bids: dict[int, int]) -> bool:
    """A1 option: re-bid when no bid is unique, except the seed's own all-tied case."""
    if state.config["no_unique"] != "rebid" or all_bid_the_same(bids):
        return False
    return any(state.seats[seat].hand for seat in bids)  # else nobody could bid again


def _award(state: State, winner: int, bids: dict[int, int], result: dict[str, JSON]) -> None:
    coin = bids[winner]
    if state.card_effect == REFUND:  # E3: back to hand, in front or in the two-player rule alike
        state.seats[winner].hand.append(coin)
        result["refund"] = True
    elif state.config["two_players"]:
        other = 1 - winner
        state.seats[other].hand.append(coin)
        result["coin_to"] = other
    else:
        state.seats[winner].front.append(coin)
    for seat, bid in bids.items():
        if seat != winner:  # non-winners take their coin back
            state.seats[seat].hand.append(bid)
    for player in state.seats:  # earlier rebid rounds were not the winning bid: unspent
        player.hand += player.table
        player.table = []
    assert state.card is not None
    state.seats[winner].add(state.card, state.card_effect)
    result["winner"] = winner


def _remove_card(state: State, bids: dict[int, int], result: dict[str, JSON]) -> None:
    """All tied (or no unique bid, A1): the card leaves and every bid coin stays in front."""
    assert state.card is not None
    state.discarded.append(state.card)
    for seat, coin in bids.items():
        state.seats[seat].front.append(coin)
    for player in state.seats:
        player.front += player.table
        player.table = []
    result["removed"] = True


def _start_rebid(state: State, bids: dict[int, int], result: dict[str, JSON]) -> None:
    for seat, coin in bids.items():
        state.seats[seat].table.append(coin)
    state.round += 1
    state.rebidders = sorted(bids)
    result["rebid"] = True


def _after_auction(state: State, result: dict[str, JSON]) -> None:
    """A3: the triple win, then three coins in front go back, then the empty deck."""
    winner = result["winner"]
    # Utter Darkness turns the automatic triple win off: a win must be declared.
    automatic = not state.config["utter_darkness"]
    if automatic and winner is not None and state.seats[winner].has_triple():
        name, card = state.seats[winner].name, state.seats[winner].triple()
        state.finish([winner], "triple", f"{name} brewed three {card}.")
        return
    for seat in state.active():
        player = state.seats[seat]
        if len(player.front) >= COIN_RETURN_AT:  # A2: "three" read as three or more
            player.hand = sorted(player.hand + player.front)
            player.front = []
            result["returned"].append(seat)
    if not state.deck:
        if state.config["utter_darkness"]:
            state.phase, state.card = "last_call", None  # a last chance to declare
        else:
            _count(state, "deck_empty", "The deck ran out.")


def _count(state: State, reason: str, why: str) -> None:
    """A4: most ingredients, then most pairs, then a shared victory (survivors only)."""
    winners = count_winners(state.seats, state.active())
    sizes = ", ".join(
        f"{state.seats[i].name} {state.seats[i].size()} ({state.seats[i].pairs()} pairs)"
        for i in state.active()
    )
    state.finish(winners, reason, f"{why} Ingredients: {sizes}.")


def _continue(state: State, rebid: bool = False, deals_due: bool = False) -> list[Event]:
    """The events after a window: the end, the last call, a rebid, the Deal Window (after an
    auction, when it is on) or the next auction."""
    moderators = render.hidden_state(state)
    if state.phase == "over":
        return [render.game_over_post(state), moderators]
    if state.phase == "last_call":
        return [render.last_call_post(state), *render.seat_notes(state), moderators]
    if rebid:
        return [render.auction_post(state), *render.seat_notes(state), moderators]
    if deals_due and state.config["deal_window"]:
        return [*deals.open_window(state), *render.seat_notes(state), moderators]
    return [*_next_auction(state), moderators]


def _next_auction(state: State) -> list[Event]:
    state.auction += 1
    state.card, state.card_effect = state.deck.pop(0), state.deck_effects.pop(0)
    state.round, state.rebidders = 1, []
    if state.card_effect == FREE_SAMPLE:
        return _free_sample(state)
    events = [render.auction_post(state), *render.seat_notes(state)]
    if not bidding_seats(state):
        # Nobody holds a coin (A6: the card is removed). Unreachable with the rules' coin
        # counts, but resolving it here means the match can never stall with no open request.
        events += _resolve_bids(state, {})
    return events


def _free_sample(state: State) -> list[Event]:
    """E6: not auctioned; the player with the fewest ingredients (cards, Potent or not) gets
    it, and a tie removes it. Then the after-auction checks, and the next card at once."""
    result = _new_result(state)
    result["bidding"], result["in_round"] = [], []
    sizes = {seat: len(state.seats[seat].brew) for seat in state.active()}
    fewest = [seat for seat, size in sizes.items() if size == min(sizes.values())]
    assert state.card is not None
    if len(fewest) == 1:
        state.seats[fewest[0]].add(state.card, FREE_SAMPLE)
        result["winner"] = fewest[0]
    else:
        state.discarded.append(state.card)
        result["removed"] = True
    result["tied"] = fewest if len(fewest) > 1 else []
    _after_auction(state, result)
    return [render.free_sample_event(state, result), *_continue(state)]


def _tidy(state: State) -> None:
    for player in state.seats:
        player.hand.sort()
        player.front.sort()
        player.table.sort()

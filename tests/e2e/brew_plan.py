"""A plan for the Magic Infused and Deal Window end-to-end match (test_warlocks_brew_deals.py),
worked out on the engine itself from the deck the moderators' log shows: who wins each card,
the bids that make it so, and the deals, so that one match holds everything the test checks (a
deal accepted, one declined, one made impossible before its answer, a Cursed choice timing out
to its default, and a deal completing a triple that wins). None when this deck cannot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.protocol import Accepted
from games.warlocks_brew import GAME
from games.warlocks_brew.effects import BARGAIN_BIN, CURSED, split_label
from games.warlocks_brew.engine import start_match
from games.warlocks_brew.state import State

ALICE, BOB, CAROL = range(3)
NAMES = ("Alice", "Bob", "Carol")
FAVOUR = "secret handshake"


@dataclass(frozen=True)
class Move:
    """One step of the plan: ``bids`` (a coin per seat), ``answer`` (one seat's deal answer,
    accepted unless ``refused`` says why), or ``curse_timeout`` (the Cursed choice left)."""

    kind: str
    bids: dict[int, str] = field(default_factory=dict)
    seat: int = 0
    text: str = ""
    refused: str = ""
    auction: int = 0  # the auction a bid or a Cursed choice belongs to


def plan(deck: Sequence[str], config: dict[str, Any]) -> list[Move] | None:
    """The moves of a whole match on ``deck`` (labels, top first), or None."""
    cards = [split_label(label) for label in deck]
    parsed = GAME.parse_config(config, 3)
    state, _ = start_match(parsed, NAMES, [c for c, _ in cards], effects=[e for _, e in cards])
    moves: list[Move] = []
    done: set[str] = set()
    while GAME.outcome(state) is None:
        if state.phase == "bid":
            step = _auction(state)
        elif state.phase == "curse":
            step = [Move("curse_timeout", seat=state.cursed or 0, auction=state.auction)]
            done.add("cursed")
        else:
            step = _deals(state, done)
        if step is None:
            return None
        for move in step:
            after = _play(state, move)
            if after is None:
                return None
            state = after
        moves += step
    outcome = GAME.outcome(state)
    assert outcome is not None
    won = outcome.reason == "deal" and outcome.winners == (ALICE,)
    return moves if won and {"window", "cursed"} <= done else None


def _play(state: State, move: Move) -> State | None:
    if move.kind == "bids":
        moves = {seat: move.bids[seat] for seat in move.bids}
        return GAME.resolve(state, moves)[0]
    if move.kind == "curse_timeout":
        return GAME.resolve(state, {request.seat: None for request in GAME.requests(state)})[0]
    verdict = GAME.submit(state, move.seat, move.text)
    if move.refused:
        return state if move.refused in getattr(verdict, "reason", "") else None
    if not isinstance(verdict, Accepted):
        return None
    return GAME.resolve(state, {move.seat: verdict.move})[0]


# --- auctions --------------------------------------------------------------------------------


def _auction(state: State) -> list[Move] | None:
    """The bids that give the card to the first of the wanted winners that does not end the
    match with it (the test's win is a deal's), else to nobody."""
    for winner in (*_winners(state), None):
        bids = _bids(state, winner)
        after = None if bids is None else _play(state, Move("bids", bids))
        if after is None or GAME.outcome(after) is not None:
            continue
        if winner is None or len(after.seats[winner].brew) > len(state.seats[winner].brew):
            return [Move("bids", bids or {}, auction=state.auction)]
    return None


def _winners(state: State) -> list[int]:
    """Cursed: whoever holds a card (Carol first), to let the choice time out. Else Alice
    collects two of her first card's ingredient and Bob one; the rest go to Carol."""
    card, effect = str(state.card), state.card_effect
    if effect == CURSED:
        return [s for s in (CAROL, ALICE, BOB) if state.seats[s].brew]
    alice = state.seats[ALICE].brew
    target = alice[0] if alice else card
    if card == target and alice.count(target) < 2:
        return [ALICE, CAROL]
    if card == target and target not in state.seats[BOB].brew:
        return [BOB, CAROL]
    return [CAROL]


def _bids(state: State, winner: int | None) -> dict[int, str] | None:
    hands = {seat: sorted(state.seats[seat].hand) for seat in range(3)}
    if not all(hands.values()):
        return None  # a player with no coin passes: not a table this plan plays
    if winner is None:
        common = set(hands[0]) & set(hands[1]) & set(hands[2])
        return {seat: str(min(common)) for seat in range(3)} if common else None
    low = state.card_effect == BARGAIN_BIN
    bids = {seat: hand[-1] if low else hand[0] for seat, hand in hands.items()}
    bids[winner] = hands[winner][0] if low else hands[winner][-1]
    return {seat: str(coin) for seat, coin in bids.items()}


# --- deals -----------------------------------------------------------------------------------


def _deals(state: State, done: set[str]) -> list[Move] | None:
    if "window" not in done:
        done.add("window")
        return _first_window()
    completing = _completing(state) if "cursed" in done else None
    if completing is not None:
        coin = min(state.seats[ALICE].hand)
        offer = f"offer Bob give coin {coin} for {completing}"
        accept = f"accept {state.next_offer}"
        return [Move("answer", seat=ALICE, text=offer), Move("answer", seat=BOB, text=accept)]
    return [Move("answer", seat=seat, text="ready") for seat in range(3)]


def _first_window() -> list[Move]:
    """After auction 1 (Alice won with her 5): a deal accepted (offer 1, composed with menus in
    the test), one declined (2), one made impossible by another deal before its answer (3, by
    4), then Ready all round."""
    return [
        Move("answer", seat=ALICE, text="offer Bob give coin 1 for coin 2"),
        Move("answer", seat=BOB, text="accept 1"),
        Move("answer", seat=CAROL, text=f"offer Alice give coin 1 for coin 2 favour {FAVOUR}"),
        Move("answer", seat=ALICE, text="decline 2"),
        Move("answer", seat=ALICE, text="offer Bob give coin 4 for nothing"),
        Move("answer", seat=ALICE, text="offer Carol give coin 4 for nothing"),
        Move("answer", seat=CAROL, text="accept 4"),
        Move(
            "answer",
            seat=BOB,
            text="accept 3",
            refused="Offer 3 can no longer be made: Alice does not hold a 4 coin in hand.",
        ),
        Move("answer", seat=BOB, text="decline 3"),
        *(Move("answer", seat=seat, text="ready") for seat in range(3)),
    ]


def _completing(state: State) -> str | None:
    """A card of Bob's that gives Alice three of a kind."""
    alice = state.seats[ALICE]
    for index, card in enumerate(state.seats[BOB].labels()):
        name, effect = split_label(card)
        with_it = alice.clone()
        with_it.add(name, effect)
        if with_it.has_triple() and index >= 0:
            return card
    return None

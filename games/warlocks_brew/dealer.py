"""The computer players' dealing (§A7) and Cursed choices (§G2 E4).

Dealing: an offer made to it is accepted when it helps it more than it helps the partner (by
``worth.brew_worth`` and the coins' value) and does not complete the partner's triple; any
other offer is declined. Once a window it proposes a deal it wants: a card that completes its
own triple, paid with a card or a coin that does not complete the partner's; failing that, a
swap of single cards that makes a pair for each side. It deals only while brews lie face up
(face down it cannot tell what a card is), then presses Ready.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from games.protocol import JSON, Request

from .effects import split_label
from .worth import COIN, RIVAL_SHARE, best_return, brew_worth, holds_triple

Labels = Callable[[JSON, int], list[str]]  # a seat's brew as the AI knows it, by labels
GAIN_MARGIN = 0.01  # a deal must gain more than this to be worth accepting


def answer_deal(
    seat: int, request: Request, view: JSON, labels: Labels, proposes: bool = True
) -> str:
    """The AI's answer to a Deal Window prompt: an offer answered, a deal proposed (unless
    ``proposes`` is off), Ready."""
    values = {choice.value for choice in request.choices}
    for offer in view["you"]["offers"]:
        accept, decline = f"accept {offer['offer']}", f"decline {offer['offer']}"
        if decline in values:
            wanted = accept in values and _helps(seat, offer, view, labels)
            return accept if wanted else decline
    if request.kind != "deal":
        return "cancel"  # it proposes in one line, so it never drafts
    if "ready" not in values:
        return request.choices[0].value  # only offers to answer, and none left: unreachable
    if proposes and view["you"]["proposals"] == 0 and not _face_down(view):
        offer = propose(seat, view, labels, values)
        if offer:
            return offer
    return "ready"


def _face_down(view: JSON) -> bool:
    options = view["options"]
    return bool(options["vision_of_blindness"] or options["utter_darkness"])


def _seat_of(view: JSON, name: str) -> int:
    return next(i for i, p in enumerate(view["players"]) if p["name"] == name)


def _helps(seat: int, offer: Mapping[str, JSON], view: JSON, labels: Labels) -> bool:
    """Whether accepting ``offer`` (made to ``seat``) helps it and does not hand the partner
    its triple. Cards named by place (face down) cannot be judged: declined."""
    if _face_down(view):
        return False
    partner = _seat_of(view, offer["by"])
    mine, theirs = labels(view, seat), labels(view, partner)
    gets, gives = list(offer["give"]), list(offer["ask"])
    mine_after = _moved(mine, gets, gives)
    theirs_after = _moved(theirs, gives, gets)
    if holds_triple(theirs_after):
        return False
    gain = _worth(mine_after, gets, gives) - _worth(mine, [], [])
    loss = _worth(theirs_after, gives, gets) - _worth(theirs, [], [])
    return gain - RIVAL_SHARE * loss > GAIN_MARGIN


def _moved(brew: Sequence[str], got: Sequence[str], gave: Sequence[str]) -> list[str]:
    after = list(brew)
    for item in gave:
        if not item.startswith("coin ") and item in after:
            after = _without(after, item)
    return after + [item for item in got if not item.startswith("coin ")]


def _worth(brew: Sequence[str], got: Sequence[str], gave: Sequence[str]) -> float:
    """A brew's worth, plus the coins a deal brings in less those it sends out."""
    coins = sum(_coin(i) for i in got) - sum(_coin(i) for i in gave)
    return brew_worth(brew) + COIN * coins


def _coin(item: str) -> int:
    return int(item.split()[1]) if item.startswith("coin ") else 0


def propose(seat: int, view: JSON, labels: Labels, values: set[str]) -> str:
    """One offer line the AI wants, or "": first a card that completes its triple, then a
    swap of singles that makes a pair for each side."""
    mine = labels(view, seat)
    for partner, player in enumerate(view["players"]):
        if partner == seat or f"propose {player['name']}" not in values:
            continue  # itself, a player out, or one with offers enough to answer
        theirs = labels(view, partner)
        line = _completing(mine, theirs, view) or _swap(mine, theirs)
        if line:
            return f"offer {player['name']} give {line[0]} for {line[1]}"
    return ""


def _completing(mine: list[str], theirs: list[str], view: JSON) -> tuple[str, str] | None:
    """(what to give, the card to ask for) when one of the partner's cards completes ours."""
    for card in dict.fromkeys(theirs):
        if holds_triple([*mine, card]):
            return _payment(mine, card, _without(theirs, card), view), card
    return None


def _payment(mine: list[str], card: str, theirs_after: list[str], view: JSON) -> str:
    """The cheapest thing to give for ``card``: a card of ours worth least to us whose loss
    keeps our triple and which does not complete the partner's, else our lowest coin, else
    nothing."""
    safe = [
        c
        for c in dict.fromkeys(mine)
        if holds_triple([*_without(mine, c), card]) and not holds_triple([*theirs_after, c])
    ]
    if safe:
        return max(safe, key=lambda c: brew_worth(_without(mine, c)))
    hand = sorted(view["you"]["hand"])
    return f"coin {hand[0]}" if hand else "nothing"


def _without(brew: Sequence[str], card: str) -> list[str]:
    """``brew`` less one copy of ``card``."""
    after = list(brew)
    after.remove(card)
    return after


def _swap(mine: list[str], theirs: list[str]) -> tuple[str, str] | None:
    """A single card of ours the partner holds one of, for a single of another ingredient of
    theirs we hold one of: a pair each."""
    plain = [split_label(c)[0] for c in mine]
    other = [split_label(c)[0] for c in theirs]
    singles = [c for c in theirs if other.count(split_label(c)[0]) == 1]
    for give in mine:
        kind = split_label(give)[0]
        if plain.count(kind) != 1 or other.count(kind) != 1:
            continue
        for take in singles:
            if split_label(take)[0] != kind and plain.count(split_label(take)[0]) == 1:
                return give, take
    return None


def cursed_choice(request: Request, view: JSON, brew: Sequence[str]) -> str:
    """The card a Cursed win sends back: the one whose loss costs least (under Utter Darkness
    cards go by place, and its memory of the brew picks the place); else the first offered."""
    values = [choice.value for choice in request.choices]
    if len(brew) >= 2:
        index = best_return(brew)
        wanted = f"card {index + 1}" if values[0].startswith("card ") else brew[index]
        if wanted in values:
            return wanted
    return values[0]

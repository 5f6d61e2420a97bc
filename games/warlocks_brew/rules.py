"""The arithmetic of the rules, free of state handling: who wins a bid and who wins a count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from .state import Seat

AuctionResult = int | None  # the winning seat, or None: nobody wins the card


def unique_bidder(bids: Mapping[int, int], lowest: bool = False) -> AuctionResult:
    """A1: the seat whose bid is the highest value that exactly one seat bid (with ``lowest``,
    Bargain Bin's E5: the lowest such value).

    Only actual bidders count (A6): a sole bidder wins, no bidder means no winner.
    """
    counts = Counter(bids.values())
    unique = [value for value, count in counts.items() if count == 1]
    if not unique:
        return None
    best = min(unique) if lowest else max(unique)
    return next(seat for seat, value in bids.items() if value == best)


def all_bid_the_same(bids: Mapping[int, int]) -> bool:
    """The seed's own "all players tied" case, which is never re-bid."""
    return len(set(bids.values())) <= 1


def count_winners(seats: Sequence[Seat], candidates: Sequence[int]) -> list[int]:
    """A4, the deck-empty rule: most ingredients (E1: a Potent card counts twice), then most
    pairs; still tied means shared."""
    if not candidates:
        return []

    def score(seat: int) -> tuple[int, int]:
        return seats[seat].size(), seats[seat].pairs()

    best = max(score(seat) for seat in candidates)
    return [seat for seat in candidates if score(seat) == best]

"""Players' ratings, computed from the stored results only, so they can always be rebuilt.

OpenSkill's Plackett-Luce model rates a match of any number of seats: the winners (several: a
shared victory) tie for first and every other seat ties below them; a match nobody won is a draw
for all. Each finished match counts once, in its guild and game, in the order matches ended
(``ended_seq``); practice and aborted matches never count. The store folds each match inside the
transaction that records it as folded (``Store.fold_ratings``), so a crash between two folds loses
nothing and counts nothing twice, and two processes folding at once fold each match once.

``refresh`` folds whatever finished since the last call (cheap when nothing is new) and is what
readers call before they read; ``rebuild`` clears the ratings and folds every match again;
``fold`` computes the same ratings in memory from a list of matches (a read-only database).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from bot.store import MatchRecord, Rating, Store

MODEL = PlackettLuce()  # mu 25, sigma 25/3: a new player's rating is 0 (mu - 3 sigma)
REFRESH_BATCH = 50  # matches folded per transaction by refresh
Key = tuple[int, str, int]  # guild, game, user


def shown(rating: Rating) -> float:
    """The rating shown to people: conservative (mu - 3 sigma, OpenSkill's ordinal), so a
    player with few matches does not top a board on luck; 0 for a new player."""
    return rating.mu - 3 * rating.sigma


def winners_of(record: MatchRecord) -> frozenset[int] | None:
    """The winning seats of a finished match, or None when its outcome names none that exist
    (an outcome from an older or broken engine: such a match is not rated)."""
    outcome = record.outcome
    if not isinstance(outcome, dict):
        return None
    winners = outcome.get("winners")
    if not isinstance(winners, list):
        return None
    seats = range(len(record.players))
    if not all(isinstance(w, int) and not isinstance(w, bool) and w in seats for w in winners):
        return None
    return frozenset(winners)


def rate(record: MatchRecord, before: Sequence[Rating | None]) -> list[Rating] | None:
    """The seats' ratings after ``record`` (a ``bot.store.Rater``), or None when the match
    cannot be rated: fewer than two seats, a player in two seats, no readable outcome."""
    players = record.players
    winners = winners_of(record)
    if winners is None or len(players) < 2 or len(set(players)) != len(players):
        return None
    teams = [
        [MODEL.rating() if r is None else MODEL.create_rating([r.mu, r.sigma])] for r in before
    ]
    # lower is better: the winners tie first, the rest tie second; nobody won: all tie
    ranks = [1.0 if seat in winners or not winners else 2.0 for seat in range(len(players))]
    after: list[list[PlackettLuceRating]] = MODEL.rate(teams, ranks=ranks)
    ended = record.ended_at or 0.0
    rated = []
    for seat, (user_id, old, (new,)) in enumerate(zip(players, before, after, strict=True)):
        won = seat in winners
        lost = bool(winners) and not won
        rated.append(
            Rating(
                guild_id=record.guild_id,
                game=record.game,
                user_id=user_id,
                name=record.names[seat] if seat < len(record.names) else str(user_id),
                mu=float(new.mu),
                sigma=float(new.sigma),
                matches=(old.matches if old else 0) + 1,
                wins=(old.wins if old else 0) + int(won),
                losses=(old.losses if old else 0) + int(lost),
                updated_at=ended,
            )
        )
    return rated


def counts(record: MatchRecord) -> bool:
    """Whether a match counts for the ratings: finished (not aborted) and not practice."""
    return record.status == "finished" and not record.practice


async def refresh(store: Store) -> int:
    """Fold every finished match not folded yet; how many were folded."""
    total = 0
    while True:
        folded = await store.fold_ratings(rate, limit=REFRESH_BATCH)
        total += folded
        if folded < REFRESH_BATCH:
            return total


async def rebuild(store: Store) -> int:
    """Clear the ratings and fold every finished match again, in one transaction; how many."""
    return await store.fold_ratings(rate, limit=None, rebuild=True)


def fold(records: Iterable[MatchRecord]) -> dict[Key, Rating]:
    """The ratings ``rebuild`` would store, computed in memory from these matches."""
    table: dict[Key, Rating] = {}
    counted = sorted(filter(counts, records), key=lambda r: r.ended_seq or 0)
    for record in counted:
        keys = [(record.guild_id, record.game, user_id) for user_id in record.players]
        after = rate(record, [table.get(key) for key in keys])
        for key, rating in zip(keys, after or (), strict=False):
            table[key] = rating
    # a forgotten user's stand-in (negative id, bot/forget.py) keeps no rating, as the store's fold
    return {key: rating for key, rating in table.items() if key[2] >= 0}


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place on a guild's board for one game (1: the top)."""

    place: int
    rating: Rating


def board(ratings: Iterable[Rating]) -> list[Standing]:
    """One game's ratings in one guild, best first: by the shown rating, then more wins, then
    fewer matches, then by id (a stable order)."""
    ordered = sorted(ratings, key=lambda r: (-shown(r), -r.wins, r.matches, r.user_id))
    return [Standing(place, rating) for place, rating in enumerate(ordered, start=1)]

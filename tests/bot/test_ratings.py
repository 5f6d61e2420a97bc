"""Ratings from stored results: OpenSkill Plackett-Luce per guild and game, folded once per
finished match in the order matches ended, always rebuildable (``bot.ratings``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import ratings
from bot.database import open_store
from bot.store import Change, MatchRecord, MatchStatus, NewMatch, Rating
from bot.store.common import SqlStore
from games.protocol import JSON
from tests.bot.conftest import HostEnv

GUILD, OTHER_GUILD = 1, 2
ANN, BEN, CAT, DAN = 11, 12, 13, 14
NAMES = {ANN: "Ann", BEN: "Ben", CAT: "Cat", DAN: "Dan"}


@pytest.fixture
async def store(database: str) -> AsyncIterator[SqlStore]:
    opened = await open_store(database)
    try:
        yield opened
    finally:
        await opened.close()


async def play(
    store: SqlStore,
    players: Sequence[int],
    winners: Sequence[int] | None,
    at: float,
    *,
    guild: int = GUILD,
    game: str = "toy",
    practice: bool = False,
    status: MatchStatus = "finished",
    outcome: JSON = None,
) -> int:
    """A match of these players that ended at ``at``: ``winners`` are seats."""
    names = tuple(NAMES.get(p, str(p)) for p in players)
    new = NewMatch(game, guild, 5, tuple(players), names, (), {}, 7, None, practice=practice)
    match_id = await store.create_match(new, {"s": 0}, at - 1, [])
    if winners is not None and outcome is None:
        outcome = {"winners": list(winners), "reason": "score", "detail": ""}
    assert await store.apply(Change(match_id, at, status=status, outcome=outcome))
    return match_id


async def table(store: SqlStore, guild: int | None = GUILD) -> dict[int, Rating]:
    found = await store.ratings(guild)
    assert len({(r.guild_id, r.game, r.user_id) for r in found}) == len(found)
    return {r.user_id: r for r in found}


async def test_a_win_raises_the_winner_and_a_loss_lowers_the_loser(store: SqlStore) -> None:
    await play(store, (ANN, BEN), winners=[0], at=10.0)
    assert await ratings.refresh(store) == 1
    by_user = await table(store)
    ann, ben = by_user[ANN], by_user[BEN]
    start = ratings.MODEL.rating()
    assert ann.mu > start.mu > ben.mu
    assert ratings.shown(ann) > 0 > ratings.shown(ben)
    assert ann.sigma < start.sigma and ben.sigma < start.sigma
    assert (ann.matches, ann.wins, ann.losses) == (1, 1, 0)
    assert (ben.matches, ben.wins, ben.losses) == (1, 0, 1)
    assert (ann.name, ann.game, ann.updated_at) == ("Ann", "toy", 10.0)

    await play(store, (BEN, ANN), winners=[0], at=20.0)  # Ben wins the rematch from seat 0
    await ratings.refresh(store)
    again = await table(store)
    assert again[BEN].mu > ben.mu and again[ANN].mu < ann.mu
    assert (again[ANN].matches, again[ANN].wins, again[ANN].losses) == (2, 1, 1)


async def test_a_shared_victory_ties_the_winners_above_the_rest(store: SqlStore) -> None:
    await play(store, (ANN, BEN, CAT), winners=[0, 2], at=10.0)
    await ratings.refresh(store)
    by_user = await table(store)
    ann, ben, cat = by_user[ANN], by_user[BEN], by_user[CAT]
    assert ann.mu == cat.mu > ratings.MODEL.rating().mu > ben.mu
    assert (ann.wins, cat.wins, ben.wins, ben.losses) == (1, 1, 0, 1)
    # sharing a victory with another is worth less than winning alone
    await play(store, (DAN, 99, 98), winners=[0], at=11.0, guild=OTHER_GUILD)
    await ratings.refresh(store)
    assert (await table(store, OTHER_GUILD))[DAN].mu > ann.mu


async def test_a_match_nobody_won_is_a_draw_for_all(store: SqlStore) -> None:
    await play(store, (ANN, BEN), winners=[], at=10.0)
    await ratings.refresh(store)
    ann, ben = (await table(store))[ANN], (await table(store))[BEN]
    assert ann.mu == ben.mu and (ann.matches, ann.wins, ann.losses) == (1, 0, 0)


async def test_practice_aborted_and_unreadable_matches_do_not_count(store: SqlStore) -> None:
    await play(store, (ANN, BEN), winners=[0], at=10.0, practice=True)
    await play(store, (ANN, BEN), winners=None, at=11.0, status="aborted")
    running = await play(store, (ANN, BEN), winners=None, at=12.0, status="running")
    bad = {"winners": [5], "reason": "?"}  # a seat the match does not have
    await play(store, (ANN, BEN), winners=None, at=13.0, outcome=bad)
    await play(store, (ANN, BEN), winners=None, at=14.0, outcome=None)  # finished, no outcome
    await play(store, (ANN, ANN), winners=[0], at=15.0)  # one player in two seats
    assert await ratings.refresh(store) == 3  # the three finished ones, folded as nothing
    assert await table(store) == {}
    await play(store, (BEN, ANN), winners=[0], at=16.0)
    assert await ratings.refresh(store) == 1
    by_user = await table(store)
    assert (by_user[ANN].matches, by_user[ANN].losses, by_user[BEN].wins) == (1, 1, 1)
    record = await store.get_match(running)
    assert record is not None and record.status == "running"
    # the running match finishing later counts then
    win = {"winners": [0], "reason": "score", "detail": ""}
    assert await store.apply(Change(running, 17.0, status="finished", outcome=win))
    assert await ratings.refresh(store) == 1
    assert (await table(store))[ANN].matches == 2


async def test_ratings_belong_to_one_guild_and_one_game(store: SqlStore) -> None:
    await play(store, (ANN, BEN), winners=[0], at=10.0, guild=GUILD)
    await play(store, (ANN, BEN), winners=[1], at=11.0, guild=OTHER_GUILD)
    await play(store, (CAT, ANN), winners=[0], at=12.0, guild=OTHER_GUILD, game="other")
    await ratings.refresh(store)
    here = await table(store, GUILD)
    assert set(here) == {ANN, BEN}
    assert here[ANN].wins == 1 and here[ANN].mu > here[BEN].mu
    toy = {r.user_id: r for r in await store.ratings(OTHER_GUILD, "toy")}
    assert toy[ANN].losses == 1 and toy[BEN].mu > toy[ANN].mu
    other = await store.ratings(OTHER_GUILD, "other")
    assert {r.user_id for r in other} == {CAT, ANN}
    assert [r.game for r in await store.ratings(OTHER_GUILD, user_id=ANN)] == ["other", "toy"]
    assert await store.ratings(GUILD, "other") == []


async def test_refresh_is_idempotent_and_concurrent_refreshes_count_each_match_once(
    store: SqlStore,
) -> None:
    for n in range(7):
        await play(store, (ANN, BEN, CAT), winners=[n % 3], at=10.0 + n)
    counts = await asyncio.gather(*(ratings.refresh(store) for _ in range(4)))
    assert sum(counts) == 7
    once = await table(store)
    assert await ratings.refresh(store) == 0
    assert await table(store) == once
    assert [once[u].matches for u in (ANN, BEN, CAT)] == [7, 7, 7]
    assert sum(r.wins for r in once.values()) == 7


async def random_season(store: SqlStore, rng: random.Random, n: int, start: float) -> None:
    users = [ANN, BEN, CAT, DAN, 15, 16, 17]
    for i in range(n):
        seats = rng.randint(2, 6)
        players = rng.sample(users, seats)
        winners = sorted(rng.sample(range(seats), rng.choice([0, 1, 1, 1, 2])))
        practice = rng.random() < 0.1
        status: MatchStatus = "aborted" if rng.random() < 0.1 else "finished"
        guild = rng.choice([GUILD, OTHER_GUILD])
        game = rng.choice(["toy", "other"])
        await play(
            store,
            players,
            winners if status == "finished" else None,
            start + i,
            guild=guild,
            game=game,
            practice=practice,
            status=status,
        )


async def test_rebuild_equals_the_incremental_result_and_the_in_memory_fold(
    store: SqlStore,
) -> None:
    rng = random.Random(13)
    for part in range(5):
        await random_season(store, rng, 12, start=100.0 * part)
        await ratings.refresh(store)
    incremental = await store.ratings(None)
    assert len(incremental) > 10
    assert await ratings.rebuild(store) > 40
    assert await store.ratings(None) == incremental  # bit for bit: the same folds in order
    records = await store.list_matches()
    folded = ratings.fold(records)
    assert sorted(folded.values(), key=lambda r: (r.guild_id, r.game, r.user_id)) == incremental


async def test_matches_fold_in_the_order_they_ended_whatever_the_clock_said(
    store: SqlStore,
) -> None:
    first = await play(store, (ANN, BEN), winners=[0], at=10.0)
    second = await play(store, (ANN, BEN), winners=[1], at=30.0)
    await ratings.refresh(store)
    third = await play(store, (ANN, BEN), winners=[1], at=20.0)  # this clock was behind
    records = {r.id: r for r in await store.list_matches()}
    assert [records[m].ended_seq for m in (first, second, third)] == [1, 2, 3]
    assert await ratings.refresh(store) == 1
    incremental = await store.ratings(GUILD)
    assert incremental[0].updated_at == 20.0  # the latest match folded in
    expected = ratings.fold(records.values())
    assert incremental == sorted(expected.values(), key=lambda r: r.user_id)
    await ratings.rebuild(store)
    assert await store.ratings(GUILD) == incremental


async def test_a_crash_between_two_folds_loses_nothing_and_counts_nothing_twice(
    store: SqlStore,
) -> None:
    await play(store, (ANN, BEN), winners=[0], at=10.0)
    await play(store, (ANN, BEN), winners=[1], at=20.0)
    await play(store, (ANN, BEN, CAT), winners=[2], at=30.0)
    assert await store.fold_ratings(ratings.rate, limit=1) == 1

    def crash(record: MatchRecord, before: Sequence[Rating | None]) -> list[Rating] | None:
        ratings.rate(record, before)
        raise KeyboardInterrupt  # the process dies midway through the second fold

    with pytest.raises(KeyboardInterrupt):
        await store.fold_ratings(crash, limit=1)
    after_first = await table(store)
    assert [after_first[u].matches for u in (ANN, BEN)] == [1, 1]
    assert await ratings.refresh(store) == 2
    incremental = await store.ratings(None)
    await ratings.rebuild(store)
    assert await store.ratings(None) == incremental
    assert [r.matches for r in incremental] == [3, 3, 1]


async def test_the_board_ranks_by_the_conservative_rating() -> None:
    def rated(user_id: int, mu: float, sigma: float, wins: int = 0) -> Rating:
        return Rating(GUILD, "toy", user_id, str(user_id), mu, sigma, 3, wins, 3 - wins)

    steady = rated(1, 27.0, 2.0, wins=2)  # 21
    lucky = rated(2, 33.0, 6.0, wins=3)  # 15: a higher mu, but less sure
    peer = rated(3, 27.0, 2.0, wins=3)  # 21 with more wins
    standings = ratings.board([steady, lucky, peer])
    assert [(s.place, s.rating.user_id) for s in standings] == [(1, 3), (2, 1), (3, 2)]
    assert ratings.shown(steady) == pytest.approx(21.0)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    outcome=JSON_VALUES | st.fixed_dictionaries({"winners": JSON_VALUES}),
    seats=st.integers(0, 7),
    known=st.lists(st.booleans(), min_size=7, max_size=7),
)
def test_any_stored_outcome_is_rated_or_refused_never_raises(
    outcome: JSON, seats: int, known: list[bool]
) -> None:
    players = tuple(range(100, 100 + seats))
    record = MatchRecord(
        7,
        "toy",
        GUILD,
        5,
        players,
        tuple(map(str, players)),
        (),
        {},
        1,
        None,
        "finished",
        3,
        outcome,
        0.0,
        ended_at=1.0,
        ended_seq=1,
    )
    before = [
        Rating(GUILD, "toy", p, str(p), 30.0, 4.0, 2, 1, 1) if known[i] else None
        for i, p in enumerate(players)
    ]
    after = ratings.rate(record, before)
    winners = ratings.winners_of(record)
    if after is None:
        assert seats < 2 or winners is None
        return
    assert winners is not None and [r.user_id for r in after] == list(players)
    for seat, (old, new) in enumerate(zip(before, after, strict=True)):
        assert new.matches == (old.matches if old else 0) + 1
        assert new.wins == (old.wins if old else 0) + (seat in winners)
        if winners and seat in winners and len(winners) < seats:
            assert new.mu > (old.mu if old else ratings.MODEL.mu)
        if winners and seat not in winners:
            assert new.mu < (old.mu if old else ratings.MODEL.mu)


async def test_through_the_host_practice_and_aborted_matches_do_not_count(env: HostEnv) -> None:
    practice = await env.new_match(practice=True)
    rated = await env.new_match()
    aborted = await env.new_match()
    await env.host.end(practice.id)
    await env.host.end(rated.id)
    await env.host.abort(aborted.id)
    store = env.host.store
    records = {r.id: r for r in await store.list_matches()}
    assert records[practice.id].practice and not records[rated.id].practice
    assert [records[m].status for m in (practice.id, rated.id, aborted.id)] == [
        "finished",
        "finished",
        "aborted",
    ]
    assert [records[m].ended_seq for m in (practice.id, rated.id, aborted.id)] == [1, 2, 3]
    assert await ratings.refresh(store) == 1
    found = await store.ratings(rated.guild_id)
    assert sorted(r.user_id for r in found) == sorted(rated.players)
    assert all(r.matches == 1 for r in found)

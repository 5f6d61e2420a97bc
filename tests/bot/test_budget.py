"""The request budget all sharded processes share (issue 22), on a real PostgreSQL: two
processes taking as fast as they can stay within burst + rate in every second together, and
under load a prompt's request goes before the others."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from bot.budget import RequestBudget, counts, most_in_any_second
from bot.shards import Shards
from bot.store.leases import ShardLeases
from tests import postgres
from tests.bot.test_leases import counting_statements

RATE, BURST = 40.0, 4.0


@pytest.fixture
async def budgets() -> AsyncIterator[tuple[RequestBudget, RequestBudget]]:
    url = postgres.new_database(schema=False)
    leases = ShardLeases(url, "test")  # the first sharded process makes the shared tables
    await leases.claim(Shards((0,), 1))
    pair = (RequestBudget(url, rate=RATE, burst=BURST), RequestBudget(url, rate=RATE, burst=BURST))
    for budget in pair:
        await budget.start()
    yield pair
    for budget in pair:
        await budget.close()
    await leases.release()
    postgres.drop_database(url)


async def test_two_processes_together_stay_within_the_budget(
    budgets: tuple[RequestBudget, RequestBudget],
) -> None:
    granted: list[float] = []

    async def taker(budget: RequestBudget, prompt: bool) -> None:
        for _ in range(20):
            await budget.take(prompt)
            granted.append(time.monotonic())

    first, second = budgets
    await asyncio.gather(*(taker(b, p) for b in (first, second) for p in (False, True)))
    assert len(granted) == 80
    assert most_in_any_second(granted) <= BURST + RATE
    assert max(granted) - min(granted) >= (80 - BURST) / RATE - 0.1  # refilled at the rate


async def test_prompts_go_first_under_load(budgets: tuple[RequestBudget, RequestBudget]) -> None:
    first, second = budgets
    stop = asyncio.Event()

    async def flood() -> None:
        while not stop.is_set():
            await first.take(prompt=False)

    flooding = [asyncio.create_task(flood()) for _ in range(6)]
    await asyncio.sleep(0.3)  # the bucket is empty: every take waits for the refill
    waits = []
    for _ in range(8):
        started = time.monotonic()
        await second.take(prompt=True)
        waits.append(time.monotonic() - started)
    stop.set()
    await asyncio.gather(*flooding)
    # six others wait for three tokens each; a prompt needs one, so it is never behind them
    assert max(waits) < 3 / RATE + 0.05, waits


def test_interaction_answers_do_not_count() -> None:
    assert counts("/channels/1/messages")
    assert not counts("/interactions/1/token/callback")
    assert not counts("/webhooks/1/token/messages/@original")


async def test_waiting_takers_read_the_bucket_one_at_a_time(
    budgets: tuple[RequestBudget, RequestBudget],
) -> None:
    """Twenty deliveries of one process wait for the refill: one of them reads the bucket at a
    time (a prompt's: a few), so the statements stay about two a token, not each waiter's
    every few ms (440 before)."""
    first, _ = budgets
    for _ in range(int(BURST)):
        await first.take(prompt=True)  # the bucket is empty
    with counting_statements() as sent:
        await asyncio.gather(*(first.take(prompt=False) for _ in range(20)))
    assert sent[0] <= 4 * 20, sent

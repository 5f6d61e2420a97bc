"""The pace of Discord requests (``bot.pacing``): never past the rate after the burst, waiting
prompts before the other requests, a cancelled wait giving its turn away; interaction answers
are not counted."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from bot.budget import counts
from bot.pacing import LocalBudget
from tests import virtual_time


def test_the_budget_keeps_its_rate_and_serves_waiting_prompts_first() -> None:
    async def run() -> tuple[list[tuple[str, float]], LocalBudget]:
        loop = asyncio.get_running_loop()
        budget = LocalBudget(rate=10.0, burst=2.0)
        taken: list[tuple[str, float]] = []

        async def take(name: str, prompt: bool) -> None:
            await budget.take(prompt)
            taken.append((name, loop.time()))

        others = [asyncio.create_task(take(f"post{n}", False)) for n in range(6)]
        await asyncio.sleep(0)
        prompts = [asyncio.create_task(take(f"prompt{n}", True)) for n in range(3)]
        await asyncio.sleep(0)
        others[5].cancel()  # a send given up: its place goes to the next
        await asyncio.gather(*others, *prompts, return_exceptions=True)
        return taken, budget

    taken, budget = virtual_time.run(run())
    names = [name for name, _ in taken]
    assert names == ["post0", "post1", "prompt0", "prompt1", "prompt2", "post2", "post3", "post4"]
    times = [at for _, at in taken]
    assert times[:2] == [0.0, 0.0]  # the burst
    for earlier, later in itertools.pairwise(times[1:]):
        assert later - earlier == pytest.approx(0.1, abs=1e-6)  # then the rate
    assert budget.waited == 7  # the cancelled one waited too


def test_interaction_answers_do_not_count() -> None:
    assert counts("/channels/1/messages") and counts("/users/@me/channels")
    assert not counts("/interactions/1/abc/callback") and not counts("/webhooks/1/abc")

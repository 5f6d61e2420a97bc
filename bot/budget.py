"""One Discord request budget for every sharded process of a bot (a token bucket in PostgreSQL).

Discord allows a bot token about 50 requests a second in all (its global limit), however many
processes share the token. Each sharded process takes one token from the bucket row in
``floral_budget`` before each request it makes to Discord, so together they stay within it.
The bucket holds at most ``burst`` tokens and refills at ``rate`` a second: in any second at
most ``burst + rate`` requests go out (40 + 5 = 45 by default: Discord's 50, less a margin for
the moments between taking a token and the request reaching Discord). Interaction answers (callbacks
and the webhook) do not count, as Discord does not count them.

Prompts first: a request that delivers a window's prompt (its seat's clock is running) may take
the last tokens; any other leaves ``reserve`` of them, so under load the prompts go out first,
whichever process sends them.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import Any

from bot.store.common import BUDGET_TABLE

log = logging.getLogger(__name__)

RATE, BURST, RESERVE = 40.0, 5.0, 2.0
MAX_WAIT_S = 1.0  # one wait's longest sleep (the bucket is read again after it)
PROMPT_READERS = 4  # a process's prompt takers reading the bucket at once (others: one)

# set while a prompt is being sent (``bot.client``): its requests may take the reserve
PROMPT: contextvars.ContextVar[bool] = contextvars.ContextVar("floral_prompt", default=False)

_FILL = f"INSERT INTO {BUDGET_TABLE} VALUES (1, $1, clock_timestamp()) ON CONFLICT DO NOTHING"
# the tokens there are now: what was left plus the refill since, at most the burst
_NOW = (
    "LEAST($1::float8, tokens"
    " + $2::float8 * GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - at)))"
)
# one statement, so a concurrent taker's update is seen (PostgreSQL re-checks the row, and
# reads the clock once it has it)
_TAKE = f"""
UPDATE {BUDGET_TABLE} SET tokens = {_NOW} - 1, at = GREATEST(at, clock_timestamp())
WHERE id = 1 AND {_NOW} >= $3::float8 RETURNING tokens"""
_LEFT = f"SELECT {_NOW} FROM {BUDGET_TABLE} WHERE id = 1"


class RequestBudget:
    """Takes tokens from the shared bucket; ``take`` waits until one is there."""

    def __init__(
        self,
        url: str,
        *,
        rate: float = RATE,
        burst: float = BURST,
        reserve: float = RESERVE,
    ) -> None:
        self.url = url
        self.rate, self.burst, self.reserve = rate, burst, reserve
        self._pool: Any = None
        # a few takers of each kind read the bucket at a time, the others wait their turn here:
        # a hundred waiting deliveries each polling the bucket as it refills would be thousands
        # of statements a second, CPU the answers' acknowledgements wait behind. Prompts keep
        # several readers, so a token refilled goes to a prompt before the others reach theirs
        self._turns = {True: asyncio.Semaphore(PROMPT_READERS), False: asyncio.Semaphore(1)}
        self._prompts_waiting = 0
        self.taken = 0
        self.waited = 0  # takes that had to wait

    async def start(self) -> None:
        from bot.store.postgres import new_pool

        self._pool = await new_pool(self.url, max_size=8)
        await self._pool.execute(_FILL, self.burst)

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    async def take(self, prompt: bool = False) -> None:
        """One request's token; a prompt's may be the last ones, another's leaves the
        reserve."""
        need = 1.0 if prompt else 1.0 + self.reserve
        waited = False
        self._prompts_waiting += prompt
        try:
            async with self._turns[prompt]:  # a prompt's turn never waits behind another's
                while not prompt and self._prompts_waiting:  # this process's prompts first
                    waited = True
                    await asyncio.sleep(1 / self.rate)
                waited |= await self._take(need)
        finally:
            self._prompts_waiting -= prompt
        self.taken += 1
        self.waited += waited

    async def _take(self, need: float) -> bool:
        """A token once ``need`` of them are there; whether it waited for them."""
        waited = False
        while True:
            async with self._pool.acquire() as connection:
                if await connection.fetchval(_TAKE, self.burst, self.rate, need) is not None:
                    return waited
                left = float(await connection.fetchval(_LEFT, self.burst, self.rate))
            waited = True
            await asyncio.sleep(min(MAX_WAIT_S, max(0.001, (need - left) / self.rate)))


def counts(path: str) -> bool:
    """Whether a request to this route counts against the global limit (interaction answers
    do not)."""
    return not path.startswith(("/interactions/", "/webhooks/"))


def most_in_any_second(times: list[float]) -> int:
    """The most of these request times within any one second: what Discord's global limit
    holds to ``RATE + BURST`` here (for the benches and tests that check it)."""
    times, most, start = sorted(times), 0, 0
    for end, at in enumerate(times):
        while times[start] <= at - 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most

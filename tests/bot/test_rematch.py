"""Rematches (``cogs/rematch.py``): every game's stored config sets the same match up again,
with the same players, settings and timers and a new seed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from bot.client import FloralBot
from cogs.rematch import rematch
from games import registry
from tests.bot.conftest import CHANNEL, GUILD, HostEnv


@pytest.mark.parametrize("game", registry.names())
async def test_a_rematch_sets_up_the_same_match_with_a_new_seed(env: HostEnv, game: str) -> None:
    info = registry.get(game)
    seats = info.game.min_seats
    timers = {kind: 7.0 for kind in info.timers}
    old = await env.host.create_match(
        game,
        guild_id=GUILD,
        channel_id=CHANNEL,
        players=list(range(101, 101 + seats)),
        names=[f"P{n}" for n in range(1, seats + 1)],
        moderators=[900],
        timers=timers,
    )
    bot = cast(FloralBot, SimpleNamespace(host=env.host))
    new = await rematch(bot, old, by=101)
    assert new.id != old.id and new.seed != old.seed and new.status == "setup"
    assert (new.game, new.players, new.names) == (old.game, old.players, old.names)
    assert new.config == old.config  # the parsed config reads as itself
    assert (new.window_s, new.timers) == (old.window_s, old.timers)
    assert new.moderators == (900, 101)


async def test_a_rematch_of_a_chosen_deal_deals_anew(env: HostEnv) -> None:
    """A game's ``seed`` option (a deal chosen for a test or a replay) is not copied."""
    old = await env.host.create_match(
        "potioncraft",
        guild_id=GUILD,
        channel_id=CHANNEL,
        players=[101, 102],
        names=["A", "B"],
        moderators=[900],
        config={"seed": 64, "max_turns": 12},
    )
    assert old.config["seed"] == 64
    new = await rematch(cast(FloralBot, SimpleNamespace(host=env.host)), old, by=101)
    assert "seed" not in new.config or new.config["seed"] != 64
    assert new.config["max_turns"] == 12

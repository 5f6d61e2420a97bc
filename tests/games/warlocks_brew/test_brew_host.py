"""Warlock's Brew's own windows through the real host, store and scheduler on a frozen clock:
the Deal Window (§A7: one deadline of ``deal_window`` seconds for every player at their own
pace, each answer resolved alone, a prompt sent only to whom it changed for) and the Cursed
choice (§G2 E4: a short window of its own, its default at the deadline); the audit and the
export replay both."""

from __future__ import annotations

from typing import Any

from bot.audit import audit_store, check_export
from bot.games import load_game_info
from games.warlocks_brew import GAME
from games.warlocks_brew.effects import CURSED
from games.warlocks_brew.engine import setup_deck
from tests.bot.conftest import CHANNEL, GUILD, MODERATOR, HostEnv, manual_env  # noqa: F401

SEATS = (101, 102, 103)
BID_S = 45.0


async def brew_match(env: HostEnv, config: dict[str, Any], seed: int = 7) -> int:
    record = await env.host.create_match(
        "warlocks-brew",
        guild_id=GUILD,
        channel_id=CHANNEL,
        players=SEATS,
        moderators=(MODERATOR,),
        config=config,
        seed=seed,
        window_s=BID_S,
    )
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    return record.id


def prompts_to(env: HostEnv, seat: int) -> list[dict[str, Any]]:
    return [
        d.payload["request"] for d in env.transport.to(f"seat{seat}") if d.payload.get("request")
    ]


async def submit(env: HostEnv, match_id: int, seat: int, raw: str) -> None:
    result = await env.host.submit(match_id, SEATS[seat], raw)
    assert result.accepted, result.text
    await env.host.wait_idle()


async def deadline_of(env: HostEnv, match_id: int) -> float:
    window = env.host._matches.live[match_id].window
    assert window is not None
    return window.deadline


async def assert_audited(env: HostEnv, match_id: int) -> None:
    assert (await audit_store(env.host.store))[1] == []
    store = env.host.store
    record = await store.get_match(match_id)
    assert record is not None
    steps, attempts = await store.steps(match_id), await store.attempts(match_id)
    assert check_export(load_game_info("warlocks-brew"), record, steps, attempts) == []


async def test_a7_the_deal_window_through_the_host(manual_env: HostEnv) -> None:  # noqa: F811
    env = manual_env
    match_id = await brew_match(env, {"deal_window": 30})
    for seat, coin in enumerate(("5", "1", "2")):
        await submit(env, match_id, seat, coin)
    opened = env.clock()
    assert await deadline_of(env, match_id) == opened + 30  # the option's length, not the bid's
    before = [len(prompts_to(env, seat)) for seat in range(3)]
    await env.advance(5)
    await submit(env, match_id, 0, "offer P2 give coin 1 for coin 2")
    assert await deadline_of(env, match_id) == opened + 30  # one deadline for the window
    after = [len(prompts_to(env, seat)) for seat in range(3)]
    assert after == [before[0] + 1, before[1] + 1, before[2]]  # P3's prompt still stands
    assert "Offer 1 from P1" in prompts_to(env, 1)[-1]["prompt"]
    await submit(env, match_id, 1, "accept 1")
    for seat in range(3):
        await submit(env, match_id, seat, "ready")
    posts = "\n".join(d.text for d in env.transport.to("public"))
    assert "Deal (offer 1): P1 gives P2 coin 1; P2 gives P1 coin 2." in posts
    assert "The deal window is closed: 1 deal made." in posts
    assert prompts_to(env, 0)[-1]["kind"] == "bid"
    for seat, coin in enumerate(("2", "4", "3")):
        await submit(env, match_id, seat, coin)
    await env.advance(30)  # nobody deals: the deadline closes the window
    steps = await env.host.store.steps(match_id)
    assert steps[-1].moves == {0: None, 1: None, 2: None}
    assert prompts_to(env, 0)[-1]["kind"] == "bid"
    await assert_audited(env, match_id)


def cursed_seed() -> int:
    """A seed whose second card is the Cursed one (all six effects on)."""
    config = GAME.parse_config({"magic_infused": 6}, 3)
    return next(seed for seed in range(500) if setup_deck(config, seed)[3][1] == CURSED)


async def test_g2_e4_the_cursed_choice_is_a_short_window_and_times_out_to_its_default(
    manual_env: HostEnv,  # noqa: F811
) -> None:
    env = manual_env
    match_id = await brew_match(env, {"magic_infused": 6}, seed=cursed_seed())
    for seat, coin in enumerate(("5", "1", "2")):
        await submit(env, match_id, seat, coin)  # P1 wins the first card
    for seat, coin in enumerate(("4", "1", "2")):
        await submit(env, match_id, seat, coin)  # and the Cursed one
    asked = prompts_to(env, 0)[-1]
    assert asked["kind"] == "curse" and "send one other ingredient" in asked["prompt"]
    assert [len(prompts_to(env, seat)) for seat in (1, 2)] == [2, 2]  # nobody else is asked
    assert await deadline_of(env, match_id) == env.clock() + 20
    await env.advance(20)
    posts = "\n".join(d.text for d in env.transport.to("public"))
    assert "back to the bottom of the deck (the window closed: the default)." in posts
    assert prompts_to(env, 0)[-1]["kind"] == "bid"
    await assert_audited(env, match_id)

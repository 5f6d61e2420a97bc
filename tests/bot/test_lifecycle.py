"""A match from setup to its end through the host, and the messages each step produces."""

from __future__ import annotations

import pytest

from bot.host import HostError
from games.protocol import ConfigError
from tests.bot.conftest import MODERATOR, PLAYERS, HostEnv


async def play_round(env: HostEnv, match_id: int, guesses: tuple[str, ...] = ("5", "5")) -> None:
    for user, guess in zip(PLAYERS, guesses, strict=True):
        result = await env.host.submit(match_id, user, guess)
        assert result.accepted, result.text
    await env.host.wait_idle()


async def test_setup_reveal_start_play_finish(env: HostEnv) -> None:
    record = await env.new_match(start=False, config={"rounds": 2})
    assert record.status == "setup"
    assert (await env.host.reveal(record.id, by=MODERATOR)).status == "revealed"
    assert (await env.host.start_match(record.id, by=MODERATOR)).status == "running"

    await play_round(env, record.id, ("4", "6"))
    assert (await env.host.status(record.id)).match.step == 1
    await play_round(env, record.id)

    status = await env.host.status(record.id)
    assert status.match.status == "finished"
    assert status.window is None
    assert status.match.outcome["reason"] == "all rounds played"
    steps = await env.host.store.steps(record.id)
    assert [step.kind for step in steps] == ["start", "resolve", "resolve"]
    assert steps[1].moves == {0: 4, 1: 6}
    kinds = [entry.kind for entry in await env.host.store.match_log(record.id)]
    assert kinds == ["created", "revealed", "started"]
    await env.host.wait_over(record.id)  # returns at once for a finished match


async def test_each_step_sends_one_message_per_audience_with_the_next_prompt(
    env: HostEnv,
) -> None:
    record = await env.new_match(config={"rounds": 2})
    await env.host.wait_idle()
    before = len(env.transport.sent)
    await play_round(env, record.id)

    turn = env.transport.sent[before:]
    assert sorted(str(d.audience) for d in turn) == ["moderators", "public", "seat0", "seat1"]
    for delivery in turn:
        assert delivery.payload["step"] == 1
        if delivery.audience.kind == "seat":
            assert delivery.user_id == PLAYERS[delivery.audience.seat or 0]
            # the round's result and the next prompt share one message
            assert "You played 5." in delivery.text
            assert "Round 2: guess the hidden number." in delivery.text
            request = delivery.payload["request"]
            assert (request["step"], request["seat"]) == (2, delivery.audience.seat)
            assert [c["value"] for c in request["choices"]] == [str(n) for n in range(10)]
    assert all(e["audience"] == "public" for e in env.transport.to("public")[-1].payload["events"])


async def test_setup_messages_hello_reveal_and_start(env: HostEnv) -> None:
    record = await env.new_match(start=False)
    await env.host.wait_idle()
    assert [str(d.audience) for d in env.transport.sent] == ["seat0", "seat1"]
    assert "👋" in env.transport.sent[0].text

    await env.host.reveal(record.id)
    await env.host.wait_idle()
    assert "3 rounds" in env.transport.to("public")[-1].text

    await env.host.start_match(record.id)
    await env.host.wait_idle()
    start_post = env.transport.to("public")[-1].text
    assert "It starts now" in start_post and "3 rounds" not in start_post  # revealed already
    seat_text = env.transport.to("seat0")[-1].text
    assert "Your secret number is" in seat_text and "Round 1" in seat_text
    assert "Secrets:" in env.transport.to("moderators")[-1].text


async def test_lifecycle_refuses_out_of_order_operations(env: HostEnv) -> None:
    record = await env.new_match(start=False)
    with pytest.raises(HostError, match="not running"):
        await env.host.pause(record.id)
    await env.host.start_match(record.id)
    with pytest.raises(HostError, match="already started"):
        await env.host.start_match(record.id)
    with pytest.raises(HostError, match="already revealed or started"):
        await env.host.reveal(record.id)
    with pytest.raises(HostError, match="not paused"):
        await env.host.resume(record.id)
    with pytest.raises(HostError, match="does not exist"):
        await env.host.pause(12345)


async def test_bad_setup_is_refused_with_the_field(env: HostEnv) -> None:
    with pytest.raises(ConfigError) as error:
        await env.new_match(config={"rounds": 0})
    assert error.value.field == "rounds"
    with pytest.raises(HostError, match="2 to 4 players"):
        await env.new_match(players=(1,))
    with pytest.raises(HostError, match="two seats"):
        await env.new_match(players=(1, 1))
    assert await env.host.list_matches() == []


async def test_configure_before_reveal_replaces_config(env: HostEnv) -> None:
    record = await env.new_match(start=False)
    updated = await env.host.configure(record.id, {"rounds": 1})
    assert updated.config["rounds"] == 1
    stored = await env.host.store.get_match(record.id)
    assert stored is not None and stored.config["rounds"] == 1
    await env.host.start_match(record.id)
    await play_round(env, record.id)
    assert (await env.host.status(record.id)).match.status == "finished"
    with pytest.raises(HostError):
        await env.host.configure(record.id, {"rounds": 2})


async def test_many_matches_run_at_once_and_list(env: HostEnv) -> None:
    records = [await env.new_match(config={"rounds": 1}, seed=n) for n in range(5)]
    for record in records:
        for user in PLAYERS:
            assert (await env.host.submit(record.id, user, "3")).accepted
    await env.host.wait_idle()
    listed = await env.host.list_matches(guild_id=1)
    assert [m.id for m in listed] == [r.id for r in records]
    assert {m.status for m in listed} == {"finished"}
    assert await env.host.list_matches(active_only=True) == []


async def test_turn_based_game_asks_one_seat_at_a_time(env: HostEnv) -> None:
    record = await env.new_match(config={"rounds": 2, "turn_based": True})
    assert env.host.prompts_for(PLAYERS[1]) == []
    [prompt] = env.host.prompts_for(PLAYERS[0])
    assert (prompt.match_id, prompt.step, prompt.answered) == (record.id, 1, False)
    assert (await env.host.submit(record.id, PLAYERS[0], "1")).accepted
    await env.host.wait_idle()
    assert [p.step for p in env.host.prompts_for(PLAYERS[1])] == [2]
    assert (await env.host.submit(record.id, PLAYERS[1], "1")).accepted
    await env.host.wait_idle()
    assert (await env.host.status(record.id)).match.status == "finished"


async def test_views_hold_only_own_secrets(env: HostEnv) -> None:
    record = await env.new_match()
    public = (await env.host.status(record.id)).public_view
    assert "secret" not in public
    mine = await env.host.view(record.id, PLAYERS[0])
    assert "secret" in mine
    with pytest.raises(HostError):
        await env.host.view(record.id, 555)


async def test_status_and_describe_use_the_games_own_words(env: HostEnv) -> None:
    record = await env.new_match()
    status = await env.host.status(record.id)
    assert status.public_text.startswith("Round ") and "secret" not in status.public_text
    assert "Your secret:" in await env.host.describe(record.id, PLAYERS[0])
    with pytest.raises(HostError):
        await env.host.describe(record.id, MODERATOR)

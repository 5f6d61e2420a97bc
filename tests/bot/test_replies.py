"""An answer's reply carries what its seat is sent next (``Host.submit(reply=True)``,
``Host.reply_messages``): its next prompt, when the answer resolved a window that asks it again
at once, goes in the reply (free on Discord for a button) instead of a DM of its own. Nothing
is lost when the reply is not sent: the DM goes, as it would have."""

from __future__ import annotations

import asyncio

from bot.host import REPLY_SEND_S, REPLY_WAIT_S
from tests.bot.conftest import PLAYERS, HostEnv

EACH = {"close": "each", "actions": 3, "rounds": 1}  # each seat: three guesses at its own pace


def prompts_to(env: HostEnv, audience: str) -> list[int]:
    return [
        d.payload["request"]["step"] for d in env.transport.to(audience) if "request" in d.payload
    ]


async def test_an_answers_reply_carries_its_seats_next_prompt_and_no_dm_is_sent(
    env: HostEnv,
) -> None:
    record = await env.new_match(config=EACH, window_s=3600)
    await env.host.wait_idle()
    first = prompts_to(env, "seat0")
    result = await env.host.submit(record.id, PLAYERS[0], "3", reply=True)
    handover = await env.host.reply_messages(result)
    assert handover is not None
    (delivery,) = handover.deliveries
    assert delivery.text.startswith("Action 1 of 3 done.") and "request" in delivery.payload
    await handover.done(True)
    await env.host.wait_idle()
    assert prompts_to(env, "seat0") == first  # no DM: the reply carried it
    rows = await env.host.store.outbox(record.id)
    assert rows[-1].id == delivery.message_id and rows[-1].status == "sent"
    assert not env.host._matches.undelivered  # the seat's clock runs: its prompt arrived
    # the other seat, which did not answer, still holds its first prompt; nothing was sent
    assert len(prompts_to(env, "seat1")) == 1


async def test_a_reply_that_could_not_be_sent_leaves_its_messages_to_the_dms(
    env: HostEnv,
) -> None:
    record = await env.new_match(config=EACH, window_s=3600)
    await env.host.wait_idle()
    result = await env.host.submit(record.id, PLAYERS[0], "3", reply=True)
    handover = await env.host.reply_messages(result)
    assert handover is not None
    await handover.done(False)
    await env.host.wait_idle()
    assert len(prompts_to(env, "seat0")) == 2  # the DM went after all


async def test_a_seats_messages_wait_for_the_reply_only_so_long(env: HostEnv) -> None:
    record = await env.new_match(config=EACH, window_s=3600)
    await env.host.wait_idle()
    assert (await env.host.submit(record.id, PLAYERS[0], "3", reply=True)).accepted
    await env.host._windows.settled(record.id, 1, 5.0)  # its resolution is committed
    assert len(prompts_to(env, "seat0")) == 1  # held for the reply that never asks
    env.clock.advance(REPLY_WAIT_S + REPLY_SEND_S)
    env.host.worker.wake()
    await env.host.wait_idle()
    assert len(prompts_to(env, "seat0")) == 2


async def test_the_last_answer_of_a_round_carries_the_next_round_others_get_dms(
    env: HostEnv,
) -> None:
    record = await env.new_match(config={"rounds": 3}, window_s=3600)
    await env.host.wait_idle()
    early = await env.host.submit(record.id, PLAYERS[0], "3", reply=True)
    assert await env.host.reply_messages(early) is None  # its round goes on: nothing yet
    last = await env.host.submit(record.id, PLAYERS[1], "5", reply=True)
    handover = await env.host.reply_messages(last)
    assert handover is not None and handover.deliveries[0].payload["request"]["step"] == 2
    await handover.done(True)
    await env.host.wait_idle()
    assert prompts_to(env, "seat0") == [1, 2] and prompts_to(env, "seat1") == [1]


async def test_a_reply_sent_late_does_not_hold_back_its_seats_next_message(
    env: HostEnv,
) -> None:
    """A reply still on its way holds its seat's queue head; a message committed for the seat
    meanwhile goes once the reply is delivered (nothing else may wake the outbox: a freeze)."""
    record = await env.new_match(config=EACH, window_s=3600)
    await env.host.wait_idle()
    result = await env.host.submit(record.id, PLAYERS[0], "3", reply=True)
    handover = await env.host.reply_messages(result)
    assert handover is not None  # the reply is slow: its prompt (action 1 done) is out
    assert (await env.host.submit(record.id, PLAYERS[0], "5")).accepted
    await env.host._windows.settled(record.id, 2, 5.0)  # the next prompt is committed
    await env.host.wait_idle()  # the outbox read the queue: its head was with the reply
    assert len(prompts_to(env, "seat0")) == 1
    await handover.done(True)
    await asyncio.wait_for(env.host.wait_idle(), 5.0)
    assert len(prompts_to(env, "seat0")) == 2  # action 2's prompt: a DM

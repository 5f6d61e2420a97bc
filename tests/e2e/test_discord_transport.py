"""The Discord transport against the fake: long outbox texts are split in order, every part
fits, the prompt's buttons ride on the last part, and a resend posts nothing twice; a user's DM
channel is opened once ever."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.database import open_store
from bot.discord_transport import ChannelTurns, DiscordTransport, fit, prompt_on_discord, split_text
from bot.dm_channels import DmChannels
from bot.outbox import late_delivery, prompt_text
from bot.transport import Delivery, request_to_json
from cogs.prompts import prompt_view
from games.protocol import Audience, Choice, Request

from .fake_discord import FakeDiscord, World, point_discord_py_at
from .fake_discord.buckets import CREATE_MESSAGE


@pytest.fixture
async def client(fake: FakeDiscord) -> AsyncIterator[discord.Client]:
    """A logged-in client (REST only: sending needs no gateway)."""
    with point_discord_py_at(fake):
        bot = discord.Client(intents=discord.Intents.none())
        await bot.login(fake.token)
        try:
            yield bot
        finally:
            await bot.close()


def long_turn(lines: int) -> str:
    return "\n".join(
        f"Turn {n}: P1 cast A (3), P2 cast S (5); nothing blooms." for n in range(lines)
    )


def cast_request() -> Request:
    runes = tuple(Choice(s, f"{s} {i}", "rune") for i, s in enumerate("ABCDEFGH"))
    return Request(0, "cast", "Cast a rune.", runes, "A", 60.0)


def prompt(world: World, text: str, message_id: int = 7) -> Delivery:
    payload = {"request": request_to_json(cast_request(), match_id=3, step=5, deadline=1.9e9)}
    return Delivery(
        message_id, 3, world.guild.id, world.channel.id, Audience("seat", 0), world.alice.id, (),
        text, payload,
    )  # fmt: skip


async def test_a_long_prompt_is_split_in_order_with_its_buttons_last(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    transport = DiscordTransport(client, prompt_view, lambda delivery: None)
    delivery = prompt(world, long_turn(120))
    await transport.send(delivery)
    parts = fake.dms_to(world.alice)
    assert len(parts) == 4 and all(len(p.content) <= 2000 for p in parts)
    shown = prompt_on_discord(delivery.text, delivery.payload["request"])  # type: ignore[arg-type]
    assert "\n".join(p.content for p in parts) == shown
    assert shown.startswith(delivery.text) and shown.endswith("If you don't: A")
    assert [bool(p.components) for p in parts] == [False, False, False, True]
    await transport.send(delivery)  # a retry after a crash: Discord drops it by the nonces
    assert len(fake.dms_to(world.alice)) == 4 and fake.nonce_hits == 4


async def test_a_prompt_says_its_deadline_once_as_a_countdown_and_leaves_choices_to_buttons(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    transport = DiscordTransport(client, prompt_view, lambda delivery: None)
    text = "You played 4.\n" + prompt_text(cast_request(), deadline=1.9e9, now=1.9e9 - 60)
    assert "Choices: A (A 0)" in text and "Answer within 60 s" in text  # the console's form
    await transport.send(prompt(world, text))
    (sent,) = fake.dms_to(world.alice)
    assert sent.content == (
        "You played 4.\nCast a rune.\n⏳ Answer <t:1900000000:R>. If you don't: A"
    )
    assert not sent.embeds and len(sent.custom_ids()) == 9  # the choices and Help are buttons
    late = late_delivery(prompt(world, text, message_id=8), 12.0, 12.0, now=1.9e9 - 48)
    await transport.send(late)
    shown = fake.dms_to(world.alice)[-1].content
    assert re.findall(r"<t:\d+:R>", shown) == ["<t:1900000012:R>"] and shown.count("⏳") == 1
    assert shown.endswith(
        "⏳ This prompt reached you 12 s late, so your deadline moved by 12 s:"
        " answer <t:1900000012:R>. If you don't: A"
    )


async def test_without_a_help_button_a_prompt_says_how_to_ask_for_help(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    transport = DiscordTransport(client, lambda request: None, lambda delivery: None)
    await transport.send(prompt(world, prompt_text(cast_request(), 1.9e9, 1.9e9 - 60)))
    (sent,) = fake.dms_to(world.alice)
    assert sent.content.splitlines()[-2:] == [
        "❔ Type `help` for what this decision's choices do.",
        "⏳ Answer <t:1900000000:R>. If you don't: A",
    ]


async def test_a_long_public_post_and_blank_lines_are_sent_as_discord_accepts(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    transport = DiscordTransport(client, prompt_view, lambda delivery: None)
    text = "   \n" + "x" * 4100 + "\n \n"  # a blank part before the long line, once
    public = Delivery(
        9, 3, world.guild.id, world.channel.id, Audience("public"), None, (), text, {}
    )
    await transport.send(public)
    posted = [m.content for m in fake.messages_in(world.channel)]
    assert posted == split_text(text) and [len(p) for p in posted] == [2000, 2000, 100]


async def test_posts_to_one_channel_go_one_at_a_time_and_none_is_refused_past_its_limit(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    """Matches posting to one channel, each post sent while the last is on its way (a slow
    Discord): discord.py alone sends one past the channel's 5 per window and takes a 429."""
    fake.channel_posts = (5, 2.0)  # Discord's count in a shorter window: a faster test
    fake.slow(CREATE_MESSAGE, 0.2)
    transport = DiscordTransport(client, prompt_view, lambda delivery: None)
    sends = []
    for n in range(8):
        post = Delivery(
            20 + n, n, world.guild.id, world.channel.id, Audience("public"), None, (), f"m{n}", {}
        )
        sends.append(asyncio.create_task(transport.send(post)))
        await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*sends), 10)
    assert fake.channel_limited == {}
    assert [m.content for m in fake.messages_in(world.channel)] == [f"m{n}" for n in range(8)]
    posts = fake.requests_matching(CREATE_MESSAGE, channel_id=world.channel)
    assert [r.status for r in posts] == [200] * 8
    assert posts[5].time - posts[0].time >= 2.0  # the sixth waited for the window


def test_a_channels_turn_is_forgotten_once_nobody_waits_for_it() -> None:
    turns = ChannelTurns()

    async def post_twice() -> None:
        async with turns.turn(1):
            assert len(turns) == 1
        await asyncio.gather(*(hold(turns, 2) for _ in range(3)))

    asyncio.run(post_twice())
    assert len(turns) == 0


async def hold(turns: ChannelTurns, channel_id: int) -> None:
    async with turns.turn(channel_id):
        await asyncio.sleep(0.001)


def test_fit_cuts_to_the_limit_and_says_how_much() -> None:
    assert fit("short") == "short" and fit("x" * 2000) == "x" * 2000
    for size in (2001, 5000, 1_000_000):
        cut = fit("x" * size)
        assert len(cut) <= 2000 and cut.startswith("x" * 1900)
        kept = cut.index("…")
        assert cut.endswith(f"… ({size - kept} more characters cut)")
    assert fit("abcdef", 3) == "abc"


async def test_a_users_dm_channel_is_opened_once_ever_past_discord_pys_cache_and_a_restart(
    fake: FakeDiscord, world: World, client: discord.Client, tmp_path: Path
) -> None:
    store = await open_store(tmp_path / "h.db")
    try:
        for message_id in (10, 11, 12):  # each after a restart, or past discord.py's 128
            client._connection._private_channels.clear()
            client._connection._private_channels_by_user.clear()
            channels = DmChannels(client, lambda: store)
            transport = DiscordTransport(client, prompt_view, lambda d: None, dm_channels=channels)
            await transport.send(prompt(world, f"prompt {message_id}", message_id))
        assert len(fake.requests_matching("POST /users/@me/channels")) == 1
        assert [m.content.split("\n")[0] for m in fake.dms_to(world.alice)] == [
            "prompt 10",
            "prompt 11",
            "prompt 12",
        ]
        alice_dm = await store.dm_channel(world.alice.id)
        assert alice_dm == fake.dms_to(world.alice)[0].channel_id
        # a stored channel Discord no longer knows (404, Unknown Channel) is opened again
        await store.set_dm_channel(world.alice.id, 4242)
        channels = DmChannels(client, lambda: store)
        transport = DiscordTransport(client, prompt_view, lambda d: None, dm_channels=channels)
        await transport.send(prompt(world, "found again", 14))
        assert fake.dms_to(world.alice)[-1].content.startswith("found again")
        assert await store.dm_channel(world.alice.id) == alice_dm
    finally:
        await store.close()

"""End to end: pictures reach Discord as attachments, through the real bot process and the fake
Discord (which checks them as Discord does: at most 10 files, a description of at most 1,024
characters, the size limit).

* the end post of a match carries the end card, described, and the text it illustrates stays;
* a Floral Extract player's turn DM carries their garden, described from their own view.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator
from typing import cast

import discord
import pytest
from PIL import Image

from bot.discord_transport import DiscordTransport, StoredPictures
from bot.store import Store
from bot.transport import Delivery, request_to_json
from cogs.prompts import prompt_view
from games.protocol import Audience, Choice, Request
from pictures import Picture

from .botproc import BotProcess
from .fake_discord import Attachment, FakeDiscord, Message, World, point_discord_py_at
from .test_floral_host import (
    LaunchBot,
    click_value,
    end_post,
    play_turns,
    prompt_after,
    reveal_and_start,
    setup_match,
    start_bot,
    step_of,
    type_answer,
)


def picture(message: Message) -> Attachment:
    pngs = [a for a in message.attachments if a.filename.endswith(".png")]
    assert len(pngs) == 1, [a.filename for a in message.attachments]
    return pngs[0]


def decoded(attachment: Attachment) -> Image.Image:
    image = Image.open(io.BytesIO(attachment.data))
    image.load()
    assert image.format == "PNG"
    return image


def no_picture_warnings(bot: BotProcess) -> None:
    warned = [line.text for line in bot.lines if "picture for message" in line.text]
    assert not warned, warned


async def test_the_end_post_carries_its_card_and_each_turn_dm_the_garden(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await start_bot(launch_bot)
    match = await setup_match(fake, world, window=20)
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    bob = await prompt_after(fake, world.bob, 0)
    assert (await click_value(fake, world.alice, alice, 2)).startswith("✅ Plant Hyacinth")
    assert (await type_answer(fake, world.bob, bob, 0)).startswith("✅ Plant Azalea")
    alice = await prompt_after(fake, world.alice, step_of(alice))
    bob = await prompt_after(fake, world.bob, step_of(bob))
    # the turn DM: its text unchanged, the garden attached and described from the seat's view
    assert "You planted Hyacinth in pot 1" in alice.content
    garden = picture(alice)
    assert garden.description is not None
    assert "pot 1 Hyacinth at stage 0 of 15" in garden.description, garden.description
    assert "Azalea" not in garden.description  # Bob's flower is Bob's secret
    assert decoded(garden).size == (720, 376)
    bob_garden = picture(bob)
    assert bob_garden.description is not None
    assert "pot 1 Azalea" in bob_garden.description
    assert bob_garden.data != garden.data
    await play_turns(fake, world, alice, bob)
    end = await end_post(fake, world)
    # the end post: the text stays, the card comes with it
    assert "Game over" in end.content
    card = picture(end)
    assert card.filename == f"match-{match}-end.png"
    description = card.description or ""
    assert description.startswith(f"Floral Extract, Match {match}: "), description
    assert "wins" in description and "Chart of points over 3 turns" in description
    assert "Alice's rune map" in description and "Bob's rune map" in description
    assert len(description) <= 1024
    image = decoded(card)
    assert image.width == 800 and image.height > 400
    # the moderators' log gets no pictures: it already has the full state in words
    assert all(not m.attachments for m in fake.messages_in(world.mod_log))
    no_picture_warnings(bot)


# --- the transport and the fake's checks ------------------------------------------------------


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


def tiny_png(colour: tuple[int, int, int] = (200, 40, 90)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, "PNG")
    return out.getvalue()


def prompt(world: World, text: str, message_id: int = 7) -> Delivery:
    runes = tuple(Choice(s, f"{s} {i}", "rune") for i, s in enumerate("ABCDEFGH"))
    request = Request(0, "cast", "Cast a rune.", runes, "A", 60.0)
    payload = {"kind": "turn", "step": 5, "request": request_to_json(request, 3, 5, 1.9e9)}
    return Delivery(
        message_id, 3, world.guild.id, world.channel.id, Audience("seat", 0), world.alice.id, (),
        text, payload,
    )  # fmt: skip


async def test_a_picture_rides_on_the_last_part_with_the_buttons(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    calls: list[int] = []

    async def pictures(delivery: Delivery) -> Picture | None:
        calls.append(delivery.message_id)
        return Picture(tiny_png(), "A garden: pot 1 Hyacinth at stage 3 of 15.", "garden.png")

    transport = DiscordTransport(client, prompt_view, lambda delivery: None, pictures)
    text = "\n".join(f"Turn {n}: P1 cast A (3); nothing blooms." for n in range(100))
    delivery = prompt(world, text)
    await transport.send(delivery)
    parts = fake.dms_to(world.alice)
    assert len(parts) == 3 and calls == [7]
    assert [len(p.attachments) for p in parts] == [0, 0, 1]
    assert parts[-1].components and parts[-1].attachments[0].description == (
        "A garden: pot 1 Hyacinth at stage 3 of 15."
    )
    assert "\n".join(p.content for p in parts).startswith(text)  # the text stays whole


class BrokenStore:
    """A store whose reads fail: the picture is left out, the text still goes."""

    async def get_match(self, match_id: int) -> None:
        raise OSError("disk gone")


class SlowStore:
    async def get_match(self, match_id: int) -> None:
        await asyncio.sleep(5)


@pytest.mark.parametrize("store", [BrokenStore(), SlowStore()], ids=["failing", "late"])
async def test_a_failed_or_late_picture_sends_the_text_alone_with_a_warning(
    fake: FakeDiscord,
    world: World,
    client: discord.Client,
    store: object,
    caplog: pytest.LogCaptureFixture,
) -> None:
    pictures = StoredPictures(lambda: cast(Store, store), budget_s=0.2)
    transport = DiscordTransport(client, prompt_view, lambda delivery: None, pictures)
    with caplog.at_level(logging.WARNING, logger="bot.discord_transport"):
        await transport.send(prompt(world, "Turn 4: your cast."))
    [sent] = fake.dms_to(world.alice)
    assert sent.content.startswith("Turn 4: your cast.") and not sent.attachments
    assert sent.components  # the prompt still works
    assert any("sent without it" in r.getMessage() for r in caplog.records)


async def test_the_fake_refuses_attachments_as_discord_does(
    fake: FakeDiscord, world: World, client: discord.Client
) -> None:
    channel = client.get_partial_messageable(world.channel.id)
    eleven = [discord.File(io.BytesIO(tiny_png()), filename=f"p{n}.png") for n in range(11)]
    with pytest.raises(discord.HTTPException) as too_many:
        await channel.send("eleven files", files=eleven)
    assert too_many.value.status == 400 and too_many.value.code == 50035
    long = discord.File(io.BytesIO(tiny_png()), filename="p.png", description="x" * 1025)
    with pytest.raises(discord.HTTPException) as too_long:
        await channel.send("a long description", file=long)
    assert too_long.value.code == 50035
    assert len(fake.failures) == 2  # the fake reports both as bot bugs
    fake.failures.clear()
    ten = [
        discord.File(io.BytesIO(tiny_png()), filename=f"p{n}.png", description="y" * 1024)
        for n in range(10)
    ]
    message = await channel.send("ten files", files=ten)
    assert len(message.attachments) == 10
    assert {a.description for a in message.attachments} == {"y" * 1024}


async def test_a_match_a_moderator_ends_gets_its_card_in_a_game_without_a_seat_picture(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Warlock's Brew charts its scores and draws no seat picture: its DMs carry none."""
    bot = await start_bot(launch_bot)
    players = {"player1": world.alice, "player2": world.bob, "player3": world.carol}
    ix = await fake.slash(world.mod, "brew setup", {**players, "window": 30}, channel=world.channel)
    assert "Warlock's Brew" in (await ix.reply()).content
    ix = await fake.slash(world.mod, "brew start", {"match": "m1"}, channel=world.channel)
    assert "started" in (await ix.reply()).content
    prompt = await fake.wait_for_message(lambda m: "Your hand:" in m.content, to=world.alice)
    ix = await fake.slash(world.mod, "match end", {"match": "m1"}, channel=world.channel)
    assert "ended" in (await ix.reply()).content
    end = await fake.wait_for_message(
        lambda m: "ended early" in m.content, channel=world.channel, timeout=10
    )
    card = picture(end)
    assert card.filename == "match-1-end.png"
    description = card.description or ""
    assert description.startswith("Warlock's Brew, Match 1: "), description
    assert "most of one ingredient" in description.lower()
    assert decoded(card).width == 800
    assert not prompt.attachments
    assert all(not m.attachments for m in fake.dms_to(world.alice))
    no_picture_warnings(bot)

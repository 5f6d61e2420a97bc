"""End to end: a prompt with many long choices and a multi-choice answer, through the real
``floral-host run`` process and the fake Discord.

The toy game (``tests.bot.toy_game``) with ``hand`` asks each seat to pick 2 to 3 of 30 cards
whose names no button id could carry: the prompt is two menus whose options carry short keys and
whose picks add up in the prompt until Send. The match is set up and started by a host on the
bot's database before the bot runs (no slash command creates a toy match); the bot then delivers
the queued prompts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from bot.host import Host
from bot.store.sqlite import SqliteStore
from bot.transport import Delivery, TransientError
from games.protocol import JSON

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, World
from .players import type_text

LaunchBot = Callable[..., Awaitable[BotProcess]]
TOY = "tests.bot.toy_game"
CONFIG: dict[str, JSON] = {"rounds": 1, "hand": 30, "pick": [2, 3], "timeout_s": 120.0}


class Offline:
    """A transport that cannot send yet: the messages wait in the outbox for the bot."""

    async def send(self, delivery: Delivery) -> None:
        raise TransientError("the bot is not running yet")


async def start_toy_match(db: Path, world: World, config: Mapping[str, JSON] = CONFIG) -> int:
    host = Host(await SqliteStore.open(db), Offline())
    await host.start()
    try:
        record = await host.create_match(
            TOY,
            guild_id=world.guild.id,
            channel_id=world.channel.id,
            players=(world.alice.id, world.bob.id),
            moderators=(world.mod.id,),
            config=config,
            seed=3,
        )
        await host.start_match(record.id)
        return record.id
    finally:
        await host.close()


def send_of(message: Message) -> str:
    return next(c for c in message.custom_ids() if c.startswith("fx:done:"))


def keys_by_label(message: Message, menu: str) -> dict[str, str]:
    return {o["label"]: o["value"] for o in message.component(menu)["options"]}


def picked(message: Message, menu: str) -> list[str]:
    return [o["label"] for o in message.component(menu)["options"] if o.get("default")]


async def test_picks_of_long_choices_add_up_over_menus_then_send_and_an_old_click_is_refused(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    """30 cards to pick 2 to 3 of: two menus (25 and 5) whose picks add up in the prompt; a
    pick in one menu keeps the other's, through a crash of the bot; Send answers with them all."""
    db = tmp_path / "floral-host.db"
    match_id = await start_toy_match(db, world)
    bot = await launch_bot(env={"FLORAL_DB": str(db), "FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")
    prompt = await fake.wait_for_message(
        lambda m: any(c.startswith("fx:pick:") for c in m.custom_ids()), to=world.alice, timeout=20
    )
    step = prompt.custom_ids()[0].split(":")[3]
    first, second = f"fx:pick:{match_id}:{step}", f"fx:pick:{match_id}:{step}:1"
    assert prompt.custom_ids()[:2] == [first, second]
    ones = keys_by_label(prompt, first)
    assert len(ones) == 25 and ones["Card 1 (1)"] == "#1"  # a short key, not the long name
    assert len(keys_by_label(prompt, second)) == 5

    # one card is too few: Send says so (the game's refusal); the pick stays
    turn = await fake.select(world.alice, prompt, first, [ones["Card 4 (4)"]])
    assert await turn.response() == 7  # the prompt itself shows the pick
    shown = fake.messages_by_id[prompt.id]
    assert picked(shown, first) == ["Card 4 (4)"]
    one = await (await fake.click(world.alice, shown, send_of(shown))).reply()
    assert one.ephemeral and one.content.startswith("✖") and "Pick 2 to 3 cards" in one.content

    await bot.restart()  # killed mid-picking: the picks so far are in the prompt, not the bot
    twos = keys_by_label(shown, second)
    turn = await fake.select(world.alice, shown, second, [twos["Card 25 (5)"]])
    assert await turn.response() == 7
    shown = fake.messages_by_id[prompt.id]
    assert (picked(shown, first), picked(shown, second)) == (["Card 4 (4)"], ["Card 25 (5)"])
    ack = await (await fake.click(world.alice, shown, send_of(shown))).reply()
    assert ack.ephemeral and ack.content.startswith("✅ You pick 2 cards: you guess 9"), ack.content

    # a typed answer: the long names joined by commas, as the protocol says
    typed = "card 1 of the long deck, card 2 of the long deck"
    assert (await type_text(fake, world.bob, typed)).startswith("✅ You pick 2 cards: you guess 3")

    post = await fake.wait_for_message(
        lambda m: "Round 1: target" in m.content, channel=world.channel, timeout=20
    )
    assert "P1 9" in post.content and "P2 3" in post.content, post.content
    stale = await (await fake.click(world.alice, shown, send_of(shown))).reply()
    assert stale.ephemeral and stale.content.startswith("✖"), stale.content


async def test_a_button_for_a_long_choice_carries_its_index_and_answers(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    db = tmp_path / "floral-host.db"
    config: dict[str, JSON] = {
        "rounds": 1,
        "hand": 7,
        "timeout_s": 120.0,
    }  # pick one of seven: buttons
    match_id = await start_toy_match(db, world, config)
    bot = await launch_bot(env={"FLORAL_DB": str(db), "FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")
    prompt = await fake.wait_for_message(lambda m: bool(m.custom_ids()), to=world.alice, timeout=20)
    step = prompt.custom_ids()[0].split(":")[2]
    choices = [f"fx:{match_id}:{step}:#{i}" for i in range(7)]
    assert prompt.custom_ids() == [*choices, f"fh:{match_id}:{step}:?"]  # and its Help
    ack = await (await fake.click(world.alice, prompt, f"fx:{match_id}:{step}:#6")).reply()
    assert ack.ephemeral and ack.content.startswith("✅ You pick 1 cards: you guess 6"), ack.content


async def test_a_second_pick_made_before_the_first_ones_edit_showed_keeps_both(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    """Two quick picks in two menus: the second comes from the prompt as it was before the
    first pick's edit reached the screen (its Send button carries no pick yet); both stay."""
    db = tmp_path / "floral-host.db"
    match_id = await start_toy_match(db, world)
    bot = await launch_bot(env={"FLORAL_DB": str(db), "FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")
    prompt = await fake.wait_for_message(
        lambda m: any(c.startswith("fx:pick:") for c in m.custom_ids()), to=world.bob, timeout=20
    )
    first, second = prompt.custom_ids()[:2]
    ones, twos = keys_by_label(prompt, first), keys_by_label(prompt, second)
    one = await fake.select(world.bob, prompt, first, [ones["Card 4 (4)"]])
    stale = prompt  # as the player's screen still showed it
    two = await fake.select(world.bob, stale, second, [twos["Card 25 (5)"]])
    assert (await one.response(), await two.response()) == (7, 7)
    shown = fake.messages_by_id[prompt.id]
    assert (picked(shown, first), picked(shown, second)) == (["Card 4 (4)"], ["Card 25 (5)"])
    ack = await (await fake.click(world.bob, shown, send_of(shown))).reply()
    assert ack.content.startswith("✅ You pick 2 cards"), (match_id, ack.content)

"""End to end: turn and phase posts carry the seats' card (an embed) beside their unchanged
text, prompts none (their deadline is in their text), through the real ``floral-host run`` and
the fake Discord, which checks Discord's limits."""

from __future__ import annotations

from .fake_discord import FakeDiscord, World
from .test_floral_host import LaunchBot, moderator, start_bot


async def test_the_start_and_end_posts_carry_the_seats_card_and_a_prompt_none(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    options = {"player1": world.alice, "player2": world.bob, "window": 30}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    start = await fake.wait_for_message(
        lambda m: "It starts now" in m.content, channel=world.channel
    )
    (embed,) = start.embeds
    assert embed["footer"]["text"] == "Warlock's Brew · match m1"
    assert embed["color"] == 0x8E44AD
    names = [f["name"] for f in embed["fields"]]
    assert names == ["Alice", "Bob", "⏳ Closes"] and embed["fields"][2]["value"].startswith("<t:")
    assert embed["fields"][0]["value"] == "P1 · 5 coins · brew 0"  # Warlock's Brew's public line
    prompt = await fake.wait_for_message(lambda m: "Bid one coin" in m.content, to=world.alice)
    assert "Bid one coin" in prompt.content  # the text is unchanged beside the card
    assert not prompt.embeds  # its deadline is in its text, once

    assert "ended" in (await moderator(fake, world, "match end", match="m1")).lower()
    end = await fake.wait_for_message(
        lambda m: bool(m.custom_ids()) and m.embeds, channel=world.channel
    )
    values = [f["value"] for f in end.embeds[0]["fields"]]
    assert any("🏆 wins" in v for v in values) and "⏳ Closes" not in str(end.embeds[0])

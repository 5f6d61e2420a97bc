"""End to end: every reply fits Discord, match ids as shown, and a seated moderator or a stranger
sees none of a match's secrets.

The fake refuses what Discord refuses (a message over 2000 characters, say) and the ``fake``
fixture fails the test on any refusal, so each reply below is checked against Discord's limits.
"""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

from bot.host import Host
from bot.store.sqlite import SqliteStore
from bot.transport import ConsoleTransport
from games.floral_extract import render
from games.floral_extract.engine import resolve_spellbook
from games.floral_extract.spellbook import MAX_CONDITIONS

from .fake_discord import FakeDiscord, Message, Perm, User, World
from .players import slash_submit, type_text
from .test_floral_host import (
    LaunchBot,
    moderator,
    prompt_after,
    reveal_and_start,
    setup_match,
    start_bot,
    step_of,
)

MESSAGE_LIMIT = 2000


def largest_spellbook(conditions: int = MAX_CONDITIONS) -> str:
    """A spellbook with ``conditions`` conditions per spell (the largest legal one by default)."""
    sets = [f"set 4 {{{','.join(map(str, c))}}}" for c in itertools.combinations(range(1, 8), 4)]
    sums = [f"sum 4 {n}-{n}" for n in range(4, 29)]
    chains = ["chain 4 " + " ".join(ops) for ops in itertools.product("<>=", repeat=3)]
    return "; ".join(
        f"{spell}: {' | '.join(each[:conditions])}"
        for spell, each in (("water", sets), ("fertilize", sums), ("weather", chains))
    )


async def slash_reply(
    fake: FakeDiscord,
    world: World,
    user: User,
    command: str,
    options: dict[str, object],
    *,
    in_dm: bool = False,
) -> Message:
    """A slash command in the match channel (or the user's DMs); the reply."""
    ix = await fake.slash(user, command, options, channel=None if in_dm else world.channel)
    return await ix.reply()


# --- replies that grow with what users type -------------------------------------------------


async def test_long_spellbooks_fit_a_reply(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    players = {"player1": world.alice, "player2": world.bob}
    junk = "x" * 5000
    refused = await slash_reply(
        fake, world, world.mod, "floral setup", {**players, "spellbook": junk}
    )
    assert refused.ephemeral and "spellbook" in refused.content, refused.content
    assert len(refused.content) < 400 and "x" * 100 not in refused.content  # a short excerpt
    brew = await slash_reply(fake, world, world.mod, "brew setup", {**players, "variants": junk})
    assert brew.content.startswith("✖ No match created. Bad variants"), brew.content
    assert len(brew.content) <= MESSAGE_LIMIT
    assert "No matches" in await moderator(fake, world, "match list")

    too_long = await slash_reply(
        fake, world, world.mod, "floral setup", {**players, "spellbook": largest_spellbook(13)}
    )
    assert too_long.content == (
        f"✖ No match created. Bad option `spellbook.water`: has 13 conditions;"
        f" at most {MAX_CONDITIONS}."
    )
    book = largest_spellbook()
    made = await slash_reply(fake, world, world.mod, "floral setup", {**players, "spellbook": book})
    assert "Match **1**" in made.content and "`/floral reveal match:m1`" in made.content
    shown = await slash_reply(fake, world, world.mod, "floral spellbook", {"match": "m1"})
    expected = render.spellbook_text(resolve_spellbook(book, 0))
    assert shown.ephemeral and expected in shown.content and not shown.attachments
    assert len(shown.content) <= MESSAGE_LIMIT
    short = await slash_reply(
        fake, world, world.mod, "floral spellbook", {"match": "1", "text": "gentle"}
    )
    head = "Spellbook replaced. (match m1, preset gentle)\n```"
    assert short.content.startswith(head) and not short.attachments


async def fill_database(path: Path, world: World, count: int, aborted: int) -> None:
    """``count`` matches of the world's channel, the first ``aborted`` of them aborted, made
    through the host before the bot starts on the same database."""
    host = Host(await SqliteStore.open(path), ConsoleTransport(io.StringIO()))
    await host.start()
    long_names = ["Alice of the Long Name", "Bob the Very Patient Player"]
    for _ in range(count):
        await host.create_match(
            "floral-extract",
            guild_id=world.guild.id,
            channel_id=world.channel.id,
            players=[world.alice.id, world.bob.id],
            names=long_names,
            moderators=[world.mod.id],
        )
    for match_id in range(1, aborted + 1):
        await host.abort(match_id)
    await host.wait_idle()
    await host.close()


def listed_ids(text: str) -> list[int]:
    return [int(found) for found in re.findall(r"^m(\d+): ", text, re.MULTILINE)]


async def test_match_list_pages_newest_first(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, tmp_path: Path
) -> None:
    db = tmp_path / "many.db"
    await fill_database(db, world, count=32, aborted=8)
    await start_bot(launch_bot, FLORAL_DB=str(db))
    first = await moderator(fake, world, "match list")
    assert listed_ids(first) == list(range(32, 17, -1)), first
    assert "page 1 of 2" in first and "`/match list page:2`" in first
    assert "include_finished:True" in first
    second = await moderator(fake, world, "match list", page=2)
    assert listed_ids(second) == list(range(17, 8, -1)), second
    every = await moderator(fake, world, "match list", include_finished=True, page=3)
    assert listed_ids(every) == [2, 1] and "aborted" in every and "page 3 of 3" in every
    beyond = await moderator(fake, world, "match list", page=99)
    assert listed_ids(beyond) == listed_ids(second)
    choices = await fake.autocomplete(
        world.mod, "match status", {"match": "m3"}, focused="match", channel=world.channel
    )
    assert [c["value"] for c in choices] == ["m32", "m31", "m30"], choices
    assert all(len(c["name"]) <= 100 for c in choices)


# --- secrets: a seated moderator, a stranger in DMs -----------------------------------------


async def test_a_moderator_who_plays_gets_no_moderator_view_of_the_match(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot, FLORAL_LOG_CHANNEL="")  # moderator messages go by DM
    fake.close_dms(world.bob)
    options = {"player1": world.mod, "player2": world.bob, "window": 30}
    made = await slash_reply(fake, world, world.mod, "floral setup", options)
    assert "Match **1**" in made.content
    await fake.wait_for_message(
        lambda m: "cannot send direct messages" in m.content, channel=world.channel
    )
    await reveal_and_start(fake, world, 1)
    await prompt_after(fake, world.mod, 0)
    refused = await slash_reply(fake, world, world.mod, "match export", {"match": "m1"})
    assert refused.ephemeral and not refused.attachments
    assert refused.content.startswith("You play in match m1"), refused.content
    by_other = await slash_reply(fake, world, world.helper, "match end", {"match": "m1"})
    assert "ended" in by_other.content  # another moderator: not the one who plays
    await fake.wait_for_message(lambda m: "Game over" in m.content, channel=world.channel)
    exported = await slash_reply(fake, world, world.mod, "match export", {"match": "m1"})
    assert [a.filename for a in exported.attachments] == ["match-1.json"]
    fake.attachment_size_limit = 100  # a server whose uploads are small: said, not failed
    too_big = await slash_reply(fake, world, world.mod, "match export", {"match": "m1"})
    assert not too_big.attachments and "floral-host export 1" in too_big.content, too_big.content
    await fake.settle()
    told = [m.content for m in fake.dms_to(world.mod) if "cannot send direct" in m.content]
    assert not told, told  # the moderators' notice is not for a moderator who plays
    fake.take_failures()  # Bob's closed DMs


async def test_setup_warns_when_a_player_can_read_the_log_channel(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    fake.set_overwrite(world.mod_log, world.carol, allow=Perm.VIEW_CHANNEL)  # before connecting
    await start_bot(launch_bot)
    private = await fake.slash(
        world.mod,
        "floral setup",
        {"player1": world.alice, "player2": world.bob},
        channel=world.channel,
    )
    assert "Match **1**" in (await private.reply()).content
    options = {"player1": world.alice, "player2": world.carol}
    readable = await fake.slash(world.mod, "floral setup", options, channel=world.channel)
    assert "Match **2**" in (await readable.reply()).content
    warning = await readable.followup(0)
    assert warning.ephemeral and warning.content.startswith("⚠ Carol can read the moderator log")
    assert "Alice" not in warning.content
    brew = await fake.slash(
        world.helper,
        "brew setup",
        {"player1": world.carol, "player2": world.helper},
        channel=world.channel,
    )
    assert "Match **3**" in (await brew.reply()).content
    warning = await brew.followup(0)
    assert warning.content.startswith("⚠ Carol and Helper can read the moderator log"), (
        warning.content
    )
    await fake.settle()
    assert not private.followups


async def test_match_ids_reveal_only_what_the_asker_may_see(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=30)
    stranger = await slash_reply(
        fake, world, world.carol, "match status", {"match": "m1"}, in_dm=True
    )
    assert stranger.content == "You do not play in match m1.", stranger.content
    garden = await slash_reply(fake, world, world.carol, "garden", {"match": "m1"}, in_dm=True)
    assert "Alice" not in garden.content and "not" in garden.content, garden.content
    player = await slash_reply(
        fake, world, world.alice, "match status", {"match": "m1"}, in_dm=True
    )
    assert player.content.startswith(f"**Match m{match}**"), player.content
    bad = await slash_reply(fake, world, world.mod, "match status", {"match": "x" * 300})
    assert bad.content.startswith("Not a match id: 'xxxx") and len(bad.content) < 100, bad.content
    missing = await moderator(fake, world, "match status", match="m99")
    assert "no match 99" in missing


# --- numerals other than 0-9 ------------------------------------------------------------------


async def test_other_numerals_are_refused_and_the_match_goes_on(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    await setup_match(fake, world, window=30)
    await reveal_and_start(fake, world, 1)
    alice = await prompt_after(fake, world.alice, 0)
    await prompt_after(fake, world.bob, 0)
    assert (await type_text(fake, world.alice, "H")).startswith("✅")
    assert (await type_text(fake, world.bob, "C")).startswith("✅")
    await prompt_after(fake, world.alice, step_of(alice))
    for numeral in ("³", "①"):
        refused = await type_text(fake, world.alice, numeral)
        assert refused.startswith("✖") and "0-9" in refused, refused
    refused = await slash_submit(fake, world.alice, world, "³")
    assert refused.startswith("✖") and "0-9" in refused, refused
    assert (await type_text(fake, world.alice, "1")).startswith("✅ Cast")

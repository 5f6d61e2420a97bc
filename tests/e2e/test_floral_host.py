"""End to end: the real ``floral-host run`` process against the fake Discord, driven as users.

Matches are short: a turn limit of 3 (``FLORAL_MAX_TURNS``), so a match is one planting window and
three casting windows, and every public message of the match channel is checked for leaked map
identities before the end post.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, User, World
from .players import answered, slash_submit, type_text

LaunchBot = Callable[..., Awaitable[BotProcess]]

BOT_ENV = {
    "FLORAL_GUILD_READY_TIMEOUT": "0.1",
    "MODERATOR_ROLE": "Floral Moderator",
    "FLORAL_MAX_TURNS": "3",
    "FLORAL_GRACE_SECONDS": "3",
    "FLORAL_REMINDER_SECONDS": "1",
    "FLORAL_LOG_CHANNEL": "mod-log",
}
CUSTOM_ID = re.compile(r"^fx:(\d+):(\d+):(\w)$")
MAP_TEXT = re.compile(r"rune map, P[12]: ((?:\w=\d ?){8})")


# --- helpers --------------------------------------------------------------------------------


async def start_bot(launch_bot: LaunchBot, **env: str) -> BotProcess:
    bot = await launch_bot(env={**BOT_ENV, **env})
    await bot.wait_for_log("floral-host ready")
    return bot


async def setup_match(
    fake: FakeDiscord, world: World, window: int, *, by: User | None = None
) -> int:
    ix = await fake.slash(
        by or world.mod,
        "floral setup",
        {"player1": world.alice, "player2": world.bob, "window": window},
        channel=world.channel,
    )
    reply = await ix.reply()
    assert not reply.ephemeral, reply.content
    found = re.search(r"Match \*\*(\d+)\*\*", reply.content)
    assert found, reply.content
    return int(found[1])


async def moderator(fake: FakeDiscord, world: World, command: str, **options: object) -> str:
    ix = await fake.slash(world.mod, command, dict(options), channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral
    return reply.content


async def reveal_and_start(fake: FakeDiscord, world: World, match: int) -> None:
    assert "revealed" in await moderator(fake, world, "floral reveal", match=f"m{match}")
    assert "started" in await moderator(fake, world, "floral start", match=str(match))


def buttons(message: Message) -> list[tuple[int, str]]:
    """(step, value) of each choice button of a prompt."""
    found = [CUSTOM_ID.match(custom_id) for custom_id in message.custom_ids()]
    return [(int(m[2]), m[3]) for m in found if m]


async def prompt_after(fake: FakeDiscord, user: User, step: int, timeout: float = 10) -> Message:
    """The first DM prompt to ``user`` for a window later than ``step``."""

    def later(message: Message) -> bool:
        return any(s > step for s, _ in buttons(message))

    return await fake.wait_for_message(later, to=user, timeout=timeout)


async def click_value(fake: FakeDiscord, user: User, prompt: Message, index: int = 0) -> str:
    step, value = buttons(prompt)[index]
    custom_id = next(c for c in prompt.custom_ids() if c.endswith(f":{step}:{value}"))
    ix = await fake.click(user, prompt, custom_id)
    return answered(await ix.reply())


async def type_answer(fake: FakeDiscord, user: User, prompt: Message, index: int = 1) -> str:
    """Type a choice's character in the DM; the bot's answer."""
    return await type_text(fake, user, buttons(prompt)[index][1])


def step_of(prompt: Message) -> int:
    return buttons(prompt)[0][0]


async def end_post(fake: FakeDiscord, world: World, timeout: float = 15) -> Message:
    return await fake.wait_for_message(
        lambda m: "Game over" in m.content, channel=world.channel, timeout=timeout
    )


def secret_maps(fake: FakeDiscord, world: World) -> list[str]:
    """Every "X=n" identity of both players' maps, from their private map DMs."""
    pairs = []
    for user in (world.alice, world.bob):
        for message in fake.dms_to(user):
            found = MAP_TEXT.search(message.content)
            if found:
                pairs += found[1].split()
    return pairs


def assert_no_map_leak(
    fake: FakeDiscord, world: World, allowed: frozenset[str] = frozenset()
) -> None:
    """No public message of the match channel before the end post names a map identity, but
    the ``allowed`` ones (translations found by a correct declaration are public)."""
    pairs = sorted(set(secret_maps(fake, world)))
    assert len(pairs) == 16, pairs
    pairs = [p for p in pairs if p not in allowed]
    patterns = [re.compile(rf"\b{p[0]}\s*=\s*{p[2:]}\b") for p in pairs]
    for message in fake.messages_in(world.channel):
        if "Game over" in message.content:
            break
        for text in message.all_texts():
            leaked = [p.pattern for p in patterns if p.search(text)]
            assert not leaked, f"public message leaks {leaked}: {text!r}"


def later_prompt(fake: FakeDiscord, user: User, step: int) -> Message | None:
    return next((m for m in fake.dms_to(user) if any(s > step for s, _ in buttons(m))), None)


async def next_prompts(
    fake: FakeDiscord, world: World, step: int, timeout: float = 10
) -> tuple[Message, Message] | None:
    """Both players' prompts for the window after ``step``, or None once the match is over."""

    def check() -> tuple[Message, Message] | str | None:
        if any("Game over" in m.content for m in fake.messages_in(world.channel)):
            return "over"
        alice, bob = later_prompt(fake, world.alice, step), later_prompt(fake, world.bob, step)
        return (alice, bob) if alice and bob else None

    found = await fake.wait_until(check, timeout=timeout, what=f"prompts after step {step}")
    return None if isinstance(found, str) else found


async def play_turns(
    fake: FakeDiscord,
    world: World,
    alice: Message,
    bob: Message,
    answer_bob: Callable[[Message], Awaitable[str]] | None = None,
) -> None:
    """Answer every window (Alice by button, Bob by typing) until the match is over."""
    while True:
        ack_a = await click_value(fake, world.alice, alice)
        assert ack_a.startswith("✅") and "locked for" in ack_a, ack_a
        ack_b = await (answer_bob or (lambda p: type_answer(fake, world.bob, p)))(bob)
        assert ack_b.startswith("✅") and "locked for" in ack_b, ack_b
        pair = await next_prompts(fake, world, step_of(alice))
        if pair is None:
            return
        alice, bob = pair


# --- 1. a whole match -----------------------------------------------------------------------


async def test_whole_match_by_buttons_and_typing(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=20)
    hello = await fake.wait_for_message(lambda m: "👋" in m.content, to=world.alice)
    assert "Bob" in hello.content
    await fake.wait_for_message(lambda m: "👋" in m.content, to=world.bob)
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    bob = await prompt_after(fake, world.bob, 0)
    assert "<t:" in alice.content and ":R>" in alice.content
    assert [v for _, v in buttons(alice)] == list("ACHWX")
    ack = await click_value(fake, world.alice, alice, 2)
    assert ack == "✅ Plant Hyacinth in pot 1 — locked for the planting before turn 1.", ack
    assert (await type_answer(fake, world.bob, bob, 0)).startswith("✅ Plant Azalea")
    alice = await prompt_after(fake, world.alice, step_of(alice))
    bob = await prompt_after(fake, world.bob, step_of(bob))
    assert "You planted Hyacinth in pot 1" in alice.content
    old = next(m for m in fake.dms_to(world.alice) if buttons(m) and step_of(m) == 1)
    refused = await click_value(fake, world.alice, old, 0)  # a closed window's button
    assert refused == "✖ That prompt has expired; answer the current one.", refused
    assert "Turn 1 (X" in alice.content and len(buttons(alice)) == 8
    await play_turns(fake, world, alice, bob)
    end = await end_post(fake, world)
    assert "wins" in end.content and "Maps: P1" in end.content
    public = [m.content for m in fake.messages_in(world.channel)]
    for turn in (1, 2, 3):
        assert sum(f"Turn {turn}: P1 cast" in text for text in public) == 1, public
    assert any("Planting phase 1 is open" in text for text in public)
    assert any("Match 1: Floral Extract, Alice vs Bob. It starts now" in t for t in public)
    dms = [m.content for m in fake.dms_to(world.alice)]
    assert any("Your secret rune map, P1" in text for text in dms)
    assert not any("rune map, P2" in text for text in dms)
    mod_log = [m.content for m in fake.messages_in(world.mod_log)]
    assert any(text.startswith(f"**m{match}** · Maps: P1") for text in mod_log), mod_log
    assert_no_map_leak(fake, world)


# --- 2. refusals ------------------------------------------------------------------------------


async def test_non_moderator_and_non_player_are_refused(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    ix = await fake.slash(
        world.carol,
        "floral setup",
        {"player1": world.alice, "player2": world.bob},
        channel=world.channel,
    )
    refusal = await ix.reply()
    assert refusal.ephemeral and "Only moderators" in refusal.content
    assert "No matches" in await moderator(fake, world, "match list")
    ix = await fake.slash(world.carol, "match pause", {}, channel=world.channel)
    assert "Only moderators" in (await ix.reply()).content
    match = await setup_match(fake, world, window=20, by=world.helper)  # the moderator role
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    assert buttons(alice)
    answer = await slash_submit(fake, world.carol, world, "A")
    assert "Nothing is asked of you" in answer
    mark = fake.mark()
    await fake.dm_text(world.carol, "A")
    reply = await fake.wait_for_message(to=world.carol, after=mark)
    assert "Nothing is asked of you" in reply.content
    status = await moderator(fake, world, "match status", match=f"m{match}")
    assert "waiting for Alice and Bob" in status, status
    refused = await type_text(fake, world.alice, "Q")
    assert refused.startswith("✖ Send one flower letter"), refused
    status = await moderator(fake, world, "match status", match=f"m{match}")
    assert "waiting for Alice and Bob" in status, status


# --- 3. closed DMs ----------------------------------------------------------------------------


async def test_closed_dms_fall_back_to_submit(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    fake.close_dms(world.bob)
    match = await setup_match(fake, world, window=20)
    notice = await fake.wait_for_message(
        lambda m: "cannot send direct messages" in m.content, channel=world.channel
    )
    assert world.bob.mention in notice.content and "/submit" in notice.content
    await fake.wait_for_message(
        lambda m: "cannot send direct messages" in m.content, channel=world.mod_log
    )
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    step = 0
    while True:
        assert (await click_value(fake, world.alice, alice)).startswith("✅")
        garden = await (await fake.slash(world.bob, "garden", {}, channel=world.channel)).reply()
        assert "Your rune map" in garden.content
        assert "Your spellbook:\n• Water (waters your pots 1 to X) when " in garden.content
        (picture,) = garden.attachments  # the garden, drawn, beside the text it illustrates
        assert picture.filename.endswith(".png") and "garden" in (picture.description or "")
        answer = await slash_submit(fake, world.bob, world, "A" if step == 0 else "7")
        if answer.startswith("✖"):  # the stall rule, say: another digit
            answer = await slash_submit(fake, world.bob, world, "6")
        assert answer.startswith("✅"), answer
        step = step_of(alice)
        found = await fake.wait_until(
            lambda s=step: (
                "over"
                if any("Game over" in m.content for m in fake.messages_in(world.channel))
                else later_prompt(fake, world.alice, s)
            ),
            what="the next prompt",
        )
        if found == "over":
            break
        assert isinstance(found, Message)
        alice = found
    assert_no_map_leak_public_only(fake, world)
    failures = fake.take_failures()
    assert all("50007" in f or "Cannot send" in f for f in failures), failures


def assert_no_map_leak_public_only(fake: FakeDiscord, world: World) -> None:
    """As ``assert_no_map_leak``, the maps taken from the end post (Bob got no DMs)."""
    end = next(m for m in fake.messages_in(world.channel) if "Game over" in m.content)
    maps = re.search(r"Maps: P1 (.*) \| P2 (.*)\.", end.content)
    assert maps, end.content
    pairs = (maps[1] + " " + maps[2]).split()
    patterns = [re.compile(rf"\b{p[0]}\s*=\s*{p[2:]}\b") for p in pairs]
    for message in fake.messages_in(world.channel):
        if message is end:
            break
        for text in message.all_texts():
            assert not [p.pattern for p in patterns if p.search(text)], text


# --- 4. timeouts ------------------------------------------------------------------------------


async def test_windows_time_out_with_defaults(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=1)
    await reveal_and_start(fake, world, match)
    end = await end_post(fake, world, timeout=20)
    assert "after turn 3" in end.content
    alice = [m.content for m in fake.dms_to(world.alice)]
    assert any("Time ran out: nothing planted." in text for text in alice), alice
    public = [m.content for m in fake.messages_in(world.channel)]
    assert sum("Turn 3: P1 cast" in text for text in public) == 1
    assert_no_map_leak(fake, world)


# --- 5. kill -9 mid-window --------------------------------------------------------------------


async def test_killed_mid_window_reopens_with_grace(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await start_bot(launch_bot)
    match = await setup_match(fake, world, window=2)
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    bob = await prompt_after(fake, world.bob, 0)
    assert (await click_value(fake, world.alice, alice, 3)).startswith("✅")
    await bot.kill()
    await asyncio.sleep(2.5)  # the deadline passes while the bot is down
    await bot.start()
    await bot.wait_for_log("floral-host ready")
    reopened = await fake.wait_for_message(
        lambda m: "host restarted" in m.content, channel=world.channel
    )
    assert "open again" in reopened.content
    kept = await fake.wait_for_message(lambda m: "answer is kept" in m.content, to=world.alice)
    assert kept
    await fake.wait_for_message(lambda m: "host restarted" in m.content, to=world.bob)
    ack = await click_value(fake, world.bob, bob, 1)  # the button sent before the crash
    assert ack.startswith("✅ Plant Chrysanthemum"), ack
    pair = await next_prompts(fake, world, step_of(bob))
    assert pair is not None
    assert "You planted Wisteria" in pair[0].content
    await play_turns(fake, world, *pair)
    assert_no_map_leak(fake, world)
    for player in (world.alice, world.bob):  # nothing sent before the kill is shown twice
        maps = [m for m in fake.dms_to(player) if "Your secret rune map" in m.content]
        assert len(maps) == 1, [m.content for m in maps]


# --- 6. faults --------------------------------------------------------------------------------


async def test_rate_limit_server_error_and_dropped_gateway(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=20)
    limit = fake.rate_limit(
        "POST /channels/{channel_id}/messages", channel=world.channel, times=1, retry_after=0.05
    )
    error = fake.fail("POST /channels/{channel_id}/messages", status=500, times=1)
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    bob = await prompt_after(fake, world.bob, 0)
    await fake.wait_for_message(lambda m: "It starts now" in m.content, channel=world.channel)
    assert limit.hits == 1 and error.hits == 1  # prompts may go first: each queue on its own
    assert (await click_value(fake, world.alice, alice)).startswith("✅")
    resumes = fake.resumes
    await fake.drop_gateway()
    await fake.wait_for_resume(after=resumes)
    assert (await type_answer(fake, world.bob, bob, 0)).startswith("✅")  # needs the gateway
    pair = await next_prompts(fake, world, step_of(alice))
    assert pair is not None
    await play_turns(fake, world, *pair)
    public = [m.content for m in fake.messages_in(world.channel)]
    assert sum("The spellbook" in t or "Spellbook:" in t for t in public) >= 1
    for turn in (1, 2, 3):
        assert sum(f"Turn {turn}: P1 cast" in text for text in public) == 1, public
    assert_no_map_leak(fake, world)


# --- 8. pause, resume, extend, status ---------------------------------------------------------


async def test_pause_resume_extend_status(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=30)
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    await prompt_after(fake, world.bob, 0)
    status = await moderator(fake, world, "match status")
    assert f"Match m{match}" in status and "running" in status and "<t:" in status
    assert "waiting for Alice and Bob" in status
    assert "paused" in await moderator(fake, world, "match pause")
    await fake.wait_for_message(lambda m: "is paused" in m.content, channel=world.channel)
    assert "Paused" in await moderator(fake, world, "match status")
    refused = await type_answer(fake, world.alice, alice, 0)
    assert refused.startswith("✖") and "paused" in refused
    assert "resumes" in await moderator(fake, world, "match resume")
    await fake.wait_for_message(lambda m: "resumes" in m.content, channel=world.channel)
    before = int(re.findall(r"<t:(\d+):R>", await moderator(fake, world, "match status"))[0])
    assert "extended" in await moderator(fake, world, "match extend", seconds=60)
    await fake.wait_for_message(lambda m: "extended by" in m.content, channel=world.channel)
    after = int(re.findall(r"<t:(\d+):R>", await moderator(fake, world, "match status"))[0])
    assert after - before >= 59
    assert (await click_value(fake, world.alice, alice, 0)).startswith("✅")
    status = await moderator(fake, world, "match status")
    assert "waiting for Bob" in status and "Alice," not in status
    assert "ended" in await moderator(fake, world, "match end")
    end = await end_post(fake, world)
    assert "wins" in end.content
    assert_no_map_leak(fake, world)


# --- the command line and the command surface -------------------------------------------------


async def test_bad_or_missing_token_is_one_clear_line(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    for token in ("", "not-the-token"):
        bot = await launch_bot(env={"DISCORD_TOKEN": token}, wait_ready=False, expect_exit=True)
        assert await bot.wait_exit() != 0
        errors = [line.text for line in bot.lines if line.stream == "stderr"]
        assert "Traceback" not in bot.output()
        assert errors and errors[-1].startswith("floral-host run: "), bot.output()
        assert "DISCORD_TOKEN" in errors[-1]
        assert not token or token not in bot.output()
    fake.take_failures()


async def test_commands_and_autocomplete(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    setup = fake.command("floral setup")
    names = [option["name"] for option in setup["options"]]
    assert names == ["player1", "player2", "advantage", "spellbook", "window", "rules"]
    presets = await fake.autocomplete(
        world.mod, "floral setup", {"spellbook": "cl"}, focused="spellbook", channel=world.channel
    )
    assert [c["value"] for c in presets] == ["classic"]
    ix = await fake.slash(
        world.mod,
        "floral setup",
        {"player1": world.alice, "player2": world.bob, "spellbook": "classic"},
        channel=world.channel,
    )
    assert "Match **1**" in (await ix.reply()).content
    matches = await fake.autocomplete(
        world.mod, "floral reveal", {"match": ""}, focused="match", channel=world.channel
    )
    assert matches[0]["value"] == "m1" and matches[0]["name"] == "m1: Alice vs Bob (setup)"
    shown = await moderator(fake, world, "floral spellbook", match="m1")
    assert "water:" in shown
    replaced = await moderator(
        fake, world, "floral spellbook", match="1", text="water: set 3 {1,2,3}; fertilize: sum 3"
    )
    assert "Spellbook replaced" not in replaced and "spellbook" in replaced.lower()
    replaced = await moderator(fake, world, "floral spellbook", match=" M1 ", text="gentle")
    assert replaced.startswith("Spellbook replaced"), replaced
    exported = await fake.slash(world.mod, "match export", {"match": "m1"}, channel=world.channel)
    reply = await exported.reply()
    assert reply.attachments and reply.attachments[0].filename == "match-1.json"


async def test_sigterm_closes_cleanly(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await start_bot(launch_bot)
    await setup_match(fake, world, window=20)
    await bot.terminate()
    assert bot.returncode == 0, bot.output()


async def test_without_log_channel_moderator_is_told_by_dm(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot, FLORAL_LOG_CHANNEL="")
    fake.close_dms(world.bob)
    await setup_match(fake, world, window=20)
    told = await fake.wait_for_message(
        lambda m: "cannot send direct messages" in m.content, to=world.mod
    )
    assert world.bob.mention in told.content
    await fake.wait_for_message(
        lambda m: "cannot send direct messages" in m.content, channel=world.channel
    )
    assert not fake.messages_in(world.mod_log)


async def test_setup_takes_rules_options_and_warns_the_moderator_alone(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    players = {"player1": world.alice, "player2": world.bob}
    ix = await fake.slash(
        world.mod, "floral setup", {**players, "rules": "colour=red"}, channel=world.channel
    )
    refused = await ix.reply()
    assert refused.ephemeral and "rules.colour" in refused.content, refused.content
    assert "No matches" in await moderator(fake, world, "match list")

    book = "water: set 3 {0,1,2}; fertilize: sum 3 19-21; weather: chain 3 < <"
    options = {**players, "spellbook": book, "rules": "max_turns=2, azalea_shrink_mode=reset"}
    ix = await fake.slash(world.mod, "floral setup", options, channel=world.channel)
    made = await ix.reply()
    assert not made.ephemeral and "Match **1**" in made.content
    warning = await ix.followup(0)
    assert warning.ephemeral and "only you see this" in warning.content, warning.content
    assert "water" in warning.content
    await reveal_and_start(fake, world, 1)
    start = await fake.wait_for_message(
        lambda m: "Floral Extract begins" in m.content, channel=world.channel
    )
    assert "An Azalea shrinks every second turn it does not grow." in start.content
    assert "The match ends after turn 2." in start.content


def rune_map(fake: FakeDiscord, user: User) -> dict[str, int]:
    """The player's own map, read from the map DM as the player would."""
    found = next(m for m in (MAP_TEXT.search(d.content) for d in fake.dms_to(user)) if m)
    return {pair[0]: int(pair[2:]) for pair in found[1].split()}


async def test_a_guess_charge_then_a_correct_declaration_from_the_menu(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Alice grows a Hyacinth to bloom in eight sunny turns while casting six different runes
    in a row, so turn 9 gives her a charge; on turn 10 she declares Bob's 5 from the menu."""
    await start_bot(launch_bot)
    book = "water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 = ="  # stays sunny
    options = {"player1": world.alice, "player2": world.bob, "window": 30, "spellbook": book}
    options["rules"] = "max_turns=12"
    await (await fake.slash(world.mod, "floral setup", options, channel=world.channel)).reply()
    await reveal_and_start(fake, world, 1)
    alice = await prompt_after(fake, world.alice, 0)
    await prompt_after(fake, world.bob, 0)
    assert (await type_text(fake, world.alice, "H")).startswith("✅ Plant Hyacinth")
    assert (await type_text(fake, world.bob, "C")).startswith("✅ Plant Chrysanthemum")
    step = step_of(alice)
    for turn, identity in enumerate([7, 6, 5, 4, 3, 2, 1, 0, 5], start=1):
        pair = await next_prompts(fake, world, step)
        assert pair is not None
        step = step_of(pair[0])
        if turn == 6:  # the second planting phase comes first
            assert (await type_text(fake, world.alice, "C")).startswith("✅")
            assert (await type_text(fake, world.bob, "A")).startswith("✅")
            pair = await next_prompts(fake, world, step)
            assert pair is not None
            step = step_of(pair[0])
        assert (await type_text(fake, world.alice, str(identity))).startswith("✅ Cast")
        assert (await type_text(fake, world.bob, str(1 + turn % 2))).startswith("✅ Cast")
    pair = await next_prompts(fake, world, step)
    assert pair is not None
    alice = pair[0]
    assert "You hold a guess charge" in alice.content, alice.content
    assert "Guessing spell: you now hold a guess charge" in alice.content
    target = next(s for s, i in rune_map(fake, world.bob).items() if i == 5)
    menu = f"fx:declare:1:{step_of(alice)}"
    ack = await (await fake.select(world.alice, alice, menu, [target])).reply()
    assert ack.ephemeral and ack.content.startswith(f"✅ Declare {target}"), ack.content
    assert (await type_text(fake, world.bob, "1")).startswith("✅")
    post = await fake.wait_for_message(
        lambda m: m.content.startswith("Turn 10:"), channel=world.channel
    )
    assert f"P1 declared {target}: correct, {target} = 5." in post.content
    assert "Points: P1 1 – P2 0." in post.content
    assert_no_map_leak(fake, world, allowed=frozenset({f"{target}=5"}))


async def test_a_bot_cannot_take_a_seat(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    options = {"player1": world.alice, "player2": fake.bot_user}
    refused = await (
        await fake.slash(world.mod, "floral setup", options, channel=world.channel)
    ).reply()
    assert refused.ephemeral and "Players must be people" in refused.content, refused.content
    assert "No matches" in await moderator(fake, world, "match list")

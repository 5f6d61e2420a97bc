"""End to end, the messages people read, through the real bot (with the tests' toy game) and
the strict fake Discord: a prompt says its deadline once, a reminder is one line and the
prompt's own buttons still answer after it."""

from __future__ import annotations

import re
import sys

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, User, World
from .test_protocol_v2 import (
    COUNTDOWN,
    LaunchBot,
    choice_ids,
    click,
    prompt_to,
    public_post,
    start,
    toy_match,
)


async def start_toybot(launch_bot: LaunchBot, **env: str) -> BotProcess:
    bot = await launch_bot(
        argv=[sys.executable, "-m", "tests.e2e.toybot"],
        env={"FLORAL_GUILD_READY_TIMEOUT": "0.1", **env},
    )
    await bot.wait_for_log("floral-host ready")
    return bot


async def test_a_prompt_says_its_deadline_once_and_a_reminder_is_one_line(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot, FLORAL_REMINDER_SECONDS="2")
    match = await toy_match(fake, world, [world.alice, world.bob], {"rounds": 1}, window=8)
    await start(fake, world, match)
    prompt = await prompt_to(fake, world.alice, "guess the hidden number")
    seen = prompt.text()  # the content, its embeds and its buttons
    assert len(COUNTDOWN.findall(seen)) == 1 and seen.count("⏳") == 1, seen
    assert prompt.content.splitlines()[-1].startswith("⏳ Answer <t:")
    assert "Answer within" not in seen and "⌛" not in seen and not prompt.embeds
    assert "Choices:" not in seen  # the buttons show them
    reminder = await fake.wait_for_message(
        lambda m: m.content.startswith("⏰"), to=world.alice, timeout=10
    )
    assert re.fullmatch(rf"⏰ \d\.\d s left to answer in match {match}\.", reminder.content)
    assert not reminder.custom_ids() and not reminder.embeds
    ack = await click(fake, world.alice, prompt, "4")  # the prompt still answers
    assert ack == f"✅ You guess 4 — locked (match {match}).", ack  # what it accepted


async def test_the_seats_card_rides_on_the_one_post_a_turn_that_holds_its_windows(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    config = {"rounds": 1, "actions": 2}  # one round (turn) of two windows
    match = await toy_match(fake, world, [world.alice, world.bob], config, window=10)
    await start(fake, world, match)
    post = await public_post(fake, world, "It starts now")
    (card,) = post.embeds
    fields = [(f["name"], f["value"]) for f in card["fields"]]
    assert fields[:2] == [("Alice", "P1 · 0 points"), ("Bob", "P2 · 0 points")], fields
    assert fields[2][0] == "⏳ Closes" and card["footer"]["text"] == f"Toy Guess · match m{match}"
    for action in (1, 2):
        for user in (world.alice, world.bob):
            prompt = await prompt_to(fake, user, f"(action {action} of 2)")
            assert "locked" in await click(fake, user, prompt, "3")
    end = await public_post(fake, world, "Game over")  # the turn's one post, its windows in order
    assert end.content.index("action 1 of 2 done") < end.content.index("Game over")
    posts = [m.content for m in fake.messages_in(world.channel)]
    assert sum("action 1 of 2 done" in post for post in posts) == 1 and posts[-1] == end.content
    values = [f["value"] for f in end.embeds[0]["fields"]]
    assert values == ["P1 · 1 point · 🏆 wins", "P2 · 1 point · 🏆 wins"], values


async def reply_to(fake: FakeDiscord, user: User, text: str, start: str) -> Message:
    """Type ``text`` in the DM with the bot; its answer, which begins with ``start``."""
    mark = fake.mark()
    await fake.dm_text(user, text)
    return await fake.wait_for_message(lambda m: m.content.startswith(start), to=user, after=mark)


async def test_help_answers_with_the_prompts_reference_typed_clicked_or_submitted(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    config = {"rounds": 2, "help": True}
    match = await toy_match(fake, world, [world.alice, world.bob], config, window=60)
    await start(fake, world, match)
    prompt = await prompt_to(fake, world.alice, "guess the hidden number")
    reference = (
        f"❔ **Help: your prompt in match m{match}**\nGuess the round's hidden number, 0 to 9:"
        " the guesses closest to it score a point. Type the number, or `guess N`."
    )
    assert (await reply_to(fake, world.alice, "Help", "❔")).content == reference
    help_id = next(c for c in prompt.custom_ids() if c.startswith("fh:"))
    clicked = await (await fake.click(world.alice, prompt, help_id)).reply()
    assert clicked.ephemeral and clicked.content == reference
    ix = await fake.slash(world.bob, "submit", {"value": "help"}, channel=world.channel)
    submitted = await ix.reply()
    assert submitted.ephemeral and submitted.content.startswith("❔ **Help: your prompt")
    assert "locked" in await click(fake, world.alice, prompt, "4")  # help submitted nothing
    assert "locked" in await click(
        fake, world.bob, await prompt_to(fake, world.bob, "Round 1"), "2"
    )


async def test_help_without_a_games_reference_is_the_prompt_and_how_to_answer(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    match = await toy_match(fake, world, [world.alice, world.bob], {"rounds": 1}, window=60)
    nothing = await reply_to(fake, world.alice, "help", "Nothing is asked")
    assert "`cards`" in nothing.content
    await start(fake, world, match)
    await prompt_to(fake, world.alice, "guess the hidden number")
    lines = (await reply_to(fake, world.alice, "help", "❔")).content.splitlines()
    assert lines[1:] == [
        "Round 1: guess the hidden number.",
        "Use a button or the menu, or type one of: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9. If you don't"
        " answer in time: your secret number is your guess.",
    ]
    cards = await reply_to(fake, world.alice, "cards", "Toy Guess has no")
    assert cards.content == (
        f"Toy Guess has no card reference (match m{match}); `/rules game:tests.bot.toy_game`"
        " explains its pieces."
    )


async def test_cards_pages_through_the_matchs_reference_within_discords_limits(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    config = {"rounds": 1, "hand": 80, "pick": [1, 2]}  # 80 cards of every length: pages
    match = await toy_match(fake, world, [world.alice, world.bob], config, window=60)
    await start(fake, world, match)
    first = await reply_to(fake, world.alice, "cards", "📇")
    assert first.content.startswith(f"📇 **Cards of match m{match}**, page 1 of ")
    pages = int(first.content.split(" of ")[-1].rstrip("."))
    (embed,) = first.embeds
    names = [field["name"] for field in embed["fields"]]
    assert (
        names[0] == "card 0 of the long deck" and "Card 1 is worth" in embed["fields"][1]["value"]
    )
    previous, following = first.custom_ids()
    assert first.component(previous)["disabled"] and not first.component(following)["disabled"]
    seen = list(names)
    for page in range(2, pages + 1):
        await (await fake.click(world.alice, first, first.custom_ids()[1])).response()
        await fake.wait_until(lambda: f"page {page} of" in first.content)  # noqa: B023
        seen += [field["name"] for field in first.embeds[0]["fields"]]
    assert seen == [f"card {n} of the long deck" for n in range(80)]  # each once, in order
    assert first.component(first.custom_ids()[1])["disabled"]  # the last page
    ix = await fake.slash(world.bob, "cards", {"page": 2}, channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral and f"page 2 of {pages}" in reply.content and reply.embeds


async def test_rules_pages_the_players_part_and_reaches_the_rest_by_section(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)  # the toy game's page has a `# For moderators` part
    game = "tests.bot.toy_game"

    async def rules(**options: object) -> str:
        reply = await (await fake.slash(world.alice, "rules", {"game": game, **options})).reply()
        return reply.content

    first = await rules()
    assert first.startswith("📖 **Toy Guess: Overview** (page 1 of 3)")
    assert "— For moderators: 4 For moderators · 5 Options — Reference: 6 Script" in first
    last = await rules(page=3)
    assert last.startswith("📖 **Toy Guess: A round** (page 3 of 3)")
    assert last.endswith(f"More (For moderators, Reference): `/rules game:{game} section:4`")
    options = await rules(section="5")
    assert options.startswith("📖 **Toy Guess: Options** (For moderators)\n`rounds`")


async def test_an_answers_reply_carries_the_next_prompt_clicked_free_and_typed_in_one(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Each seat guesses three times at its own pace: after the first prompt, each next one
    rides on the answer's reply, a click's (an interaction answer, outside the bot's budget)
    or a typed answer's (one message for both), and no DM of its own is posted."""
    await start_toybot(launch_bot)
    config = {"close": "each", "actions": 3, "rounds": 1}
    match = await toy_match(fake, world, [world.alice, world.bob], config, window=60)
    await start(fake, world, match)
    first = await prompt_to(fake, world.alice, "guess the hidden number")

    def alices_dm_posts() -> int:
        posts = fake.requests_matching("POST /channels/{channel_id}/messages")
        return sum(int(r.params["channel_id"]) == first.channel_id for r in posts)

    dm_posts = alices_dm_posts()
    clicked = await (await fake.click(world.alice, first, choice_ids(first)["3"])).reply()
    assert clicked.content.startswith(f"✅ You guess 3 — locked (match {match}).\nAction 1 of 3")
    assert not clicked.ephemeral and "(action 2 of 3)" in clicked.content
    assert choice_ids(clicked) and COUNTDOWN.search(clicked.content)  # its buttons, its clock
    mark = fake.mark()
    await fake.dm_text(world.alice, "4")
    typed = await fake.wait_for_message(lambda m: "✅" in m.content, to=world.alice, after=mark)
    assert "(action 3 of 3)" in typed.content and choice_ids(typed)
    await fake.settle()
    assert alices_dm_posts() == dm_posts + 1  # the typed one's reply; the click's: interaction
    assert [m for m in fake.dms_to(world.alice) if "(action" in m.content] == [
        first,
        clicked,
        typed,
    ]

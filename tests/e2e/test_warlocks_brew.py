"""End to end: Warlock's Brew through the real ``floral-host run`` process and the fake Discord.

The match is made short by its options: 4 types of 4 copies, one copy of each removed and three
types left out leave a deck of three Eye of Newt, so the match is three auctions and ends on the
count. The players answer by button, by typed DM and by ``/submit``; one auction times out.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, User, World
from .players import answered, slash_submit, type_text

LaunchBot = Callable[..., Awaitable[BotProcess]]

BOT_ENV = {
    "FLORAL_GUILD_READY_TIMEOUT": "0.1",
    "MODERATOR_ROLE": "Floral Moderator",
    "FLORAL_GRACE_SECONDS": "3",
    "FLORAL_REMINDER_SECONDS": "1",
    "FLORAL_LOG_CHANNEL": "mod-log",
}
SHORT_DECK = "types=4, copies=4, limited_supply=1, small_selection=Bat Wing+Toadstool+Mandrake Root"
CUSTOM_ID = re.compile(r"^fx:(\d+):(\d+):(\w)$")
BIDS = re.compile(r"^Auction (\d+), [^.]+\. Bids: ", re.MULTILINE)


# --- helpers --------------------------------------------------------------------------------


async def start_bot(launch_bot: LaunchBot) -> BotProcess:
    bot = await launch_bot(env=BOT_ENV)
    await bot.wait_for_log("floral-host ready")
    return bot


async def brew_setup(fake: FakeDiscord, world: World, by: User, **options: object) -> Message:
    ix = await fake.slash(by, "brew setup", dict(options), channel=world.channel)
    return await ix.reply()


async def moderator(fake: FakeDiscord, world: World, command: str, **options: object) -> str:
    ix = await fake.slash(world.mod, command, dict(options), channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral, reply.content
    return reply.content


def coin_buttons(message: Message) -> list[str]:
    """The coin values of a prompt's buttons, in order."""
    found = [CUSTOM_ID.match(custom_id) for custom_id in message.custom_ids()]
    return [m[3] for m in found if m]


async def auction_prompt(fake: FakeDiscord, user: User, auction: int) -> Message:
    """The DM that opens ``auction`` for ``user``: their hand and the coin buttons (not a
    reminder, which repeats it)."""
    return await fake.wait_for_message(
        lambda m: (
            "\nYour hand:" in m.content
            and f"\nAuction {auction}: " in f"\n{m.content}"
            and not m.content.startswith("⏰")
        ),
        to=user,
        timeout=10,
    )


async def click_coin(fake: FakeDiscord, user: User, prompt: Message, coin: int) -> str:
    custom_id = next(c for c in prompt.custom_ids() if c.endswith(f":{coin}"))
    ix = await fake.click(user, prompt, custom_id)
    return answered(await ix.reply())


async def reveal_post(
    fake: FakeDiscord, world: World, auction: int, timeout: float = 10
) -> Message:
    return await fake.wait_for_message(
        lambda m: f"Auction {auction}, " in m.content and "Bids:" in m.content,
        channel=world.channel,
        timeout=timeout,
    )


async def assert_no_bid_shown(fake: FakeDiscord, world: World, auction: int, since: int) -> None:
    """Mid-window: the channel got nothing since the auction post, no public text shows this
    auction's bids, and neither does the status."""
    await fake.settle()
    later = [m.content for m in fake.messages_in(world.channel) if m.seq > since]
    assert not later, later
    shown = [int(a) for text in fake.public_texts() for a in BIDS.findall(text)]
    assert auction not in shown, shown
    status = await moderator(fake, world, "match status")
    assert "waiting for Carol" in status and "Alice," not in status, status
    assert "Bids" not in status and "bid" not in status.lower(), status


def assert_reveals_come_last(fake: FakeDiscord, world: World, answered: dict[int, int]) -> None:
    """Each auction's bids appear in one public message, posted after its last answer."""
    for auction, last_answer in answered.items():
        shown = [
            m
            for m in fake.messages_in(world.channel)
            if any(int(a) == auction for a in BIDS.findall(m.text()))
        ]
        assert len(shown) == 1, (auction, [m.content for m in shown])
        assert shown[0].seq > last_answer


# --- a whole match --------------------------------------------------------------------------


async def test_whole_three_player_match(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    players = {"player1": world.alice, "player2": world.bob, "player3": world.carol}
    reply = await brew_setup(fake, world, world.mod, **players, variants=SHORT_DECK, window=4)
    assert not reply.ephemeral, reply.content
    assert "Match **1**: Warlock's Brew" in reply.content and "Deck: 3 cards" in reply.content
    assert "Small Selection (Bat Wing, Toadstool, Mandrake Root)" in reply.content
    for user in (world.alice, world.bob, world.carol):
        await fake.wait_for_message(lambda m: "👋" in m.content, to=user)
    assert "started" in await moderator(fake, world, "brew start", match="m1")

    # Auction 1: all tied on 3 (a button, a typed DM, /submit); nobody sees a bid early.
    start = await fake.wait_for_message(
        lambda m: "It starts now" in m.content, channel=world.channel
    )
    assert "Auction 1: Eye of Newt is up. Deck: 2 left." in start.content
    for name in ("Alice", "Bob", "Carol"):
        assert f"{name}: brew empty; in front none" in start.content
    alice = await auction_prompt(fake, world.alice, 1)
    bob = await auction_prompt(fake, world.bob, 1)
    await auction_prompt(fake, world.carol, 1)
    assert alice.content.startswith("🃏 **How to play match 1.**")  # the first message only
    assert "\nYour hand: 1, 2, 3, 4, 5. Bid one coin." in alice.content
    assert coin_buttons(alice) == coin_buttons(bob) == ["1", "2", "3", "4", "5"]
    assert "<t:" in alice.content
    assert (await click_coin(fake, world.alice, alice, 3)).startswith("✅ You bid your 3 coin")
    assert (await type_text(fake, world.bob, "3")).startswith("✅ You bid your 3 coin")
    again = await click_coin(fake, world.bob, bob, 5)
    assert again.startswith("✖") and "first answer stands" in again, again
    await assert_no_bid_shown(fake, world, 1, start.seq)
    answered = {1: fake.mark()}
    assert (await slash_submit(fake, world.carol, world, "3")).startswith("✅ You bid your 3")
    first = await reveal_post(fake, world, 1)
    assert "Bids: Alice 3; Bob 3; Carol 3." in first.content
    assert "No unique bid: Eye of Newt leaves the game" in first.content
    assert "Auction 2: Eye of Newt is up. Deck: 1 left." in first.content
    assert "Bob: brew empty; in front 3" in first.content

    # Auction 2: a coin not held is refused; Carol times out and bids her lowest coin.
    alice = await auction_prompt(fake, world.alice, 2)
    bob = await auction_prompt(fake, world.bob, 2)
    carol = await auction_prompt(fake, world.carol, 2)
    assert alice.content.startswith("Auction 2: Eye of Newt.\nEye of Newt held: nobody.")
    assert "\nYour hand: 1, 2, 4, 5. Bid one coin." in alice.content
    assert coin_buttons(alice) == ["1", "2", "4", "5"]
    refused = await type_text(fake, world.alice, "3")
    assert refused == "✖ You don't hold a 3 coin. Your hand: 1, 2, 4, 5.", refused
    stale = await click_coin(fake, world.alice, await auction_prompt(fake, world.alice, 1), 4)
    assert stale == "✖ That prompt has expired; answer the current one.", stale
    assert (await click_coin(fake, world.alice, alice, 5)).startswith("✅ You bid your 5 coin")
    assert (await click_coin(fake, world.bob, bob, 4)).startswith("✅ You bid your 4 coin")
    await assert_no_bid_shown(fake, world, 2, first.seq)
    answered[2] = fake.mark()
    reminder = await fake.wait_for_message(lambda m: "left to answer" in m.content, to=world.carol)
    assert not reminder.custom_ids()  # one line: the prompt's own buttons still answer
    second = await reveal_post(fake, world, 2)
    assert "Bids: Alice 5; Bob 4; Carol 1 (timeout)." in second.content
    assert "Alice wins Eye of Newt with the 5 coin." in second.content
    assert "Auction 3: Eye of Newt is up. Deck: 0 left." in second.content
    assert "Alice: brew Eye of Newt; in front 3, 5" in second.content
    assert "Carol: brew empty; in front 3" in second.content
    assert not [m for m in fake.dms_to(world.alice) if "left to answer" in m.content]

    # Auction 3: Carol's 2 is the only unique bid; the count ties: a shared victory.
    alice = await auction_prompt(fake, world.alice, 3)
    bob = await auction_prompt(fake, world.bob, 3)
    carol = await auction_prompt(fake, world.carol, 3)
    assert carol.content.startswith("Auction 3: Eye of Newt.\nEye of Newt held: Alice 1.")
    assert "\nRivals can bid: Alice 1, 2, 4; Bob 1, 2" in carol.content
    assert "\nYour hand: 1, 2, 4, 5. Bid one coin." in carol.content
    assert coin_buttons(carol) == ["1", "2", "4", "5"] and coin_buttons(alice) == ["1", "2", "4"]
    assert (await click_coin(fake, world.alice, alice, 4)).startswith("✅")
    assert (await click_coin(fake, world.bob, bob, 4)).startswith("✅")
    answered[3] = fake.mark()
    assert (await click_coin(fake, world.carol, carol, 2)).startswith("✅ You bid your 2 coin")
    last = await reveal_post(fake, world, 3)
    assert "Bids: Alice 4; Bob 4; Carol 2." in last.content
    assert "Carol wins Eye of Newt with the 2 coin." in last.content
    assert "Game over: shared victory for Alice and Carol. The deck ran out." in last.content

    # One public post per auction (the start, then each reveal with the next card), one DM
    # prompt per player per auction, and every bid shown only after the auction's last answer.
    public = [m.content for m in fake.messages_in(world.channel)]
    assert len(public) == 5, public  # the setup reply, the start, three reveals
    for auction in (1, 2, 3):
        assert sum(f"Auction {auction}: Eye of Newt is up" in t for t in public) == 1, public
    hands = {
        world.alice: ["1, 2, 3, 4, 5", "1, 2, 4, 5", "1, 2, 4"],
        world.bob: ["1, 2, 3, 4, 5", "1, 2, 4, 5", "1, 2, 4, 5"],
        world.carol: ["1, 2, 3, 4, 5", "1, 2, 4, 5", "1, 2, 4, 5"],
    }
    for user, expected in hands.items():
        prompts = [
            m.content
            for m in fake.dms_to(user)
            if "\nYour hand:" in f"\n{m.content}" and not m.content.startswith("⏰")
        ]
        hands_shown = [re.findall(r"^Your hand: ([\d, ]+)\.", p, re.MULTILINE)[0] for p in prompts]
        assert hands_shown == expected
    assert_reveals_come_last(fake, world, answered)
    await fake.wait_for_message(  # the moderators' log gets the hidden state
        lambda m: m.content.startswith("**m1** · Deck (top first): Eye of Newt, Eye of Newt"),
        channel=world.mod_log,
    )
    status = await moderator(fake, world, "match status", match="m1")
    assert "finished" in status and "Winners: Alice and Carol" in status, status


# --- refusals -------------------------------------------------------------------------------


async def test_bad_setups_are_refused_and_create_nothing(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    names = [option["name"] for option in fake.command("brew setup")["options"]]
    assert names == [*(f"player{i}" for i in range(1, 7)), "variants", "window"]
    three = {"player1": world.alice, "player2": world.bob, "player3": world.carol}
    cases = {
        "limited_supply=9": "Bad option `limited_supply`: must be from 0 to 5, not 9.",
        "broke buyers, brokebuyers": "Bad variants: 'brokebuyers' is not an option; known:",
        "two_players": "Bad option `two_players`: needs exactly 2 players, not 3.",
        "small_selection=Toadstool, Nightshade": "Bad option `small_selection`: 'Nightshade'",
        "limited_supply=3": "Bad option `limited_supply`: no ingredient type can reach three",
        "magic_infused=9": "Bad option `magic_infused`: must be from 0 to 6, not 9.",
        "snakeoil_salesman=20": "Bad option `snakeoil_salesman`: removing 20 random cards",
    }
    for variants, expected in cases.items():
        reply = await brew_setup(fake, world, world.mod, **three, variants=variants)
        assert reply.ephemeral, reply.content
        assert reply.content.startswith(f"✖ No match created. {expected}"), reply.content
    twice = {"player1": world.alice, "player2": world.bob, "player3": world.alice}
    reply = await brew_setup(fake, world, world.mod, **twice)
    assert reply.ephemeral and "A player cannot take two seats" in reply.content, reply.content
    reply = await brew_setup(fake, world, world.carol, **three)
    assert reply.ephemeral and "Only moderators" in reply.content, reply.content
    assert "No matches" in await moderator(fake, world, "match list")
    for user in (world.alice, world.bob, world.carol):
        assert not fake.dms_to(user)
    duo = {"player1": world.alice, "player2": world.bob}
    reply = await brew_setup(fake, world, world.helper, **duo)  # the moderator role
    assert not reply.ephemeral and "Variants: Two Players." in reply.content, reply.content
    assert "Deck: 30 cards. Bids close after 45 s." in reply.content


async def test_utter_darkness_declaration_typed_as_a_word(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    players = {"player1": world.alice, "player2": world.bob, "player3": world.carol}
    variants = f"{SHORT_DECK}, utter_darkness"
    reply = await brew_setup(fake, world, world.mod, **players, variants=variants, window=20)
    assert not reply.ephemeral, reply.content
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    alice = await auction_prompt(fake, world.alice, 1)
    assert "fx:1:1:declare" in alice.custom_ids()  # one declaration: a button, not a menu
    declared = await type_text(fake, world.alice, "Declare")
    assert declared.startswith("✅ You declare a win"), declared
    assert (await type_text(fake, world.bob, "2")).startswith("✅")
    assert (await type_text(fake, world.carol, "4")).startswith("✅")
    reveal = await reveal_post(fake, world, 1)
    assert "wrong: eliminated" in reveal.content, reveal.content
    mark = fake.mark()
    await fake.dm_text(world.bob, "hello there")  # chat, not an answer
    hint = await fake.wait_for_message(
        lambda m: "That is not an answer to your prompt, so it is not sent." in m.content,
        to=world.bob,
        after=mark,
    )
    assert hint
    garden = await (await fake.slash(world.bob, "look", {}, channel=world.channel)).reply()
    assert garden.ephemeral and "Your hand: " in garden.content, garden.content
    status = await moderator(fake, world, "match status", match="m1")
    assert "Auction 2: Eye of Newt on offer" in status and "Your hand" not in status, status

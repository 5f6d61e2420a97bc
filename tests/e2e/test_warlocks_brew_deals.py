"""End to end: Warlock's Brew with Magic Infused (§G2) and the Deal Window (§A7) through the real
``floral-host run`` and the fake Discord.

Three players, all six effects on a deck of eight (four Eye of Newt, four Mandrake Root). The
moderators' log shows the deck; the test plans the match on the engine from it (tests/e2e/
brew_plan.py; a deck it cannot use is aborted and set up again) and plays it by button, menu and
typed DM: a deal composed with the menus and accepted, one declined, one made impossible by
another deal before its answer (refused with the reason), a Cursed choice that times out to its
default, and a deal that completes a triple and wins. Then a leak scan: nobody saw another's
hand or an offer not addressed to them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from .botproc import BotProcess
from .brew_plan import ALICE, BOB, CAROL, FAVOUR, NAMES, Move, plan
from .fake_discord import FakeDiscord, Message, User, World
from .players import slash_submit, type_text

LaunchBot = Callable[..., Awaitable[BotProcess]]

BOT_ENV = {
    "FLORAL_GUILD_READY_TIMEOUT": "0.1",
    "MODERATOR_ROLE": "Floral Moderator",
    "FLORAL_GRACE_SECONDS": "3",
    "FLORAL_REMINDER_SECONDS": "1",
    "FLORAL_LOG_CHANNEL": "mod-log",
}
WINDOW = 5  # seconds to bid; the Cursed choice's window is as short
OPTIONS = {
    "types": 4,
    "copies": 4,
    "small_selection": ["Bat Wing", "Toadstool"],
    "magic_infused": 6,
    "deal_window": 60,
    "window": WINDOW,
}
VARIANTS = "types=4, copies=4, small_selection=Bat Wing+Toadstool, magic_infused=6, deal_window=60"
TRIES = 12  # about half the decks serve; one in ten thousand runs finds none


async def moderator(fake: FakeDiscord, world: World, command: str, **options: object) -> str:
    ix = await fake.slash(world.mod, command, dict(options), channel=world.channel)
    reply = await ix.reply()
    return reply.content


async def set_up(fake: FakeDiscord, world: World) -> tuple[int, list[Move], int]:
    """A match whose deck the plan can use (the others aborted): its id, the plan, and the
    mark before it (what came earlier belongs to aborted matches)."""
    players = {"player1": world.alice, "player2": world.bob, "player3": world.carol}
    options = {**players, "variants": VARIANTS, "window": WINDOW}
    for _ in range(TRIES):
        mark = fake.mark()
        reply = await (
            await fake.slash(world.mod, "brew setup", options, channel=world.channel)
        ).reply()
        assert "Magic Infused (6 effect cards), Deal Window (60 s after each auction)" in (
            reply.content
        ), reply.content
        match = int(re.findall(r"Match \*\*(\d+)\*\*", reply.content)[0])
        assert "started" in await moderator(fake, world, "brew start", match=f"m{match}")
        log = await fake.wait_for_message(
            lambda m: "** · Deck (top first): " in m.content, channel=world.mod_log, after=mark
        )
        first = log.content.splitlines()[0]  # "**m3** · Deck (top first): a, b, …."
        assert first.startswith(f"**m{match}** · Deck (top first): "), first
        deck = first.partition("Deck (top first): ")[2].removesuffix(".")
        moves = plan(deck.split(", "), OPTIONS)
        if moves is not None:
            return match, moves, mark
        assert "aborted" in await moderator(fake, world, "match abort", match=f"m{match}")
        told = f"Match {match} is aborted"
        for user in players.values():  # told after the prompts (paced, prompts first): not a reply
            await fake.wait_for_message(lambda m, told=told: told in m.content, to=user, after=mark)
    raise AssertionError(f"no usable deck in {TRIES} matches")


def button(message: Message, label: str) -> str:
    """The custom id of the button labelled ``label`` on a prompt."""
    return str(next(c["custom_id"] for c in message.iter_components() if c.get("label") == label))


def option(message: Message, label: str) -> tuple[str, str]:
    """(menu custom id, option value) of the menu option labelled ``label``."""
    for comp in message.iter_components():
        for choice in comp.get("options") or []:
            if choice["label"] == label:
                return comp["custom_id"], choice["value"]
    raise AssertionError(f"no option {label!r}: {message.content}")


async def prompt_with(fake: FakeDiscord, user: User, text: str, after: int) -> Message:
    """The latest prompt to ``user`` since ``after`` that says ``text`` (waiting for one)."""

    def fits(m: Message) -> bool:
        return text in m.content and bool(m.custom_ids())

    await fake.wait_for_message(fits, to=user, after=after, timeout=15)
    return [m for m in fake.dms_to(user) if m.seq > after and fits(m)][-1]


async def click(fake: FakeDiscord, user: User, prompt: Message, label: str) -> None:
    reply = await (await fake.click(user, prompt, button(prompt, label))).reply()
    assert reply.content.startswith("✅"), reply.content


async def pick(fake: FakeDiscord, user: User, prompt: Message, label: str) -> None:
    menu, value = option(prompt, label)
    reply = await (await fake.select(user, prompt, menu, [value])).reply()
    assert reply.content.startswith("✅"), reply.content


class Table:
    """The three players' side of the match: each plan move played on the fake Discord."""

    def __init__(self, fake: FakeDiscord, world: World, since: int) -> None:
        self.fake, self.world, self.since = fake, world, since
        self.users = [world.alice, world.bob, world.carol]
        self.first_offer = True

    async def play(self, move: Move) -> None:
        if move.kind == "bids":
            await self.bids(move)
        elif move.kind == "curse_timeout":
            await self.curse_timeout(move)
        elif self.first_offer and move.text.startswith("offer Bob give coin 1"):
            self.first_offer = False
            await self.offer_with_menus()
        else:
            await self.answer(move)

    async def bids(self, move: Move) -> None:
        for seat, coin in move.bids.items():
            user = self.users[seat]
            await self.fake.wait_for_message(
                lambda m: f"Auction {move.auction}: " in m.content and "Bid one coin." in m.content,
                to=user,
                after=self.since,
                timeout=15,
            )
            reply = await type_text(self.fake, user, coin)
            assert reply.startswith("✅ You bid"), reply
        await self.fake.wait_for_message(
            lambda m: f"Auction {move.auction}, " in m.content and "Bids:" in m.content,
            channel=self.world.channel,
            after=self.since,
            timeout=15,
        )

    async def curse_timeout(self, move: Move) -> None:
        """The winner of the Cursed card lets its short window pass: the default goes back."""
        user = self.users[move.seat]
        prompt = await prompt_with(self.fake, user, "send one other ingredient", self.since)
        assert "If you don't choose in time: your " in prompt.content
        post = await self.fake.wait_for_message(
            lambda m: "(the window closed: the default)." in m.content,
            channel=self.world.channel,
            after=self.since,
            timeout=WINDOW + 15,
        )
        # the auction's post waited for it: only the winner decided meanwhile (one post a turn)
        (line,) = [line for line in post.content.splitlines() if "the window closed" in line]
        assert line.startswith("Cursed: ") and post.content.startswith("Auction "), post.content

    async def offer_with_menus(self) -> None:
        """Alice's first offer, composed on Discord: partner, what she gives, what she asks."""
        fake, alice = self.fake, self.world.alice
        deals = await prompt_with(fake, alice, "Deal window after auction", self.since)
        assert "Propose a deal: pick a player" in deals.content
        mark = fake.mark()
        await click(fake, alice, deals, "Propose a deal to Bob")
        give = await prompt_with(fake, alice, "step 1 of 3: what do you give Bob?", mark)
        mark = fake.mark()
        await pick(fake, alice, give, "coin 1")
        ask = await prompt_with(fake, alice, "step 2 of 3: what do you ask Bob for?", mark)
        mark = fake.mark()
        await pick(fake, alice, ask, "coin 2")
        send = await prompt_with(fake, alice, "step 3 of 3: you give coin 1; you get coin 2.", mark)
        await click(fake, alice, send, "Send the offer to Bob")
        offer = "Offer 1 from Alice: you get coin 1; you give coin 2."
        await prompt_with(fake, self.world.bob, offer, mark)

    async def answer(self, move: Move) -> None:
        """One typed deal command (Bob accepts and Alice declines by button), and what it
        makes happen before the next."""
        fake, user = self.fake, self.users[move.seat]
        mark = fake.mark()
        verb, _, rest = move.text.partition(" ")
        if verb in ("accept", "decline") and not move.refused and move.seat in (ALICE, BOB):
            prompt = await prompt_with(fake, user, f"Offer {rest} from", self.since)
            await click(fake, user, prompt, f"{verb.capitalize()} offer {rest}")
        elif move.refused:  # /submit: a refusal straight from the game, not a chat hint
            reply = await slash_submit(fake, user, self.world, move.text)
            assert reply.startswith(f"✖ {move.refused}\n"), reply  # and the prompt again
        else:
            reply = await type_text(fake, user, move.text)
            assert reply.startswith("✅"), (move, reply)
        await self.after(move, mark)

    async def after(self, move: Move, mark: int) -> None:
        """Wait for what the answer changed: the partner's prompt shows an offer, the channel a
        deal, and the answering player's own prompt (a typed DM answers the prompt shown)."""
        fake = self.fake
        verb, _, rest = move.text.partition(" ")
        if move.refused or verb == "ready":
            return  # nothing changed, or nothing more is asked of them
        if verb == "offer":
            partner = self.users[NAMES.index(rest.split(" ")[0])]
            await prompt_with(fake, partner, f"from {NAMES[move.seat]}", mark)
        if verb == "accept":
            deal = await fake.wait_for_message(
                lambda m: f"Deal (offer {rest})" in m.content,
                channel=self.world.channel,
                after=mark,
            )
            if "Game over" in deal.content:
                return
        await prompt_with(fake, self.users[move.seat], "Deal window after auction", mark)


async def test_effects_and_deals_in_a_whole_match(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await launch_bot(env=BOT_ENV)
    await bot.wait_for_log("floral-host ready")
    match, moves, since = await set_up(fake, world)
    start = await fake.wait_for_message(
        lambda m: "It starts now" in m.content, channel=world.channel, after=since
    )
    assert "6 cards of the deck carry an effect: Potent, Chameleon, Refund, Cursed" in start.content
    table = Table(fake, world, since)
    for move in moves:
        await table.play(move)
    end = await fake.wait_for_message(
        lambda m: "Game over" in m.content, channel=world.channel, after=since
    )
    assert "Game over: Alice wins. Alice completed three of a kind in a deal." in end.content

    public = "\n".join(m.content for m in fake.messages_in(world.channel))
    for text in (
        "Deal (offer 1): Alice gives Bob coin 1; Bob gives Alice coin 2.",
        "Deal (offer 4): Alice gives Carol coin 4; Carol gives Alice nothing.",
        "The deal window is closed: 2 deals made.",
    ):
        assert text in public, text
    assert any("Bob declined offer 3." in m.content for m in fake.dms_to(world.alice))
    assert any("Alice declined offer 2." in m.content for m in fake.dms_to(world.carol))
    status = await moderator(fake, world, "match status", match=f"m{match}")
    assert "Winner: Alice (deal)" in status, status
    assert_no_leak(fake, world)


def assert_no_leak(fake: FakeDiscord, world: World) -> None:
    """Nobody but its two parties saw an offer before it was made (the declined one, with its
    favour, never became public), and no hand but one's own reached anyone."""
    public = [m.content for m in fake.messages_in(world.channel)]
    for text in public:
        for secret in ("Your hand", "Offer 2", "Offer 3", FAVOUR, "Your offer"):
            assert secret not in text, (secret, text)
    parties = {ALICE: ("1", "2", "3", "4"), BOB: ("1", "3"), CAROL: ("2", "4")}
    for seat, user in enumerate((world.alice, world.bob, world.carol)):
        for message in fake.dms_to(user):
            for offer in {"1", "2", "3", "4"} - set(parties[seat]):
                assert f"Offer {offer} from" not in message.content, (seat, message.content)
                assert f"Your offer {offer} " not in message.content, (seat, message.content)
            if seat == BOB:
                assert FAVOUR not in message.content

"""End to end: Red Phoenix of the Alchemists through the real ``floral-host run`` process and the
fake Discord.

The first match is a moderator's own card set, attached to ``/phoenix setup`` as a JSON file:
the house set (``games/red_phoenix/house.json``) with Luminiferous Aether sold in the market
and three Level II successes that make Gold, so a match reaches a Gold win in minutes. The
match is dealt from a chosen seed (the ``seed`` option), so the test computes the whole match
offline with the engine (``build_plan``) and drives the three players through it: Alice
clicks buttons and picks menu options, Bob types in his DMs, Carol answers with ``/submit``.
The ``normal`` AI chooses the answers, with a few chosen moves: Alice and Bob spend their
damage items only on Carol (and buy an Acid Flask for her each turn), Carol hers only on Bob,
Bob buys an Aether, the first two trade offers go out (the first
accepted, the second declined by timeout), every ward window out of turn is warded.

``SEED`` with ``OPTIONS`` gives, in ``WINDOWS`` windows: experiments picked from the two-step
menu (the ingredients, then the method) with each outcome (successes, simple failures,
catastrophes), Bob's ward out of turn, a trade accepted and one declined by timeout, Carol's
elimination, and a Gold win; the bot is SIGKILLed in the middle of a turn (an action window
after the turn's first action) and the turn goes on with its remaining actions.
``python -m tests.e2e.test_red_phoenix FIRST LAST`` searches seeds.

The second test: bad card set files are refused in one line naming the field; then two
two-player matches whose every action window times out end at their round limit, one with the
house set, one with a moderator's own set from a file (its name and market shown).
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from cogs.prompts import choice_keys
from games.moves import play_window
from games.protocol import PUBLIC, Agent, Event, Request, Setup, derive_rng
from games.red_phoenix import AGENTS, GAME
from games.red_phoenix.cards import house_raw
from games.red_phoenix.state import State
from games.red_phoenix.words import hand_by_level

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, User, World
from .players import moderator_says as moderator
from .players import next_prompt, prompt_step, slash_submit, type_text

LaunchBot = Callable[..., Awaitable[BotProcess]]

NAMES = ("Alice", "Bob", "Carol")
SEED = 45  # see the module's docstring for what it gives
OPTIONS = {"starting_coins": 10, "starting_health": 6}
WINDOWS = 82
WINDOW, REACTION = 20, 3  # seconds: an action window, a ward / trade answer window
BOT_ENV = {
    "FLORAL_GUILD_READY_TIMEOUT": "0.1",
    "FLORAL_GRACE_SECONDS": "3",
    "FLORAL_REMINDER_SECONDS": "1",
    "FLORAL_LOG_CHANNEL": "mod-log",
}
COUNTDOWN = re.compile(r"<t:(\d+):R>")
TARGET = 2  # Carol: the only one Alice and Bob spend damage on
BUYER = 1  # Bob buys an Aether to ward with


# --- the card set and the plan ------------------------------------------------------------------


def quick_gold_set() -> dict[str, Any]:
    """The house set with Aether in the market (2 coins... 3) and Gold at Level II."""
    cards: dict[str, Any] = json.loads(house_raw())
    cards["name"] = "Quick Gold"
    for ingredient in cards["ingredients"]:
        if ingredient["id"] == "aether":
            ingredient["market"] = {"cost": 3, "stack": {"2": 2, "3": 2, "4": 2, "5": 2}}
    gold = {"id": "gold@6", "copies": 3, "name": "Gold", "kind": "success"}
    cards["results"]["II"].append({**gold, "product": "gold", "score": 6})
    return cards


@dataclass
class Window:
    """One window of the match: the request, the answer (None: it times out), what follows."""

    before: State
    request: Request
    answer: str | None
    tag: str = ""  # "accept", "timeout", "ward", "kill"
    after: State | None = None
    events: list[Event] = field(default_factory=list)


@dataclass
class Plan:
    seed: int
    windows: list[Window] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)

    def tagged(self, tag: str) -> Window:
        return next(w for w in self.windows if w.tag == tag)


def plan_answer(plan: Plan, state: State, request: Request, agent: Agent) -> Window:
    """The chosen moves, else the AI's answer among the choices it may make."""
    g = state.g
    values = [c.value for c in request.choices]
    window = Window(state, request, None)
    offers = plan.seen.count("offer")
    if request.kind == "action" and offers < 2 and g["turn"] >= 2 + 2 * offers:
        trades = [v for v in values if v.startswith("trade ")]
        if trades:
            plan.seen.append("offer")
            window.answer = trades[0]
            return window
    if request.kind == "trade_response":  # the first accepted, the second left to time out
        window.tag = "timeout" if "accept" in plan.seen else "accept"
        plan.seen.append(window.tag)
        window.answer = "accept" if window.tag == "accept" else None
        return window
    if request.kind == "ward" and request.seat != g["active"]:
        window.tag = "ward" if "ward" not in plan.seen else ""
        plan.seen.append("ward")
        window.answer = "ward"
        return window
    # Bob buys an Aether when he holds none, until he has warded once
    wants_aether = "aether" not in g["players"][BUYER]["hand"] and "ward" not in plan.seen
    if request.seat == BUYER and "buy aether" in values and wants_aether:
        window.answer = "buy aether"
        return window
    if request.kind == "action" and request.seat != TARGET and "Carol" in str(values):
        flask = [v for v in values if v == f"use acid_flask {NAMES[TARGET]}"]
        buy = "acid_flask" not in g["players"][request.seat]["used"] and g["ap"] >= 2
        if flask or (buy and "buy acid_flask" in values):  # Alice and Bob wear Carol down
            window.answer = flask[0] if flask else "buy acid_flask"
            return window
    if request.kind == "action":
        allowed = tuple(c for c in request.choices if may_choose(request.seat, c.value))
        request = dataclasses.replace(request, choices=allowed)
    window.answer = agent.act(request, GAME.view(state, request.seat))
    return window


def may_choose(seat: int, value: str) -> bool:
    """Alice and Bob spend damage and steals on Carol only; Carol on Bob (who wards); no other
    offers."""
    words = value.split()
    if value.startswith("trade ") or value == "buy aether":
        return False
    if words[0] == "use" and len(words) == 3:
        return words[2] == NAMES[TARGET if seat != TARGET else BUYER]
    return True


def build_plan(seed: int) -> Plan:
    """The whole match under the plan (the config as ``/phoenix setup`` gives it)."""
    plan = Plan(seed)
    cards = quick_gold_set()
    config = GAME.parse_config({**OPTIONS, "seed": seed, "card_set": cards}, len(NAMES))
    state, _ = GAME.new_match(Setup(config, len(NAMES), 0, NAMES))
    agents = [AGENTS["normal"](s, derive_rng(seed, "e2e", s)) for s in range(len(NAMES))]
    ap = int(config["ap_per_turn"])
    while GAME.outcome(state) is None and len(plan.windows) < 400:
        requests = GAME.requests(state)
        request = requests[0]
        window = plan_answer(plan, state, request, agents[request.seat])
        mid_turn = request.kind == "action" and 0 < state.g["ap"] < ap
        # Alice, mid-turn: she answers on the prompt sent before the kill
        late = state.g["turn"] >= 4 and request.seat == 0 and "kill" not in plan.seen
        if not window.tag and mid_turn and late:
            window.tag = "kill"
            plan.seen.append("kill")
        alive = sum(p["alive"] for p in state.g["players"])
        attempts = {request.seat: [window.answer]} if window.answer is not None else {}
        moves = play_window(requests, attempts, partial(GAME.submit, state)).moves
        state, window.events = GAME.resolve(state, moves)
        window.after = state
        plan.windows.append(window)
        text = "\n".join(e.text for e in window.events if e.audience == PUBLIC)
        for tag, line in (
            ("success", ": met! "),
            ("simple", "Simple Failure: "),
            ("catastrophe", ": a catastrophe."),
        ):
            if line in text:
                plan.seen.append(tag)
        if GAME.outcome(state) is None and sum(p["alive"] for p in state.g["players"]) < alive:
            plan.seen.append("elimination")
    outcome = GAME.outcome(state)
    if outcome is not None and outcome.reason == "gold":
        plan.seen.append("gold")
    return plan


NEEDED = {
    "success",
    "simple",
    "catastrophe",
    "ward",
    "accept",
    "timeout",
    "elimination",
    "gold",
}


def search(first: int, last: int) -> None:
    for seed in range(first, last):
        plan = build_plan(seed)
        if NEEDED | {"kill"} <= set(plan.seen):
            print(seed, len(plan.windows), flush=True)


# --- helpers ------------------------------------------------------------------------------------


async def start_bot(launch_bot: LaunchBot) -> BotProcess:
    bot = await launch_bot(env=BOT_ENV)
    await bot.wait_for_log("floral-host ready")
    return bot


async def click_answer(
    fake: FakeDiscord, user: User, prompt: Message, request: Request, answer: str
) -> str | None:
    """Answer by the prompt's components (a button, or a menu's option on its first page);
    None: no component shows the answer."""
    values = [c.value for c in request.choices]
    keys = choice_keys(values)
    if not all(v in values for v in request.split_answer(answer)):
        return None  # a command the AI built (a purchase, an experiment): typed
    wanted = [keys[values.index(v)] for v in request.split_answer(answer)]
    for custom_id in prompt.custom_ids():
        comp = prompt.component(custom_id)
        if comp.get("type") == 2 and len(wanted) == 1 and custom_id.endswith(f":{wanted[0]}"):
            ix = await fake.click(user, prompt, custom_id)
            break
        options = [o["value"] for o in comp.get("options") or []]
        if comp.get("type") == 3 and all(k in options for k in wanted):
            ix = await fake.select(user, prompt, custom_id, wanted)
            break
    else:
        return None
    reply = await ix.reply()
    assert reply.ephemeral
    return reply.content


class Driver:
    """Plays the plan's windows through Discord and checks what the bot shows on the way."""

    def __init__(
        self, fake: FakeDiscord, world: World, users: list[User], bot: BotProcess, plan: Plan
    ) -> None:
        self.fake, self.world, self.users, self.bot, self.plan = fake, world, users, bot, plan
        self.floor = 0  # the last window step seen
        self.prompts: dict[int, Message] = {}  # window index -> its prompt
        self.ways: list[str] = []
        self.restarted = 0  # the message mark at the SIGKILL

    async def answer(self, window: Window, prompt: Message) -> None:
        answer, request = window.answer, window.request
        assert answer is not None
        user = self.users[request.seat]
        reply: str | None = None
        if user is self.world.alice:
            reply = await click_answer(self.fake, user, prompt, request, answer)
            self.ways.append("click" if reply is not None else "typed")
        if user is self.world.carol:
            reply = await slash_submit(self.fake, user, self.world, answer)
            self.ways.append("submit")
        if reply is None:  # Bob, a choice on a later page of a menu, or no choice at all
            reply = await type_text(self.fake, user, answer)
            self.ways.append("typed")
        assert reply.startswith("✅"), (NAMES[request.seat], answer, reply)

    async def play(self, index: int, window: Window) -> None:
        request = window.request
        user = self.users[request.seat]
        prompt = await next_prompt(self.fake, user, self.floor, timeout=REACTION + 15)
        step = prompt_step(prompt)
        assert step is not None
        self.floor = step
        self.prompts[index] = prompt
        assert "<t:" in prompt.content  # the countdown
        if request.kind == "action":  # the hand, refreshed each window
            before = window.before
            hand = hand_by_level(before.cards, before.g["players"][request.seat]["hand"])
            assert f"Hand: {hand}." in prompt.content, (hand, prompt.content)
        if window.tag == "kill":
            await self.kill_mid_turn(prompt)
        if window.answer is not None:
            await self.answer(window, prompt)

    async def kill_mid_turn(self, prompt: Message) -> None:
        """SIGKILL with an action window open after the turn's first action, back at once: the
        window keeps its deadline (the status shows the prompt's countdown) and its prompt."""
        deadline = COUNTDOWN.search(prompt.content)
        assert deadline, prompt.content
        # the prompt's pass of the outbox is recorded as sent (a kill before that re-sends it
        # after the restart, late, and the seat rightly gets the time back)
        await self.fake.settle(idle=0.2)
        mark = self.fake.mark()
        await self.bot.kill()
        await self.bot.start()
        await self.bot.wait_for_log("floral-host ready")
        status = await moderator(self.fake, self.world, "match status", match="m1")
        assert f"closes <t:{deadline[1]}:R>; waiting for Alice" in status.content, status.content
        self.restarted = mark

    async def run(self) -> None:
        for index, window in enumerate(self.plan.windows):
            await self.play(index, window)


def public_texts(fake: FakeDiscord, world: World) -> list[str]:
    return [
        t for m in fake.messages_in(world.channel, include_ephemeral=True) for t in m.all_texts()
    ]


def assert_no_secret_leaks(fake: FakeDiscord, world: World, users: list[User], plan: Plan) -> None:
    """No hand (as its owner's prompt shows it) and no private result (a steal, a trade's
    cards) appears in the channel or in another player's DMs."""
    public = public_texts(fake, world)
    dms = {u.id: [t for m in fake.dms_to(u) for t in m.all_texts()] for u in users}
    secrets: set[tuple[int, str]] = set()
    for window in plan.windows:
        for state in (window.before, window.after):
            assert state is not None
            for seat in range(len(NAMES)):
                for secret in GAME.secrets(state, seat):
                    secrets |= {(seat, text) for text in secret.texts}
    hands = [s for s in secrets if s[1].startswith("Your hand (") and "," in s[1]]
    private = [s for s in secrets if not s[1].startswith("Your hand (")]
    assert len(hands) >= 8 and private, (len(hands), private)
    told = {
        s: "\n".join(
            e.text
            for w in plan.windows
            for e in w.events
            if e.audience.reaches(s) and e.audience != PUBLIC
        )
        for s in range(len(NAMES))
    }
    for seat, needle in secrets:
        # a trade's details are told to both its sides: the other side may read them
        readers = [u for s, u in enumerate(users) if s != seat and needle not in told[s]]
        others = [t for u in readers for t in dms[u.id]]
        assert not [t for t in public if needle in t], (NAMES[seat], needle)
        assert not [t for t in others if needle in t], (NAMES[seat], needle)
    for seat, user in enumerate(users):  # every hand a DM shows is its reader's own
        own = {text for s, text in secrets if s == seat} | {"Your hand (0 cards): empty."}
        shown = {m[0] for t in dms[user.id] for m in re.finditer(r"Your hand \(.*?\.$", t, re.M)}
        assert shown <= own, (NAMES[seat], shown - own)


# --- the match ----------------------------------------------------------------------------------


async def test_three_player_match_with_own_card_set_to_a_gold_win(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    users = [world.alice, world.bob, world.carol]
    bot = await start_bot(launch_bot)
    plan = build_plan(SEED)
    assert NEEDED | {"kill"} <= set(plan.seen), plan.seen
    assert len(plan.windows) == WINDOWS

    cards = fake.upload("quick-gold.json", json.dumps(quick_gold_set()).encode())
    options = ", ".join(f"{k}={v}" for k, v in {**OPTIONS, "seed": SEED}.items())
    players = {f"player{n}": u for n, u in enumerate(users, start=1)}
    setup = await moderator(
        fake,
        world,
        "phoenix setup",
        **players,
        card_set=cards,
        options=options,
        window=WINDOW,
        reaction_window=REACTION,
    )
    assert not setup.ephemeral, setup.content
    assert "Match **1**: Red Phoenix of the Alchemists" in setup.content, setup.content
    assert "Card set: Quick Gold (the moderator's own)." in setup.content, setup.content
    assert "starting Health 6, starting coins 10" in setup.content, setup.content
    assert f"Action windows: {WINDOW} s; Reaction windows: {REACTION} s." in setup.content
    started = await moderator(fake, world, "phoenix start", match="m1")
    assert "is started" in started.content, started.content

    driver = Driver(fake, world, users, bot, plan)
    t0 = time.monotonic()
    await driver.run()
    final = plan.windows[-1].after
    assert final is not None and GAME.outcome(final) is not None
    winner = NAMES[final.g["winners"][0]]
    await fake.wait_for_message(
        lambda m: f"{winner} has made Gold and wins!" in m.content, channel=world.channel
    )
    await fake.settle()
    played = time.monotonic() - t0
    public = public_texts(fake, world)
    everything = "\n".join(public)

    # every public event of the plan, as the channel saw it; the table once at each turn
    for window in plan.windows:
        for event in window.events:
            if event.audience == PUBLIC and event.text:
                for line in event.text.splitlines():
                    assert line in everything, line
    tables = [e.data["summary"] for w in plan.windows for e in w.events if "summary" in e.data]
    numbers = [int(re.findall(r"Table, turn (\d+)", table)[0]) for table in tables]
    assert numbers == list(range(2, numbers[-1] + 1))
    # the last turn's table unless its Gold came before its first action (a slow experiment)
    assert numbers[-1] in (final.g["turn"] - 1, final.g["turn"])
    assert "**Table, turn 1: " in everything  # the start post's
    for table in tables:
        assert sum(table in t for m in fake.messages_in(world.channel) for t in [m.content]) == 1

    # the situations of the plan, as the channel saw them
    assert ": met! " in everything and "Simple Failure: " in everything
    assert ": a catastrophe." in everything and "Carol is eliminated." in everything
    assert "Bob wards with Luminiferous Aether and loses nothing." in everything
    assert "accepts the trade." in everything
    assert "trade response window timed out." in everything

    # the ward and trade windows reached only the players concerned
    ward = plan.tagged("ward")
    ward_prompt = next(p for i, p in driver.prompts.items() if plan.windows[i] is ward)
    labels = [str(ward_prompt.component(c).get("label", "")) for c in ward_prompt.custom_ids()]
    assert any("Ward with your" in label for label in labels), labels  # the button says it
    assert ward_prompt.channel_id == fake.dm_channel(users[ward.request.seat]).id
    for tag in ("accept", "timeout"):
        window = plan.tagged(tag)
        others = [u for s, u in enumerate(users) if s != window.request.seat]
        prompt = next(p for i, p in driver.prompts.items() if plan.windows[i] is window)
        assert "offers you a trade" in prompt.content
        for other in others:
            step = prompt_step(prompt)
            assert not [m for m in fake.dms_to(other) if prompt_step(m) == step]

    # experiments picked from the prompts' two-step menu: every declaration is the page's command
    declared = [w for w in plan.windows if w.answer and w.answer.split()[0] in ("slow", "fast")]
    assert len(declared) >= 5
    for window in declared:
        speed, method, *_ = str(window.answer).split()
        name = window.before.cards.methods[method].name
        assert f"starts a {speed} experiment, {name} (" in everything
    menus = [w for w in declared if w.answer in {c.value for c in w.request.choices}]
    assert menus and all(w.request.presentation["experiment"] == "steps" for w in menus)

    # the kill: the turn went on with its remaining actions, on the prompt sent before it
    kill = plan.windows.index(plan.tagged("kill"))
    after = plan.windows[kill + 1]
    assert after.request.seat == plan.windows[kill].request.seat == 0
    assert after.before.g["turn"] == plan.windows[kill].before.g["turn"]
    assert 0 < after.before.g["ap"] <= plan.windows[kill].before.g["ap"] < 3
    killed = driver.prompts[kill]
    assert driver.restarted and not [  # no reopening: the window was never past its deadline
        m
        for m in fake.dms_to(world.alice)
        if m.seq > driver.restarted and prompt_step(m) == prompt_step(killed)
    ]
    assert not [m for m in public if "restarted while match" in m]

    assert {"click", "typed", "submit"} <= set(driver.ways)
    assert_no_secret_leaks(fake, world, users, plan)
    status = (await moderator(fake, world, "match status", match="m1")).content
    assert "finished" in status and f"Winner: {winner}" in status, status
    print(f"played {len(plan.windows)} windows in {played:.1f} s")


# --- the house set, refusals ----------------------------------------------------------------------


async def test_bad_card_set_files_are_refused_then_the_house_set_and_an_own_set_play(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    names = [option["name"] for option in fake.command("phoenix setup")["options"]]
    assert names == [
        *(f"player{i}" for i in range(1, 6)),
        "card_set",
        "options",
        "window",
        "reaction_window",
    ]
    duo = {"player1": world.alice, "player2": world.bob}
    broken = quick_gold_set()
    broken["results"]["I"][3]["product"] = "unobtainium"
    endless = quick_gold_set()
    for ingredient in endless["ingredients"]:
        ingredient.pop("wins", None)
    cases: dict[bytes, str] = {
        b"{not json": "Bad option `card_set`: the file is not valid JSON (line 1).",
        b"[1, 2]": "Bad option `card_set`: the file must hold one JSON object.",
        b"\xff\xfe": "Bad option `card_set`: the file is not UTF-8 text.",
        b" " * (256 * 1024 + 1): "Bad option `card_set`: the file has 262145 bytes",
        json.dumps(broken).encode(): "Bad option `card_set.results.I[3].product`:",
        json.dumps(endless).encode(): "Bad option `card_set.ingredients`: no type has "
        '"wins": true: the game could not end.',
    }
    for data, expected in cases.items():
        upload = fake.upload("set.json", data)
        reply = await moderator(fake, world, "phoenix setup", **duo, card_set=upload)
        assert reply.ephemeral, reply.content
        assert reply.content.startswith(f"✖ No match created. {expected}"), reply.content
        assert "\n" not in reply.content
    bad_options = {
        "max_rounds=0": "Bad option `max_rounds`: must be a whole number from 1",
        "window_s=3": "Bad options: window_s is set by the command's `window` option",
        "simple_failure=maybe": "Bad option `simple_failure`: must be one of market, nothing",
        "colour=red": "Bad options: 'colour' is not an option; known:",
    }
    for text, expected in bad_options.items():
        reply = await moderator(fake, world, "phoenix setup", **duo, options=text)
        assert reply.ephemeral and reply.content.startswith(f"✖ No match created. {expected}"), (
            reply.content
        )
    assert "No matches" in (await moderator(fake, world, "match list")).content
    dm_ids = {fake.dm_channel(u).id for u in (world.alice, world.bob)}

    # the house set: each turn's only window times out (3 coins per AP, then the turn ends)
    reply = await moderator(
        fake, world, "phoenix setup", **duo, options="max_rounds=1, seed=5", window=2
    )
    assert not reply.ephemeral and "Card set: House set 1." in reply.content, reply.content
    assert "round limit 1" in reply.content, reply.content
    assert "is started" in (await moderator(fake, world, "phoenix start", match="m1")).content
    first = await fake.wait_for_message(
        lambda m: prompt_step(m) is not None and m.channel_id in dm_ids, timeout=10
    )
    look = await (await fake.slash(world.alice, "look", {}, channel=world.channel)).reply()
    assert look.ephemeral and "House set 1, turn 1: " in look.content, look.content
    assert "Your hand (0 cards): empty." in look.content, look.content
    assert "Market: Salt 6 (1 coin), Brimstone 6 (1 coin)," in look.content, look.content
    end = await fake.wait_for_message(
        lambda m: "The round limit (1 turns each) ends the game." in m.content,
        channel=world.channel,
        timeout=20,
    )
    timed_out = [t for t in public_texts(fake, world) if "action window timed out." in t]
    assert len(timed_out) == 2, end.content
    assert "takes 9 coins with the 3 AP left." in end.content, end.content
    assert "Turn 1, your turn: 3 AP" in first.content and "Hand: empty." in first.content, (
        first.content
    )
    status = (await moderator(fake, world, "match status", match="m1")).content
    assert "finished" in status and "Winners: Alice and Bob" in status, status

    # a second match with the moderator's own set from a file: its name and its market
    guild_set = json.loads(house_raw())
    guild_set["name"] = "Our Guild Set"
    for ingredient in guild_set["ingredients"]:
        if ingredient["id"] == "salt":
            ingredient["market"] = {"cost": 2, "stack": {"2": 3, "3": 3, "4": 4, "5": 4}}
    upload = fake.upload("guild.json", json.dumps(guild_set, indent=1).encode())
    reply = await moderator(
        fake, world, "phoenix setup", **duo, card_set=upload, options="max_rounds=1", window=2
    )
    assert not reply.ephemeral, reply.content
    assert "Card set: Our Guild Set (the moderator's own)." in reply.content, reply.content
    mark = fake.mark()
    assert "is started" in (await moderator(fake, world, "phoenix start", match="m2")).content
    table = await fake.wait_for_message(
        lambda m: "**Table, turn 1: " in m.content, channel=world.channel, after=mark
    )
    assert "Market: Salt 3, Brimstone 6," in table.content, table.content
    prompt = await fake.wait_for_message(
        lambda m: prompt_step(m) is not None and m.channel_id in dm_ids, after=mark
    )
    assert "Buy Salt (2 coins)" in prompt.text(), prompt.text()
    await fake.wait_for_message(
        lambda m: "The round limit (1 turns each) ends the game." in m.content,
        channel=world.channel,
        after=mark,
        timeout=20,
    )
    cards = await (
        await fake.slash(world.carol, "phoenix cards", {"match": "m2"}, channel=world.channel)
    ).reply()
    assert cards.ephemeral, cards.content
    assert cards.content.startswith("The card set of match m2: Our Guild Set"), cards.content
    listing = cards.content + "".join(a.text for a in cards.attachments)
    assert "Salt (Level I; 2 coins in the market), 8 copies" in listing, listing
    assert "Gold (making it wins the game), 4 copies" in listing, listing


if __name__ == "__main__":
    search(int(sys.argv[1]), int(sys.argv[2]))

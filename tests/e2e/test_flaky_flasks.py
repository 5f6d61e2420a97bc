"""End to end: Flaky Flasks through the real ``floral-host run`` process and the fake Discord.

The match: three players, the 6-round schedule, played to its end. It is dealt from a chosen seed
(the ``seed`` option), so the test computes the whole match offline with the engine
(``build_plan``) and drives the three players through it: Alice clicks buttons and picks menu
options, Bob types in his DMs, Carol answers with ``/submit`` (an answer no button shows, such as a
tile layout or an offer, is typed). The normal agent (the brewer) chooses the answers, with a few
chosen moves: Alice buys Shadow Moths (a Hex), Bob and Carol buy Ward Candles (a Counter); everyone
Hexes and Counters whenever they can; in round 1 Alice's offer to Bob is accepted and Bob's to
Carol refused; in round 2 Alice's offer to Carol is left to time out. One window of each kind is
left to time out to its default: a setup, a Hex, a Counter (two could counter: one does, the other
times out), a work window (its one deadline ends every seat's part), a market sub-turn (the default
sells every potion at its best panel), an offer and a reply. The bot is SIGKILLed during the Market
Phase, with a market prompt open, and the match goes on from that prompt.

A work window goes at each seat's own pace (§6.3): every command resolves alone and the
player is asked the next one at once, while the others' prompts stand; the plan sends them one
at a time. ``SEED`` gives all of it in ``WINDOWS`` host windows: the Hex answered by a chain of
two Counters (Alice's Shadow Moth on Bob; Bob counters with a Ward Candle, Carol lets that
window time out, then counters Bob's Counter, so the Moth resolves), purchases and sales in
every Market, both bargains in round 1. ``python -m tests.e2e.test_flaky_flasks FIRST
LAST`` searches seeds. The match's ``/match export`` replays to the same end.

The second test: bad content set files and options are refused in one line naming the field; a
moderator's own set from a file plays (its prices in the table) and ``/look`` shows the asker's
own hand; a four-player match sets up and starts.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from cogs.prompts import choice_keys
from games.flaky_flasks import GAME, replay_script
from games.flaky_flasks.agents import BrewerAgent
from games.flaky_flasks.engine import content_of
from games.flaky_flasks.render import hand_text
from games.flaky_flasks.rules import collection
from games.moves import play_window
from games.protocol import PUBLIC, Event, Request, Setup, derive_rng
from games.text import names_text

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, User, World
from .players import answered, next_prompt, prompt_step, slash_submit, type_text
from .players import moderator_says as moderator

HOUSE = Path(__file__).resolve().parents[2] / "games" / "flaky_flasks" / "house.json"

LaunchBot = Callable[..., Awaitable[BotProcess]]

NAMES = ("Alice", "Bob", "Carol")
SEED = 2  # see the module's docstring for what it gives
OPTIONS: dict[str, Any] = {"rounds": 6}
WINDOWS = 314
# seconds: setup / Hex / market / offer / reply windows; a Counter; each turn's work clock
WINDOW, REACTION, WORK = 3, 3, 8
BOT_ENV = {
    "FLORAL_GUILD_READY_TIMEOUT": "0.1",
    "FLORAL_GRACE_SECONDS": "3",
    "FLORAL_REMINDER_SECONDS": "1",
    "FLORAL_LOG_CHANNEL": "mod-log",
}
COUNTDOWN = re.compile(r"<t:(\d+):R>")
WANTS = {0: ["moth", "moth"], 1: ["candle", "candle"], 2: ["candle", "candle"]}
KINDS = ("setup", "hex", "counter", "work", "market", "offer", "reply")


# --- the plan -----------------------------------------------------------------------------------


@dataclass
class Window:
    """One host window: its requests, each seat's answer (None: it times out), what follows."""

    before: Any
    requests: list[Request]
    answers: dict[int, str | None] = field(default_factory=dict)
    tags: dict[int, str] = field(default_factory=dict)  # seat -> "timeout:<kind>", "kill"
    after: Any = None
    events: list[Event] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.requests[0].kind


@dataclass
class Plan:
    seed: int
    windows: list[Window] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    bought: dict[int, list[str]] = field(default_factory=lambda: {0: [], 1: [], 2: []})

    def tagged(self, tag: str) -> tuple[int, Window, int]:
        """The window index, the window and the seat of a tag."""
        return next(
            (i, w, s) for i, w in enumerate(self.windows) for s, t in w.tags.items() if t == tag
        )


def offer_text(state: Any, seat: int, to: int) -> str | None:
    """A starter card for a starter card: both still own them."""
    g = state["g"]
    mine, theirs = collection(g["players"][seat]), collection(g["players"][to])
    give = next((c for c in ("copper", "glass", "jade") if c in mine), None)
    get = next((c for c in ("ember", "frost", "moss", "ice") if c in theirs), None)
    if give is None or get is None:
        return None
    return f"offer {NAMES[to]} give card:{give} get card:{get}"


def timeout_here(plan: Plan, state: Any, window: Window, seat: int) -> bool:
    """The one window of this kind (setup, Hex, work, market) that times out."""
    g, kind = state["g"], window.kind
    if f"timeout:{kind}" in plan.seen:
        return False
    if kind == "market":  # a market sub-turn with potions to sell: the default sells them
        return g["round"] >= 2 and bool(g["players"][seat]["potions"])
    if kind == "work":  # the first command of a turn, Carol silent: everyone's turn ends
        return g["round"] >= 3 and len(window.requests) == 3 and seat == 2
    if kind == "hex":
        return "chain2" in plan.seen
    return kind == "setup"


def offer_answer(plan: Plan, state: Any, seat: int, window: Window) -> str | None:
    seen, round_ = plan.seen, state["g"]["round"]
    chosen = {  # (round, seat) -> (to whom, tag)
        (1, 0): (1, "offer:accept"),
        (1, 1): (2, "offer:refuse"),
        (2, 0): (2, "offer:timeout"),
    }
    if (round_, seat) in chosen and chosen[round_, seat][1] not in seen:
        to, tag = chosen[round_, seat]
        text = offer_text(state, seat, to)
        if text:
            seen.append(tag)
            return text
    if round_ == 2 and "timeout:offer" not in seen:
        seen.append("timeout:offer")
        window.tags[seat] = "timeout:offer"
        return None
    return "pass"


def plan_answer(
    plan: Plan, state: Any, request: Request, agent: BrewerAgent, window: Window
) -> str | None:
    """The chosen moves, else the normal agent's answer (None: the window times out)."""
    seat, kind, seen = request.seat, request.kind, plan.seen
    values = [c.value for c in request.choices]
    if kind in ("setup", "hex", "market", "work") and timeout_here(plan, state, window, seat):
        seen.append(f"timeout:{kind}")
        window.tags[seat] = f"timeout:{kind}"
        return None
    if kind == "offer":
        return offer_answer(plan, state, seat, window)
    if kind == "reply":
        if "offer:timeout" in seen and "timeout:reply" not in seen:
            seen.append("timeout:reply")
            window.tags[seat] = "timeout:reply"
            return None
        tag = "reply:refuse" if "reply:accept" in seen else "reply:accept"
        seen.append(tag)
        return tag.split(":")[1]
    if kind == "hex":
        hexes = [v for v in values if v.startswith("hex ")]
        if hexes:
            return hexes[0]
    if kind == "counter":
        return next((v for v in values if v.startswith("counter ")), "pass")
    if kind == "market":
        bought = plan.bought[seat]
        for want in dict.fromkeys(WANTS[seat]):
            if bought.count(want) < WANTS[seat].count(want) and f"buy {want}" in values:
                bought.append(want)
                return f"buy {want}"
    return agent.act(request, GAME.view(state, seat))


def build_plan(seed: int, limit: int = 600) -> Plan:
    """The whole match under the plan (the config as ``/flasks setup`` gives it)."""
    plan = Plan(seed)
    config = GAME.parse_config({**OPTIONS, "seed": seed}, len(NAMES))
    state, _ = GAME.new_match(Setup(config, len(NAMES), 0, NAMES))
    agents = [BrewerAgent(s, derive_rng(seed, "e2e", s)) for s in range(len(NAMES))]
    silent: set[str] = set()  # work windows a seat let time out: the deadline ends them
    while GAME.outcome(state) is None and len(plan.windows) < limit:
        requests = GAME.requests(state)
        window = Window(state, requests)
        label = state["g"]["win"]["label"]
        if window.kind == "counter" and len(requests) >= 2 and "timeout:counter" not in plan.seen:
            quiet = requests[-1].seat  # two could counter: one does, the other times out
            plan.seen.append("timeout:counter")
            window.tags[quiet] = "timeout:counter"
            window.answers[quiet] = None
        # at their own pace (§6.3) the seats' commands come one at a time: Carol's first, so
        # that her silence in one turn's first command leaves the others nothing done
        ordered = requests[::-1] if window.kind == "work" else requests
        for request in ordered:
            if request.seat not in window.answers and label not in silent:
                answer = plan_answer(plan, state, request, agents[request.seat], window)
                window.answers[request.seat] = answer
                if answer is None and window.kind == "work":
                    silent.add(label)
                if answer is not None and request.close == "each":
                    break  # §6.3: each command resolves alone, the others' prompts stand
        attempts = {s: [a] for s, a in window.answers.items() if a is not None}
        played = play_window(requests, attempts, partial(GAME.submit, state))
        assert all(played.moves.get(s) is not None for s in attempts), played
        state, window.events = GAME.resolve(state, played.moves)
        window.after = state
        chain = window.before["g"]["ritual"]["chain"]
        countered = any(a and a.startswith("counter ") for a in window.answers.values())
        if window.kind == "counter" and len(chain) == 2 and countered:
            plan.seen.append("chain2")
        if window.kind == "market":
            answers = [a for a in window.answers.values() if a]
            plan.seen += [a.split()[0] for a in answers if a.startswith(("buy", "sell"))]
        kill = window.kind == "market" and state["g"]["round"] == 3 and 0 in attempts
        if kill and "kill" not in plan.seen:
            plan.seen.append("kill")
            window.tags[0] = "kill"
        plan.windows.append(window)
    return plan


NEEDED = {
    "chain2",
    "buy",
    "sell",
    "kill",
    "offer:accept",
    "offer:refuse",
    "reply:accept",
    "reply:refuse",
    *(f"timeout:{kind}" for kind in KINDS),
}


def search(first: int, last: int) -> None:
    for seed in range(first, last):
        plan = build_plan(seed)
        missing = NEEDED - set(plan.seen)
        print(seed, len(plan.windows), sorted(missing), flush=True)


# --- helpers ------------------------------------------------------------------------------------


async def click_answer(
    fake: FakeDiscord, user: User, prompt: Message, request: Request, answer: str
) -> tuple[str, str] | None:
    """Answer by the prompt's components (a button, or a menu's option on its first page): the
    reply and ``"click"`` or ``"select"``; None: no component shows the answer."""
    values = [c.value for c in request.choices]
    if answer not in values:
        return None
    keys = choice_keys(values)
    wanted = keys[values.index(answer)]
    for custom_id in prompt.custom_ids():
        comp = prompt.component(custom_id)
        if comp.get("type") == 2 and custom_id.endswith(f":{wanted}"):
            ix, way = await fake.click(user, prompt, custom_id), "click"
            break
        options = [o["value"] for o in comp.get("options") or []]
        if comp.get("type") == 3 and wanted in options:
            ix, way = await fake.select(user, prompt, custom_id, [wanted]), "select"
            break
    else:
        return None
    return answered(await ix.reply()), way


class Driver:
    """Plays the plan's windows through Discord and checks what the bot shows on the way."""

    def __init__(
        self, fake: FakeDiscord, world: World, users: list[User], bot: BotProcess, plan: Plan
    ) -> None:
        self.fake, self.world, self.users, self.bot, self.plan = fake, world, users, bot, plan
        self.floor = 0  # the last window step seen
        self.prompts: dict[tuple[int, int], Message] = {}  # (window index, seat) -> prompt
        self.held: dict[int, tuple[Request, Message]] = {}  # seat -> the prompt it still holds
        self.ways: list[str] = []
        self.killed_at = 0  # the message mark at the SIGKILL
        self.reopened = False  # the restart came too late for the window: reopened for grace

    async def answer(self, request: Request, answer: str, prompt: Message) -> None:
        user = self.users[request.seat]
        reply: str | None = None
        if user is self.world.alice:
            clicked = await click_answer(self.fake, user, prompt, request, answer)
            if clicked is not None:
                reply, way = clicked
                self.ways.append(f"{way}:{request.kind}")
        elif user is self.world.carol:
            reply = await slash_submit(self.fake, user, self.world, answer)
            self.ways.append("submit")
        if reply is None:  # Bob, Alice's typed layout or offer or a choice on a later page
            reply = await type_text(self.fake, user, answer)
            self.ways.append("typed")
        assert reply.startswith("✅"), (NAMES[request.seat], answer, reply)

    async def play(self, index: int, window: Window) -> None:
        wait = WINDOW + REACTION + WORK + 15  # the window before may time out
        steps = set()
        for request in window.requests:
            user = self.users[request.seat]
            held = self.held.get(request.seat)
            if held is not None and held[0] == request:  # §6.3: its prompt still stands
                self.prompts[index, request.seat] = held[1]
                continue
            prompt = await next_prompt(self.fake, user, self.floor, timeout=wait)
            steps.add(prompt_step(prompt))
            self.prompts[index, request.seat] = prompt
            self.held[request.seat] = (request, prompt)
            assert "<t:" in prompt.content  # the countdown
            p = window.before["g"]["players"][request.seat]
            if request.kind == "hex" or (request.kind == "work" and p["stage"] == "play"):
                # the hand, by name with each card's symbols, once, where a card can be played
                shown = hand_text(content_of(window.before), p["hand"])
                assert prompt.content.count(shown) == 1, prompt.content
                assert prompt.content.count("Hand: ") == 1, prompt.content
        assert len(steps) <= 1, (index, steps)  # the new prompts of a window: one step
        self.floor = steps.pop() if steps else self.floor  # none: every prompt still stands
        if 0 in window.tags and window.tags[0] == "kill":
            await self.kill(self.prompts[index, 0])
        for request in window.requests:
            answer = window.answers.get(request.seat)
            if answer is not None:
                await self.answer(request, answer, self.prompts[index, request.seat])
            if request.seat in window.answers or window.after is None:
                self.held.pop(request.seat, None)  # answered or timed out: a new prompt comes

    async def kill(self, prompt: Message) -> None:
        """SIGKILL with a market prompt open, back at once: the window keeps its deadline and
        its prompt (Alice answers on the one sent before the kill)."""
        deadline = COUNTDOWN.search(prompt.content)
        assert deadline, prompt.content
        # the prompt's pass of the outbox is recorded as sent (a kill before that re-sends it
        # after the restart, late, and the seat rightly gets the time back)
        await self.fake.settle(idle=0.2)
        self.killed_at = self.fake.mark()
        await self.bot.kill()
        await self.bot.start()
        await self.bot.wait_for_log("floral-host ready")
        back = time.time()
        status = await moderator(self.fake, self.world, "match status", match="m1")
        shown = COUNTDOWN.search(status.content)
        assert shown and "waiting for Alice" in status.content, status.content
        if shown[1] != deadline[1]:  # only a restart slower than the window (a loaded machine)
            self.reopened = True  # reopens it, for the grace
            assert back > int(deadline[1]) - 1 and int(shown[1]) > int(deadline[1]), status.content

    async def run(self) -> None:
        for index, window in enumerate(self.plan.windows):
            await self.play(index, window)


def public_texts(fake: FakeDiscord, world: World) -> list[str]:
    return [
        t for m in fake.messages_in(world.channel, include_ephemeral=True) for t in m.all_texts()
    ]


def assert_no_secret_leaks(fake: FakeDiscord, world: World, users: list[User], plan: Plan) -> None:
    """No hand (the engine's secrets) appears in the channel or in another player's DMs, and
    every hand a player's DMs show is their own."""
    public = public_texts(fake, world)
    dms = {u.id: [t for m in fake.dms_to(u) for t in m.all_texts()] for u in users}
    secrets: set[tuple[int, str]] = set()
    for window in plan.windows:
        for state in (window.before, window.after):
            for seat in range(len(NAMES)):
                for secret in GAME.secrets(state, seat):
                    secrets |= {(seat, text) for text in secret.texts}
    assert len(secrets) >= 60, len(secrets)
    for seat, needle in secrets:
        # another player's DMs may show the same text when that player held the same hand
        readers = [u for s, u in enumerate(users) if s != seat and (s, needle) not in secrets]
        others = [t for u in readers for t in dms[u.id]]
        assert not [t for t in public if needle in t], (NAMES[seat], needle)
        assert not [t for t in others if needle in t], (NAMES[seat], needle)
    shown_any = 0
    for seat, user in enumerate(users):
        own = {text for s, text in secrets if s == seat} | {"Hand: empty."}
        shown = {m[0] for t in dms[user.id] for m in re.finditer(r"Hand: [^\n]*", t)}
        assert shown <= own, (NAMES[seat], shown - own)
        shown_any += len(shown)
    assert shown_any >= 30


# --- the match ----------------------------------------------------------------------------------


async def test_three_player_six_round_match_to_its_end(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    users = [world.alice, world.bob, world.carol]
    plan = build_plan(SEED)
    assert set(plan.seen) >= NEEDED, NEEDED - set(plan.seen)
    assert len(plan.windows) == WINDOWS
    bot = await launch_bot(env=BOT_ENV)
    await bot.wait_for_log("floral-host ready")

    options = f"seed={SEED}, work_window_s={WORK}"
    players = {f"player{n}": u for n, u in enumerate(users, start=1)}
    setup = await moderator(
        fake,
        world,
        "flasks setup",
        **players,
        rounds=6,
        options=options,
        window=WINDOW,
        reaction_window=REACTION,
    )
    assert not setup.ephemeral, setup.content
    assert "Match **1**: Flaky Flasks" in setup.content, setup.content
    assert "6 rounds; content: the house set." in setup.content, setup.content
    assert f"Windows: {WINDOW} s; work: {WORK} s; Counters: {REACTION} s." in setup.content
    started = await moderator(fake, world, "flasks start", match="m1")
    assert "is started" in started.content, started.content

    driver = Driver(fake, world, users, bot, plan)
    t0 = time.monotonic()
    await driver.run()
    final = plan.windows[-1].after
    winners = [NAMES[s] for s in final["g"]["winners"]]
    over = f"Game over: {names_text(winners)} {'wins' if len(winners) == 1 else 'win'}."
    await fake.wait_for_message(lambda m: over in m.content, channel=world.channel, timeout=10)
    await fake.settle()
    played = time.monotonic() - t0
    public = public_texts(fake, world)
    everything = "\n".join(public)

    # every public event of the plan, as the channel saw it; the table once at each phase
    for window in plan.windows:
        for event in window.events:
            if event.audience == PUBLIC and event.text:
                for line in event.text.splitlines():
                    assert line in everything, line
    tables = [e.text for w in plan.windows for e in w.events if e.kind == "table"]
    heads = [t.splitlines()[0] for t in tables]
    assert len(heads) >= 6 * 5
    posted = [h for t in public for h in re.findall(r"\*\*Table, round [^*]*\*\*", t)]
    assert posted[0].startswith("**Table, round 1/6: ") and posted[1:] == heads, posted

    # the log channel: every hand once a phase, as it starts (a digest a turn), not a window;
    # entries, not posts (a post holds several while the channel is paced), and the paced
    # channel may trail the match by a few seconds
    def logged() -> list[str]:
        log = [line for m in fake.messages_in(world.mod_log) for line in m.content.splitlines()]
        return [line for line in log if line.startswith("**m1** · Hands: ")]

    await fake.wait_until(lambda: len(logged()) >= len(heads), timeout=15, what="the hands")
    assert len(logged()) <= len(heads) + 4 < WINDOWS // 4, (len(logged()), len(heads))

    # the situations of the plan, as the channel saw them
    index, _, _ = plan.tagged("timeout:counter")
    assert "Bob counters with Ward Candle" in everything
    assert "Carol counters with Ward Candle\n+1 light fume\nBob's Ward Candle is cancelled\n" in (
        everything
    )
    assert "Alice accepts" not in everything and re.search(
        r"Bob accepts \w+'s offer \(", everything
    )
    assert re.search(r"Carol refuses \w+'s offer", everything)
    assert re.search(r"\w+ buys [\w ]+ for \d+", everything)
    assert re.search(r"\w+ sells potion \d+ \([^)]*\) as [\w ]+: \d+ coins, \d+ fame", everything)

    # each kind of window timed out once, to its default; Counters reached only who could answer
    for kind in KINDS:
        i, window, seat = plan.tagged(f"timeout:{kind}")
        prompt = driver.prompts[i, seat]
        assert prompt.channel_id == fake.dm_channel(users[seat]).id
    counter = plan.windows[index]
    assert {r.seat for r in counter.requests} == {1, 2}
    assert not [
        m
        for m in fake.dms_to(world.alice)
        if prompt_step(m) == prompt_step(driver.prompts[index, 1])
    ]
    first, second = driver.prompts[index, 1], driver.prompts[index + 1, 2]
    assert "Alice's Hex Shadow Moth on " in first.content, first.content
    assert "Bob counters with Ward Candle: it would cancel Shadow Moth." in second.content

    # a turn's work is one clock: every work prompt of a turn shows the same deadline
    clocks: dict[tuple[str, int], list[str]] = {}
    for (i, seat), prompt in driver.prompts.items():
        window = plan.windows[i]
        if window.kind == "work":
            label = window.before["g"]["win"]["label"]
            clocks.setdefault((label, seat), []).extend(COUNTDOWN.findall(prompt.content))
    assert len(clocks) >= 30 and all(len(set(deadlines)) == 1 for deadlines in clocks.values())
    assert sum(len(deadlines) >= 3 for deadlines in clocks.values()) >= 10

    _, market, seat = plan.tagged("timeout:market")
    sold = next(e.text for e in market.events if e.kind == "report")
    assert f"{NAMES[seat]} sells potion" in sold and f"{NAMES[seat]} passes" in sold
    _, work, _ = plan.tagged("timeout:work")
    assert "Carol: time is up" in "\n".join(e.text for e in work.events)
    defaults = {  # what each other kind's default did, in that window's public report
        "setup": ("rearranges", False),
        "hex": ("activates", False),
        "counter": ("counters", False),
        "offer": ("makes no offer", True),
        "reply": ("refuses", True),
    }
    for kind, (words, present) in defaults.items():
        _, window, seat = plan.tagged(f"timeout:{kind}")
        report = "\n".join(e.text for e in window.events if e.kind == "report")
        assert (f"{NAMES[seat]} {words}" in report) is present, (kind, report)

    # the kill: the market went on from the prompt sent before it, no reopening
    kill, killed, _ = plan.tagged("kill")
    assert killed.kind == "market" and driver.killed_at
    step = prompt_step(driver.prompts[kill, 0])
    again = [
        m for m in fake.dms_to(world.alice) if m.seq > driver.killed_at and prompt_step(m) == step
    ]
    restarted = [t for t in public if "restarted while match" in t]
    if not driver.reopened:
        assert not again and not restarted, (again, restarted)

    # Alice clicked buttons and picked from menus (her Hexes, plays, purchases and sales)
    ways = {"click:hex", "click:work", "click:market", "click:offer", "select:hex"}
    assert ways | {"select:work", "select:market"} <= set(driver.ways), set(driver.ways)
    assert {"typed", "submit"} <= set(driver.ways)
    assert_no_secret_leaks(fake, world, users, plan)
    status = (await moderator(fake, world, "match status", match="m1")).content
    assert "finished" in status and f": {names_text(winners)} (" in status, status

    # the export replays to the same end, from the chosen seed
    exported = await moderator(fake, world, "match export", match="m1")
    assert exported.attachments and exported.attachments[0].filename == "match-1.json"
    script = json.loads(exported.attachments[0].data)
    assert script["seed"] == SEED and "seed" not in script["config"], script["config"]
    assert script["config"]["work_window_s"] == WORK and script["config"]["rounds"] == 6
    replayed = list(replay_script(script))
    assert replayed[-1].state["g"] == json.loads(json.dumps(final["g"]))
    print(f"played {len(plan.windows)} windows in {played:.1f} s")
    await asyncio.sleep(0)


# --- content set files, a moderator's own set, /look, refusals ------------------------------------


async def test_content_set_files_refused_in_one_line_an_own_set_plays_look_shows_a_hand_four_play(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    dave = fake.add_user("dave")  # a fourth player, a member before the bot connects
    fake.add_member(world.guild, dave)
    bot = await launch_bot(env=BOT_ENV)
    await bot.wait_for_log("floral-host ready")
    names = [option["name"] for option in fake.command("flasks setup")["options"]]
    assert names == [
        *(f"player{i}" for i in range(1, 5)),
        "content_set",
        "rounds",
        "options",
        "window",
        "reaction_window",
    ]
    duo = {"player1": world.alice, "player2": world.bob}
    house = json.loads(HOUSE.read_text(encoding="utf-8"))
    broken = json.loads(json.dumps(house))
    broken["cards"][3]["symbols"] = ["T3R", "Q99"]
    nameless = {k: v for k, v in house.items() if k != "panels"}
    cases: dict[bytes, str] = {
        b"{not json": "Bad option `content_set`: the file is not valid JSON (line 1).",
        b"[1, 2]": "Bad option `content_set`: the file must hold one JSON object.",
        b"\xff\xfe": "Bad option `content_set`: the file is not UTF-8 text.",
        b" " * (256 * 1024 + 1): "Bad option `content_set`: the file has 262145 bytes",
        json.dumps(broken).encode(): "Bad option `content_set.cards[3].symbols[1]`:",
        json.dumps(nameless).encode(): "Bad option `content_set.panels`:",
    }
    for data, expected in cases.items():
        upload = fake.upload("set.json", data)
        reply = await moderator(fake, world, "flasks setup", **duo, content_set=upload)
        assert reply.ephemeral, reply.content
        assert reply.content.startswith(f"✖ No match created. {expected}"), reply.content
        assert "\n" not in reply.content
    bad_options = {
        "fume_decay=9": "Bad option `fume_decay`: must be a whole number 0..5",
        "window_s=3": "Bad options: window_s is set by the command's `window` option",
        "bargain=maybe": "Bad option `bargain`: must be true or false",
        "colour=red": "Bad options: 'colour' is not an option; known:",
    }
    for text, expected in bad_options.items():
        reply = await moderator(fake, world, "flasks setup", **duo, options=text)
        assert reply.ephemeral and reply.content.startswith(f"✖ No match created. {expected}"), (
            reply.content
        )
    assert "No matches" in (await moderator(fake, world, "match list")).content

    # a moderator's own set: every Tier 1 card costs 2
    own = json.loads(json.dumps(house))
    own["name"] = "Our Guild Set"
    for card in own["cards"]:
        if card["tier"] == 1:
            card["cost"] = 2
    upload = fake.upload("guild.json", json.dumps(own, indent=1).encode())
    reply = await moderator(
        fake, world, "flasks setup", **duo, content_set=upload, rounds=9, options="bargain=off"
    )
    assert not reply.ephemeral, reply.content
    assert "9 rounds; content: Our Guild Set (the moderator's own)." in reply.content
    assert "Options: bargaining off." in reply.content, reply.content
    mark = fake.mark()
    assert "is started" in (await moderator(fake, world, "flasks start", match="m1")).content
    table = await fake.wait_for_message(
        lambda m: "**Table, round 1/9: " in m.content, channel=world.channel, after=mark
    )
    row = re.search(r"Cards tier 1: (.*) \(\d+ left\)", table.content)
    assert row and len(re.findall(r"[a-z] 2\b", row[1])) == 4, table.content
    assert "**Alice** · 0 fame · 0 coins" in table.content, table.content
    assert "  1: Straight Pipe ▶ ⚗" in table.content, table.content
    prompt = await fake.wait_for_message(
        lambda m: prompt_step(m) is not None, to=world.alice, after=mark
    )
    assert "Hand: " in prompt.content, prompt.content
    own_hand = re.findall(r"Hand: [^\n]*", prompt.content)[0]
    look = await (await fake.slash(world.alice, "look", {}, channel=world.channel)).reply()
    assert look.ephemeral and own_hand in look.content, look.content
    assert "Round 1 · first player" in look.content and "Cards tier 1:" in look.content
    assert not [t for t in public_texts(fake, world) if "Hand: " in t and t != look.content]
    ended = await moderator(fake, world, "match end", match="m1")
    assert "is ended" in ended.content, ended.content
    await fake.wait_for_message(
        lambda m: "Game over:" in m.content, channel=world.channel, after=mark, timeout=10
    )

    # four players, the house set; one player in two seats is refused
    twice = await moderator(fake, world, "flasks setup", player1=world.alice, player2=world.alice)
    assert twice.ephemeral and twice.content.startswith("✖ No match created."), twice.content
    four = {"player3": world.carol, "player4": dave}
    reply = await moderator(fake, world, "flasks setup", **duo, **four, rounds=6)
    assert not reply.ephemeral and f"{dave.mention} (P4). 6 rounds;" in reply.content, reply.content
    mark = fake.mark()
    assert "is started" in (await moderator(fake, world, "flasks start", match="m2")).content
    table = await fake.wait_for_message(
        lambda m: "**Table, round 1/6: " in m.content, channel=world.channel, after=mark
    )
    for name in ("Alice", "Bob", "Carol", "Dave"):
        assert f"**{name}** · 0 fame · 0 coins" in table.content, table.content
    for user in (world.alice, world.bob, world.carol, dave):
        await fake.wait_for_message(lambda m: prompt_step(m) is not None, to=user, after=mark)
    assert "is aborted" in (await moderator(fake, world, "match abort", match="m2")).content


if __name__ == "__main__":
    search(int(sys.argv[1]), int(sys.argv[2]))

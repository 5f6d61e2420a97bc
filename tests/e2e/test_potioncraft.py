"""End to end: Potioncraft through the real ``floral-host run`` process and the fake Discord.

The match is dealt from a chosen seed (the ``seed`` option), so the test computes the whole match
offline with the engine and the planner agents (``build``: every window, who is asked, what
each answers, where a timeout, the leave and the SIGKILL come) and drives four players through
it: Alice and Dave click buttons and pick menu options, Bob types in his DMs, Carol's DMs are
closed and she plays through ``/submit``. Seed 41 with a limit of 13 turns gives, in 49 windows:
spells (Astral Projections, a Crackling Cauldron, Summons from Beyond), discards, Bob's draw
timing out (the turn timer's default), crafts, a Foresight, Alice's Hand reset whose block
window goes to the players holding a Benedicta spell, Bob and Carol, while Dave is told he will
be affected (§9.3, §13.2, §14; with ``reaction_wait_full``): Bob blocks, the bot is SIGKILLed
and comes back after the deadline, the window reopens with grace and Carol's answer times out
(the block timer's default: pass); then Dave's Request for Spider Silk blocked by Bob, then by
Carol (a chain of two blocks), Dave leaving, and the turn limit.
``python -m tests.e2e.test_potioncraft 0 600 30`` searches seeds for these situations. Three
smaller matches time out every other kind of window: draw, main and discard (nobody answers),
Astral Projection and the Thief's Gamble pair, and a Foresight perk's window.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from cogs.prompts import choice_keys
from games.moves import play_window
from games.potioncraft import GAME
from games.potioncraft.agents import PlannerAgent
from games.potioncraft.cards import POTION_LOOKUP, POTIONS, potion_label
from games.potioncraft.render import hand_text, table_text
from games.potioncraft.rules import eligible_blocks, order_from
from games.potioncraft.state import State
from games.protocol import Event, Move, Request, Setup, derive_rng

from .botproc import BotProcess
from .fake_discord import FakeDiscord, Message, User, World
from .players import answered, next_prompt, prompt_step, slash_submit, type_text
from .players import moderator_says as moderator

LaunchBot = Callable[..., Awaitable[BotProcess]]

SEED, MAX_TURNS = 41, 13  # see the module's docstring for what they give
WINDOW, REACTION = 8, 5  # seconds: a turn window, a block window
GRACE = 3
BOT_ENV = {
    "FLORAL_GUILD_READY_TIMEOUT": "0.1",
    "FLORAL_GRACE_SECONDS": str(GRACE),
    "FLORAL_REMINDER_SECONDS": "2",
    "FLORAL_LOG_CHANNEL": "mod-log",
}
NAMES = ("Alice", "Bob", "Carol", "Dave")


# --- the plan: the whole match computed offline ------------------------------------------------
BASE_OPTIONS = {"reaction_wait_full": True}  # block windows run their full time


@dataclass
class Window:
    """One step of the match: a window answered (``answers``, None: a timeout) or a leave."""

    before: State
    requests: list[Request]
    answers: dict[int, str | None] = field(default_factory=dict)
    leave: int | None = None  # this step is the seat's leave (asked while the window is open)
    kill: bool = False  # SIGKILL the bot once the answers before ``after_kill`` are in
    after_kill: tuple[int, ...] = ()  # the seats that answer only after the restart
    tag: str = ""  # what the test checks here: "chain1", "chain2", "reset", "draw-timeout"
    after: State | None = None
    events: list[Event] = field(default_factory=list)


@dataclass
class Plan:
    seed: int
    leaver: int = 3  # Dave leaves once the chain and the reset are done
    timeout_seat: int = 1  # Bob lets a draw time out
    windows: list[Window] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    leave_turn: int | None = None


def chain_ask(state: State, seat: int, values: list[str]) -> str | None:
    """A Request (``perk P ask I``) whose first two holders can both block (so the planners
    pass it down a chain of two blocks)."""
    for value in values:
        if not value.startswith("perk ") or " ask " not in value:
            continue
        potion, ask = value[5:].split(" ask ", 1)
        holders = [s for s in order_from(state, seat) if ask in state.hands[s]]
        if len(holders) >= 2 and all(eligible_blocks(state, s, potion) for s in holders[:2]):
            return value
    return None


def potion_in(value: str) -> str | None:
    """The potion of a plain ``perk P`` answer (P as shown), else None."""
    name = POTION_LOOKUP.get(value.removeprefix("perk ").casefold())
    return name if value.startswith("perk ") and name in POTIONS else None


def reset_perk(state: State, seat: int, values: list[str]) -> str | None:
    for value in values:
        name = potion_in(value)
        if name is not None and POTIONS[name].perk == "hand_reset":
            return value
    return None


def build(seed: int, max_turns: int | None = None) -> Plan:
    """The whole match under the plan (the config as ``/potion setup`` gives it)."""
    plan = Plan(seed)
    config = GAME.parse_config(config_of(seed, max_turns), len(NAMES))
    state, _ = GAME.new_match(Setup(config, len(NAMES), 0, NAMES))
    agents = {s: PlannerAgent(s, derive_rng(seed, "e2e", s)) for s in range(len(NAMES))}
    while not state.over:
        requests = GAME.requests(state)
        window = Window(state, requests)
        assert state.pending is not None
        kind = state.pending["window"]
        done = {"chain2", "reset"} <= plan.seen
        leaver_idle = all(r.seat != plan.leaver for r in requests)
        if done and "leave" not in plan.seen and kind == "draw" and leaver_idle:
            window.leave, window.tag = plan.leaver, "leave"
            plan.seen.add("leave")
            plan.leave_turn = state.turn
            state, window.events = GAME.leave(state, plan.leaver)
            window.after = state
            plan.windows.append(window)
            continue
        for request in requests:
            values = [c.value for c in request.choices]
            answer: str | None = None
            if kind == "main" and "chain1" not in plan.seen:
                answer = chain_ask(state, request.seat, values)
            if answer is None and kind == "main" and "reset" not in plan.seen:
                answer = reset_perk(state, request.seat, values)
            if answer is None:
                if kind == "main" and "chain1" not in plan.seen:  # keep the Request for a chain
                    kept = tuple(c for c in request.choices if " ask " not in c.value)
                    request = replace(request, choices=kept)
                answer = agents[request.seat].act(request, GAME.view(state, request.seat))
            window.answers[request.seat] = answer
        if kind == "block":
            tag_block(plan, state, window)
        if (
            kind == "draw"
            and "draw-timeout" not in plan.seen
            and requests[0].seat == plan.timeout_seat
            and state.turn >= 2
        ):
            window.answers[plan.timeout_seat] = None
            window.tag = "draw-timeout"
            plan.seen.add("draw-timeout")
        moves = judged(state, requests, window.answers)
        state, window.events = GAME.resolve(state, moves)
        window.after = state
        plan.windows.append(window)
    return plan


class SeerAgent(PlannerAgent):
    """The planner, but it uses a Foresight perk whenever one is offered, so a match reaches a
    foresight window."""

    def act(self, request: Request, view: Any) -> str:
        for choice in request.choices:
            name = potion_in(choice.value)
            if name is not None and POTIONS[name].perk == "foresight":
                return choice.value
        return super().act(request, view)


def build_silent(
    seed: int,
    seats: int,
    max_turns: int,
    silent: tuple[str, ...],
    agent: type[PlannerAgent] = PlannerAgent,
) -> Plan:
    """The planners' match of ``seats`` players where nobody answers a ``silent`` window."""
    plan = Plan(seed)
    config = GAME.parse_config({"seed": seed, "max_turns": max_turns}, seats)
    state, _ = GAME.new_match(Setup(config, seats, 0, NAMES[:seats]))
    agents = {s: agent(s, derive_rng(seed, "e2e", s)) for s in range(seats)}
    while not state.over:
        window = Window(state, GAME.requests(state))
        assert state.pending is not None
        kind = state.pending["window"]
        for request in window.requests:
            view = GAME.view(state, request.seat)
            quiet = kind in silent
            window.answers[request.seat] = (
                None if quiet else agents[request.seat].act(request, view)
            )
            if quiet:
                plan.seen.add(kind)
        state, window.events = GAME.resolve(state, judged(state, window.requests, window.answers))
        window.after = state
        plan.windows.append(window)
    return plan


def tag_block(plan: Plan, state: State, window: Window) -> None:
    """The first Hand reset whose window asks two players or more (those holding a Benedicta
    spell, §9.3) while another is only told (§14): the first blocks before the SIGKILL, the
    last answers only after the restart (it times out: a pass)."""
    pending = state.pending
    assert pending is not None
    if pending["perk"] == "hand_reset" and "reset" not in plan.seen:
        asked = [r.seat for r in window.requests]
        if len(asked) >= 2 and len(asked) < len(state.in_play()) - 1:
            plan.seen.add("reset")
            window.tag = "reset"
            window.kill = True
            first = window.requests[0]
            window.answers[first.seat] = first.choices[1].value  # block before the kill
            plan.seen.add("reset-block")
            window.after_kill = (asked[-1],)
            window.answers[asked[-1]] = None  # times out after the restart: a pass
        return
    if pending["perk"] != "request":
        return
    answer = next(iter(window.answers.values()))
    blocked = answer is not None and answer.startswith("block ")
    if "chain1" not in plan.seen and blocked:
        plan.seen.add("chain1")
        window.tag = "chain1"
    elif "chain1" in plan.seen and "chain2" not in plan.seen and blocked:
        plan.seen.add("chain2")
        window.tag = "chain2"


def judged(
    state: State, requests: list[Request], answers: dict[int, str | None]
) -> dict[int, Move | None]:
    attempts = {seat: [raw] for seat, raw in answers.items() if raw is not None}
    return dict(play_window(requests, attempts, partial(GAME.submit, state)).moves)


def config_of(seed: int, max_turns: int | None) -> dict[str, object]:
    config: dict[str, object] = {**BASE_OPTIONS, "seed": seed}
    if max_turns is not None:
        config["max_turns"] = max_turns
    return config


def fitness(plan: Plan) -> tuple[bool, int]:
    """Whether every situation happens, and how many windows the match takes."""
    need = {"chain1", "chain2", "reset", "reset-block", "leave", "draw-timeout"}
    return need <= plan.seen, len(plan.windows)


# --- helpers ----------------------------------------------------------------------------------


async def start_bot(launch_bot: LaunchBot) -> BotProcess:
    bot = await launch_bot(env=BOT_ENV)
    await bot.wait_for_log("floral-host ready")
    return bot


def add_dave(fake: FakeDiscord, world: World) -> User:
    """A fourth player, a member of the guild before the bot connects."""
    dave = fake.add_user("dave")
    fake.add_member(world.guild, dave)
    return dave


def latest_prompt(fake: FakeDiscord, user: User, step: int) -> Message:
    """The newest DM to ``user`` with the buttons of window ``step`` (a reopened window's)."""
    found = [m for m in fake.dms_to(user) if prompt_step(m) == step]
    assert found, step
    return found[-1]


async def click_answer(
    fake: FakeDiscord, user: User, prompt: Message, request: Request, answer: str
) -> str:
    """Answer by the prompt's components: the button, or the menu option, of each value."""
    values = [c.value for c in request.choices]
    keys = choice_keys(values)
    wanted = [keys[values.index(v)] for v in request.split_answer(answer)]
    stage = request.choices[values.index(answer)].stage if answer in values else ""
    for custom_id in prompt.custom_ids():  # a two-step menu: pick the stage (the potion) first
        options = prompt.component(custom_id).get("options") or []
        pick = [o["value"] for o in options if o["value"].startswith(">") and o["label"] == stage]
        if stage and pick:
            await (await fake.select(user, prompt, custom_id, pick)).reply()  # edits the prompt
            break
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
        raise AssertionError(f"no component answers {answer!r}: {prompt.custom_ids()}")
    return answered(await ix.reply())


def clickable(request: Request, answer: str) -> bool:
    """Whether the prompt's buttons or menus can give ``answer`` (it is made of choices)."""
    values = {c.value for c in request.choices}
    return answer in values or all(v in values for v in request.split_answer(answer))


async def submit_when_open(fake: FakeDiscord, user: User, world: World, answer: str) -> str:
    """``/submit`` until the window that asks for it is open (Carol sees no prompt)."""
    give_up = time.monotonic() + 20
    while True:
        reply = await slash_submit(fake, user, world, answer)
        if reply.startswith("✅") or time.monotonic() > give_up:
            return reply
        await asyncio.sleep(0.2)


def hands_of(plan: Plan) -> list[tuple[int, list[str]]]:
    """Every hand each seat held during the match (the leak scan's source of truth)."""
    states: list[State] = [w.before for w in plan.windows] + [
        w.after for w in plan.windows if w.after is not None
    ]
    seen = {(seat, tuple(s.hands[seat])) for s in states for seat in range(len(NAMES))}
    return [(seat, list(hand)) for seat, hand in sorted(seen)]


def assert_no_hand_leaks(
    fake: FakeDiscord, world: World, users: list[User], plan: Plan, revealed: list[str]
) -> None:
    """No hand (as its owner's prompt shows it, or as the list of its cards) appears in the
    channel or in another player's DMs or ephemeral replies. ``revealed``: a hand the rules
    made public (a leave)."""
    public = [t for m in fake.messages_in(world.channel) for t in m.all_texts()]
    dms = {  # a user's DMs and the channel's ephemeral replies only they see
        u.id: [t for m in [*fake.dms_to(u), *fake.ephemerals_to(u)] for t in m.all_texts()]
        for u in users
    }
    checked = 0
    for seat, hand in hands_of(plan):
        if len(hand) < 3 or hand == revealed:
            continue  # a card or two can be on the table by chance
        needles = (hand_text(hand), ", ".join(hand))
        others = [t for u in users if u is not users[seat] for t in dms[u.id]]
        for needle in needles:
            assert not [t for t in public if needle in t], (NAMES[seat], needle)
            assert not [t for t in others if needle in t], (NAMES[seat], needle)
        checked += 1
    assert checked >= 20, checked
    for seat, user in enumerate(users):  # every hand a DM shows is its reader's own
        own = {hand_text(hand) for s, hand in hands_of(plan) if s == seat}
        shown = {m[0] for t in dms[user.id] for m in re.finditer(r"Your hand \(\d+\): [^.]*\.", t)}
        assert shown <= own, (NAMES[seat], shown - own)


def assert_events_shown(
    fake: FakeDiscord, world: World, users: list[User], windows: list[Window]
) -> None:
    """Every public event of the offline match is in the channel, every seat event in its
    owner's DMs (when they are open): the bot played exactly the planned match."""
    public = "\n".join(t for m in fake.messages_in(world.channel) for t in m.all_texts())
    dms = {u.id: "\n".join(t for m in fake.dms_to(u) for t in m.all_texts()) for u in users}
    shown = 0
    for window in windows:
        for event in window.events:
            if event.audience.kind == "public":
                assert event.text in public, event.text
                shown += 1
            elif event.audience.kind == "seat" and event.audience.seat is not None:
                user = users[event.audience.seat]
                if user.id not in fake.closed_dms:
                    assert event.text in dms[user.id], (user.name, event.text)
                    shown += 1
    assert shown >= len(windows)


# --- the match --------------------------------------------------------------------------------


class Driver:
    """Plays the plan's windows through Discord and checks what the bot shows on the way."""

    def __init__(
        self, fake: FakeDiscord, world: World, users: list[User], bot: BotProcess, plan: Plan
    ) -> None:
        self.fake, self.world, self.users, self.bot, self.plan = fake, world, users, bot, plan
        self.floor = 0  # the last window step seen
        self.tags: dict[str, Window] = {}

    def closed(self, seat: int) -> bool:
        return self.users[seat] is self.world.carol

    async def prompts(self, window: Window) -> dict[int, Message]:
        """Each prompted seat's DM prompt (Carol's DMs are closed: she gets none)."""
        found = {}
        for request in window.requests:
            if not self.closed(request.seat):
                user = self.users[request.seat]
                found[request.seat] = await next_prompt(self.fake, user, self.floor)
        steps = {prompt_step(p) for p in found.values()}
        assert len(steps) <= 1, steps
        if steps:
            step = steps.pop()
            assert step is not None
            self.floor = step
        for seat, prompt in found.items():  # the hand, refreshed in each prompt of one's own
            assert window.before.pending is not None
            if window.before.pending["window"] in ("draw", "main", "discard"):
                assert hand_text(window.before.hands[seat]) in prompt.content, prompt.content
            assert "<t:" in prompt.content  # the countdown
            if window.before.pending["window"] == "block":
                pending = window.before.pending
                by, potion = NAMES[pending["user"]], potion_label(pending["potion"])
                assert f"{by} uses {potion} (" in prompt.content, prompt.content
        return found

    async def answer(self, window: Window, request: Request, prompt: Message | None) -> None:
        answer = window.answers[request.seat]
        assert answer is not None
        user = self.users[request.seat]
        if self.closed(request.seat):
            reply = await submit_when_open(self.fake, user, self.world, answer)
        elif user is self.world.bob and request.kind in ("draw", "block", "main"):
            reply = await type_text(self.fake, user, answer)  # typed: the choice's text
        elif not clickable(request, answer):  # the AI's own wording: a card order, a wager
            reply = await type_text(self.fake, user, answer)
        else:
            assert prompt is not None
            reply = await click_answer(self.fake, user, prompt, request, answer)
        assert reply.startswith("✅"), (NAMES[request.seat], answer, reply)

    async def play(self, window: Window) -> None:
        if window.tag:
            self.tags[window.tag] = window
        prompts = await self.prompts(window)
        if window.leave is not None:
            user = self.users[window.leave]
            reply = await (
                await self.fake.slash(user, "match leave", {}, channel=self.world.channel)
            ).reply()
            assert reply.ephemeral, reply.content
            return
        late = [r for r in window.requests if r.seat in window.after_kill]
        for request in window.requests:
            if window.answers[request.seat] is not None and request not in late:
                await self.answer(window, request, prompts.get(request.seat))
        if window.kill:
            await self.kill_and_reopen(window, prompts)

    async def kill_and_reopen(self, window: Window, prompts: dict[int, Message]) -> None:
        """SIGKILL with the window open, back after its deadline: it reopens for the grace
        period, the answers given are kept, the seat still to answer is asked again."""
        opened = time.time()
        await self.bot.kill()
        mark = self.fake.mark()
        await asyncio.sleep(max(0.0, opened + REACTION + 1 - time.time()))
        await self.bot.start()
        await self.bot.wait_for_log("floral-host ready")
        notice = await self.fake.wait_for_message(
            lambda m: "restarted while match 1 was waiting" in m.content,
            channel=self.world.channel,
            after=mark,
            timeout=15,
        )
        assert re.search(rf"open again for {GRACE}(\.0)? s", notice.content), notice.content
        for request in window.requests:
            if self.closed(request.seat):
                continue
            user = self.users[request.seat]
            again = await self.fake.wait_for_message(
                lambda m: "restarted while match 1" in m.content, to=user, after=mark, timeout=15
            )
            kept = "Your answer is kept." in again.content
            assert kept == (request.seat not in window.after_kill), again.content
        for seat in window.after_kill:
            if self.closed(seat):
                continue  # no DMs: the channel's notice above said the window is open again
            again = latest_prompt(self.fake, self.users[seat], self.floor)
            assert again.seq > mark and "<t:" in again.content

    async def run(self) -> None:
        for window in self.plan.windows:
            await self.play(window)


async def test_four_player_match_with_blocks_a_restart_a_leave_and_closed_dms(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    dave = add_dave(fake, world)
    users = [world.alice, world.bob, world.carol, dave]
    fake.close_dms(world.carol)
    bot = await start_bot(launch_bot)
    plan = build(SEED, MAX_TURNS)
    assert fitness(plan) == (True, 49)

    options = f"seed={SEED}, max_turns={MAX_TURNS}, reaction wait full"
    players = {f"player{n}": u for n, u in enumerate(users, start=1)}
    setup = await moderator(
        fake,
        world,
        "potion setup",
        **players,
        options=options,
        window=WINDOW,
        reaction_window=REACTION,
    )
    assert not setup.ephemeral, setup.content
    assert "Match **1**: Potioncraft" in setup.content, setup.content
    assert (
        "turn limit 13" in setup.content and "block windows run their full length" in setup.content
    )
    assert f"Turn windows: {WINDOW} s; Block windows: {REACTION} s." in setup.content
    assert "is started" in (await moderator(fake, world, "potion start", match="m1")).content
    unreachable = await fake.wait_for_message(
        lambda m: "cannot send direct messages" in m.content, channel=world.channel, timeout=15
    )
    assert str(world.carol.id) in unreachable.content

    driver = Driver(fake, world, users, bot, plan)
    await driver.run()
    final = plan.windows[-1].after
    assert final is not None and final.over
    win = next(e.text for e in plan.windows[-1].events if e.kind == "win")
    await fake.wait_for_message(lambda m: win in m.content, channel=world.channel, timeout=20)
    public = "\n".join(t for m in fake.messages_in(world.channel) for t in m.all_texts())

    # every turn's table, posted once in the channel: whose turn, potions, piles, hand sizes
    tables = [
        table_text(w.after)
        for w in plan.windows
        if w.after is not None and any(e.kind == "table" for e in w.events)
    ]
    assert len(tables) == MAX_TURNS - 1  # turns 2..13 (the first is in the start post)
    for table in tables:
        assert public.count(table) == 1, table

    # the situations of the plan, as the channel saw them
    events = [e for w in plan.windows for e in w.events if e.audience.kind == "public"]
    assert any(e.kind == "craft" for e in events)
    assert any(e.kind == "discard" for e in events)
    assert "Bob draws from the deck (timed out)." in public
    # the Hand reset: its window asked only the players holding a Benedicta spell (§9.3, §13.2),
    # the others were told (§14); the block given before the SIGKILL survived it
    reset = driver.tags["reset"]
    pending = reset.before.pending
    assert pending is not None
    others = order_from(reset.before, pending["user"])
    eligible = [s for s in others if eligible_blocks(reset.before, s, pending["potion"])]
    assert [r.seat for r in reset.requests] == eligible and len(eligible) < len(others)
    opening = plan.windows[plan.windows.index(reset) - 1]
    told = [e.audience.seat for e in opening.events if e.kind == "no_block"]
    assert told == [s for s in others if s not in eligible]
    (blocker,) = [s for s, answer in reset.answers.items() if answer is not None]
    block = reset.answers[blocker]
    assert block is not None and f"{NAMES[blocker]} blocks with {block[6:]}." in public
    opened = [m.content for m in fake.messages_in(world.channel) if "Reaction window" in m.content]
    assert len(opened) == 1 and not any(n in opened[0] for n in NAMES[1:]), opened
    # the Request blocked twice in a row
    for tag in ("chain1", "chain2"):
        window = driver.tags[tag]
        (seat,) = window.answers
        answer = window.answers[seat]
        assert answer is not None and f"{NAMES[seat]} blocks with {answer[6:]}." in public
    assert "Dave leaves the match." in public
    win = next(e.text for e in plan.windows[-1].events if e.kind == "win")
    assert win in public

    await fake.settle(idle=0.5)  # the last DMs follow the end post
    assert_events_shown(fake, world, users, plan.windows)
    leave = driver.tags["leave"]
    revealed = list(leave.before.hands[3])
    assert_no_hand_leaks(fake, world, users, plan, revealed)
    status = (await moderator(fake, world, "match status", match="m1")).content
    assert "finished" in status and "Alice" in status, status
    # the moderators' log channel, and only it, gets every hand
    start = plan.windows[0].before
    hands = "; ".join(f"{n}: {', '.join(h)}" for n, h in zip(NAMES, start.hands, strict=True))
    logged = fake.messages_in(world.mod_log)
    assert logged and all(m.content.startswith("**m1** · ") for m in logged)  # its match named
    log = "\n".join(m.content for m in logged)
    assert f"Hands: {hands}" in log
    assert not [m for m in fake.messages_in(world.channel) if "Hands: " in m.text()]


async def test_each_turn_window_kind_times_out_to_its_default(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Nobody answers a two-player match of two turns: the draw takes from the deck, the main
    phase ends, the end step discards the last cards of the hand (§13's defaults), each post
    marking the timeout; the offline match with no answers is exactly what the bot played."""
    await start_bot(launch_bot)
    users = [world.alice, world.bob]
    two = {"player1": world.alice, "player2": world.bob}
    options = "seed=2, max_turns=2"  # seed 2: both turns end over the limit: a discard
    reply = await moderator(fake, world, "potion setup", **two, options=options, window=2)
    assert not reply.ephemeral, reply.content
    config = GAME.parse_config({"seed": 2, "max_turns": 2}, 2)
    state, _ = GAME.new_match(Setup(config, 2, 0, ("Alice", "Bob")))
    windows = []
    while not state.over:
        window = Window(state, GAME.requests(state))
        window.answers = {r.seat: None for r in window.requests}
        state, window.events = GAME.resolve(state, {r.seat: None for r in window.requests})
        window.after = state
        windows.append(window)
    kinds = [w.before.pending["window"] for w in windows if w.before.pending]
    assert kinds == ["draw", "main", "discard"] * 2, kinds
    assert "is started" in (await moderator(fake, world, "potion start", match="m1")).content
    await fake.wait_for_message(
        lambda m: "The turn limit is reached" in m.content, channel=world.channel, timeout=30
    )
    await fake.settle(idle=0.5)  # the last DMs follow the end post
    assert_events_shown(fake, world, users, windows)
    public = "\n".join(t for m in fake.messages_in(world.channel) for t in m.all_texts())
    assert public.count("(timed out)") >= 6, public


async def test_astral_and_pair_windows_time_out_to_their_defaults(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Seed 248, three players, six turns (27 windows): Carol's and Bob's Astral Projection
    windows time out (they keep the top card; a turn window), Carol's Thief's Gamble finds
    Alice's pairs and Alice's pair window times out (the first pair; a block-timer window)."""
    bot = await start_bot(launch_bot)
    users = [world.alice, world.bob, world.carol]
    plan = build_silent(248, 3, 6, ("astral", "pair"))
    assert plan.seen == {"astral", "pair"} and len(plan.windows) == 27
    players = {f"player{n}": u for n, u in enumerate(users, start=1)}
    reply = await moderator(
        fake, world, "potion setup", **players, options="seed=248, max_turns=6", window=5,
        reaction_window=2,
    )  # fmt: skip
    assert not reply.ephemeral, reply.content
    assert "is started" in (await moderator(fake, world, "potion start", match="m1")).content
    await Driver(fake, world, users, bot, plan).run()
    await fake.wait_for_message(
        lambda m: "The turn limit is reached" in m.content, channel=world.channel, timeout=20
    )
    await fake.settle(idle=0.5)  # the last DMs follow the end post
    assert_events_shown(fake, world, users, plan.windows)
    public = "\n".join(t for m in fake.messages_in(world.channel) for t in m.all_texts())
    assert "Bob keeps 1 card and returns 2 (timed out)." in public
    assert "Alice reveals and discards Starflower, Starflower (timed out)." in public
    assert "Carol steals Wispwine (spent)." in public


async def test_a_foresight_window_times_out_to_its_default(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Seed 1, two players (36 windows): Alice uses Dreambinder Elixir's Foresight perk, lets
    its window time out (the top cards stay in their order); the turn limit ends the match."""
    bot = await start_bot(launch_bot)
    users = [world.alice, world.bob]
    plan = build_silent(1, 2, 12, ("foresight",), SeerAgent)
    assert plan.seen == {"foresight"} and len(plan.windows) == 36
    players = {f"player{n}": u for n, u in enumerate(users, start=1)}
    reply = await moderator(
        fake, world, "potion setup", **players, options="seed=1, max_turns=12", window=3,
        reaction_window=2,
    )  # fmt: skip
    assert not reply.ephemeral, reply.content
    assert "is started" in (await moderator(fake, world, "potion start", match="m1")).content
    await Driver(fake, world, users, bot, plan).run()
    await fake.wait_for_message(
        lambda m: "The turn limit is reached" in m.content, channel=world.channel, timeout=20
    )
    await fake.settle(idle=0.5)  # the last DMs follow the end post
    assert_events_shown(fake, world, users, plan.windows)
    public = "\n".join(t for m in fake.messages_in(world.channel) for t in m.all_texts())
    assert "Alice uses Dreambinder Elixir: Foresight." in public
    assert "Alice has looked at and reordered the top 4 cards (timed out)." in public


def search(first: int, last: int, max_turns: int) -> None:
    for seed in range(first, last):
        plan = build(seed, max_turns)
        ok, count = fitness(plan)
        if ok:
            assert plan.leave_turn is not None
            short = build(seed, plan.leave_turn + 1)
            ok2, count2 = fitness(short)
            print(seed, plan.leave_turn, count, ok2, count2, flush=True)


if __name__ == "__main__":  # python -m tests.e2e.test_potioncraft FIRST LAST [MAX_TURNS]
    search(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 60)


async def test_bad_setups_are_refused_and_each_player_looks_at_their_own_hand(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    names = [option["name"] for option in fake.command("potion setup")["options"]]
    assert names == [*(f"player{i}" for i in range(1, 7)), "options", "window", "reaction_window"]
    two = {"player1": world.alice, "player2": world.bob}
    cases = {
        "colour=red": "Bad options: 'colour' is not an option; known: table_limit,",
        "window_s=5": "Bad options: window_s is set by the command's `window` option",
        "max_turns=0": "Bad option `max_turns`: must be a whole number 1 to 100000 or null, got 0.",
        "potion_set=all": "Bad option `potion_set`: must be one of standard, all18",
    }
    for options, expected in cases.items():
        reply = await moderator(fake, world, "potion setup", **two, options=options)
        assert reply.ephemeral and reply.content.startswith(f"✖ No match created. {expected}"), (
            reply.content
        )
    twice = {"player1": world.alice, "player2": world.alice}
    reply = await moderator(fake, world, "potion setup", **twice)
    assert reply.ephemeral and "A player cannot take two seats" in reply.content, reply.content
    ix = await fake.slash(world.carol, "potion setup", two, channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral and "Only moderators" in reply.content, reply.content
    assert "No matches" in (await moderator(fake, world, "match list")).content

    # a two-player match dealt from seed 11: each player's /look shows their own hand only
    reply = await moderator(fake, world, "potion setup", **two, options="seed=11", window=60)
    assert not reply.ephemeral and "Options: the rules page's defaults." in reply.content
    config = GAME.parse_config({"seed": 11}, 2)
    state, _ = GAME.new_match(Setup(config, 2, 0, ("Alice", "Bob")))
    assert "is started" in (await moderator(fake, world, "potion start", match="m1")).content
    for seat, user in enumerate((world.alice, world.bob)):
        command = ("look", "garden")[seat]  # /garden: the old name, kept as an alias
        ix = await fake.slash(user, command, {}, channel=world.channel)
        look = await ix.reply()
        assert look.ephemeral and hand_text(state.hands[seat]) in look.content, look.content
        assert hand_text(state.hands[1 - seat]) not in look.content
        for potion in state.revealed.values():  # the potions on offer, with their recipes
            assert potion is not None and f"• {potion_label(potion)} (" in look.content
    # answers in the grammar: /submit in the channel, a choice typed in DMs
    active = (world.alice, world.bob)[state.active]
    draw = await next_prompt(fake, active, 0)
    assert hand_text(state.hands[state.active]) in draw.content
    assert (await slash_submit(fake, active, world, "DECK")).startswith("✅")
    main = await next_prompt(fake, active, prompt_step(draw) or 0)
    assert "On offer (a potion needs 3 of its 4 ingredients; ✔ in your hand):" in main.content
    refused = await slash_submit(fake, active, world, "craft Nothing with Bat Wing")
    assert refused.startswith("✖"), refused
    assert (await type_text(fake, active, "end")).startswith("✅")
    status = (await moderator(fake, world, "match status", match="m1")).content
    assert "Your hand" not in status and "running" in status, status

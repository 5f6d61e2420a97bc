"""The conformance suite: every registered game, and the tests' toy game, passes the same
properties, each over random matches that hypothesis draws.

* random matches (random choices, the game's agents, junk text) end within a bound;
* ``submit`` never changes the state, whether it accepts or refuses, and refuses unasked seats;
* dump, load and continue plays bit for bit the same;
* a match played through the real host replays to its stored snapshots (the audit finds
  nothing), and its export replays the same steps;
* every offered choice is accepted, and its prompt renders within Discord's limits;
* no view, description, prompt or event for the public or a seat carries another seat's secret
  (``Game.secrets``), and every declared secret does show where its owner looks;
* on the largest inputs a game accepts (its options at their maximums, its largest set, the most
  seats), no step and no computer player's decision blocks the event loop for more than 50 ms,
  no state grows past 100 KB and no prompt offers more choices than a person can pick from
  (``tests/games/steps.py``).

A new game slots in with one ``GameCase``: its tests' ``tests/games/<package>/conformance.py``
declares ``CONFORMANCE_CASE = (configs, window_bound, host_configs)``: the configs to draw, the
most windows a match of a parsed config can take, and short configs for matches through the
host. A new property is one more test over ``CASES``.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import history
from bot.audit import audit_match, audit_store, check_export, first_difference
from bot.export import script_of
from bot.games import load_game_info
from bot.host import HostError
from bot.outbox import prompt_text
from bot.transport import request_to_json
from cogs.prompts import (
    MULTI_MOST,
    PICK,
    DeclareSelect,
    SendButton,
    choice_keys,
    every_page,
    offered_values,
    picks_answer,
    plan,
    prompt_view,
)
from games import registry
from games.moves import play_window
from games.protocol import (
    JSON,
    MODERATORS,
    PUBLIC,
    Accepted,
    Audience,
    Event,
    Game,
    Move,
    Refused,
    Request,
    Secret,
    Setup,
    to_seat,
)
from games.registry import GameInfo
from tests.bot.conftest import CHANNEL, GUILD, HostEnv, env, no_errors_logged  # noqa: F401
from tests.games import cases, steps

TOY = "tests.bot.toy_game"
RPS = "tests.games.rps"  # a game without secrets

# --- the games and what to draw for each --------------------------------------------------------


@dataclass(frozen=True)
class GameCase:
    """What the suite needs to know of a game beyond its protocol."""

    info: GameInfo
    configs: st.SearchStrategy[dict[str, JSON]]
    # the most windows a match of this parsed config and seat count can take: from the rules
    window_bound: Callable[[Mapping[str, JSON], int], int]
    host_configs: st.SearchStrategy[dict[str, JSON]]  # short matches, no revisable windows

    @property
    def game(self) -> Game[Any]:
        return self.info.game


def _floral_bound(config: Mapping[str, JSON], seats: int) -> int:
    turns = int(config["max_turns"])
    return turns + (turns + 4) // 5  # a planting phase before turns 1, 6, 11, ...


def _brew_bound(config: Mapping[str, JSON], seats: int) -> int:
    # an auction per card (and one more for the card a Cursed win sends back); a rebid round
    # takes a coin from each rebidder's hand (at most five); the Cursed choice; a deal window:
    # per seat 3 offers of 5 steps, 3 withdrawals, Ready and the answers to the others' offers,
    # and its deadline; then the last call
    cards = int(config["types"]) * int(config["copies"]) + 1
    deals = seats * (3 * 5 + 3 + 1 + 3) + 1 if config["deal_window"] else 0
    return cards * (6 + 1 + deals) + 1


FLORAL_RULES = {
    "initial_weather": st.sampled_from(["sunny", "chilly", "rainy", "random"]),
    "azalea_shrink_mode": st.sampled_from(["sliding", "reset"]),
    "guess_cost_mode": st.sampled_from(["formula", "prose"]),
    "declaration_without_charge": st.sampled_from(["reject", "dud"]),
    "allow_resubmit_after_valid": st.booleans(),
    "opponent_report_shows_empty_pots": st.booleans(),
    "advantage": st.sampled_from(["P1", "P2"]),
}


@st.composite
def brew_configs(draw: st.DrawFn, host: bool = False) -> dict[str, JSON]:
    config: dict[str, JSON] = {
        "types": draw(st.integers(4, 5 if host else 8)),
        "copies": draw(st.integers(4, 4 if host else 6)),
        "no_unique": draw(st.sampled_from(["remove", "rebid"])),
        "broke_buyers": draw(st.booleans()),
        "storefront_disaster": draw(st.integers(0, 2)),
        "snakeoil_salesman": draw(st.integers(0, 2)),
    }
    if not host:  # their windows (a Cursed choice, deals) have lengths of their own
        config["magic_infused"] = draw(st.integers(0, 6))
        config["deal_window"] = draw(st.sampled_from([0, 0, 30]))
    face_down = draw(st.sampled_from(["", "vision_of_blindness", "utter_darkness"]))
    if face_down:
        config[face_down] = True
    return config


@st.composite
def toy_configs(draw: st.DrawFn) -> dict[str, JSON]:
    """The toy game's configs; now and then a hand of long-named cards to pick several of,
    reaction windows, an early close rule or turns of several actions."""
    config: dict[str, JSON] = draw(
        st.fixed_dictionaries(
            {"rounds": st.integers(1, 6), "max": st.integers(1, 9)},
            optional={
                "revisable": st.booleans(),
                "turn_based": st.booleans(),
                # protocol v2: reaction timers, close rules, turns of several actions
                "reactions": st.booleans(),
                "close": st.sampled_from(["all", "first", "ready", "each", "deadline"]),
                "pauses": st.booleans(),  # silent windows nobody is prompted for
                "ready_at": st.integers(0, 12),
                "actions": st.integers(1, 3),
                "blocks": st.booleans(),  # a reaction window after each guess
            },
        )
    )
    # 30: picks in two menus, 400: over four screens of menus, 401: past what a Send button
    # carries (one paged menu); long names fill a DM
    hand = draw(st.sampled_from([0, 0, 1, 7, 30, 30, MULTI_MOST, MULTI_MOST + 1]))
    if hand:
        high = draw(st.integers(1, min(hand, 40)))
        config |= {"hand": hand, "pick": [draw(st.integers(0, high)), high]}
    if hand > 30:  # one round of such hands is enough (each of their choices is submitted)
        config["rounds"] = 1
    return config


def _toy_bound(config: Mapping[str, JSON], seats: int) -> int:
    """A round's windows: its actions (each seat's own, when each goes at its own pace), and
    a block window after a guess."""
    each = seats if config.get("close") == "each" else 1
    return int(config["rounds"]) * (
        int(config.get("actions", 1)) * each + bool(config.get("blocks"))
    )


def _cases() -> dict[str, GameCase]:
    known: dict[str, tuple[Any, ...]] = {
        "floral-extract": (
            st.fixed_dictionaries(
                # long enough, now and then, for the AI players to find runes and win on points
                {"max_turns": st.integers(1, 12) | st.integers(40, 100)},
                optional=FLORAL_RULES,
            ),
            _floral_bound,
            st.fixed_dictionaries({"max_turns": st.integers(1, 6)}),
        ),
        "warlocks-brew": (brew_configs(), _brew_bound, brew_configs(host=True)),
        TOY: (toy_configs(), _toy_bound, st.fixed_dictionaries({"rounds": st.integers(1, 3)})),
        RPS: (
            st.fixed_dictionaries({}, optional={"rounds": st.integers(1, 9)}),
            lambda config, seats: int(config["rounds"]),
            st.fixed_dictionaries({"rounds": st.integers(1, 3)}),
        ),
    }
    for name in registry.names():
        if name not in known:  # a game's own tests/games/<package>/conformance.py
            known[name] = cases.declared(name, "CONFORMANCE_CASE")
    names = [*registry.names(), TOY, RPS]
    return {name: GameCase(load_game_info(name), *known[name]) for name in names}


CASES = _cases()
NAMES = list(CASES)

CONFORMANCE = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Texts a player might send that are rarely answers: commands, other digits, long and odd text.
JUNK = [
    "",
    " ",
    "TIMEOUT",
    "declare",
    "pass",
    "0",
    "9",
    "99",
    "-1",
    "a",
    "s",
    "Toadstool",
    "٣",
    "①",
    "ſ",
    "🌸",
    "\x00",
    "x" * 300,
]

# --- random matches ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One random match: its setup, which agent plays each seat, and the seed of the noise."""

    config: dict[str, JSON]
    seats: int
    seed: int
    agents: tuple[str, ...]
    noise: int


@st.composite
def plans(draw: st.DrawFn, name: str, host: bool = False) -> Plan:
    case = CASES[name]
    seats = draw(st.integers(case.game.min_seats, min(case.game.max_seats, 4)))
    agents = tuple(draw(st.sampled_from(sorted(case.info.agents))) for _ in range(seats))
    config = draw(case.host_configs if host else case.configs)
    return Plan(config, seats, draw(st.integers(0, 2**32)), agents, draw(st.integers(0, 2**32)))


@dataclass
class Step:
    """One window of a match (or its start: no ``before``): the requests open before it, the
    attempts sent, the moves they gave, and the state and events after it."""

    before: Any
    requests: list[Request]
    attempts: list[tuple[int, str]]
    moves: dict[int, Move | None]
    after: Any
    events: list[Event]
    left: int | None = None  # the seat that left instead of a resolution
    opens: list[Request] | None = None  # the requests ``after`` opens, once ``play`` asked

    def requests_after(self, game: Game[Any]) -> list[Request]:
        """The requests open after this step (asked once: a game's prompts are work)."""
        if self.opens is None:
            self.opens = game.requests(self.after)
        return self.opens


def setup_of(case: GameCase, plan: Plan) -> Setup:
    config = case.game.parse_config(plan.config, plan.seats)
    return Setup(config, plan.seats, plan.seed, [f"P{seat + 1}" for seat in range(plan.seats)])


def play(
    case: GameCase, plan: Plan, *, check_submit: bool = False, leave: tuple[int, int] | None = None
) -> list[Step]:
    """A whole match, window by window, stopped one window past the case's bound. With
    ``check_submit`` each attempt is checked to leave the state as it was. With ``leave`` =
    (window, pick) one asked seat (the pick-th, cyclically) leaves instead of that window
    resolving; the bound grows by that one step."""
    game, setup = case.game, setup_of(case, plan)
    state, events = game.new_match(setup)
    agents = [
        case.info.agents[kind](seat, random.Random(plan.seed + seat))
        for seat, kind in enumerate(plan.agents)
    ]
    rng = random.Random(plan.noise)
    steps = [Step(None, [], [], {}, state, events)]
    bound = case.window_bound(setup.config, plan.seats) + (leave is not None)
    while len(steps) <= bound + 1:
        for seat, agent in enumerate(agents):
            for event in events:
                if event.audience.reaches(seat):
                    agent.observe(event)
        requests = steps[-1].requests_after(game)
        if not requests:
            break
        if leave is not None and len(steps) - 1 == leave[0]:
            seat = requests[leave[1] % len(requests)].seat
            after, events = game.leave(state, seat)
            steps.append(Step(state, requests, [], {}, after, events, left=seat))
            state = after
            continue
        attempts = attempts_for(game, state, requests, agents, rng, plan.seats)
        dumped = dump_text(game, state) if check_submit else ""
        asked = {request.seat for request in requests}
        for seat, raw in attempts:
            verdict = game.submit(state, seat, raw)
            if check_submit:
                assert dump_text(game, state) == dumped, f"submit({seat}, {raw[:20]!r}) changed it"
            if seat not in asked:
                assert isinstance(verdict, Refused), f"seat {seat} is not asked, yet {verdict}"
        moves = play_window(requests, by_seat(attempts), partial(game.submit, state)).moves
        after, events = game.resolve(state, moves)
        steps.append(Step(state, requests, attempts, moves, after, events))
        state = after
    return steps


def by_seat(attempts: Sequence[tuple[int, str]]) -> dict[int, list[str]]:
    """Arrival-ordered (seat, text) pairs as each seat's attempt list."""
    lists: dict[int, list[str]] = {}
    for seat, raw in attempts:
        lists.setdefault(seat, []).append(raw)
    return lists


def attempts_for(
    game: Game[Any],
    state: Any,
    requests: Sequence[Request],
    agents: Sequence[Any],
    rng: random.Random,
    seats: int,
) -> list[tuple[int, str]]:
    """Per request some junk around an answer (an agent's or a random choice), or junk only;
    now and then an unasked seat (or no seat at all) answering too."""
    attempts: list[tuple[int, str]] = []
    for request in requests:
        texts = [rng.choice(JUNK) for _ in range(rng.randint(0, 2))]
        draw = rng.random()
        if draw < 0.45:
            answer = agents[request.seat].act(request, game.view(state, request.seat))
            texts.insert(rng.randint(0, len(texts)), answer)
        elif draw < 0.9 and request.choices:
            texts.insert(rng.randint(0, len(texts)), rng.choice(request.choices).value)
        attempts += [(request.seat, text) for text in texts]
    asked = {request.seat for request in requests}
    if rng.random() < 0.3:
        stray = rng.choice([s for s in range(-1, seats + 1) if s not in asked])
        values = [c.value for r in requests for c in r.choices] + JUNK
        attempts.insert(rng.randint(0, len(attempts)), (stray, rng.choice(values)))
    return attempts


def dump_text(game: Game[Any], state: Any) -> str:
    return json.dumps(game.dump(state), sort_keys=True)


def event_texts(events: Sequence[Event]) -> list[str]:
    return [
        json.dumps([str(e.audience), e.kind, e.data, e.text], sort_keys=True, default=str)
        for e in events
    ]


# --- matches end, submit is pure, save and load --------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@CONFORMANCE
@given(data=st.data())
def test_random_matches_end_within_the_rules(name: str, data: st.DataObject) -> None:
    case = CASES[name]
    plan = data.draw(plans(name))
    steps = play(case, plan)
    game, last = case.game, steps[-1].after
    bound = case.window_bound(setup_of(case, plan).config, plan.seats)
    outcome = game.outcome(last)
    assert outcome is not None, f"not over after {len(steps) - 1} windows (bound {bound})"
    assert len(steps) - 1 <= bound
    assert set(outcome.winners) <= set(range(plan.seats))
    assert game.requests(last) == []
    for seat in range(plan.seats):
        assert isinstance(game.submit(last, seat, "0"), Refused)
    turns = [game.view(step.after, None)["turn"] for step in steps]
    assert turns == sorted(turns), "the turn count went back"
    for step in steps[1:]:
        seats = [request.seat for request in step.requests]
        assert len(set(seats)) == len(seats) and set(seats) <= set(range(plan.seats))


@pytest.mark.parametrize("name", registry.names())
def test_a_request_only_level_answers_without_a_view(name: str) -> None:
    """An AI level whose agent says ``request_only`` (the ``random`` level, at least) reads
    neither its view nor the events: ``bot.simulate`` gives it none, so the load benchmark's
    players cost the host nothing but their answers. Given ``None`` for every view, it answers
    every prompt of a match, and legally."""
    info = load_game_info(name)
    game, seats = info.game, info.game.min_seats
    names = tuple(f"P{seat + 1}" for seat in range(seats))
    start, _ = game.new_match(Setup(game.parse_config({}, seats), seats, 11, names))
    levels = [
        level
        for level, factory in info.agents.items()
        if getattr(factory(0, random.Random(0)), "request_only", False)
    ]
    assert "random" in levels
    for level in levels:
        state = start
        agents = [info.agents[level](seat, random.Random(seat)) for seat in range(seats)]
        verdicts = []
        for _ in range(200):
            requests = game.requests(state)
            if not requests:
                break
            moves: dict[int, Move | None] = {}
            for request in requests:
                raw = agents[request.seat].act(request, None)
                verdicts.append(verdict := game.submit(state, request.seat, raw))
                moves[request.seat] = verdict.move if isinstance(verdict, Accepted) else None
            state, _ = game.resolve(state, moves)
        assert len(verdicts) > 20 and all(isinstance(v, Accepted) for v in verdicts), level


@pytest.mark.parametrize("name", NAMES)
@CONFORMANCE
@given(data=st.data())
def test_submit_never_changes_the_state(name: str, data: st.DataObject) -> None:
    steps = play(CASES[name], data.draw(plans(name)), check_submit=True)
    assert any(step.attempts for step in steps)


@pytest.mark.parametrize("name", NAMES)
@CONFORMANCE
@given(data=st.data())
def test_dump_load_and_continue_plays_bit_for_bit_the_same(name: str, data: st.DataObject) -> None:
    case = CASES[name]
    game = case.game
    steps = play(case, data.draw(plans(name)))
    cut = data.draw(st.integers(0, len(steps) - 1), label="cut")
    saved = json.loads(json.dumps(game.dump(steps[cut].after)))
    state = game.load(saved)
    assert dump_text(game, state) == dump_text(game, steps[cut].after)
    for step in steps[cut + 1 :]:
        assert game.requests(state) == step.requests
        for seat, raw in step.attempts:
            assert game.submit(state, seat, raw) == game.submit(step.before, seat, raw)
        state, events = game.resolve(state, step.moves)
        assert dump_text(game, state) == dump_text(game, step.after)
        assert event_texts(events) == event_texts(step.events)


@pytest.mark.parametrize("name", NAMES)
@CONFORMANCE
@given(data=st.data())
def test_a_leave_at_a_random_window_keeps_the_match_consistent(
    name: str, data: st.DataObject
) -> None:
    """The seat that leaves is never asked again, the match still ends within its bound (one
    step more), and dump, load and leave gives the same state and events."""
    case = CASES[name]
    game, plan = case.game, data.draw(plans(name))
    at = (data.draw(st.integers(0, 3), label="window"), data.draw(st.integers(0, 5), label="pick"))
    steps = play(case, plan, leave=at)
    last = steps[-1].after
    bound = case.window_bound(setup_of(case, plan).config, plan.seats) + 1
    outcome = game.outcome(last)
    assert outcome is not None and len(steps) - 1 <= bound
    left = [(i, step) for i, step in enumerate(steps) if step.left is not None]
    if not left:
        assert len(steps) - 1 <= at[0], "the match ran past the window without a leave"
        return
    ((index, leaving),) = left
    seat = leaving.left
    assert seat is not None
    for step in steps[index + 1 :]:
        assert seat not in [request.seat for request in step.requests], "asked after leaving"
    assert seat not in [request.seat for request in game.requests(leaving.after)]
    assert isinstance(game.submit(leaving.after, seat, "0"), Refused)
    if plan.seats == 2:
        assert outcome.winners == (1 - seat,), "with two seats the other seat wins"
    loaded = game.load(json.loads(json.dumps(game.dump(leaving.before))))
    again, events = game.leave(loaded, seat)
    assert dump_text(game, again) == dump_text(game, leaving.after)
    assert event_texts(events) == event_texts(leaving.events)
    with pytest.raises(ValueError):
        game.leave(leaving.after, seat)  # it is out already, or the match is over


# --- the stored log replays --------------------------------------------------------------------

WINDOW_S = 0.2  # a window where a seat sends only junk closes this soon


async def play_through_host(
    hosting: HostEnv, case: GameCase, plan: Plan, name: str, leave: tuple[int, int] | None = None
) -> int:
    """A match through the real host, store and scheduler: junk around answers, and now and
    then junk only (the window times out); ended by the host if it runs long. With ``leave``
    = (window, pick) an asked seat leaves in that window, after the others' attempts."""
    players = tuple(range(101, 101 + plan.seats))
    record = await hosting.host.create_match(
        name,
        guild_id=GUILD,
        channel_id=CHANNEL,
        players=players,
        config=plan.config,
        seed=plan.seed,
        window_s=WINDOW_S,
        timers=dict.fromkeys(case.info.timers, WINDOW_S),  # a reaction window too
    )
    await hosting.host.start_match(record.id)
    store, game, rng = hosting.host.store, case.game, random.Random(plan.noise)
    agents = [
        case.info.agents[kind](seat, random.Random(plan.seed + seat))
        for seat, kind in enumerate(plan.agents)
    ]
    for window in range(12):
        latest = await store.latest_step(record.id)
        state = game.load(latest.snapshot)
        requests = game.requests(state)
        if not requests or record.id not in hosting.host.active_match_ids():
            break
        leaving = requests[leave[1] % len(requests)].seat if leave and leave[0] == window else None
        for seat, raw in attempts_for(game, state, requests, agents, rng, plan.seats):
            if 0 <= seat < plan.seats and seat != leaving and rng.random() < 0.97:
                await hosting.host.submit(record.id, players[seat], raw)
        if leaving is not None and (await store.latest_step(record.id)).step == latest.step:
            try:
                await hosting.host.leave(record.id, players[leaving])
            except HostError:  # the deadline came first and ended the match
                assert record.id not in hosting.host.active_match_ids()
        while (await store.latest_step(record.id)).step == latest.step:
            await asyncio.sleep(0.005)  # all answered, or the deadline
    if record.id in hosting.host.active_match_ids():
        await hosting.host.end(record.id)
    await hosting.host.wait_idle()
    return record.id


@pytest.mark.parametrize("name", NAMES)
@settings(CONFORMANCE, max_examples=3)
@given(data=st.data())
async def test_the_stored_log_replays_to_the_snapshots(
    env: HostEnv,  # noqa: F811
    name: str,
    data: st.DataObject,
) -> None:
    case = CASES[name]
    plan = data.draw(plans(name, host=True))
    leave = data.draw(st.none() | st.tuples(st.integers(0, 3), st.integers(0, 5)), label="leave")
    match_id = await play_through_host(env, case, plan, name, leave)
    store = env.host.store
    record = await store.get_match(match_id)
    assert record is not None
    steps, attempts = await store.steps(match_id), await store.attempts(match_id)
    assert audit_match(case.game, record, steps, attempts) == []
    assert check_export(case.info, record, steps, attempts) == []
    script = json.loads(json.dumps(script_of(case.info, record, steps, attempts)))
    resolved = [step for step in steps if step.kind in ("resolve", "leave")]
    # each step's state: as kept (checkpoints, the latest), else replayed from the log
    derived = history.snapshots(case.game, record, steps)
    snapshot = {step.step: kept for step, kept in zip(steps, derived, strict=True)}
    if case.info.replay_script is not None:
        replayed = list(case.info.replay_script(script))
        assert len(replayed) == len(resolved)
        for again, stored in zip(replayed, resolved, strict=True):
            dumped = _normal(case.game.dump(again.state))
            assert dumped == snapshot[stored.step], (
                f"step {stored.step}: {first_difference(snapshot[stored.step], dumped)}"
            )
    trace = json.loads(json.dumps(case.info.run_script(script)))
    if "checkpoints" in trace:
        assert len(trace["checkpoints"]) == len(resolved)
    if "final" in trace and resolved:
        assert trace["final"] == snapshot[resolved[-1].step]
    summary, problems = await audit_store(store)
    assert problems == [] and summary["mismatches"] == 0


# --- choices and their prompts -----------------------------------------------------------------

# Discord's limits on a message with components
CONTENT, ROWS, PER_ROW, CUSTOM_ID, BUTTON_LABEL, OPTIONS, OPTION_TEXT = 2000, 5, 5, 100, 80, 25, 100
BIG_MATCH, BIG_STEP = 10**12, 10**6  # ids as long as a long-lived host may reach


def check_components(view: discord.ui.View) -> None:
    """Each component of a view checked against Discord's limits."""
    rows = view.to_components()
    assert len(rows) <= ROWS
    for row in rows:
        parts = row["components"]
        assert parts and (len(parts) <= PER_ROW if parts[0]["type"] == 2 else len(parts) == 1)
        for part in parts:
            assert 1 <= len(part["custom_id"]) <= CUSTOM_ID, part["custom_id"]
            if part["type"] == 2:
                assert 1 <= len(part["label"]) <= BUTTON_LABEL
            else:
                assert 1 <= len(part["options"]) <= OPTIONS
                for option in part["options"]:
                    assert 1 <= len(option["label"]) <= OPTION_TEXT
                    assert 1 <= len(option["value"]) <= OPTION_TEXT
                low, high = part.get("min_values", 1), part.get("max_values", 1)
                assert 0 <= low <= high <= len(part["options"])


def smallest_picks(request: Request, index: int) -> list[int]:
    """The fewest choices the request takes (at least one) that hold choice ``index``: the
    choice itself, or it and the next ones for a multi-choice request."""
    count = max(1, request.min_choices)
    return sorted({(index + k) % len(request.choices) for k in range(count)})


def smallest_answer_with(request: Request, index: int) -> str:
    """The answer ``smallest_picks`` makes."""
    return request.join_answer([request.choices[i].value for i in smallest_picks(request, index)])


def picks_sent(request: Request, rendered: Mapping[str, Any], picked: list[int]) -> str:
    """A multi-pick over several menus with ``picked`` picked: what its Send button sends (the
    picks its id carries), after checking that its menus show them."""
    view = prompt_view(rendered, picked=picked)
    check_components(view)
    keys = choice_keys([c["value"] for c in rendered["choices"]])
    for item in view.children:
        if isinstance(item, DeclareSelect):
            shown = {o.value for o in item.item.options if o.default}
            assert shown == {keys[i] for i in picked} & {o.value for o in item.item.options}
    (send,) = [item for item in view.children if isinstance(item, SendButton)]
    return picks_answer(request, send.word)


@pytest.mark.parametrize("name", NAMES)
@CONFORMANCE
@given(data=st.data())
async def test_every_offered_choice_is_accepted_and_fits_discord(
    name: str, data: st.DataObject
) -> None:
    case = CASES[name]
    game = case.game
    for step in play(case, data.draw(plans(name))):
        for request in step.requests_after(game):
            for i, choice in enumerate(request.choices):
                raw = smallest_answer_with(request, i)
                verdict = game.submit(step.after, request.seat, raw)
                assert isinstance(verdict, Accepted), (request.kind, choice, verdict)
            now = 1_900_000_000.0
            deadline = now + request.timeout_s
            assert len(prompt_text(request, deadline, now)) <= CONTENT
            payload = request_to_json(request, BIG_MATCH, BIG_STEP, deadline)
            rendered = json.loads(json.dumps(payload))
            offered: set[str] = set()  # over every page of a paged menu
            for view in every_page(rendered):
                check_components(view)
                offered |= set(offered_values(view, rendered))
            assert offered == {c.value for c in request.choices}
            menus = plan(rendered)[2]
            if menus and menus[0].kind == PICK:
                # picks in several menus add up; Send answers with them all, as typed
                for i in range(0, len(request.choices), max(1, len(request.choices) // 9)):
                    sent = picks_sent(request, rendered, smallest_picks(request, i))
                    assert sent == smallest_answer_with(request, i)
                    assert isinstance(game.submit(step.after, request.seat, sent), Accepted)


# --- secrets ----------------------------------------------------------------------------------


def _normal(value: Any) -> JSON:
    return json.loads(json.dumps(value, default=str))


def mappings(data: JSON) -> list[Mapping[str, JSON]]:
    """Every mapping at any depth of ``data``: gathered once for what is shown, then looked
    through for each secret (walking the whole data again for each was most of the check)."""
    found: list[Mapping[str, JSON]] = []
    todo = [data] if isinstance(data, dict | list) else []
    while todo:  # only containers are stacked: a view holds far more scalars than containers
        value = todo.pop()
        if isinstance(value, dict):
            found.append(value)
            value = value.values()
        todo += [inner for inner in value if isinstance(inner, dict | list)]
    return found


def holds(places: Sequence[Mapping[str, JSON]], shape: Mapping[str, JSON]) -> bool:
    """Whether one of ``places`` (the ``mappings`` of some data) holds every item of
    ``shape``."""
    return any(
        all(key in place and place[key] == value for key, value in shape.items())
        for place in places
    )


@dataclass(frozen=True)
class Forms:
    """The forms of a secret to look for: its phrases, and its data shapes made plain JSON."""

    texts: frozenset[str]
    shapes: tuple[JSON, ...]

    @classmethod
    def of(cls, secrets: Sequence[Secret]) -> Forms:
        texts = frozenset(phrase for secret in secrets for phrase in secret.texts)
        return cls(texts, tuple(_normal(shape) for secret in secrets for shape in secret.data))

    def without(self, own: Forms) -> Forms:
        """Less the forms the audience's own secrets take too (two seats with an Azalea in pot
        1 both say so)."""
        return Forms(self.texts - own.texts, tuple(s for s in self.shapes if s not in own.shapes))

    def found_in(self, text: str, places: Sequence[Mapping[str, JSON]]) -> bool:
        """Whether ``text`` or data whose ``mappings`` are ``places`` shows one of the forms."""
        return any(phrase in text for phrase in self.texts) or any(
            holds(places, shape) for shape in self.shapes
        )


@dataclass(frozen=True)
class Shown:
    """What one audience is shown at one step: where a leak would be."""

    where: str
    text: str
    places: Sequence[Mapping[str, JSON]]  # the mappings of the data shown


class Sights:
    """What one step shows each audience (views, descriptions, event data) and each seat's
    secrets, each made once: the leak check and the shown check look at the same ones."""

    def __init__(self, game: Game[Any], step: Step, seats: int) -> None:
        self.game, self.step = game, step
        self.secrets = [list(game.secrets(step.after, seat)) for seat in range(seats)]
        self._views: dict[int | None, tuple[str, list[Mapping[str, JSON]]]] = {}
        self._descriptions: dict[int | None, str] = {}
        self._events = [mappings(_normal(event.data)) for event in step.events]

    def view(self, seat: int | None) -> tuple[str, list[Mapping[str, JSON]]]:
        """The audience's view as JSON text, and its mappings."""
        if seat not in self._views:
            view = _normal(self.game.view(self.step.after, seat))
            self._views[seat] = (json.dumps(view, ensure_ascii=False), mappings(view))
        return self._views[seat]

    def describe(self, seat: int | None) -> str:
        if seat not in self._descriptions:
            self._descriptions[seat] = self.game.describe(self.step.after, seat)
        return self._descriptions[seat]

    def events(self, *audiences: Audience) -> Iterator[tuple[Event, list[Mapping[str, JSON]]]]:
        """The step's events for any of ``audiences``, each with its data's mappings."""
        for event, places in zip(self.step.events, self._events, strict=True):
            if event.audience in audiences:
                yield event, places


def shown_to(sights: Sights, seat: int | None, requests: Sequence[Request]) -> Iterator[Shown]:
    """The view, description, events and (for a seat) prompts (of the step's ``requests``)
    for the public or a seat."""
    yield Shown("view", *sights.view(seat))
    yield Shown("describe", sights.describe(seat), [])
    for event, places in sights.events(PUBLIC if seat is None else to_seat(seat)):
        yield Shown(f"event {event.kind}", event.text, places)
    for request in requests:
        if request.seat == seat:
            labels = " ".join(f"{c.value} {c.label}" for c in request.choices)
            yield Shown("prompt", f"{request.prompt}\n{labels}\n{request.default}", [])


def leaks(game: Game[Any], step: Step, seats: int, sights: Sights | None = None) -> list[str]:
    """Each secret of a seat found in what the public or another seat is shown; a form that
    the audience's own secrets take too (two equal hands) is no evidence of a leak."""
    sights = sights or Sights(game, step, seats)
    secrets = sights.secrets
    found = []
    forms = [[Forms.of([secret]) for secret in held] for held in secrets]
    requests = step.requests_after(game)  # every audience's prompts are among them
    for seat in [None, *range(seats)]:
        own = Forms.of([] if seat is None else secrets[seat])
        others = [
            (owner, secret, forms[owner][n].without(own))
            for owner in range(seats)
            if owner != seat
            for n, secret in enumerate(secrets[owner])
        ]
        for shown in shown_to(sights, seat, requests):
            found += [
                f"{'public' if seat is None else f'seat {seat}'} {shown.where}: seat {owner}'s"
                f" {secret}"
                for owner, secret, looked_for in others
                if looked_for.found_in(shown.text, shown.places)
            ]
    return found


def unshown(sights: Sights) -> list[str]:
    """Each declared secret that its owner's view, description and events (or the
    moderators' events) never show: a secret in a form the game does not render."""
    missing = []
    for seat, held in enumerate(sights.secrets):
        places = [(sights.describe(seat), sights.view(seat)[1])]
        places += [(event.text, data) for event, data in sights.events(to_seat(seat), MODERATORS)]
        missing += [
            f"seat {seat}: {secret}"
            for secret in held
            if not any(Forms.of([secret]).found_in(text, data) for text, data in places)
        ]
    return missing


@pytest.mark.parametrize("name", NAMES)
@CONFORMANCE
@given(data=st.data())
def test_no_view_or_event_carries_another_seats_secret(name: str, data: st.DataObject) -> None:
    case = CASES[name]
    plan = data.draw(plans(name))
    declared = 0
    for step in play(case, plan):
        sights = Sights(case.game, step, plan.seats)
        assert leaks(case.game, step, plan.seats, sights) == []
        assert unshown(sights) == []
        declared += sum(len(held) for held in sights.secrets)
    if case.info.secrets:
        assert declared, "the game declares no secret at all"
    else:  # a game that says it hides nothing declares nothing
        assert declared == 0


def seen_by_all(game: Game[Any], state: Any) -> Event:
    """Seat 1's view and description, shown to seat 0."""
    return Event(to_seat(0), "leak", {"v": game.view(state, 1)}, game.describe(state, 1))


@pytest.mark.parametrize("name", NAMES)
def test_the_leak_check_finds_a_seats_view_shown_to_another(name: str) -> None:
    """The check is not vacuous: once seat 1 holds a secret seat 0 does not, showing seat 0
    what seat 1 sees is a leak the check reports."""
    case = CASES[name]
    game = case.game
    if not case.info.secrets:  # nothing to leak: the check finds nothing in a full view
        plan = Plan({}, game.min_seats, 0, ("random",) * game.min_seats, 0)
        for step in play(case, plan):
            shown = Step(None, [], [], {}, step.after, [seen_by_all(game, step.after)])
            assert leaks(game, shown, plan.seats) == []
        return
    for seed in range(10):
        plan = Plan({}, game.min_seats, seed, ("random",) * game.min_seats, seed)
        for step in play(case, plan):
            mine = list(game.secrets(step.after, 0))
            if all(secret in mine for secret in game.secrets(step.after, 1)):
                continue
            view, text = game.view(step.after, 1), game.describe(step.after, 1)
            shown = Step(None, [], [], {}, step.after, [Event(to_seat(0), "leak", {"v": view}, "")])
            assert leaks(game, shown, plan.seats) != []
            told = Step(None, [], [], {}, step.after, [Event(to_seat(0), "leak", {}, text)])
            assert leaks(game, told, plan.seats) != []
            return
    raise AssertionError("seat 1 never held a secret of its own")


# --- the largest inputs -----------------------------------------------------------------------

MENU_PAGES = 4  # the most pages a menu may turn (96 choices); else a count-then-pick flow
LARGEST = [(name, case) for name in registry.names() for case in steps.largest(name)]


def menu_pages(request: Request) -> list[int]:
    """The pages of each menu a request shows as (a two-step menu: the pages listing its
    stages; each stage is a page)."""
    payload = request_to_json(request, BIG_MATCH, BIG_STEP, 0.0)
    return [menu.lists if menu.steps is not None else menu.pages for menu in plan(payload)[2]]


@pytest.mark.parametrize(
    ("name", "case"), LARGEST, ids=[f"{name}: {case.label}" for name, case in LARGEST]
)
def test_on_the_largest_inputs_a_step_and_an_ai_are_fast_a_state_small_a_prompt_pickable(
    name: str, case: steps.Largest
) -> None:
    costs = list(steps.step_costs(name, case, seed=1))
    assert len(costs) > 10, "the match ended before it grew"
    slowest = max(costs, key=lambda cost: cost.seconds)
    assert slowest.seconds <= steps.STEP_S, f"window {slowest.window} ({slowest.kind})"
    thinking = max(costs, key=lambda cost: cost.decision_seconds)
    decision = f"an AI's decision in window {thinking.window} ({thinking.kind})"
    assert thinking.decision_seconds <= steps.STEP_S, decision
    largest = max(costs, key=lambda cost: cost.state_bytes)
    assert largest.state_bytes <= steps.STATE_BYTES, f"window {largest.window}"
    for cost in costs:
        for request in cost.requests:
            if request.max_choices > 1:  # picks add up over menus while Send can carry them
                assert len(request.choices) <= MULTI_MOST, (cost.window, request.kind)
            else:
                assert max(menu_pages(request), default=1) <= MENU_PAGES, (cost.window, request)

"""The AI levels (``games/red_phoenix/agents.py``, ``docs/ai/red-phoenix.md``): the shared
contract's keys, every answer legal, the order of strength, and ``normal`` playing for Gold as
the rules page's §15.2 bot does (Level III experiments, Gold wins in self-play)."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from games.play import play_match
from games.protocol import Agent, Event, Request, Setup, derive_rng
from games.red_phoenix import AGENTS, DEFAULT_AGENT, GAME, GAME_INFO, replay_script
from games.red_phoenix.agents import HARD, NORMAL, Planner

from .helpers import decks, script

BASELINE = Path(__file__).resolve().parents[3] / "bench" / "baselines" / "red_phoenix.py"


def share(level: str, against: str, seats: int, matches: int) -> tuple[float, Counter[str]]:
    """``level``'s share of the wins over ``matches``, its seat rotating (as bench/ai.py)."""
    wins, reasons = 0.0, Counter[str]()
    for seed in range(matches):
        strong = seed % seats
        state, events = GAME.new_match(Setup(GAME.parse_config({}, seats), seats, seed))
        agents = [
            AGENTS[level if s == strong else against](s, derive_rng(seed, "agent", s))
            for s in range(seats)
        ]
        final = play_match(GAME, state, events, agents, derive_rng(seed, "order"))
        outcome = GAME.outcome(final)
        assert outcome is not None
        reasons[outcome.reason] += 1
        wins += 1 / len(outcome.winners) if strong in outcome.winners else 0.0
    return wins / matches, reasons


def test_the_levels_of_the_shared_contract_and_normal_by_default() -> None:
    assert set(AGENTS) == {"random", "easy", "normal", "hard"}
    assert DEFAULT_AGENT == GAME_INFO.default_agent == "normal"


@pytest.mark.parametrize("seats", [2, 4])
def test_normal_beats_random_players(seats: int) -> None:
    won, _ = share("normal", "random", seats, 16)
    assert won > 0.6, won


def test_normal_beats_easy_and_hard_beats_normal_in_a_duel() -> None:
    assert share("normal", "easy", 2, 30)[0] > 0.55
    assert share("hard", "normal", 2, 30)[0] > 0.55


def test_s15_2_normal_plays_for_gold_declaring_level_iii_experiments() -> None:
    """In self-play at three seats most matches end in Gold, as the §15.2 bot's; each seat
    declares Level III experiments (the old AI declared none in 200 matches)."""
    declared: Counter[int] = Counter()

    class Counting:
        def __init__(self, agent: Agent) -> None:
            self.agent = agent

        def observe(self, event: Event) -> None:
            self.agent.observe(event)

        def act(self, request: Request, view: Any) -> str:
            answer = self.agent.act(request, view)
            words = answer.split()
            if words[0] in ("slow", "fast"):
                declared[max(view_level(view, c) for c in words[2:])] += 1
            return answer

    reasons: Counter[str] = Counter()
    for seed in range(20):
        state, events = GAME.new_match(Setup(GAME.parse_config({}, 3), 3, seed))
        agents = [Counting(AGENTS["normal"](s, derive_rng(seed, "agent", s))) for s in range(3)]
        final = play_match(GAME, state, events, agents, derive_rng(seed, "order"))
        outcome = GAME.outcome(final)
        assert outcome is not None
        reasons[outcome.reason] += 1
    assert reasons["gold"] >= 10, reasons
    assert declared[3] >= 20 and declared[2] >= 20, declared


def view_level(view: Any, card: str) -> int:
    from games.red_phoenix.cards import card_set_of

    return card_set_of(view["card_set_data"]).ingredients[card].level


def test_s5_5_the_planner_keeps_a_met_success_over_a_catastrophe() -> None:
    data = script(
        [("P1", ["fast gold_standard salt lead cinnabar"])],
        decks=decks(I=["singed_fingers", "dusky_resin@3"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"], "coins": 5}}},
    )
    state = list(replay_script(data))[-1].state
    (request,) = GAME.requests(state)
    for style in (NORMAL, HARD):
        agent = Planner(0, derive_rng(1, "k"), style)
        assert agent.act(request, GAME.view(state, 0)) == "keep 2"


def test_s8_2_the_planner_wards_a_lethal_loss() -> None:
    data = script(
        [("P1", ["end"]), ("P2", ["use greek_fire P1"])],
        preset={
            "players": {"P1": {"hand": ["aether"], "health": 3}, "P2": {"hand": ["greek_fire"]}}
        },
    )
    state = list(replay_script(data))[-1].state
    (request,) = GAME.requests(state)
    assert request.kind == "ward"
    for level in ("normal", "hard"):
        agent = AGENTS[level](0, derive_rng(2, "w"))
        assert agent.act(request, GAME.view(state, 0)) == "ward"


def test_the_frozen_previous_ai_still_plays_through_the_protocol() -> None:
    spec = importlib.util.spec_from_file_location("red_phoenix_baseline", BASELINE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for seed in range(4):
        state, events = GAME.new_match(Setup(GAME.parse_config({}, 3), 3, seed))
        agents = [module.AGENT(s, derive_rng(seed, "p", s)) for s in range(3)]
        final = play_match(GAME, state, events, agents)  # raises on a refused answer
        assert GAME.outcome(final) is not None

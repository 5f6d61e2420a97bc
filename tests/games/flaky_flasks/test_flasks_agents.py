"""The AI levels (the shared contract): random, easy, normal (the default, the practice
opponent) and hard; each answers every prompt legally, and each level beats the one below it.
The figures of record are ``bench/ai.py``'s (docs/ai/flaky-flasks.md); these few matches
only check the order."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from games.flaky_flasks import AGENTS, DEFAULT_AGENT, GAME, GAME_INFO
from games.flaky_flasks.script import _config, _start
from games.play import play_match
from games.protocol import Accepted, Setup, derive_rng

BASELINE = Path(__file__).resolve().parents[3] / "bench" / "baselines" / "flaky_flasks.py"


def _match(seed: int, seats: int, levels: list[str], rounds: int = 6) -> Any:
    config = GAME.parse_config({"rounds": rounds}, seats)
    state, events = GAME.new_match(Setup(config, seats, seed))
    agents = [AGENTS[levels[s]](s, derive_rng(seed, "agent", s)) for s in range(seats)]
    return play_match(GAME, state, events, agents, derive_rng(seed, "order"))


def _share(level: str, against: str, matches: int, seats: int = 2) -> float:
    """The win share of ``level`` in its rotating seat, the others at ``against``."""
    won = 0.0
    for seed in range(matches):
        strong = seed % seats
        levels = [level if s == strong else against for s in range(seats)]
        outcome = GAME.outcome(_match(seed, seats, levels))
        assert outcome is not None
        won += 1 / len(outcome.winners) if strong in outcome.winners else 0.0
    return won / matches


def test_the_levels_are_the_shared_contracts() -> None:
    assert list(AGENTS) == ["random", "easy", "normal", "hard"]
    assert DEFAULT_AGENT == "normal" and GAME_INFO.default_agent == "normal"


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
@pytest.mark.parametrize("seats", [2, 4])
def test_every_level_answers_every_prompt_legally(level: str, seats: int) -> None:
    """``play_match`` raises on a refused answer; the match reaches its end."""
    final = _match(seats, seats, [level] * seats)
    assert GAME.outcome(final) is not None


def test_easy_beats_random() -> None:
    assert _share("easy", "random", 8) >= 0.75


def test_normal_beats_easy() -> None:
    assert _share("normal", "easy", 8) >= 0.75


def test_hard_beats_normal() -> None:
    assert _share("hard", "normal", 10) >= 0.7


def test_the_previous_ai_is_frozen_and_still_plays() -> None:
    """bench/baselines/flaky_flasks.py: today's ``brewer`` before the levels, measured against
    by ``bench/ai.py --against previous``; it plays a whole match legally."""
    spec = importlib.util.spec_from_file_location("baseline_flaky_flasks", BASELINE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = GAME.parse_config({"rounds": 6}, 2)
    state, events = GAME.new_match(Setup(config, 2, 3))
    agents = [module.AGENT(0, derive_rng(3, 0)), AGENTS["hard"](1, derive_rng(3, 1))]
    final = play_match(GAME, state, events, agents, derive_rng(3, "order"))
    assert GAME.outcome(final) is not None


def test_hard_keeps_a_turn_one_cauldron_for_turn_two_when_that_pays() -> None:
    """The last round (coins no longer count): a lone pair through the one connected slot sells
    only as a Simple Tonic (1 fame), so the planner keeps it for Turn 2, where four symbols
    make a Balanced Elixir (4 fame); its coins go to broken slots."""
    script = {
        "format": "flaky-flasks-script/1",
        "players": ["P1", "P2"],
        "start": {"round": 12},
        "decks": {"12": {"P1": ["ember", "copper", "opal", "brick", "copper"]}},
        "steps": [],
    }
    config = _config(script, 2)
    state = _start(script, config, ["P1", "P2"])
    agent = AGENTS["hard"](0, derive_rng(1, 0))
    answers = []
    while not answers or answers[-1] not in ("brew", "done"):
        (request,) = [r for r in GAME.requests(state) if r.seat == 0]
        answers.append(agent.act(request, GAME.view(state, 0)))
        verdict = GAME.submit(state, 0, answers[-1])
        assert isinstance(verdict, Accepted)
        state, _ = GAME.resolve(state, {0: verdict.move})
    assert answers[-1] == "done" and any(a.startswith("prop 1") for a in answers), answers
    assert sorted(a for a in answers if a.startswith("play copper")) == [
        "play copper 2",
        "play copper 3",
    ]
    assert len(state["g"]["players"][0]["cauldron"]) == 2  # kept for Turn 2

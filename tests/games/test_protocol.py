"""The shared game protocol pieces."""

from __future__ import annotations

import random

from games.protocol import (
    MODERATORS,
    PUBLIC,
    Choice,
    ConfigError,
    Event,
    RandomAgent,
    Request,
    derive_rng,
    to_seat,
)


def test_audiences_reach_the_public_and_their_own_seat_only() -> None:
    assert PUBLIC.reaches(0) and PUBLIC.reaches(3)
    assert to_seat(1).reaches(1) and not to_seat(1).reaches(0)
    assert not MODERATORS.reaches(0)


def test_a_lazy_event_renders_once_on_first_access() -> None:
    calls: list[int] = []

    def render(n: int) -> tuple[dict[str, int], str]:
        calls.append(n)
        return {"n": n}, f"n is {n}"

    event = Event.lazy(PUBLIC, "count", render, 3)
    assert calls == []
    assert event.text == "n is 3" and event.data == {"n": 3}
    assert calls == [3]
    assert event == Event(PUBLIC, "count", {"n": 3}, "n is 3")


def test_derived_rngs_are_stable_and_independent_by_purpose() -> None:
    assert derive_rng(5, "maps", 0).random() == derive_rng(5, "maps", 0).random()
    assert derive_rng(5, "maps", 0).random() != derive_rng(5, "maps", 1).random()
    assert derive_rng(5, "maps", 0).random() != derive_rng(6, "maps", 0).random()


def test_config_errors_name_their_field() -> None:
    error = ConfigError("config.max_turns", "must be positive")
    assert str(error) == "config.max_turns: must be positive" and error.field == "config.max_turns"


def test_the_random_agent_answers_among_the_choices() -> None:
    request = Request(0, "pick", "Pick one", (Choice("a", "A"), Choice("b", "B")), "a", 1.0)
    agent = RandomAgent(0, random.Random(1))
    assert {agent.act(request, {}) for _ in range(50)} == {"a", "b"}

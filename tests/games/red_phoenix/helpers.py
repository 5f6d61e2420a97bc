"""Shared helpers for the Red Phoenix tests: scripts from compact setups, partial comparison."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from games.protocol import JSON
from games.red_phoenix.cards import LEVELS, house
from games.red_phoenix.script import replay_script, run_script

EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "red-phoenix-examples.json"


def examples() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(EXAMPLES.read_text(encoding="utf-8"))["examples"]
    return data


def script_of(example: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in example.items() if k not in ("id", "title", "expect")}


def mismatches(expected: JSON, got: JSON, path: str = "") -> list[str]:
    """Where ``got`` differs from ``expected`` in the fields ``expected`` lists (objects in
    lists compared item by item, partially; ``alt`` left out)."""
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping):
            return [f"{path}: {got!r} is not an object"]
        out = []
        for key, value in expected.items():
            if key == "alt":
                continue
            if key not in got:
                out.append(f"{path}.{key}: missing")
            else:
                out += mismatches(value, got[key], f"{path}.{key}")
        return out
    if isinstance(expected, list) and expected and isinstance(expected[0], Mapping):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{path}: {got!r} has not {len(expected)} items"]
        out = []
        for index, (want, have) in enumerate(zip(expected, got, strict=True)):
            out += mismatches(want, have, f"{path}[{index}]")
        return out
    return [] if expected == got else [f"{path}: got {got!r}, want {expected!r}"]


def decks(**tops: Sequence[str]) -> dict[str, list[str]]:
    """Full house decks (listing order) with the given cards moved to the top, in order."""
    cs = house()
    out = {}
    for level in LEVELS:
        deck = cs.deck(level)
        top = list(tops.get(level, []))
        for card in top:
            deck.remove(card)
        out[level] = top + deck
    return out


def script(
    steps: Sequence[tuple[str, Sequence[str]] | Mapping[str, Any]],
    players: Sequence[str] = ("P1", "P2"),
    **extra: Any,
) -> dict[str, Any]:
    """A script: steps as (seat, attempts) pairs; ``decks`` default to the house listing order."""
    data: dict[str, Any] = {"format": "red-phoenix-script/1", "players": list(players)}
    data["decks"] = extra.pop("decks", None) or decks()
    data.update(extra)
    data["steps"] = [
        step if isinstance(step, Mapping) else {"seat": step[0], "attempts": list(step[1])}
        for step in steps
    ]
    return data


def trace(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    checkpoints: list[dict[str, Any]] = run_script(data)["checkpoints"]
    return checkpoints


def last(data: Mapping[str, Any]) -> dict[str, Any]:
    return trace(data)[-1]


def states(data: Mapping[str, Any]) -> list[Any]:
    return [step.state for step in replay_script(data)]

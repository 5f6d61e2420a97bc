"""Plain JSON data (dicts, lists, strings, numbers, booleans, None), copied cheaply: the engines
copy a state on every step, where ``copy.deepcopy`` (its memo, its dispatch) or a JSON round
trip cost several times more than walking the data once."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def copy_json(value: T) -> T:
    """A deep copy of plain JSON data: new dicts and lists, the same immutable leaves."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}  # type: ignore[return-value]
    if isinstance(value, list):
        return [copy_json(item) for item in value]  # type: ignore[return-value]
    return value

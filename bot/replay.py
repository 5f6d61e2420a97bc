"""``floral-host replay SCRIPT.json``: run a match script through its engine and print the trace
(JSON), or with ``--summary`` what happened step by step in the game's own words."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from games import registry
from games.protocol import ConfigError
from games.registry import GameInfo
from games.text import DuplicateKey, excerpt, unique_keys


def game_of(script: object) -> GameInfo:
    """The game whose script format ``script`` names; ConfigError if none."""
    if not isinstance(script, dict):
        raise ConfigError("script", "must be a JSON object")
    formats = registry.by_script_format()
    fmt = script.get("format")
    if not isinstance(fmt, str) or fmt not in formats:
        raise ConfigError("format", f"must be one of {', '.join(formats)}, got {excerpt(fmt)}")
    return registry.get(formats[fmt])


def replay(script: object) -> object:
    """The trace of a parsed script; ConfigError names what is wrong."""
    return game_of(script).run_script(script)


def summary(script: object) -> Iterator[str]:
    """The script step by step as lines of text: every event the engine tells, with its
    audience, then the public state and the outcome at the end."""
    info = game_of(script)
    if info.replay_script is None:
        raise ConfigError("format", "this game's scripts have no summary; replay without --summary")
    state = None
    for number, step in enumerate(info.replay_script(script), start=1):
        state = step.state
        yield f"— step {number} —"
        if not step.events:
            yield "  (no window opened: nothing happened)"
        for event in step.events:
            text = event.text.replace("\n", "\n    ")
            yield f"  [{event.audience}] {text}"
    if state is None:
        yield "(no steps: the script stops before its first window closed)"
    else:
        yield "— now —"
        yield info.game.describe(state, None)
        outcome = info.game.outcome(state)
        if outcome is not None:
            yield f"Over: {outcome.reason}. {outcome.detail}".rstrip()


def read_script(path: Path) -> object:
    """The parsed file; OSError or ValueError (with a one-line reason) when it cannot be."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 text (byte {error.start})") from None
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKey as duplicate:
        raise ValueError(f"the key {excerpt(duplicate.key)} is given twice in one object") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error}") from None
    except (ValueError, RecursionError):  # a number past Python's digit limit, deep nesting
        raise ValueError(
            "not JSON this reader can hold (too deeply nested or too long a number)"
        ) from None


def main(args: argparse.Namespace) -> int:
    path = Path(args.script)
    try:
        script = read_script(path)
    except OSError as error:
        print(f"{path}: cannot read: {error.strerror or error}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 2
    try:
        if getattr(args, "summary", False):
            lines = list(summary(script))  # all of it first: a malformed step prints nothing
            sys.stdout.write("\n".join(lines) + "\n")
            return 0
        trace = replay(script)
    except ConfigError as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 2
    json.dump(trace, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0

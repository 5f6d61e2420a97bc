"""``floral-host play GAME``: you against the AI in the terminal, with real timers.

You are seat 1. In a terminal, ``bot.terminal`` draws the match: each question with its
numbered choices and a countdown, what happens, and the end in words; type a number or the
answer, or ``help``, ``cards``, ``view``, ``status``, ``quit``. From a pipe it reads line by
line and prints plain text. ``quit``, or the end of the input (Ctrl-D), leaves: the match is
aborted, with no result. Ctrl-C stops at once (exit code 130).
"""

from __future__ import annotations

import argparse
import sys

from bot.process import EXIT_OUTPUT_CLOSED, run_command
from bot.terminal.session import play


def main(args: argparse.Namespace) -> int:
    if hasattr(sys.stdin, "reconfigure"):  # bytes that are not UTF-8 become U+FFFD, not an error
        sys.stdin.reconfigure(errors="replace")
    try:
        return run_command(
            lambda stop: play(
                args.game,
                args.level,
                args.seed,
                args.window,
                args.players,
                options=args.options,
                on_closed=lambda: stop(EXIT_OUTPUT_CLOSED),
            )
        )
    except KeyError as error:
        print(f"floral-host play: {error.args[0]}", file=sys.stderr)
        return 2


__all__ = ["main", "play"]

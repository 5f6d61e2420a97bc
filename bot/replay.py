"""``floral-host replay SCRIPT.json``: run a match script through its engine, print the trace."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from games import registry
from games.protocol import ConfigError

# script format -> game name
FORMATS = {
    "floral-extract-script/1": "floral-extract",
    "warlocks-brew-script/1": "warlocks-brew",
}


def replay(script: object) -> object:
    """The trace of a parsed script; ConfigError names what is wrong."""
    if not isinstance(script, dict):
        raise ConfigError("script", "must be a JSON object")
    fmt = script.get("format")
    if fmt not in FORMATS:
        raise ConfigError("format", f"must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return registry.get(FORMATS[fmt]).run_script(script)


def main(args: argparse.Namespace) -> int:
    path = Path(args.script)
    try:
        script = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        print(f"{path}: cannot read: {error.strerror}", file=sys.stderr)
        return 2
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        print(f"{path}: not valid JSON: {error}", file=sys.stderr)
        return 2
    try:
        trace = replay(script)
    except ConfigError as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 2
    json.dump(trace, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0

"""``floral-host run`` with the toy game registered and its cog loaded beside the registered
games' cogs: the tests' game on Discord, for the protocol's end-to-end tests.
Run: ``python -m tests.e2e.toybot``."""

from __future__ import annotations

import sys

from bot import client
from bot.cli import main
from games import registry

client.SHARED_EXTENSIONS = (*client.SHARED_EXTENSIONS, "tests.e2e.toy_cog")
registry.add("tests.bot.toy_game")  # /practice and /rules know it too

if __name__ == "__main__":
    sys.exit(main(["run"]))

"""``floral-host run`` with the toy game's cog loaded beside the registered games' cogs: the
tests' game on Discord, for the protocol's end-to-end tests. Run: ``python -m tests.e2e.toybot``."""

from __future__ import annotations

import sys

from bot import client
from bot.cli import main

client.SHARED_EXTENSIONS = (*client.SHARED_EXTENSIONS, "tests.e2e.toy_cog")

if __name__ == "__main__":
    sys.exit(main(["run"]))

"""``floral-host run`` with the toy game registered and its cog loaded beside the registered
games' cogs: the tests' game on Discord, for the protocol's end-to-end tests.
Run: ``python -m tests.e2e.toybot [run's options]`` (``--shards 1 --shard-count 2``).

``TOYBOT_DIE_AFTER_CLAIM=1``: the process kills itself (SIGKILL) right after it claims a DM
handed over to it (``bot.handoff``), before handling it: the crash the hand-off survives.
``TOYBOT_DIE_BEFORE_DONE=N``: it handles (commits and answers) the DMs handed over to it but
deletes none, and kills itself once it has handled N: the crash after the answer."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from bot import client
from bot.cli import main
from bot.handoff import HandOff
from games import registry

client.SHARED_EXTENSIONS = (*client.SHARED_EXTENSIONS, "tests.e2e.toy_cog")
registry.add("tests.bot.toy_game")  # /practice and /rules know it too


def die(self: HandOff, row_id: int) -> None:
    print(f"claimed handed-over row {row_id}; dying", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


HANDLED: list[int] = []


async def die_once_handled(self: HandOff, row_id: int) -> None:
    HANDLED.append(row_id)
    if len(HANDLED) >= int(os.environ["TOYBOT_DIE_BEFORE_DONE"]):
        print(f"handled handed-over rows {HANDLED}; dying", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    await asyncio.Event().wait()  # its row is never deleted


if os.environ.get("TOYBOT_DIE_AFTER_CLAIM") == "1":
    HandOff.claimed = die  # type: ignore[method-assign]
if os.environ.get("TOYBOT_DIE_BEFORE_DONE"):
    HandOff.handled = die_once_handled  # type: ignore[method-assign]

if __name__ == "__main__":
    sys.exit(main(["run", *sys.argv[1:]]))

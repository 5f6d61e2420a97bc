"""A host with one toy match, run as its own process by the SIGSTOP test.

Prints ``ready`` once the first window is open, then one JSON line per message sent (kind,
audience, text). Runs until it is killed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from bot.host import Host
from bot.store.sqlite import SqliteStore
from bot.transport import Delivery
from tests.bot.toy_game import GAME

WINDOW_S = 1.0
STALL_S = 0.5


class PrintingTransport:
    async def send(self, delivery: Delivery) -> None:
        line = {
            "kind": delivery.payload["kind"],
            "audience": str(delivery.audience),
            "text": delivery.text,
        }
        print(json.dumps(line), flush=True)


async def main(db: Path) -> None:
    store = await SqliteStore.open(db)
    host = Host(store, PrintingTransport(), grace_s=30, reminder_s=0.25, stall_s=STALL_S)
    await host.start()
    record = await host.create_match(
        GAME, guild_id=1, channel_id=2, players=(1, 2), seed=3, window_s=WINDOW_S
    )
    await host.start_match(record.id)
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))

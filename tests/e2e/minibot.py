"""A tiny discord.py bot run as a subprocess to test ``botproc.BotProcess`` against the fake.

It reads its settings the way floral-host does (DISCORD_TOKEN, DISCORD_API_BASE,
DISCORD_GATEWAY_URL) and offers /ping, /buttons (a persistent DynamicItem button), /boom (logs an
ERROR) and /die (exits with code 3). Run: ``python tests/e2e/minibot.py``.
"""

from __future__ import annotations

import logging
import os
import re

import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands

log = logging.getLogger("minibot")


class Tap(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"mini:tap:(?P<n>\d+)"
):
    """A button that keeps working after a restart."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Tap {n}", custom_id=f"mini:tap:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> Tap:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"tapped {self.n} (pid {os.getpid()})", ephemeral=True
        )


class MiniBot(discord.Client):
    def __init__(self) -> None:
        timeout = float(os.environ.get("MINIBOT_GUILD_READY_TIMEOUT", "0.1"))
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=timeout)
        self.tree = app_commands.CommandTree(self)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Tap)

        @self.tree.command(description="Answer with the process id")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"pong (pid {os.getpid()})")

        @self.tree.command(description="Post a persistent button")
        async def buttons(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Tap(7))
            await interaction.response.send_message("Tap it:", view=view)

        @self.tree.command(description="Log an error")
        async def boom(interaction: discord.Interaction) -> None:
            log.error("boom requested by %s", interaction.user)
            await interaction.response.send_message("logged", ephemeral=True)

        @self.tree.command(description="Exit at once")
        async def die(interaction: discord.Interaction) -> None:
            os._exit(3)

        await self.tree.sync()

    async def on_ready(self) -> None:
        log.info("minibot ready as %s (pid %s)", self.user, os.getpid())


def main() -> None:
    discord.utils.setup_logging(level=logging.INFO)
    if base := os.environ.get("DISCORD_API_BASE"):
        discord.http.Route.BASE = base
    if gateway := os.environ.get("DISCORD_GATEWAY_URL"):
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    MiniBot().run(os.environ["DISCORD_TOKEN"], log_handler=None)


if __name__ == "__main__":
    main()

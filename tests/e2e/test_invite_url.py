"""``floral-host run`` logs the link that invites it, built from its application id, once."""

from __future__ import annotations

from .conftest import LaunchBot
from .fake_discord import FakeDiscord


async def test_the_bot_logs_its_invite_url_once_after_login(
    fake: FakeDiscord, launch_bot: LaunchBot
) -> None:
    bot = await launch_bot(env={"FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")
    invites = [line.text for line in bot.lines if "invite URL" in line.text]
    assert len(invites) == 1, invites
    assert invites[0].endswith(
        f"invite URL: https://discord.com/oauth2/authorize?client_id={fake.app_id}"
        "&scope=bot+applications.commands&permissions=35840"
    )

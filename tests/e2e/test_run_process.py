"""``floral-host run`` as a process: it starts without noise about voice libraries, logs its
invite URL once, and a signal stops it with its store closed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .botproc import BotProcess, default_bot_argv
from .conftest import LaunchBot
from .fake_discord import FakeDiscord


async def start_run(fake: FakeDiscord, db: Path) -> BotProcess:
    env = {
        "FLORAL_DB": str(db),
        "FLORAL_GUILD_READY_TIMEOUT": "0.1",
        "LOG_LEVEL": "INFO",
        "PYTHONWARNINGS": "default",  # as under python -X dev: DeprecationWarnings shown
    }
    bot = BotProcess(fake, default_bot_argv(), env=env)
    await bot.start()
    await bot.wait_for_log("floral-host ready")
    return bot


async def test_run_starts_without_voice_warnings(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_run(fake, tmp_path / "run.db")
    await bot.terminate()
    output = bot.output()
    assert "logging in using static token" in output  # discord.py's log still shows
    assert "voice will NOT be supported" not in output
    assert "audioop" not in output and "Warning" not in output


@pytest.mark.parametrize("stop", ["interrupt", "terminate"])
async def test_a_signal_stops_run_with_its_store_closed(
    fake: FakeDiscord, tmp_path: Path, stop: str
) -> None:
    db = tmp_path / "run.db"
    bot = await start_run(fake, db)
    assert Path(f"{db}-wal").exists()
    await getattr(bot, stop)()  # SIGINT (Ctrl-C) or SIGTERM
    assert bot.returncode == 0, bot.output()
    assert not bot.errors and "Traceback" not in bot.output()
    assert not Path(f"{db}-wal").exists()  # SQLite removes it when the last connection closes


async def test_the_bot_logs_its_invite_url_once_after_login(
    fake: FakeDiscord, launch_bot: LaunchBot
) -> None:
    bot = await launch_bot(env={"FLORAL_GUILD_READY_TIMEOUT": "0.1"})
    await bot.wait_for_log("floral-host ready")
    invites = [line.text for line in bot.lines if "invite URL" in line.text]
    assert len(invites) == 1, invites
    assert invites[0].endswith(
        f"invite URL: https://discord.com/oauth2/authorize?client_id={fake.app_id}"
        "&scope=bot+applications.commands&permissions=52224"
    )

"""Settings from the environment and .env."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.settings import Settings, read_env_file

TOKEN = "MTIz.secret-token-value"
ROOT = Path(__file__).resolve().parents[2]


def test_defaults(tmp_path: Path) -> None:
    settings = Settings.load({}, tmp_path / "missing.env")
    assert settings.db_path == Path("data/floral-host.db")
    assert (settings.grace_s, settings.reminder_s, settings.log_level) == (15.0, 15.0, "INFO")
    assert settings.discord_token is None and settings.dev_guild_id is None
    assert settings.opener_starts is False and settings.threads is False


@pytest.mark.parametrize(
    ("value", "flag"), [("1", True), ("On", True), ("false", False), ("no", False)]
)
def test_opener_starts_is_a_flag(tmp_path: Path, value: str, flag: bool) -> None:
    settings = Settings.load({"FLORAL_OPENER_STARTS": value}, tmp_path / "missing.env")
    assert settings.opener_starts is flag


def test_env_file_with_environment_winning(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"# comment\nDISCORD_TOKEN='{TOKEN}'\nexport FLORAL_DB=x.db\nDEV_GUILD_ID=42\n"
        "LOG_LEVEL=debug\nFLORAL_GRACE_SECONDS=3\nMODERATOR_ROLE=Hosts\n"
    )
    settings = Settings.load(
        {"FLORAL_DB": "y.db", "DISCORD_API_BASE": "http://127.0.0.1:1"}, env_file
    )
    assert settings.discord_token == TOKEN
    assert settings.db_path == Path("y.db")
    assert (settings.dev_guild_id, settings.log_level, settings.grace_s) == (42, "DEBUG", 3.0)
    assert settings.moderator_role == "Hosts"
    assert settings.discord_api_base == "http://127.0.0.1:1"


def test_token_never_in_repr() -> None:
    settings = Settings.load({"DISCORD_TOKEN": TOKEN}, None)
    assert TOKEN not in repr(settings) and TOKEN not in str(settings)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEV_GUILD_ID", "abc"),
        ("DEV_GUILD_ID", "-5"),
        ("DEV_GUILD_ID", "٣"),  # a digit, but not an ASCII one
        ("DEV_GUILD_ID", "9" * 30),
        ("FLORAL_MAX_TURNS", "0"),
        ("FLORAL_REMINDER_SECONDS", "-1"),
        ("FLORAL_GRACE_SECONDS", "inf"),
        ("FLORAL_GRACE_SECONDS", "nan"),
        ("FLORAL_GRACE_SECONDS", "0"),
        ("FLORAL_GRACE_SECONDS", "1e300"),
        ("FLORAL_GUILD_READY_TIMEOUT", "-inf"),
        ("LOG_LEVEL", "verbose"),
        ("LOG_LEVEL", "x" * 10_000),
        ("FLORAL_OPENER_STARTS", "maybe"),
        ("FLORAL_THREADS", "sometimes"),
        ("FLORAL_OPENER_STARTS", "x" * 10_000),
    ],
)
def test_bad_values_name_the_variable_in_one_short_line(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name) as error:
        Settings.load({name: value}, None)
    assert "\n" not in str(error.value) and len(str(error.value)) < 120


@pytest.mark.parametrize(("value", "level"), [("debug", "DEBUG"), ("Warn", "WARN"), ("", "INFO")])
def test_log_levels_are_logging_names(value: str, level: str) -> None:
    assert Settings.load({"LOG_LEVEL": value}, None).log_level == level


def test_discord_run_options() -> None:
    settings = Settings.load(
        {
            "FLORAL_LOG_CHANNEL": "mod-log",
            "FLORAL_MAX_TURNS": "3",
            "FLORAL_GUILD_READY_TIMEOUT": "0.1",
        },
        env_file=None,
    )
    assert (settings.log_channel, settings.max_turns, settings.guild_ready_timeout) == (
        "mod-log",
        3,
        0.1,
    )
    with pytest.raises(ValueError, match="FLORAL_MAX_TURNS"):
        Settings.load({"FLORAL_MAX_TURNS": "many"}, env_file=None)


def test_every_setting_is_in_the_example_file_and_the_operators_guide() -> None:
    """What ``Settings.load`` reads, ``.env.example`` lists and docs/running.md explains."""
    source = (ROOT / "bot" / "settings.py").read_text(encoding="utf-8")
    read = set(re.findall(r'_\w+\(values, "([A-Z_]+)"', source))
    assert {"DISCORD_TOKEN", "FLORAL_DB", "FLORAL_THREADS"} <= read
    assert read == set(read_env_file(ROOT / ".env.example"))
    guide = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    assert [name for name in sorted(read) if f"`{name}" not in guide] == []

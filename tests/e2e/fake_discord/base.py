"""What every part of the fake shares: JSON, Discord's bit flags, the two error types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

JSON = dict[str, Any]
T = TypeVar("T")

DISCORD_EPOCH_MS = 1_420_070_400_000

UploadedFile = tuple[str, str, bytes, str | None]
"""A file the bot uploaded with a request: (form field name, filename, data, content type)."""


class Perm:
    """Permission bits used by the fake."""

    ADMINISTRATOR = 1 << 3
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    USE_APPLICATION_COMMANDS = 1 << 31
    CREATE_PUBLIC_THREADS = 1 << 35
    SEND_MESSAGES_IN_THREADS = 1 << 38
    ALL = (1 << 51) - 1
    MEMBER_DEFAULT = (  # as Discord's @everyone has them by default
        VIEW_CHANNEL
        | SEND_MESSAGES
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | ADD_REACTIONS
        | USE_APPLICATION_COMMANDS
        | CREATE_PUBLIC_THREADS
        | SEND_MESSAGES_IN_THREADS
    )


class Intent:
    """Gateway intent bits the fake honours."""

    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT


class MsgFlag:
    """Message flag bits."""

    SUPPRESS_EMBEDS = 1 << 2
    EPHEMERAL = 1 << 6
    LOADING = 1 << 7
    COMPONENTS_V2 = 1 << 15


class FakeDiscordError(AssertionError):
    """A test asked the fake for something Discord would not allow, or a wait failed."""


class ApiError(Exception):
    """An error answer of the REST API; ``failure`` marks it a bot bug to report."""

    def __init__(
        self, status: int, code: int, message: str, *, failure: bool = False, errors: Any = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.failure, self.errors = (
            status,
            code,
            message,
            failure,
            errors,
        )


def now_iso() -> str:
    return datetime.now(UTC).isoformat()

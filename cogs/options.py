"""What the games' setup commands share beyond ``cogs.setup`` and the options line (which
``games.options`` reads, for the cogs and ``floral-host simulate|play --options`` alike): a JSON
document attached as a file (a group's own card or content set).

Every error is a ``ConfigError`` naming the file's field.
"""

from __future__ import annotations

from collections.abc import Callable

import discord

from games.protocol import JSON, ConfigError
from games.text import parse_json

FILE_BYTES = 256 * 1024  # an attached file larger than this is refused unread


def json_file(data: bytes, name: str, check: Callable[[JSON], object] | None = None) -> JSON:
    """An attached file as one JSON object, ``check``ed (it raises ConfigError naming the
    field: ``card_set.results.I[3]``); ConfigError ``name`` when the file is too large, not
    UTF-8 text, not valid JSON (an object giving a key twice included) or not one object."""
    if len(data) > FILE_BYTES:
        raise ConfigError(name, f"the file has {len(data)} bytes; at most {FILE_BYTES} are read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(name, "the file is not UTF-8 text") from None
    value = parse_json(text, name)
    if not isinstance(value, dict):
        raise ConfigError(name, "the file must hold one JSON object")
    if check is not None:
        check(value)
    return value


async def read_json_file(
    attachment: discord.Attachment, name: str, check: Callable[[JSON], object] | None = None
) -> JSON:
    """``json_file`` of an attachment, its size checked before it is downloaded."""
    if attachment.size > FILE_BYTES:
        raise ConfigError(
            name, f"the file has {attachment.size} bytes; at most {FILE_BYTES} are read"
        )
    try:
        data = await attachment.read()
    except discord.HTTPException:
        raise ConfigError(name, "the file could not be downloaded") from None
    return json_file(data, name, check)

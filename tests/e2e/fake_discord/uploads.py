"""Files a user attaches to a slash command (an ATTACHMENT option, type 11).

``fake.upload("set.json", data)`` stores the file as Discord's CDN would and returns the
:class:`Attachment` to pass as the option's value; the bot downloads it from
``/attachments/{id}/{name}`` like any attachment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import JSON
from .entities import Attachment

if TYPE_CHECKING:
    from .facade import FakeDiscord


def upload(
    fake: FakeDiscord, filename: str, data: bytes, content_type: str | None = "application/json"
) -> Attachment:
    """A file uploaded with a command, served at its CDN address until the fake stops."""
    attachment = Attachment(fake.snowflake(), filename, data, content_type)
    fake.uploads[attachment.id] = attachment
    return attachment


def resolve_upload(fake: FakeDiscord, value: Attachment, resolved: JSON) -> str:
    """An attachment option's value (its id), with the attachment in ``resolved``."""
    if value.id not in fake.uploads:
        fake.uploads[value.id] = value
    resolved.setdefault("attachments", {})[str(value.id)] = value.payload(fake.base_url)
    return str(value.id)

"""The world's records: users, roles, channels (with permission overwrites), guilds and their
members, messages with their attachments and edit history, and the default test :class:`World`."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .base import JSON, FakeDiscordError, MsgFlag, Perm, now_iso

if TYPE_CHECKING:
    from .facade import FakeDiscord


@dataclass(eq=False)
class User:
    """A Discord user (the bot is one too)."""

    id: int
    name: str
    bot: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name.title(),
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<User {self.name} {self.id}>"


@dataclass(eq=False)
class Role:
    """A guild role; the @everyone role has the guild's id."""

    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class Channel:
    """A guild text channel (type 0), a DM channel with the bot (type 1) or a thread (11)."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    recipient: User | None = None
    position: int = 0
    # permission overwrites: {"id", "type" (0 role, 1 member), "allow", "deny"} as Discord sends
    overwrites: list[JSON] = field(default_factory=list)
    parent_id: int | None = None  # a thread's channel

    @property
    def is_dm(self) -> bool:
        return self.type == 1

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> JSON:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [dict(o) for o in self.overwrites],
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None if self.parent_id is None else str(self.parent_id),
            "flags": 0,
        }

    def __repr__(self) -> str:
        return (
            f"<Channel {'DM ' + self.recipient.name if self.recipient else '#' + str(self.name)}>"
        )


@dataclass(eq=False)
class Guild:
    """A guild with its roles, channels and members (user id -> roles)."""

    id: int
    name: str
    owner_id: int
    roles: list[Role] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    members: dict[int, list[Role]] = field(default_factory=dict)
    nicks: dict[int, str] = field(default_factory=dict)  # a member's name in this guild
    joined_at: str = field(default_factory=now_iso)

    @property
    def everyone(self) -> Role:
        return next(r for r in self.roles if r.id == self.id)

    def permissions_of(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return Perm.ALL
        perms = self.everyone.permissions
        for role in self.members.get(user_id, []):
            perms |= role.permissions
        return Perm.ALL if perms & Perm.ADMINISTRATOR else perms

    def permissions_in(self, channel: Channel, user_id: int) -> int:
        """Discord's order: base, then @everyone's overwrite, the roles' together, the member's."""
        perms = self.permissions_of(user_id)
        if perms & Perm.ADMINISTRATOR or user_id == self.owner_id:
            return Perm.ALL
        by_id = {int(o["id"]): o for o in channel.overwrites}
        roles = [r.id for r in self.members.get(user_id, [])]
        steps = [[by_id.get(self.id)], [by_id.get(r) for r in roles], [by_id.get(user_id)]]
        for step in steps:
            found = [o for o in step if o is not None]
            deny = allow = 0
            for o in found:
                deny |= int(o["deny"])
                allow |= int(o["allow"])
            perms = (perms & ~deny) | allow
        return perms

    def member_payload(self, user: User, *, with_permissions: bool = False) -> JSON:
        data: JSON = {
            "user": user.payload(),
            "nick": self.nicks.get(user.id),
            "avatar": None,
            "banner": None,
            "roles": [str(r.id) for r in self.members[user.id]],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_permissions:
            data["permissions"] = str(self.permissions_of(user.id))
        return data

    def payload(self, users: Mapping[int, User], bot_id: int, *, with_members: bool) -> JSON:
        """GUILD_CREATE's guild; members only with the members intent (the bot always)."""
        members = [
            self.member_payload(users[uid]) for uid in self.members if with_members or uid == bot_id
        ]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "vanity_url_code": None,
            "application_id": None,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [r.payload() for r in self.roles],
            "joined_at": self.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "members": members,
            "channels": [c.payload() for c in self.channels],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


@dataclass(eq=False)
class Attachment:
    """A file the bot uploaded."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    def payload(self, base: str) -> JSON:
        url = f"{base}/attachments/{self.id}/{self.filename}"
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
            "description": self.description,
        }

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(eq=False)
class Message:
    """A message as the fake stores it; edits update it in place and push to ``history``."""

    id: int
    seq: int
    channel_id: int
    guild_id: int | None
    author: User
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    interaction_id: int | None = None
    visible_to: int | None = None  # user id, for ephemeral messages
    deleted: bool = False
    timestamp: str = field(default_factory=now_iso)
    edited_timestamp: str | None = None
    history: list[JSON] = field(default_factory=list)
    type: int = 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MsgFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & MsgFlag.LOADING)

    def text(self) -> str:
        """Content, embed texts and component labels flattened into one string."""
        return _flatten_text(self.snapshot())

    def snapshot(self) -> JSON:
        return {
            "content": self.content,
            "embeds": json.loads(json.dumps(self.embeds)),
            "components": json.loads(json.dumps(self.components)),
            "attachments": [a.filename for a in self.attachments],
            "flags": self.flags,
        }

    def all_texts(self) -> list[str]:
        """The text of every version of this message, oldest first."""
        return [_flatten_text(v) for v in self.history] + [self.text()]

    def iter_components(self) -> Iterator[JSON]:
        """Every component (depth first), action rows included."""
        yield from _walk_components(self.components)

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def component(self, custom_id: str) -> JSON:
        for comp in self.iter_components():
            if comp.get("custom_id") == custom_id:
                return comp
        raise FakeDiscordError(
            f"message {self.id} has no component {custom_id!r}: {self.custom_ids()}"
        )

    def payload(self, fake: FakeDiscord) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload(fake.base_url) for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.interaction_id is not None:
            ix = fake.interactions_by_id[self.interaction_id]
            data["webhook_id"] = str(fake.app_id)
            data["application_id"] = str(fake.app_id)
            data["interaction_metadata"] = {
                "id": str(ix.id),
                "type": ix.type,
                "user": ix.user.payload(),
                "authorizing_integration_owners": {"0": str(ix.guild_id)} if ix.guild_id else {},
            }
        return data

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        where = f"{self.id} in {self.channel_id} by {self.author.name}{flags}"
        return f"<Message {where}: {self.content[:60]!r}>"


def _walk_components(components: Sequence[JSON]) -> Iterator[JSON]:
    for comp in components:
        yield comp
        for key in ("components", "accessory"):
            inner = comp.get(key)
            if isinstance(inner, list):
                yield from _walk_components(inner)
            elif isinstance(inner, dict):
                yield from _walk_components([inner])


def _flatten_text(version: JSON) -> str:
    parts: list[str] = [version.get("content") or ""]
    for embed in version.get("embeds") or []:
        for key in ("title", "description", "url"):
            parts.append(str(embed.get(key) or ""))
        for key in ("author", "footer"):
            sub = embed.get(key) or {}
            parts.append(str(sub.get("name") or sub.get("text") or ""))
        for fld in embed.get("fields") or []:
            parts += [str(fld.get("name", "")), str(fld.get("value", ""))]
    for comp in _walk_components(version.get("components") or []):
        for key in ("label", "placeholder", "content", "title"):
            if comp.get(key):
                parts.append(str(comp[key]))
        for opt in comp.get("options") or []:
            parts += [str(opt.get("label", "")), str(opt.get("description") or "")]
    return "\n".join(p for p in parts if p)


@dataclass
class World:
    """The default test world (see :meth:`FakeDiscord.build_world`)."""

    guild: Guild
    channel: Channel
    mod_log: Channel
    moderator_role: Role
    floral_role: Role
    owner: User
    mod: User
    helper: User
    alice: User
    bob: User
    carol: User

"""Acting as users: slash commands (options checked against the synced schema), autocomplete,
button clicks, select menus, any raw interaction, and DM or channel text."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .base import JSON, FakeDiscordError, Perm
from .commands import subcommand
from .entities import Attachment, Channel, Guild, Message, Role, User
from .uploads import resolve_upload

if TYPE_CHECKING:
    from .commands import AppCommands
    from .facade import FakeDiscord
    from .gateway import Gateway
    from .interactions import Interaction, InteractionRoutes


class UserActions:
    """What tests do as users on :class:`FakeDiscord` (a mixin: these are its methods)."""

    app_id: int
    attachment_size_limit: int
    bot_user: User
    guilds: dict[int, Guild]
    channels: dict[int, Channel]
    messages_by_id: dict[int, Message]
    gateway: Gateway
    app_commands: AppCommands
    interaction_routes: InteractionRoutes

    @property
    def _facade(self) -> FakeDiscord:
        """This object as the :class:`FakeDiscord` it is mixed into (for the type checker)."""
        return cast("FakeDiscord", self)

    def _interaction_base(self, itype: int, user: User, channel: Channel) -> JSON:
        payload: JSON = {
            "id": str(self._facade.snowflake()),
            "application_id": str(self.app_id),
            "type": itype,
            "token": "ix." + secrets.token_urlsafe(24),
            "version": 1,
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": self.attachment_size_limit,
            "channel_id": str(channel.id),
            # a thread as Discord sends it: with its parent, owner and metadata
            "channel": self._facade.threads.payload(channel)
            if channel.parent_id is not None
            else channel.payload(),
        }
        if channel.is_dm:
            if channel.recipient is not user:
                raise FakeDiscordError(f"{user!r} cannot act in {channel!r}")
            payload["user"] = user.payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(user.id)}
        else:
            assert channel.guild_id is not None
            guild = self.guilds[channel.guild_id]
            if user.id not in guild.members:
                raise FakeDiscordError(f"{user!r} is not a member of {guild.name}")
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=guild.member_payload(user, with_permissions=True),
                app_permissions=str(guild.permissions_of(self.bot_user.id)),
                context=0,
                authorizing_integration_owners={"0": str(guild.id)},
            )
        return payload

    async def interact(
        self,
        user: User,
        itype: int,
        data: JSON,
        *,
        channel: Channel | None = None,
        message: Message | None = None,
    ) -> Interaction:
        """Fire a raw interaction of type ``itype`` with ``data`` (e.g. a modal submit, type 5)."""
        self.gateway.require_bot()
        where = channel or self._facade.dm_channel(user)
        return await self._fire(itype, user, where, data, message)

    async def _fire(
        self, itype: int, user: User, channel: Channel, data: JSON, message: Message | None = None
    ) -> Interaction:
        payload = self._interaction_base(itype, user, channel)
        payload["data"] = data
        if message is not None:
            payload["message"] = message.payload(self._facade)
        return await self.interaction_routes.fire(payload, user, channel, message)

    @staticmethod
    def _command_data(cmd: JSON, options: list[JSON]) -> JSON:
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        data["options"] = options
        return data

    def _command_for(self, user: User, path: str, channel: Channel, bypass: bool) -> JSON:
        parts = path.split()
        cmd = self.app_commands.find(parts[0], channel.guild_id)
        if cmd is None:
            raise FakeDiscordError(
                f"/{parts[0]} is not available in {channel!r}; synced: {self.app_commands.names()}"
            )
        contexts = cmd.get("contexts")
        if channel.is_dm:
            allowed = (
                1 in contexts
                if contexts is not None
                else cmd.get("dm_permission", True) is not False
            )
            if not allowed:
                raise FakeDiscordError(f"/{parts[0]} cannot be used in DMs")
        else:
            if contexts is not None and 0 not in contexts:
                raise FakeDiscordError(f"/{parts[0]} cannot be used in guilds")
            need = cmd.get("default_member_permissions")
            if need is not None and not bypass:
                guild = self.guilds[channel.guild_id]  # type: ignore[index]
                have = guild.permissions_of(user.id)
                if (int(need) == 0 and not have & Perm.ADMINISTRATOR) or (have & int(need)) != int(
                    need
                ):
                    raise FakeDiscordError(
                        f"Discord hides /{parts[0]} from {user.name}: needs permissions {need}"
                    )
        return cmd

    async def slash(
        self,
        user: User,
        path: str,
        options: Mapping[str, Any] | None = None,
        *,
        channel: Channel | None = None,
        bypass_permissions: bool = False,
    ) -> Interaction:
        """Fire the slash command ``path`` ("match pause") as ``user`` in ``channel`` or DMs."""
        self.gateway.require_bot()
        channel = channel or self._facade.dm_channel(user)
        cmd = self._command_for(user, path, channel, bypass_permissions)
        resolved: JSON = {}
        given = dict(options or {})
        data = self._command_data(
            cmd, self._options_for(cmd, path.split()[1:], given, channel, resolved)
        )
        if resolved:
            data["resolved"] = resolved
        return await self._fire(2, user, channel, data)

    async def autocomplete(
        self,
        user: User,
        path: str,
        options: Mapping[str, Any],
        *,
        focused: str,
        channel: Channel | None = None,
        timeout: float = 5.0,
    ) -> list[JSON]:
        """Fire an autocomplete interaction; return the choices the bot offered."""
        self.gateway.require_bot()
        channel = channel or self._facade.dm_channel(user)
        cmd = self._command_for(user, path, channel, True)
        parts = path.split()
        node = self._facade.command(path, self.guilds.get(channel.guild_id or 0))
        schema = {o["name"]: o for o in node.get("options") or []}
        if focused not in schema or not schema[focused].get("autocomplete"):
            raise FakeDiscordError(f"/{path} option {focused!r} has no autocomplete")
        leaf = [
            {
                "name": k,
                "type": schema[k]["type"],
                "value": str(v),
                **({"focused": True} if k == focused else {}),
            }
            for k, v in options.items()
        ]
        data = self._command_data(cmd, self._nest(cmd, parts[1:], leaf))
        ix = await self._fire(4, user, channel, data)
        await ix.response(timeout)
        return ix.choices or []

    def _nest(self, cmd: JSON, subpath: list[str], leaf: list[JSON]) -> list[JSON]:
        """Wrap leaf options in the subcommand group/subcommand options of ``subpath``."""
        nodes: list[JSON] = []
        node = cmd
        for part in subpath:
            found = subcommand(node, part)
            if found is None:
                raise FakeDiscordError(f"/{cmd['name']} has no subcommand {part!r}")
            nodes.append(found)
            node = found
        if any(o["type"] in (1, 2) for o in node.get("options") or []):
            names = [o["name"] for o in node["options"]]
            raise FakeDiscordError(
                f"/{cmd['name']} {' '.join(subpath)}: pick a subcommand of {names}"
            )
        options = leaf
        for found in reversed(nodes):
            options = [{"name": found["name"], "type": found["type"], "options": options}]
        return options

    def _options_for(
        self, cmd: JSON, subpath: list[str], given: dict[str, Any], channel: Channel, resolved: JSON
    ) -> list[JSON]:
        node = cmd
        for part in subpath:
            node = subcommand(node, part) or {}
        schema = {o["name"]: o for o in node.get("options") or [] if o["type"] not in (1, 2)}
        label = f"/{cmd['name']} {' '.join(subpath)}".strip()
        leaf = []
        for name, value in given.items():
            if name not in schema:
                raise FakeDiscordError(f"{label} has no option {name!r}; options: {list(schema)}")
            opt = schema[name]
            leaf.append(
                {
                    "name": name,
                    "type": opt["type"],
                    "value": self._value(label, opt, value, channel, resolved),
                }
            )
        missing = [n for n, o in schema.items() if o.get("required") and n not in given]
        if missing:
            raise FakeDiscordError(f"{label}: required options missing: {missing}")
        return self._nest(cmd, subpath, leaf)

    def _value(self, label: str, opt: JSON, value: Any, channel: Channel, resolved: JSON) -> Any:
        t, name = opt["type"], f"{label} {opt['name']}"
        guild = self.guilds.get(channel.guild_id or 0)
        if t == 3:
            if not isinstance(value, str):
                raise FakeDiscordError(f"{name}: a string is needed, got {value!r}")
            if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
                raise FakeDiscordError(f"{name}: length out of bounds")
        elif t in (4, 10):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or (t == 4 and not isinstance(value, int))
            ):
                raise FakeDiscordError(f"{name}: a number is needed, got {value!r}")
            if ("min_value" in opt and value < opt["min_value"]) or (
                "max_value" in opt and value > opt["max_value"]
            ):
                raise FakeDiscordError(
                    f"{name}: {value} is out of [{opt.get('min_value')}, {opt.get('max_value')}]"
                )
        elif t == 5:
            if not isinstance(value, bool):
                raise FakeDiscordError(f"{name}: a bool is needed, got {value!r}")
        elif t in (6, 9) and isinstance(value, User):
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if guild is not None and value.id in guild.members:
                member = guild.member_payload(value, with_permissions=True)
                del member["user"]
                resolved.setdefault("members", {})[str(value.id)] = member
            return str(value.id)
        elif t in (8, 9) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        elif t == 11 and isinstance(value, Attachment):
            return resolve_upload(self._facade, value, resolved)
        elif t == 7 and isinstance(value, Channel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                **value.payload(),
                "permissions": str(guild.permissions_of(self.bot_user.id) if guild else Perm.ALL),
            }
            return str(value.id)
        else:
            raise FakeDiscordError(f"{name}: unsupported value {value!r} for option type {t}")
        if opt.get("choices") and value not in [c["value"] for c in opt["choices"]]:
            raise FakeDiscordError(f"{name}: {value!r} is not one of the choices {opt['choices']}")
        return value

    def _component_target(
        self, user: User, message: Message, custom_id: str
    ) -> tuple[Channel, JSON]:
        self.gateway.require_bot()
        current = self.messages_by_id.get(message.id)
        if current is None or current.deleted:
            raise FakeDiscordError(f"{message!r} no longer exists")
        if current.visible_to is not None and current.visible_to != user.id:
            raise FakeDiscordError(f"{user.name} cannot see ephemeral {message!r}")
        channel = self.channels[current.channel_id]
        if channel.is_dm and channel.recipient is not user:
            raise FakeDiscordError(f"{user.name} cannot click in {channel!r}")
        comp = current.component(custom_id)
        if comp.get("disabled"):
            raise FakeDiscordError(f"component {custom_id!r} is disabled")
        return channel, comp

    async def click(self, user: User, message: Message, custom_id: str) -> Interaction:
        """Click the button ``custom_id`` on ``message`` as ``user``."""
        channel, comp = self._component_target(user, message, custom_id)
        if comp.get("type") != 2:
            raise FakeDiscordError(f"{custom_id!r} is not a button: {comp}")
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._fire(3, user, channel, data, message)

    async def select(
        self, user: User, message: Message, custom_id: str, values: Sequence[str]
    ) -> Interaction:
        """Choose ``values`` in the string select menu ``custom_id`` on ``message``."""
        channel, comp = self._component_target(user, message, custom_id)
        if comp.get("type") != 3:
            raise FakeDiscordError(f"{custom_id!r} is not a string select: {comp}")
        allowed = [o["value"] for o in comp.get("options") or []]
        bad = [v for v in values if v not in allowed]
        if bad:
            raise FakeDiscordError(f"{custom_id!r} has no options {bad}; options: {allowed}")
        if not comp.get("min_values", 1) <= len(values) <= comp.get("max_values", 1):
            raise FakeDiscordError(f"{custom_id!r}: {len(values)} values out of the allowed range")
        data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
        return await self._fire(3, user, channel, data, message)

    def _user_message(self, user: User, channel: Channel, content: str) -> Message:
        msg = Message(
            id=self._facade.snowflake(),
            seq=self._facade.next_seq(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=user,
            content=content,
        )
        self._facade.store_message(msg)
        return msg

    async def dm_text(self, user: User, content: str) -> Message:
        """``user`` writes ``content`` in their DM channel with the bot."""
        self.gateway.require_bot()
        msg = self._user_message(user, self._facade.dm_channel(user), content)
        await self._facade.dispatch("MESSAGE_CREATE", msg.payload(self._facade))
        return msg

    async def say(self, user: User, channel: Channel, content: str) -> Message:
        """``user`` writes ``content`` in a guild channel (content needs the privileged intent)."""
        self.gateway.require_bot()
        msg = self._user_message(user, channel, content)
        payload = msg.payload(self._facade)
        guild = self.guilds[channel.guild_id]  # type: ignore[index]
        payload["member"] = {k: v for k, v in guild.member_payload(user).items() if k != "user"}
        await self._facade.dispatch("MESSAGE_CREATE", payload)
        return msg

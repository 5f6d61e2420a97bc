"""Application commands: the REST routes that sync them (global and per guild, checked as
Discord checks them) and the lookups tests and user actions use."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .base import JSON, ApiError
from .entities import Guild
from .limits import FormError, raise_form_errors

if TYPE_CHECKING:
    from .facade import FakeDiscord
    from .rest import AddRoute, RestRequest

CommandKey = tuple[str, int]  # (name, type)
NAME = r"[-_\w]{1,32}"


def _option_errors(opts: list[JSON], where: str) -> list[FormError]:
    """Names, descriptions, counts and the required-before-optional order, recursively."""
    errors: list[FormError] = []
    if len(opts) > 25:
        errors.append(f"{where}: more than 25 options")
    seen_optional = False
    for o in opts:
        label = f"{where} {o.get('name')}"
        if not re.fullmatch(NAME, o.get("name", "")) or o["name"] != o["name"].lower():
            errors.append(f"{label}: bad option name")
        if not 1 <= len(o.get("description", "")) <= 100:
            errors.append(f"{label}: description must be 1-100 characters")
        if len(o.get("choices") or []) > 25:
            errors.append(f"{label}: more than 25 choices")
        if o.get("type") in (1, 2):
            errors += _option_errors(o.get("options") or [], label)
        elif o.get("required"):
            if seen_optional:
                errors.append(f"{label}: required option after an optional one")
        else:
            seen_optional = True
    return errors


def validate_command(p: JSON) -> None:
    errors: list[FormError] = []
    ctype = p.get("type", 1)
    name = p.get("name", "")
    if (ctype == 1 and not re.fullmatch(NAME, name)) or (name != name.lower() and ctype == 1):
        errors.append(f"bad command name {name!r}")
    if ctype == 1 and not 1 <= len(p.get("description", "")) <= 100:
        errors.append(f"/{name}: description must be 1-100 characters")
    errors += _option_errors(p.get("options") or [], f"/{name}")
    raise_form_errors(errors)


def subcommand(node: JSON, name: str) -> JSON | None:
    """The subcommand or group ``name`` among ``node``'s options."""
    return next(
        (o for o in node.get("options") or [] if o["name"] == name and o["type"] in (1, 2)),
        None,
    )


class AppCommands:
    """Syncs and finds commands in ``fake.commands``: by scope (None: global, else a guild id)."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake

    def add_routes(self, r: AddRoute) -> None:
        for scope in ("", "/guilds/{guild_id}"):
            base = f"/applications/{{app_id}}{scope}/commands"
            r(f"GET {base}", self._get_commands)
            r(f"PUT {base}", self._put_commands)
            r(f"POST {base}", self._post_command)
            r(f"GET {base}/{{command_id}}", self._get_command)
            r(f"PATCH {base}/{{command_id}}", self._patch_command)
            r(f"DELETE {base}/{{command_id}}", self._delete_command)

    # ----------------------------------------------------------------- lookups

    def registered(self, guild: Guild | None = None) -> list[JSON]:
        return list(self.fake.commands.get(guild.id if guild else None, {}).values())

    def find(self, name: str, guild_id: int | None, ctype: int = 1) -> JSON | None:
        """The command usable in ``guild_id`` (its own first, then the global one)."""
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            cmd = self.fake.commands.get(scope, {}).get((name, ctype))
            if cmd is not None:
                return cmd
        return None

    def schema(self, path: str, guild: Guild | None = None) -> JSON:
        """The synced schema of ``"floral"`` or a subcommand such as ``"floral setup"``."""
        parts = path.split()
        cmd = self.find(parts[0], guild.id if guild else None)
        if cmd is None and guild is None:
            cmd = next(
                (
                    c
                    for cmds in self.fake.commands.values()
                    for (n, t), c in cmds.items()
                    if n == parts[0] and t == 1
                ),
                None,
            )
        if cmd is None:
            raise KeyError(f"no command /{parts[0]} synced; have {self.names()}")
        node = cmd
        for part in parts[1:]:
            found = subcommand(node, part)
            if found is None:
                raise KeyError(f"/{path}: no subcommand {part!r}")
            node = found
        return node

    def names(self) -> list[str]:
        return sorted(
            f"{n}" + (f" (guild {g})" if g else "")
            for g, cmds in self.fake.commands.items()
            for n, _ in cmds
        )

    # ----------------------------------------------------------------- REST

    def _scope(self, q: RestRequest) -> int | None:
        if "guild_id" in q.params:
            return self.fake.rest.guild(q).id
        return None

    def _store(self, scope: int | None, p: JSON, existing: Mapping[CommandKey, JSON]) -> JSON:
        validate_command(p)
        key = (p["name"], p.get("type", 1))
        old = existing.get(key)
        cmd: JSON = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "dm_permission": True,
            "contexts": None,
            "integration_types": [0],
            "nsfw": False,
            **p,
            "id": old["id"] if old else str(self.fake.snowflake()),
            "application_id": str(self.fake.app_id),
            "version": str(self.fake.snowflake()),
        }
        if scope is not None:
            cmd["guild_id"] = str(scope)
        return cmd

    def _get_commands(self, q: RestRequest) -> list[JSON]:
        return list(self.fake.commands.get(self._scope(q), {}).values())

    def _put_commands(self, q: RestRequest) -> list[JSON]:
        scope = self._scope(q)
        if not isinstance(q.body, list):
            raise ApiError(400, 50035, "Invalid Form Body", failure=True)
        existing = self.fake.commands.get(scope, {})
        new: dict[CommandKey, JSON] = {}
        for p in q.body:
            cmd = self._store(scope, p, existing)
            new[(cmd["name"], cmd["type"])] = cmd
        if len([k for k in new if k[1] == 1]) > 100:
            raise ApiError(
                400, 30032, "Maximum number of application commands reached", failure=True
            )
        self.fake.commands[scope] = new
        self.fake.syncs += 1
        return list(new.values())

    def _post_command(self, q: RestRequest) -> JSON:
        scope = self._scope(q)
        existing = self.fake.commands.setdefault(scope, {})
        cmd = self._store(scope, q.json, existing)
        existing[(cmd["name"], cmd["type"])] = cmd
        return cmd

    def _by_id(self, q: RestRequest) -> tuple[dict[CommandKey, JSON], CommandKey]:
        cmds = self.fake.commands.get(self._scope(q), {})
        for key, cmd in cmds.items():
            if cmd["id"] == q.params["command_id"]:
                return cmds, key
        raise ApiError(404, 10063, "Unknown application command")

    def _get_command(self, q: RestRequest) -> JSON:
        cmds, key = self._by_id(q)
        return cmds[key]

    def _patch_command(self, q: RestRequest) -> JSON:
        cmds, key = self._by_id(q)
        merged = {**cmds.pop(key), **q.json}
        cmd = self._store(self._scope(q), merged, {key: cmds.get(key) or merged})
        cmds[(cmd["name"], cmd["type"])] = cmd
        return cmd

    def _delete_command(self, q: RestRequest) -> None:
        cmds, key = self._by_id(q)
        del cmds[key]

"""The fake Discord drives a real, in-process discord.py bot through everything e2e tests need."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from .fake_discord import (
    CHANNEL_POSTS,
    JSON,
    Channel,
    FakeDiscord,
    FakeDiscordError,
    Intent,
    MsgFlag,
    Perm,
    World,
    point_discord_py_at,
)

log = logging.getLogger(__name__)


class Pick(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"pick:(?P<match>\w+):(?P<n>\d)",
):
    """A persistent button whose custom id carries the match and the choice."""

    def __init__(self, match: str, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Choice {n}", custom_id=f"pick:{match}:{n}"))
        self.match, self.n = match, n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> Pick:
        return cls(match["match"], int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, TinyBot)
        bot.picks.append((interaction.user.id, self.match, self.n))
        await interaction.response.edit_message(
            content=f"You picked {self.n} in {self.match}", view=None
        )


class Rune(discord.ui.Select[discord.ui.View]):
    def __init__(self) -> None:
        options = [discord.SelectOption(label=f"Rune {c}", value=c) for c in "ABC"]
        super().__init__(custom_id="rune", options=options, placeholder="Declare a rune")

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"declared {self.values[0]}", ephemeral=True)


class Note(discord.ui.Modal, title="A note"):
    note: discord.ui.TextInput[Note] = discord.ui.TextInput(label="Note", custom_id="note")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"noted {self.note.value}", ephemeral=True)


class Refresh(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Refresh", custom_id="board:refresh")
    async def refresh(
        self, interaction: discord.Interaction, button: discord.ui.Button[Refresh]
    ) -> None:
        await interaction.response.defer()  # a deferred update (type 6)
        assert interaction.message is not None
        await interaction.message.edit(content="refreshed")


class TinyBot(commands.Bot):
    """A minimal bot in the shape of floral-host: a command group, DMs, buttons."""

    def __init__(self, guild_id: int) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents, guild_ready_timeout=0.05
        )
        self.guild_id = guild_id
        self.dm_texts: list[str] = []
        self.picks: list[tuple[int, str, int]] = []
        self.send_errors: list[discord.HTTPException] = []

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Pick)
        floral = app_commands.Group(name="floral", description="Floral Extract")
        tiny = self

        @floral.command(name="setup", description="Create a match")
        @app_commands.describe(player1="First player", player2="Second player", window="Seconds")
        async def setup(
            interaction: discord.Interaction,
            player1: discord.Member,
            player2: discord.Member,
            window: app_commands.Range[int, 5, 600] = 60,
        ) -> None:
            if not interaction.permissions.manage_guild:
                await interaction.response.send_message("Moderators only.", ephemeral=True)
                return
            await interaction.response.send_message(
                f"Match between {player1.mention} and {player2.mention}, {window}s windows"
            )
            for player in (player1, player2):
                try:
                    await player.send("Hello! Pick one:", view=tiny.pick_view("m1"))
                except discord.HTTPException as exc:
                    tiny.send_errors.append(exc)
                    await interaction.followup.send(
                        f"Cannot DM {player.mention}: use /submit", ephemeral=True
                    )

        @floral.command(name="slow", description="Think, then answer")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await asyncio.sleep(0)
            await interaction.followup.send("done thinking")
            await interaction.followup.send("and one more")

        @floral.command(name="announce", description="Post in the channel")
        async def announce(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.defer()
            assert interaction.channel is not None
            await interaction.channel.send(text)  # type: ignore[union-attr]
            await interaction.edit_original_response(content="posted")

        @floral.command(name="declare", description="Open the declaration menu")
        async def declare(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Rune())
            await interaction.response.send_message("Declare:", view=view, ephemeral=True)

        async def match_ids(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return [
                app_commands.Choice(name=m, value=m)
                for m in ("m1", "m2", "x9")
                if m.startswith(current)
            ]

        @floral.command(name="status", description="Show a match")
        @app_commands.autocomplete(match=match_ids)
        async def status(interaction: discord.Interaction, match: str) -> None:
            await interaction.response.send_message(f"status of {match}")

        @floral.command(name="export", description="A match as a file")
        async def export(interaction: discord.Interaction) -> None:
            script = discord.File(io.BytesIO(b'{"moves": []}'), "m1.json")
            await interaction.response.send_message("script:", file=script, ephemeral=True)
            assert interaction.channel is not None
            log_file = discord.File(io.BytesIO(b"turn 1"), "log.txt")
            await interaction.channel.send("log", file=log_file)  # type: ignore[union-attr]

        @floral.command(name="board", description="Post a board")
        async def board(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("board", view=Refresh())

        @floral.command(name="note", description="Open a modal")
        async def note(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Note())

        @app_commands.command(name="submit", description="Submit a move")
        async def submit(interaction: discord.Interaction, value: str) -> None:
            await interaction.response.send_message(f"submitted {value}", ephemeral=True)

        self.tree.add_command(floral, guild=discord.Object(self.guild_id))
        self.tree.add_command(submit)
        await self.tree.sync(guild=discord.Object(self.guild_id))
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before a re-IDENTIFY; skip that in tests."""

    def pick_view(self, match: str) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        for n in (1, 2):
            view.add_item(Pick(match, n))
        return view

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.guild is not None:
            return
        self.dm_texts.append(message.content)
        await message.channel.send(f"got {message.content}")


class ErrorLogs(logging.Handler):
    """Collects ERROR records from discord.py and the test bot."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
async def bot(fake: FakeDiscord, world: World) -> AsyncIterator[TinyBot]:
    """A TinyBot logged in to the fake and connected (IDENTIFY answered)."""
    errors = ErrorLogs()
    logging.getLogger("discord").addHandler(errors)
    with point_discord_py_at(fake):
        tiny = TinyBot(world.guild.id)
        task = asyncio.create_task(tiny.start(fake.token))
        try:
            await fake.wait_for_session()
            await asyncio.wait_for(tiny.wait_until_ready(), 5)
            yield tiny
            await fake.settle()
        finally:
            await tiny.close()
            await asyncio.wait_for(task, 5)
            logging.getLogger("discord").removeHandler(errors)
    assert not errors.records, [r.getMessage() for r in errors.records]


async def test_login_ready_and_sync(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    routes = [r.route for r in fake.requests]
    assert routes[:2] == ["GET /users/@me", "GET /oauth2/applications/@me"]
    assert "PUT /applications/{app_id}/guilds/{guild_id}/commands" in routes
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and {c.name for c in guild.text_channels} == {"floral", "mod-log"}
    assert {r.name for r in guild.roles} >= {"Moderator", "Floral Moderator"}
    assert guild.get_member(world.alice.id) is None  # no members intent: only the bot's member
    assert fake.sessions[-1].intents & Intent.PRIVILEGED == 0
    setup = fake.command("floral setup", world.guild)
    assert [o["name"] for o in setup["options"]] == ["player1", "player2", "window"]
    assert setup["options"][2]["min_value"] == 5
    assert fake.command_id("floral", world.guild) > 0
    assert "guild_id" not in fake.command("submit")  # synced globally
    fetched = await bot.tree.fetch_commands(guild=discord.Object(world.guild.id))
    assert [(c.name, c.id) for c in fetched] == [("floral", fake.command_id("floral", world.guild))]


async def test_slash_reply_and_ephemeral_refusal(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    options = {"player1": world.alice, "player2": world.bob, "window": 30}
    ix = await fake.slash(world.mod, "floral setup", options, channel=world.channel)
    reply = await ix.reply()
    assert (
        reply.content == f"Match between {world.alice.mention} and {world.bob.mention}, 30s windows"
    )
    assert not reply.ephemeral and reply in fake.messages_in(world.channel)
    refused = await (
        await fake.slash(world.carol, "floral setup", options, channel=world.channel)
    ).reply()
    assert refused.ephemeral and refused.content == "Moderators only."
    assert fake.ephemerals_to(world.carol) == [refused] and refused not in fake.messages_in(
        world.channel
    )


async def test_slash_option_checks(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    with pytest.raises(FakeDiscordError, match="no option 'player3'"):
        await fake.slash(
            world.mod,
            "floral setup",
            {"player1": world.alice, "player2": world.bob, "player3": world.carol},
            channel=world.channel,
        )
    with pytest.raises(FakeDiscordError, match="required options missing"):
        await fake.slash(world.mod, "floral setup", {"player1": world.alice}, channel=world.channel)
    with pytest.raises(FakeDiscordError, match="out of"):
        await fake.slash(
            world.mod,
            "floral setup",
            {"player1": world.alice, "player2": world.bob, "window": 1},
            channel=world.channel,
        )
    with pytest.raises(FakeDiscordError, match="pick a subcommand"):
        await fake.slash(world.mod, "floral", channel=world.channel)
    with pytest.raises(FakeDiscordError, match="not available"):
        await fake.slash(world.alice, "floral slow")  # guild command, used in DMs


async def test_defer_then_followups(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    ix = await fake.slash(world.alice, "floral slow", channel=world.channel)
    assert await ix.response() == 5
    reply = await ix.reply()
    assert reply.content == "done thinking" and reply.ephemeral  # the defer decides
    second = await ix.followup(1)
    assert second.content == "and one more" and not second.ephemeral
    assert fake.messages_in(world.channel) == [second]


async def test_defer_edit_original_and_channel_post(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    ix = await fake.slash(
        world.mod, "floral announce", {"text": "Turn 1 begins"}, channel=world.channel
    )
    assert (await ix.reply()).content == "posted"
    post = await fake.wait_for_message(
        lambda m: m.content == "Turn 1 begins", channel=world.channel
    )
    assert post.interaction_id is None


async def test_dm_with_persistent_button_click(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    options = {"player1": world.alice, "player2": world.bob}
    await (await fake.slash(world.mod, "floral setup", options, channel=world.channel)).reply()
    hello = await fake.wait_for_message(to=world.alice)
    assert hello.content == "Hello! Pick one:" and hello.custom_ids() == ["pick:m1:1", "pick:m1:2"]
    await fake.wait_for_message(to=world.bob)
    with pytest.raises(FakeDiscordError, match="cannot click"):
        await fake.click(world.bob, hello, "pick:m1:2")
    ix = await fake.click(world.alice, hello, "pick:m1:2")
    assert await ix.response() == 7
    assert (await ix.reply()).content == "You picked 2 in m1"
    assert hello.components == [] and hello.history[0]["content"] == "Hello! Pick one:"
    assert bot.picks == [(world.alice.id, "m1", 2)]


async def test_select_menu_and_autocomplete(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    menu = await (await fake.slash(world.alice, "floral declare", channel=world.channel)).reply()
    assert menu.ephemeral and menu.custom_ids() == ["rune"]
    with pytest.raises(FakeDiscordError, match="has no options"):
        await fake.select(world.alice, menu, "rune", ["Z"])
    answer = await (await fake.select(world.alice, menu, "rune", ["B"])).reply()
    assert answer.content == "declared B" and answer.ephemeral
    choices = await fake.autocomplete(
        world.mod, "floral status", {"match": "m"}, focused="match", channel=world.channel
    )
    assert [c["value"] for c in choices] == ["m1", "m2"]


async def test_dm_text_and_global_command_in_dm(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    typed = await fake.dm_text(world.alice, "C")
    answer = await fake.wait_for_message(to=world.alice, after=typed)
    assert answer.content == "got C" and bot.dm_texts == ["C"]
    reply = await (await fake.slash(world.alice, "submit", {"value": "C"})).reply()
    assert reply.content == "submitted C" and reply.channel_id == fake.dm_channel(world.alice).id


async def test_closed_dms_answer_50007(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    fake.close_dms(world.bob)
    ix = await fake.slash(
        world.mod,
        "floral setup",
        {"player1": world.alice, "player2": world.bob},
        channel=world.channel,
    )
    warning = await ix.followup(0)
    assert warning.ephemeral and warning.content == f"Cannot DM {world.bob.mention}: use /submit"
    assert [e.code for e in bot.send_errors] == [50007]
    assert fake.dms_to(world.bob) == [] and len(fake.blocked_dms) == 1
    assert len(fake.dms_to(world.alice)) == 1


async def test_survives_429_and_500(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    send = "POST /channels/{channel_id}/messages"
    dm = fake.dm_channel(world.alice)
    broken = fake.fail(send, channel=dm, status=500, times=1)  # discord.py retries after 1 s
    limited = fake.rate_limit(send, channel=dm, retry_after=0.05)
    await fake.dm_text(world.alice, "A")
    answer = await fake.wait_for_message(to=world.alice, timeout=10)
    assert answer.content == "got A" and len(fake.dms_to(world.alice)) == 1
    assert (limited.hits, broken.hits) == (1, 1)
    assert [r.status for r in fake.requests_matching(send, channel_id=dm)] == [500, 429, 200]


async def test_resume_after_dropped_connection_replays(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    session = fake.sessions[-1]
    await fake.drop_gateway()
    await fake.dm_text(world.alice, "while away")  # buffered, replayed on RESUME
    await fake.wait_for_resume()
    assert fake.identifies == 1 and session.resumes == 1
    answer = await fake.wait_for_message(to=world.alice)
    assert answer.content == "got while away" and bot.dm_texts == ["while away"]
    await fake.send_reconnect()
    await fake.wait_for_resume(after=1)
    ix = await fake.slash(world.alice, "floral declare", channel=world.channel)
    assert (await ix.reply()).content == "Declare:"
    assert bot.dm_texts == ["while away"] and fake.identifies == 1


async def test_invalid_session_reidentifies(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    await fake.invalidate_session()
    await fake.wait_for_session(after=1)
    await fake.dm_text(world.alice, "again")
    assert (await fake.wait_for_message(to=world.alice)).content == "got again"


async def test_unimplemented_route_is_a_failure(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    channel = bot.get_channel(world.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.NotFound):
        await channel.webhooks()
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{fake.base_url}/elsewhere") as resp,
    ):
        assert resp.status == 404
    failures = fake.take_failures()
    assert len(failures) == 2 and "unimplemented route: GET /channels/" in failures[0]
    with pytest.raises(FakeDiscordError, match="unimplemented"):
        fake.failures.append("unimplemented route: X")
        fake.assert_clean()
    fake.take_failures()


async def test_invalid_message_is_a_failure(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    channel = bot.get_channel(world.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as err:
        await channel.send("x" * 2001)
    assert err.value.code == 50035
    (failure,) = fake.take_failures()
    assert "2001 characters" in failure


async def test_wait_timeout_explains(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    with pytest.raises(FakeDiscordError, match=r"timed out after 0.05s(.|\n)*recent requests"):
        await fake.wait_for_message(to=world.carol, timeout=0.05)
    assert fake.mark() == 0


async def test_acting_without_a_bot_is_refused(fake: FakeDiscord, world: World) -> None:
    with pytest.raises(FakeDiscordError, match="no bot is connected"):
        await fake.dm_text(world.alice, "hello?")


async def test_ephemeral_flag_constant() -> None:
    assert discord.MessageFlags(ephemeral=True).value == MsgFlag.EPHEMERAL


async def test_files_are_recorded(fake: FakeDiscord, world: World, bot: TinyBot) -> None:
    reply = await (await fake.slash(world.mod, "floral export", channel=world.channel)).reply()
    assert reply.ephemeral and [a.filename for a in reply.attachments] == ["m1.json"]
    assert reply.attachments[0].data == b'{"moves": []}'
    post = await fake.wait_for_message(lambda m: m.content == "log", channel=world.channel)
    assert post.attachments[0].text == "turn 1"


async def test_modal_submit_through_raw_interaction(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    opened = await fake.slash(world.alice, "floral note", channel=world.channel)
    assert await opened.response() == 9 and opened.modal is not None
    rows = [{"type": 1, "components": [{"type": 4, "custom_id": "note", "value": "hi"}]}]
    data = {"custom_id": opened.modal["custom_id"], "components": rows}
    submitted = await fake.interact(world.alice, 5, data, channel=world.channel)
    assert (await submitted.reply()).content == "noted hi"


async def test_events_outside_the_intents_are_not_sent(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    await fake.say(world.alice, world.channel, "hello bot")  # TinyBot has no guild_messages
    assert fake.dropped_events[-1].startswith("MESSAGE_CREATE")
    with pytest.raises(FakeDiscordError, match="events not delivered"):
        await fake.wait_for_message(channel=world.channel, timeout=0.05)


async def test_deferred_update_then_message_edit(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    board = await (await fake.slash(world.mod, "floral board", channel=world.channel)).reply()
    ix = await fake.click(world.alice, board, "board:refresh")
    assert await ix.response() == 6
    assert (await ix.reply()) is board and board.content == "refreshed"
    assert board.all_texts() == ["board\nRefresh", "refreshed\nRefresh"]
    assert fake.public_texts() == board.all_texts()
    assert fake.max_messages_per_window(world.channel) == 1


async def test_a_resend_with_the_same_nonce_posts_nothing(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    channel = bot.get_partial_messageable(world.channel.id)
    first = await channel.send("hello", nonce="fh1.0")
    again = await channel.send("hello", nonce="fh1.0")
    other = await channel.send("hello", nonce="fh2.0")
    assert again.id == first.id and other.id != first.id
    assert [m.content for m in fake.messages_in(world.channel)] == ["hello", "hello"]
    assert fake.nonce_hits == 1


# --- Discord's limits: the fake refuses what Discord refuses ---------------------------------


def _button(n: int = 0, label: str = "b", custom_id: str | None = None) -> JSON:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id or f"b{n}"}


def _select(options: int = 1, label: str = "o", value: str = "", placeholder: str = "") -> JSON:
    menu: JSON = {
        "type": 3,
        "custom_id": "menu",
        "options": [{"label": label, "value": value or f"v{n}"} for n in range(options)],
    }
    if placeholder:
        menu["placeholder"] = placeholder
    return menu


def _row(*items: JSON) -> JSON:
    return {"type": 1, "components": list(items)}


def _field(name: str = "n", value: str = "v") -> JSON:
    return {"name": name, "value": value}


# (what, body over the limit, the path of the error, the same body at the limit)
LIMITS: list[tuple[str, JSON, str, JSON]] = [
    ("content", {"content": "x" * 2001}, "content", {"content": "x" * 2000}),
    ("embeds", {"embeds": [{"title": "t"}] * 11}, "embeds", {"embeds": [{"title": "t"}] * 10}),
    (
        "embeds in all",
        {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
        "embeds",
        {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2000}]},
    ),
    (
        "title",
        {"embeds": [{"title": "t" * 257}]},
        "embeds.0.title",
        {"embeds": [{"title": "t" * 256}]},
    ),
    (
        "description",
        {"embeds": [{"description": "d" * 4097}]},
        "embeds.0.description",
        {"embeds": [{"description": "d" * 4096}]},
    ),
    (
        "fields",
        {"embeds": [{"fields": [_field()] * 26}]},
        "embeds.0.fields",
        {"embeds": [{"fields": [_field()] * 25}]},
    ),
    (
        "field name",
        {"embeds": [{"fields": [_field(name="n" * 257)]}]},
        "embeds.0.fields.0.name",
        {"embeds": [{"fields": [_field(name="n" * 256)]}]},
    ),
    (
        "field value",
        {"embeds": [{"fields": [_field(value="v" * 1025)]}]},
        "embeds.0.fields.0.value",
        {"embeds": [{"fields": [_field(value="v" * 1024)]}]},
    ),
    (
        "footer",
        {"embeds": [{"footer": {"text": "f" * 2049}}]},
        "embeds.0.footer.text",
        {"embeds": [{"footer": {"text": "f" * 2048}}]},
    ),
    (
        "author",
        {"embeds": [{"author": {"name": "a" * 257}}]},
        "embeds.0.author.name",
        {"embeds": [{"author": {"name": "a" * 256}}]},
    ),
    (
        "action rows",
        {"content": "c", "components": [_row(_button(n)) for n in range(6)]},
        "components",
        {"content": "c", "components": [_row(_button(n)) for n in range(5)]},
    ),
    (
        "buttons in a row",
        {"content": "c", "components": [_row(*(_button(n) for n in range(6)))]},
        "components.0.components",
        {"content": "c", "components": [_row(*(_button(n) for n in range(5)))]},
    ),
    (
        "a select menu not alone",
        {"content": "c", "components": [_row(_select(), _button())]},
        "components.0.components",
        {"content": "c", "components": [_row(_select()), _row(_button())]},
    ),
    (
        "custom_id",
        {"content": "c", "components": [_row(_button(custom_id="i" * 101))]},
        "components.0.components.0.custom_id",
        {"content": "c", "components": [_row(_button(custom_id="i" * 100))]},
    ),
    (
        "select options",
        {"content": "c", "components": [_row(_select(26))]},
        "components.0.components.0.options",
        {"content": "c", "components": [_row(_select(25))]},
    ),
    (
        "a select's most picks",
        {"content": "c", "components": [_row({**_select(25), "max_values": 26})]},
        "components.0.components.0.max_values",
        {"content": "c", "components": [_row({**_select(25), "max_values": 25})]},
    ),
    (
        "a select's fewest picks",
        {"content": "c", "components": [_row({**_select(2), "min_values": 3, "max_values": 2})]},
        "components.0.components.0.min_values",
        {"content": "c", "components": [_row({**_select(2), "min_values": 0, "max_values": 2})]},
    ),
    (
        "option label",
        {"content": "c", "components": [_row(_select(label="l" * 101))]},
        "components.0.components.0.options.0.label",
        {"content": "c", "components": [_row(_select(label="l" * 100))]},
    ),
    (
        "option value",
        {"content": "c", "components": [_row(_select(value="v" * 101))]},
        "components.0.components.0.options.0.value",
        {"content": "c", "components": [_row(_select(value="v" * 100))]},
    ),
    (
        "placeholder",
        {"content": "c", "components": [_row(_select(placeholder="p" * 151))]},
        "components.0.components.0.placeholder",
        {"content": "c", "components": [_row(_select(placeholder="p" * 150))]},
    ),
    (
        "button label",
        {"content": "c", "components": [_row(_button(label="l" * 81))]},
        "components.0.components.0.label",
        {"content": "c", "components": [_row(_button(label="l" * 80))]},
    ),
]


def _error_at(errors: JSON, path: str) -> list[JSON]:
    node = errors
    for part in path.split("."):
        node = node.get(part, {})
    return list(node.get("_errors", []))


class Raw:
    """REST calls as a bot would make them, with no client-side checks in the way."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake, self.session = fake, session

    async def call(self, method: str, path: str, body: JSON) -> tuple[int, JSON]:
        status, data, _ = await self.answer(method, path, body)
        return status, data

    async def answer(
        self, method: str, path: str, body: JSON
    ) -> tuple[int, JSON, Mapping[str, str]]:
        """The status, body and headers of the answer."""
        headers = {"Authorization": f"Bot {self.fake.token}"}
        url = f"{self.fake.api_base}{path}"
        async with self.session.request(method, url, json=body, headers=headers) as resp:
            data = await resp.json(content_type=None) if resp.status != 204 else {}
            return resp.status, data, resp.headers

    async def ignored_interaction(self, world: World) -> tuple[str, str]:
        """An interaction the bot leaves unanswered (a button it does not know): its path."""
        data = {"custom_id": "nobody:knows", "component_type": 2}
        ix = await self.fake.interact(world.alice, 3, data, channel=world.channel)
        return (
            f"/interactions/{ix.id}/{ix.token}/callback?with_response=1",
            f"/webhooks/{self.fake.app_id}/{ix.token}",
        )


@pytest.mark.parametrize("route", ["channel", "dm", "callback", "followup", "edit"])
async def test_every_message_route_refuses_what_discord_refuses(
    fake: FakeDiscord, world: World, bot: TinyBot, route: str
) -> None:
    async with aiohttp.ClientSession() as session:
        raw = Raw(fake, session)
        callback, webhook = await raw.ignored_interaction(world)

        def channel_of() -> Channel:
            """Each case posts to its own channel: its two posts stay within Discord's limit
            of 5 messages in 5 s in one channel, as a bot's would."""
            if route == "channel":
                return fake.add_channel(world.guild, f"limits-{len(fake.channels)}")
            return fake.dm_channel(fake.add_user(f"limits-{len(fake.users)}"))

        async def send(body: JSON, channel: Channel | None = None) -> tuple[int, JSON]:
            if channel is not None:
                return await raw.call("POST", f"/channels/{channel.id}/messages", body)
            if route == "callback":
                return await raw.call("POST", callback, {"type": 4, "data": body})
            if route == "followup":
                return await raw.call("POST", f"{webhook}?wait=true", body)
            return await raw.call("PATCH", f"{webhook}/messages/@original", body)

        if route in ("followup", "edit"):
            answered, _ = await raw.call("POST", callback, {"type": 4, "data": {"content": "ok"}})
            assert answered == 200
        for what, over, path, at_limit in LIMITS:
            channel = channel_of() if route in ("channel", "dm") else None
            status, answer = await send(over, channel)
            assert status == 400 and answer["code"] == 50035, (what, status, answer)
            assert answer["message"] == "Invalid Form Body", what
            assert _error_at(answer["errors"], path), (what, answer["errors"])
            assert len(fake.take_failures()) == 1, what
            if route != "callback":  # one accepted callback would answer the interaction
                status, answer = await send(at_limit, channel)
                assert status == 200, (what, answer)
        if route == "callback":
            status, _ = await send(LIMITS[0][3])
            assert status == 200


async def test_discord_py_reads_the_error_shape(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    channel = bot.get_partial_messageable(world.channel.id)
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="x" * 81, custom_id="long"))
    with pytest.raises(discord.HTTPException) as err:
        await channel.send("hi", view=view)
    assert err.value.status == 400 and err.value.code == 50035
    assert "In components.0.components.0.label" in err.value.text
    fake.take_failures()


async def test_files_over_the_size_limit_are_refused(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    fake.attachment_size_limit = 10
    channel = bot.get_partial_messageable(world.channel.id)
    with pytest.raises(discord.HTTPException) as err:
        await channel.send("log", file=discord.File(io.BytesIO(b"x" * 11), "log.txt"))
    assert err.value.status == 413 and err.value.code == 40005
    assert "413" in fake.take_failures()[0]
    await channel.send("log", file=discord.File(io.BytesIO(b"x" * 10), "log.txt"))


async def test_a_first_answer_after_the_deadline_is_an_unknown_interaction(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    fake.interaction_deadline = 0.05
    async with aiohttp.ClientSession() as session:
        raw = Raw(fake, session)
        callback, _ = await raw.ignored_interaction(world)
        await asyncio.sleep(0.1)
        status, answer = await raw.call("POST", callback, {"type": 4, "data": {"content": "late"}})
    assert status == 404 and answer["code"] == 10062
    (failure,) = fake.take_failures()
    assert "Unknown interaction" in failure


async def test_autocomplete_choices_have_limits(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    async with aiohttp.ClientSession() as session:
        raw = Raw(fake, session)
        for choices, path in (
            ([{"name": f"c{n}", "value": "v"} for n in range(26)], "data.choices"),
            ([{"name": "n" * 101, "value": "v"}], "data.choices.0.name"),
            ([{"name": "n", "value": "v" * 101}], "data.choices.0.value"),
        ):
            callback, _ = await raw.ignored_interaction(world)
            ix = fake.interactions[-1]
            ix.type = 4  # answer it as an autocomplete
            status, answer = await raw.call(
                "POST", callback, {"type": 8, "data": {"choices": choices}}
            )
            assert status == 400 and _error_at(answer["errors"], path), answer
            assert len(fake.take_failures()) == 1


def test_channel_permissions_follow_overwrites(fake: FakeDiscord, world: World) -> None:
    guild, mod_log = world.guild, world.mod_log
    assert not guild.permissions_in(mod_log, world.alice.id) & Perm.VIEW_CHANNEL
    assert guild.permissions_in(mod_log, world.helper.id) & Perm.VIEW_CHANNEL
    assert guild.permissions_in(mod_log, fake.bot_user.id) & Perm.VIEW_CHANNEL
    assert guild.permissions_in(world.channel, world.alice.id) & Perm.VIEW_CHANNEL
    fake.set_overwrite(mod_log, world.alice, allow=Perm.VIEW_CHANNEL)
    assert guild.permissions_in(mod_log, world.alice.id) & Perm.VIEW_CHANNEL
    payload = mod_log.payload()["permission_overwrites"]
    assert {
        "id": str(world.alice.id),
        "type": 1,
        "allow": str(Perm.VIEW_CHANNEL),
        "deny": "0",
    } in payload


async def test_the_bot_computes_the_same_permissions(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    guild = bot.get_guild(world.guild.id)
    assert guild is not None
    mod_log = guild.get_channel(world.mod_log.id)
    assert isinstance(mod_log, discord.TextChannel)
    for user in (world.alice, world.mod, world.helper):
        # the JSON payload, which discord.py's annotations want as its TypedDict
        data: Any = fake.member_payload(world.guild, user)
        member = discord.Member(data=data, guild=guild, state=guild._state)  # as an option resolves
        expected = bool(world.guild.permissions_in(world.mod_log, user.id) & Perm.VIEW_CHANNEL)
        assert mod_log.permissions_for(member).read_messages is expected, user


# --- Discord's limit on messages per channel: 5 in any 5 s -----------------------------------

CREATE = "POST /channels/{channel_id}/messages"


async def test_a_sixth_message_within_5_s_in_one_channel_answers_429(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    fake.channel_posts = CHANNEL_POSTS
    async with aiohttp.ClientSession() as session:
        raw = Raw(fake, session)
        answers = [
            await raw.answer("POST", f"/channels/{world.channel.id}/messages", {"content": "x"})
            for _ in range(6)
        ]
        other, _ = await raw.call(
            "POST", f"/channels/{world.mod_log.id}/messages", {"content": "y"}
        )
        callback, webhook = await raw.ignored_interaction(world)  # not this route: not limited
        answered, _ = await raw.call("POST", callback, {"type": 4, "data": {"content": "ok"}})
        followed, _ = await raw.call("POST", f"{webhook}?wait=true", {"content": "more"})
    assert [status for status, _, _ in answers] == [200] * 5 + [429]
    assert (other, answered, followed) == (200, 200, 200)
    bucket = answers[0][2]["X-RateLimit-Bucket"]
    for n, (_, _, headers) in enumerate(answers[:5]):  # what discord.py paces itself by
        assert headers["X-RateLimit-Limit"] == "5"
        assert headers["X-RateLimit-Remaining"] == str(4 - n)
        assert 4.0 < float(headers["X-RateLimit-Reset-After"]) <= 5.0  # the window empties
        assert headers["X-RateLimit-Bucket"] == bucket
    _, body, headers = answers[5]
    assert body["message"] == "You are being rate limited." and body["global"] is False
    assert 3.0 < body["retry_after"] <= 5.0  # when the first of the five leaves the window
    assert headers["X-RateLimit-Scope"] == "user" and "X-RateLimit-Global" not in headers
    assert (headers["X-RateLimit-Limit"], headers["X-RateLimit-Remaining"]) == ("5", "0")
    assert float(headers["X-RateLimit-Reset"]) > time.time() + 2
    assert headers["X-RateLimit-Bucket"] == bucket and headers["Via"]
    assert fake.channel_limited == {world.channel.id: 1}
    assert "429s of the per-channel message limit: {'<Channel #floral>': 1}" in fake.summary()
    statuses = [r.status for r in fake.requests_matching(CREATE, channel_id=world.channel)]
    assert statuses == [200] * 5 + [429]
    assert len(fake.messages_in(world.channel)) == 5 + 2  # with the answer and its follow-up


async def test_discord_py_waits_for_a_channels_window_and_not_for_other_channels(
    fake: FakeDiscord, world: World, bot: TinyBot
) -> None:
    fake.channel_posts = (5, 2.0)  # Discord's count in a shorter window: a faster test
    busy = bot.get_partial_messageable(world.channel.id)
    sends = [asyncio.create_task(busy.send(f"post {n}")) for n in range(7)]
    await fake.wait_until(lambda: len(fake.messages_in(world.channel)) == 5, what="five posts")
    elsewhere = await asyncio.wait_for(
        bot.get_partial_messageable(world.mod_log.id).send("elsewhere"), 1.0
    )
    assert len(fake.messages_in(world.channel)) == 5  # the other two wait for the window
    await asyncio.wait_for(asyncio.gather(*sends), 5)
    posts = fake.requests_matching(CREATE, channel_id=world.channel)
    assert [r.status for r in posts] == [200] * 7 and fake.channel_limited == {}
    assert posts[5].time - posts[0].time >= 2.0
    assert elsewhere.content == "elsewhere"

"""Discord's limit of 5 posts per 5 s in one channel, enforced by the fake here. The moderator
log channel serves every match of its server: the bot keeps within the limit there itself (4
posts per 5.5 s, ``bot.outbox.ChannelPace``), the log entries of several matches in one post,
each headed by its match. A match channel without threads serves every match started there:
discord.py holds the post past the limit until Discord's window passes, and only that post
waits (``bot.outbox.PASS_WAIT_S``): every player's prompt goes out meanwhile."""

from __future__ import annotations

from datetime import datetime

from .fake_discord import CHANNEL_POSTS, FakeDiscord, Message, User, World
from .test_floral_host import LaunchBot, moderator, reveal_and_start, start_bot

MATCHES = 8


async def setup(fake: FakeDiscord, world: World, players: tuple[User, User]) -> int:
    ix = await fake.slash(
        world.mod,
        "floral setup",
        {"player1": players[0], "player2": players[1], "window": 60},
        channel=world.channel,
    )
    reply = await ix.reply()
    assert "Match **" in reply.content, reply.content
    return int(reply.content.split("Match **")[1].split("**")[0])


def most_in_any_window(messages: list[Message], seconds: float) -> int:
    """The most posts the bot made in any ``seconds`` (not answers to interactions: another
    route, outside the limit)."""
    posts = [m for m in messages if m.interaction_id is None]
    times = sorted(datetime.fromisoformat(m.timestamp).timestamp() for m in posts)
    return max(
        (sum(1 for t in times[i:] if t < start + seconds) for i, start in enumerate(times)),
        default=0,
    )


async def test_matches_sharing_the_log_and_the_match_channel_stay_within_their_limit(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    fake.channel_posts = CHANNEL_POSTS
    users = [fake.add_user(f"player{n}") for n in range(2 * MATCHES)]
    for user in users:
        fake.add_member(world.guild, user)
    await start_bot(launch_bot)
    matches = [await setup(fake, world, (users[n], users[n + 1])) for n in range(0, len(users), 2)]
    for match in matches:  # eight matches start within a second or two
        await reveal_and_start(fake, world, match)

    def logged() -> str:
        return "\n".join(m.content for m in fake.messages_in(world.mod_log))

    await fake.wait_until(
        lambda: all(f"**m{match}** · Maps: " in logged() for match in matches),
        timeout=30,
        what="every match's maps in the log",
    )

    def posts() -> list[Message]:
        return [m for m in fake.messages_in(world.channel) if m.interaction_id is None]

    await fake.wait_until(
        lambda: len(posts()) >= MATCHES, timeout=30, what="every match's start post"
    )
    assert not fake.channel_limited, [  # no 429 anywhere; else what each channel was sent
        (m.channel_id, m.timestamp[11:23], len(m.content), m.content[:40])
        for channel in (world.mod_log, world.channel)
        for m in fake.messages_in(channel)
    ]
    log_posts = fake.messages_in(world.mod_log)
    lines = [line for m in log_posts for line in m.content.splitlines() if line.startswith("**m")]
    assert sorted(int(line[3:].split("**")[0]) for line in lines if "Maps: " in line) == matches
    assert len(log_posts) < MATCHES  # some posts carry several matches' entries
    assert all(m.content.startswith("**m") for m in log_posts)
    assert most_in_any_window(log_posts, 5.0) <= 4  # the bot's own pace, not discord.py's wait
    # the sixth start post waited in discord.py for the channel's window: not the prompts
    sixth = sorted(m.seq for m in posts())[5]
    first = {user.name: [m.seq for m in fake.dms_to(user) if m.custom_ids()][:1] for user in users}
    assert all(seq and seq[0] < sixth for seq in first.values()), (first, sixth)
    status = await moderator(fake, world, "match status", match=f"m{matches[-1]}")
    assert "running" in status, status

"""Fixtures for end-to-end tests: ``fake`` (a started FakeDiscord), ``world``, ``launch_bot``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import pytest

from .botproc import BotProcess, default_bot_argv
from .fake_discord import FakeDiscord, World

log = logging.getLogger(__name__)

LaunchBot = Callable[..., Awaitable[BotProcess]]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord on a free port with the default world built; fails the test on failures."""
    server = FakeDiscord()
    server.build_world()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
    server.assert_clean()


@pytest.fixture
def world(fake: FakeDiscord) -> World:
    """The default world of ``fake`` (guild, #floral, #mod-log, mod, helper, alice, bob, carol)."""
    assert fake.world is not None
    return fake.world


@pytest.fixture
async def launch_bot(
    fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LaunchBot]:
    """Start bot processes against ``fake``: ``await launch_bot()`` runs ``python -m bot run``.

    ``launch_bot(argv=[...], env={...}, wait_ready=True, expect_exit=False)``; every process is
    killed at teardown, and any ERROR/traceback line it logged fails the test.
    """
    procs: list[BotProcess] = []

    async def launch(
        argv: Sequence[str] | None = None,
        *,
        env: dict[str, str] | None = None,
        wait_ready: bool = True,
        expect_exit: bool = False,
        name: str | None = None,
        timeout: float = 20.0,
    ) -> BotProcess:
        workdir = tmp_path_factory.mktemp("bot")
        merged = {"FLORAL_DB": str(workdir / "floral-host.db"), "LOG_LEVEL": "INFO", **(env or {})}
        proc = BotProcess(
            fake, argv or default_bot_argv(), env=merged, name=name or f"bot{len(procs)}"
        )
        procs.append(proc)
        await proc.start(wait_ready=wait_ready, expect_exit=expect_exit, timeout=timeout)
        return proc

    try:
        yield launch
    finally:
        report: list[str] = []
        for proc in procs:
            await proc.close()
            if proc.errors:
                tail = "\n".join(f"    {ln.text}" for ln in proc.lines[-40:])
                report.append(
                    f"{proc.name} logged errors: {proc.errors}\n  its last lines:\n{tail}"
                )
    if report:
        pytest.fail("\n".join(report), pytrace=False)

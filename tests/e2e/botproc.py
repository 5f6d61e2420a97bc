"""Run a bot as a subprocess against a :class:`FakeDiscord` and watch its log.

::

    bot = BotProcess(fake, [sys.executable, "-m", "bot", "run"], env={"FLORAL_DB": path})
    await bot.start()                 # waits until the bot IDENTIFYs on the fake gateway
    await bot.wait_for_log(r"ready")  # any regex on its stdout/stderr
    await bot.kill()                  # SIGKILL; bot.restart() = kill + start (same env, same db)
    bot.errors                        # ERROR / CRITICAL / traceback lines: failures

The process gets ``fake.env()`` (DISCORD_TOKEN, DISCORD_API_BASE, DISCORD_GATEWAY_URL) over the
parent environment, plus ``PYTHONUNBUFFERED=1``. An unexpected exit aborts every wait on the fake
and is recorded as a failure; ``start(expect_exit=True)`` and ``await bot.wait_exit()`` are for
runs that should end (a bad token, say). ``bot.allow_errors(regex)`` excuses expected error lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .fake_discord import FakeDiscord, FakeDiscordError

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
ERROR_PATTERN = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback \(most recent call last\)")


def default_bot_argv() -> list[str]:
    """``floral-host run`` through this interpreter (``python -m bot run``)."""
    return [sys.executable, "-m", "bot", "run"]


@dataclass
class LogLine:
    """One line the process printed."""

    stream: str  # "stdout" or "stderr"
    text: str
    start: int  # which start of the process printed it (1-based)


class BotProcess:
    """A bot subprocess: start, kill -9, restart, log capture and error detection."""

    def __init__(
        self,
        fake: FakeDiscord,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | str = REPO_ROOT,
        name: str = "bot",
    ) -> None:
        self.fake = fake
        self.argv = list(argv)
        self.cwd = Path(cwd)
        self.name = name
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")},
            "PYTHONUNBUFFERED": "1",
            **fake.env(),
            **(env or {}),
        }
        self.lines: list[LogLine] = []
        self.errors: list[str] = []
        self.starts = 0
        self._allowed: list[re.Pattern[str]] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._readers: list[asyncio.Task[None]] = []
        self._watcher: asyncio.Task[None] | None = None
        self._expect_exit = False

    # ----------------------------------------------------------------- state

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc else None

    def output(self) -> str:
        return "\n".join(f"[{ln.stream}] {ln.text}" for ln in self.lines)

    def allow_errors(self, pattern: str) -> None:
        """Lines matching ``pattern`` are not failures (already recorded ones are dropped too)."""
        rx = re.compile(pattern)
        self._allowed.append(rx)
        self.errors = [e for e in self.errors if not rx.search(e)]

    def take_errors(self) -> list[str]:
        taken, self.errors = self.errors, []
        return taken

    # ----------------------------------------------------------------- lifecycle

    async def start(
        self, *, wait_ready: bool = True, expect_exit: bool = False, timeout: float = 20.0
    ) -> None:
        """Start the process; with ``wait_ready`` wait until it IDENTIFYs on the gateway."""
        if self.running:
            raise RuntimeError(f"{self.name} is already running")
        await self._finish_readers()
        identifies = self.fake.identifies
        self.starts += 1
        self._expect_exit = expect_exit
        self._proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=self.cwd,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        log.info("%s: started pid %s: %s", self.name, self._proc.pid, " ".join(self.argv))
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._readers = [
            asyncio.create_task(self._read(self._proc.stdout, "stdout", self.starts)),
            asyncio.create_task(self._read(self._proc.stderr, "stderr", self.starts)),
        ]
        self._watcher = asyncio.create_task(self._watch(self._proc))
        if wait_ready:
            try:
                await self.fake.wait_until(
                    lambda: self.fake.identifies > identifies or not self.running,
                    timeout=timeout,
                    what=f"{self.name} to connect",
                )
            except FakeDiscordError as exc:
                raise FakeDiscordError(f"{exc}\n{self.name} output:\n{self.output()}") from None
            if not self.running and not expect_exit:
                await self._finish_readers()
                raise FakeDiscordError(
                    f"{self.name} exited with {self.returncode}:\n{self.output()}"
                )

    async def _read(self, stream: asyncio.StreamReader, label: str, start: int) -> None:
        while True:
            raw = await stream.readline()
            if not raw:
                return
            text = ANSI_ESCAPE.sub("", raw.decode(errors="replace").rstrip("\n"))
            self.lines.append(LogLine(label, text, start))
            log.info("[%s %s] %s", self.name, label, text)
            if ERROR_PATTERN.search(text) and not any(rx.search(text) for rx in self._allowed):
                self.errors.append(text)
            self.fake._notify()

    async def _watch(self, proc: asyncio.subprocess.Process) -> None:
        code = await proc.wait()
        if self._proc is proc and not self._expect_exit:
            await self._finish_readers()
            self.fake.abort(
                f"{self.name} (pid {proc.pid}) exited unexpectedly with {code}; output:\n"
                + self.output()
            )
        self.fake._notify()

    async def _finish_readers(self) -> None:
        if self._readers:
            await asyncio.wait(self._readers, timeout=5)
            self._readers = []

    async def wait_exit(self, timeout: float = 20.0) -> int:
        """Wait for the process to end by itself; return its exit code."""
        self._expect_exit = True
        assert self._proc is not None
        code = await asyncio.wait_for(self._proc.wait(), timeout)
        await self._finish_readers()
        return code

    async def _signal(self, sig: int, timeout: float) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        self._expect_exit = True
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            log.warning("%s: pid %s ignored signal %s, killing", self.name, proc.pid, sig)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        await self._finish_readers()
        if self._watcher is not None:
            await asyncio.wait([self._watcher], timeout=5)

    async def kill(self) -> None:
        """SIGKILL the process (a crash) and wait for it."""
        await self._signal(signal.SIGKILL, 5)

    async def terminate(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``timeout``."""
        await self._signal(signal.SIGTERM, timeout)

    async def interrupt(self, timeout: float = 10.0) -> None:
        """SIGINT (Ctrl-C), then SIGKILL after ``timeout``."""
        await self._signal(signal.SIGINT, timeout)

    async def restart(
        self, *, kill: bool = True, wait_ready: bool = True, timeout: float = 20.0
    ) -> None:
        """Stop (SIGKILL by default, else SIGTERM) and start again with the same env and argv."""
        await (self.kill() if kill else self.terminate())
        await self.start(wait_ready=wait_ready, timeout=timeout)

    async def close(self) -> None:
        """Kill the process if it still runs (fixture teardown)."""
        await self.kill()
        await self._finish_readers()

    # ----------------------------------------------------------------- log

    async def wait_for_log(
        self, pattern: str, *, timeout: float = 10.0, since_start: bool = True
    ) -> str:
        """The first line matching ``pattern`` (of this start unless ``since_start=False``)."""
        rx = re.compile(pattern)

        def check() -> str | None:
            for line in self.lines:
                if (not since_start or line.start == self.starts) and rx.search(line.text):
                    return line.text
            return None

        return await self.fake.wait_until(
            check, timeout=timeout, what=f"{self.name} to log {pattern!r}"
        )

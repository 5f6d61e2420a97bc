"""Where the lines typed come from: a terminal (prompt_toolkit: line editing, history, Tab
completion, a bottom toolbar with the countdown, messages printed above the line being typed)
or anything else (a pipe, a file: read line by line, nothing drawn)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style

TOOLBAR_REFRESH_S = 0.5
STYLE = Style.from_dict(
    {
        "bottom-toolbar": "noreverse bg:#303030 #d0d0d0",
        "toolbar.urgent": "bg:#af0000 #ffffff bold",
        "toolbar.open": "bg:#005f87 #ffffff bold",
        "toolbar.keys": "#8a8a8a",
        "prompt": "ansicyan bold",
    }
)


class LineKeyboard:
    """Lines from a pipe or a file, read by a daemon thread: a pending read must not keep the
    process alive once the match is over."""

    interactive = False

    def __init__(self, lines: TextIO) -> None:
        self._lines = lines
        self._queue: asyncio.Queue[str | None] | None = None

    @contextlib.contextmanager
    def attached(self) -> Iterator[None]:
        yield

    async def read_line(self) -> str | None:
        """The next line, or None at the end of the input."""
        if self._queue is None:
            self._queue = asyncio.Queue()
            threading.Thread(
                target=_read_lines,
                args=(self._lines, asyncio.get_running_loop(), self._queue),
                name="stdin",
                daemon=True,
            ).start()
        return await self._queue.get()


def _read_lines(
    lines: TextIO, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]
) -> None:
    def put(item: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the match is over and the loop closed
            loop.call_soon_threadsafe(queue.put_nowait, item)

    while True:
        try:
            line = lines.readline()
        except (OSError, ValueError):  # closed under us, or undecodable bytes
            line = ""
        if not line:
            put(None)
            return
        put(line.rstrip("\r\n"))


Candidates = Callable[[str], Iterable[tuple[str, str]]]


class AnswerCompleter(Completer):
    """Tab completes the whole answer (a choice of the open question) or the word being
    typed (a name, a word of an answer)."""

    def __init__(self, candidates: Candidates) -> None:
        self._candidates = candidates

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor
        for text, note in self._candidates(typed):
            yield Completion(text, start_position=-len(typed), display_meta=note)


class TerminalKeyboard:
    """A prompt_toolkit prompt: editing, history, completion and the countdown toolbar. While
    it is attached, anything printed goes above the line being typed."""

    interactive = True

    def __init__(
        self,
        toolbar: Callable[[], StyleAndTextTuples],
        candidates: Candidates,
        waiting: Callable[[], bool],
    ) -> None:
        self._waiting = waiting
        self._session: PromptSession[str] = PromptSession(
            history=InMemoryHistory(),
            completer=AnswerCompleter(candidates),
            complete_while_typing=False,
            bottom_toolbar=toolbar,
            refresh_interval=TOOLBAR_REFRESH_S,
            reserve_space_for_menu=4,
            style=STYLE,
        )

    @contextlib.contextmanager
    def attached(self) -> Iterator[None]:
        with patch_stdout(raw=True):
            yield

    def _message(self) -> StyleAndTextTuples:
        return [("class:prompt", "answer › " if self._waiting() else "› ")]

    async def read_line(self) -> str | None:
        """The next line, or None at Ctrl-D. Ctrl-C stops the command as the signal would."""
        try:
            return await self._session.prompt_async(self._message, handle_sigint=False)
        except EOFError:
            return None
        except KeyboardInterrupt:  # the terminal is raw: Ctrl-C came as a key, not a signal
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.Event().wait()  # the signal's handler cancels the command
            return None

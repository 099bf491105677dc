"""An in-memory entrant for runner tests: answers like the honest test bot, or raises a scripted fault."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from protocol import Expect, ProtocolViolation
from protocol.replies import HelloReply, read_reply
from protocol.replies import Reply as AnyReply
from referee.runner import BotCrashed, BotFault
from tests.bots import _base as bot_base

Script = Callable[[dict[str, Any]], dict[str, Any] | BaseException | None]


def honest(msg: dict[str, Any]) -> dict[str, Any]:
    """The honest test bot's reply (``tests/bots/_base.py``) to a ``deal`` or ``turn``."""
    reply: dict[str, Any] = bot_base.honest(msg, "scripted")
    return reply


class ScriptedEntrant:
    """Keeps every message it receives; ``script(msg)`` may return a reply, an exception to raise, or None."""

    move_time: float | None = 1.0
    time_bank: float | None = None
    wants_legal_moves = False

    def __init__(
        self,
        name: str,
        script: Script | None = None,
        *,
        notify_fault: Script | None = None,
        exit_after: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        """``exit_after(msg)`` True: the 'process' exits on its own right after answering ``msg``."""
        self._name = name
        self.script = script
        self.notify_fault = notify_fault
        self.exit_after = exit_after
        self._exited: BotCrashed | None = None
        self.received: list[dict[str, Any]] = []
        self.ended: list[str | None] = []
        self.hello: HelloReply | None = HelloReply(protocol=1, name=name)
        self.startup_fault: BotFault | ProtocolViolation | None = None
        self._ready = True

    @property
    def name(self) -> str:
        return self._name

    @property
    def ready(self) -> bool:
        return self._ready

    async def ensure_started(self) -> None:
        self._ready = True

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]:
        msg = json.loads(line)
        self.received.append(msg)
        out = self.script(msg) if self.script is not None else None
        if isinstance(out, BaseException):
            raise out
        raw = json.dumps(out if out is not None else honest(msg)).encode()
        if self.exit_after is not None and self.exit_after(msg):
            self._exited = BotCrashed("the bot exited: exit code 3")
        return read_reply(raw, expect), raw

    async def notify(self, line: bytes, deadline: float) -> None:
        msg = json.loads(line)
        self.received.append(msg)
        out = self.notify_fault(msg) if self.notify_fault is not None else None
        if isinstance(out, BaseException):
            raise out

    async def end(self, message: str | None = None) -> None:
        self.ended.append(message)
        self._ready = False
        self._exited = None

    def exited(self) -> BotCrashed | None:
        return self._exited

    async def aclose(self) -> None:
        return None

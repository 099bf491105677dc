"""A short session of its own with the bot, outside any game: hello with unknown fields, a message of unknown
type, then ``bye`` — does it answer, stay quiet, and exit by itself within the grace period?"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

import trio

from protocol import Expect, ProtocolViolation, parse_reply
from referee.check.observe import EXTRA_FIELD, unknown_message
from referee.runner import BotFault, BotSpec, RunnerConfig
from referee.runner.errors import LineTooLong
from referee.runner.process import BotProcess
from referee.runner.safe_text import line_text
from referee.runner.sandbox import resolve_mode

HELLO_WITH_EXTRAS = json.dumps({"type": "hello", "protocol": 1, EXTRA_FIELD: {"v": 2}}).encode() + b"\n"
BYE = b'{"type":"bye"}\n'
#: How long the bot may take to (wrongly) answer a message of unknown type before we look.
QUIET_WAIT = 0.3


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What the session found. ``problem``: why the bot failed the unknown-field/unknown-type part (or None);
    ``problem_sent``/``problem_line``: the message and the bot's line; ``exited``: whether it ended by itself
    within ``grace`` seconds of ``bye`` (None when the session did not get that far)."""

    started: bool
    problem: str | None = None
    problem_sent: str | None = None
    problem_line: str | None = None
    exited: bool | None = None


async def probe_bot(spec: BotSpec, config: RunnerConfig, stderr_path: Path | None = None) -> ProbeResult:
    """Run the session; bot misbehaviour is reported in the result, never raised.

    Raises ``BotSpecError`` when the sandbox mode cannot be honoured (as the runner does).
    """
    mode = resolve_mode(config)
    try:
        proc = await BotProcess.start(spec, config, stderr_path, mode)
    except BotFault:
        return ProbeResult(started=False)
    try:
        return await _session(proc, config)
    finally:
        await proc.terminate(config.grace)


async def _session(proc: BotProcess, config: RunnerConfig) -> ProbeResult:
    hello = line_text(HELLO_WITH_EXTRAS, bare=True)
    try:
        await proc.send(HELLO_WITH_EXTRAS, trio.current_time() + config.startup_time)
        raw = await proc.read_line(trio.current_time() + config.startup_time)
        parse_reply(raw, Expect.HELLO)
    except LineTooLong as exc:
        return ProbeResult(
            True, "a hello with an unknown field got an over-long line", hello, line_text(exc.head, bare=True)
        )
    except (BotFault, ProtocolViolation) as exc:
        return ProbeResult(
            True, f"a hello with an unknown field went wrong: {exc.detail}", hello, line_text(exc.line, bare=True)
        )
    notice = unknown_message("probe")
    try:
        await proc.send(notice, trio.current_time() + 1.0)
    except BotFault as exc:
        return ProbeResult(True, f"a message of unknown type went wrong: {exc.detail}", line_text(notice, bare=True))
    await trio.sleep(QUIET_WAIT)
    extra = proc.pending()
    if extra is not None:
        return ProbeResult(
            True,
            "the bot answered a message of unknown type (it needs no reply)",
            line_text(notice, bare=True),
            line_text(extra, bare=True),
        )
    if proc.process.returncode is not None:
        return ProbeResult(
            True, proc.exit_detail("exited after a message of unknown type"), line_text(notice, bare=True)
        )
    with contextlib.suppress(BotFault):
        await proc.send(BYE, trio.current_time() + 1.0)
    await proc.close_input()
    exited = await proc.wait_exit(config.grace)
    return ProbeResult(True, exited=exited)

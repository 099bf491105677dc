"""One entrant's bot process, reused across games: start-up and hello, requests under deadlines, ending it."""

from __future__ import annotations

import contextlib
from pathlib import Path

import trio

from protocol.errors import ProtocolViolation
from protocol.jsonline import MAX_LINE
from protocol.replies import Expect, HelloReply, Reply, read_reply
from protocol.session import BYE_LINE, HELLO_LINE, error_line
from referee.memo import Memo
from referee.runner.config import RunnerConfig
from referee.runner.errors import BotCrashed, BotFault, BotTimeout, LineTooLong, StartupFailed, UnsolicitedOutput
from referee.runner.faults import FaultKind
from referee.runner.process import BotProcess
from referee.runner.sandbox import resolve_mode
from referee.runner.spec import BotSpec
from referee.runner.stderr_marks import Mark

#: Deal and turn replies already parsed, by their line and the reply awaited. ``read_reply`` is a function of
#: the two alone and its replies are immutable (a discard's list is copied by its one reader, the game), and bots
#: repeat themselves: a random bot's 10,000 replies over 240
#: games are 277 distinct lines. A hit costs a lookup instead of a JSON parse and a model validation (about
#: 10 us). Bounded: short lines only, and at most its size of them (kept for the life of the process).
_PARSED: Memo[tuple[bytes, Expect], Reply] = Memo("runner.player.PARSED", 2048)
_PARSED_LINE = 96


def _parse(raw: bytes, expect: Expect) -> Reply:
    """``read_reply(raw, expect)`` (``parse_reply``'s answer as a named tuple, without pydantic for a valid line),
    from ``_PARSED`` when that line was parsed before (hello replies never are)."""
    key = (raw, expect)
    known = _PARSED.get(key)
    if known is not None:
        return known
    reply = read_reply(raw, expect)
    if expect is not Expect.HELLO and len(raw) <= _PARSED_LINE:
        _PARSED.keep(key, reply)
    return reply


class Player:
    """An entrant's bot. ``await ensure_started()`` before each game; ``await aclose()`` when done.

    The process lives across games. After a fault (``end(...)``) or an exit, ``ensure_started`` starts a
    fresh one. Bot faults during start-up never raise: ``startup_fault`` holds them and ``ready`` is False.
    ``hello`` is the bot's hello reply (its self-reported name, version, author, options); it stays readable
    after the process ends, until the next start.
    """

    def __init__(self, spec: BotSpec, config: RunnerConfig | None = None, stderr_path: Path | None = None) -> None:
        """Raises ``BotSpecError`` when ``config.sandbox`` is ``"bwrap"`` and bubblewrap is not installed."""
        self.spec = spec
        self.config = config or RunnerConfig()
        self.stderr_path = stderr_path
        # Quiet here: the notice that bubblewrap is missing is said when the first bot starts (below), not while a
        # command still checks its options (a ruleset refused then is the one line the organiser sees).
        self.sandbox = resolve_mode(self.config, quiet=True)
        self.hello: HelloReply | None = None
        self.startup_fault: BotFault | ProtocolViolation | None = None
        self.starts = 0
        self._proc: BotProcess | None = None
        #: The type of the last message sent and whether it asked for a reply (to name what a stray line followed).
        self._last_sent: tuple[str, bool] | None = None
        #: Types of the messages without reply sent since the last request (to explain a reply of the wrong kind).
        self._quiet: list[str] = []
        self._mark: Mark | None = None  # what the bot is asked now, for its stderr log (``mark_stderr``)

    @property
    def name(self) -> str:
        """The entrant's name (from the BOT spec, not the bot's hello)."""
        return self.spec.name

    @property
    def ready(self) -> bool:
        """True while a started process has completed its hello and not faulted or exited."""
        return self._proc is not None and self.hello is not None and self._proc.process.returncode is None

    @property
    def wants_legal_moves(self) -> bool:
        return self.hello is not None and self.hello.wants_legal_moves

    @property
    def move_time(self) -> float | None:
        return self.config.move_time

    @property
    def time_bank(self) -> float | None:
        return self.config.time_bank

    @property
    def cpu_clock(self) -> bool:
        """True when replies are charged the CPU time of the bot's processes (``--clock cpu``)."""
        return self.config.clock == "cpu"

    @property
    def game_output(self) -> int | None:
        """The most bytes of lines the bot may send in one game (``Limits.game_output``; None: no cap)."""
        return self.config.limits.game_output

    @property
    def cpu_backstop(self) -> float:
        """Under ``--clock cpu``: the most wall time a reply may take, in multiples of its CPU allowance."""
        return self.config.cpu_backstop

    @property
    def stderr_marks(self) -> bool:
        """True when the game should say what it asks, for the stderr log (``RunnerConfig.stderr_marks``)."""
        return self.config.stderr_marks and self.stderr_path is not None

    def mark_stderr(self, mark: Mark) -> None:
        """What the bot is asked from now on (``stderr_marks.Mark``), for its stderr log (the next process started
        is told too)."""
        self._mark = mark
        if self._proc is not None:
            self._proc.mark_stderr(mark)

    def pause(self) -> None:
        """Freeze the running process while nothing is asked of it (``BotProcess.freeze``); ``ensure_started`` and
        ``resume`` thaws it."""
        if self._proc is not None:
            self._proc.freeze()

    def resume(self) -> None:
        """Thaw a process ``pause`` froze (before its next game)."""
        if self._proc is not None:
            self._proc.thaw()

    def cpu_seconds(self) -> float | None:
        """CPU seconds the running process (and its children) used so far, or None without a process."""
        return self._proc.cpu_seconds() if self._proc is not None else None

    @property
    def pid(self) -> int | None:
        """The process id of the running bot process (bwrap's, when sandboxed), or None."""
        return self._proc.pid if self._proc is not None else None

    async def ensure_started(self) -> None:
        """Make sure a live process that has answered hello is running, starting a fresh one if needed.

        Bot faults (cannot start, crash, timeout, bad hello) are kept in ``startup_fault``; nothing is raised
        for them.
        """
        if self.ready:
            return
        await self._stop()
        self.hello = None
        self.startup_fault = None
        self._last_sent, self._quiet = None, []
        self.starts += 1
        if self.starts == 1:
            resolve_mode(self.config)  # says, once for the whole referee, what sandbox the bots run without
        try:
            self._proc = await BotProcess.start(self.spec, self.config, self.stderr_path, self.sandbox)
        except BotCrashed as exc:
            self.startup_fault = StartupFailed(str(exc))
            return
        if self._mark is not None:
            self._proc.mark_stderr(self._mark)
        deadline = trio.current_time() + self.config.startup_time
        try:
            reply, _ = await self.request(HELLO_LINE, Expect.HELLO, deadline)
        except ProtocolViolation as exc:
            if exc.kind == FaultKind.PROTOCOL_VERSION:
                self.startup_fault = exc
            else:
                self.startup_fault = StartupFailed(f"bad hello reply: {exc.detail}", line=exc.line)
        except BotTimeout:
            got = self._proc.pending() if self._proc is not None else None
            self.startup_fault = StartupFailed(_hello_timeout(self.config.startup_time, got), line=got)
        except BotFault as exc:
            self.startup_fault = StartupFailed(f"{exc.detail} before its hello reply", line=exc.line)
        else:
            assert isinstance(reply, HelloReply)
            self.hello = reply
            return
        await self._stop()

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[Reply, bytes]:
        """Send ``line`` (an encoded message that needs a reply) and return the parsed reply and its raw line.

        ``deadline`` is in trio time. Raises ``BotTimeout``, ``BotCrashed``, ``UnsolicitedOutput`` or
        ``ProtocolViolation`` (with ``.line`` set to the offending line).
        """
        proc = self._live()
        # The protocol's rule: a reply answers the request it was sent for. Whatever the bot wrote before this
        # request (an answer to a message that needs none, a second line) is drained here and is a fault.
        self._check_unsolicited(proc)
        quiet = self._quiet
        if quiet:
            self._quiet = []
        self._last_sent = _ASKED[expect]
        try:
            # A turn is asked of one seat while the others wait (a deal of every seat at once): its wait may hold
            # the loop (``RunnerConfig.hold_loop``).
            raw = await proc.exchange(line, deadline, hold=expect is Expect.TURN)
        except LineTooLong as exc:
            raise ProtocolViolation(
                FaultKind.LINE_TOO_LONG, f"a reply line over {MAX_LINE} bytes", line=exc.head
            ) from None
        try:
            return _parse(raw, expect), raw
        except ProtocolViolation as exc:
            if quiet and exc.kind in _ANSWER_LIKE:
                exc = _after_quiet(exc, quiet, expect)
            raise ProtocolViolation(exc.kind, exc.detail, line=raw[:400]) from None

    async def notify(self, line: bytes, deadline: float) -> None:
        """Send ``line`` (a message without reply). Raises ``BotCrashed``, ``BotTimeout``, ``UnsolicitedOutput``."""
        proc = self._live()
        self._check_unsolicited(proc)
        kind = message_type(line)
        self._last_sent = (kind, False)
        if kind not in self._quiet:
            self._quiet.append(kind)
        await proc.send(line, deadline)

    def exited(self) -> BotCrashed | None:
        """A ``BotCrashed`` saying how the process ended when it has exited on its own, else None (it is
        running, or was never started or already ended by the referee). Looks without waiting, and without a
        system call (the game asks before every turn): the process's exit watcher reaps it as soon as it exits."""
        proc = self._proc
        if proc is None or proc.closed or (not proc.exited and proc.process.returncode is None):
            return None
        return BotCrashed(proc.exit_detail("exited"))

    def _live(self) -> BotProcess:
        if self._proc is None or self._proc.closed:
            raise BotCrashed("the bot is not running")
        return self._proc

    def _check_unsolicited(self, proc: BotProcess) -> None:
        extra = proc.pending()
        if extra is not None:
            first = extra.split(b"\n", 1)[0].rstrip(b"\r")
            raise UnsolicitedOutput(stray_detail(self._last_sent), line=first)

    async def end(self, message: str | None = None) -> None:
        """End the process after a fault: send ``error`` with ``message`` (best effort), then TERM, grace, KILL.

        The next ``ensure_started`` starts a fresh process. Never raises for bot behaviour; shielded.
        """
        with trio.CancelScope(shield=True):
            proc = self._proc
            if proc is not None and message is not None and proc.process.returncode is None:
                with contextlib.suppress(BotFault):
                    await proc.send(error_line(message), trio.current_time() + 0.2)
            await self._stop()

    async def aclose(self) -> None:
        """Say ``bye``, close stdin, give the bot ``grace`` seconds to exit, then TERM → grace → KILL its whole
        process group (and sandbox). Always reaps; shielded from cancellation; safe to call twice."""
        with trio.CancelScope(shield=True):
            proc = self._proc
            if proc is not None and not proc.closed and proc.process.returncode is None:
                with contextlib.suppress(BotFault):
                    await proc.send(BYE_LINE, trio.current_time() + 0.2)
                await proc.close_input()
                await proc.wait_exit(self.config.grace)
            await self._stop()

    async def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            await proc.terminate(self.config.grace)


#: ``_last_sent`` after a request, by the reply it awaits.
_ASKED = {expect: (expect.prompt, True) for expect in Expect}

#: Faults of a line that could be a bot's answer to a message that needs none, read in place of the real reply.
_ANSWER_LIKE = frozenset(
    {FaultKind.WRONG_TYPE, FaultKind.UNKNOWN_TYPE, FaultKind.BAD_FIELD, FaultKind.NOT_OBJECT, FaultKind.INVALID_JSON}
)
_TYPE_PREFIX = b'{"type":"'


def message_type(line: bytes) -> str:
    """The ``type`` of an encoded referee message (the referee writes it first), else ``"a message"``."""
    if line.startswith(_TYPE_PREFIX):
        end = line.find(b'"', len(_TYPE_PREFIX))
        if end > 0:
            return line[len(_TYPE_PREFIX) : end].decode("utf-8", "replace")
    return "a message"


def _names(kinds: list[str]) -> str:
    distinct = list(dict.fromkeys(kinds))
    return distinct[0] if len(distinct) == 1 else ", ".join(distinct[:-1]) + " and " + distinct[-1]


def stray_detail(last_sent: tuple[str, bool] | None) -> str:
    """Why a line that arrived before a message was sent is a fault, naming the message it followed."""
    base = "a line arrived when no reply was awaited"
    if last_sent is None:
        return base
    kind, asked = last_sent
    if asked:
        return f"{base}: a second line after the reply to {kind} (answer each hello, deal and turn with one line)"
    return f"{base}: it came after {kind}, which needs no reply (answer only hello, deal and turn, one line each)"


#: The words of a fault detail that says a reply was most likely the bot's answer to a message needing none.
ANSWERED_NO_REPLY = "no reply: if the bot answered"


def _after_quiet(exc: ProtocolViolation, quiet: list[str], expect: Expect) -> ProtocolViolation:
    """``exc`` with the likely cause of a reply of the wrong kind that came right after messages needing no reply:
    the bot answered one of them, and that answer was read as the reply to this request."""
    names = _names(quiet)
    need = "needs" if len(set(quiet)) == 1 else "need"
    hint = (
        f" (this line came right after {names}, which {need} {ANSWERED_NO_REPLY} {names}, that answer "
        f"was read as its reply to this {expect.prompt})"
    )
    return ProtocolViolation(exc.kind, exc.detail + hint)


#: How to flush stdout after each line, in the languages bots are most often written in.
FLUSH_HINT = (
    "C: fflush(stdout); C++: std::cout << std::flush; Java: System.out.flush(); Python: print(..., flush=True); "
    "Perl: $| = 1; Go: Flush() a bufio.Writer; Rust: io::stdout().flush()"
)


def _hello_timeout(seconds: float, got: bytes | None) -> str:
    """Why no hello reply came: with nothing at all on stdout, the likeliest cause is a reply left unflushed in
    the bot's output buffer; with part of a line, a reply without its newline."""
    if got is None:
        return (
            f"no hello reply within {seconds:g} s, and nothing at all arrived on stdout: if the bot did answer, "
            f"its reply is still in its output buffer. Flush stdout after each line ({FLUSH_HINT})"
        )
    return (
        f"no hello reply within {seconds:g} s: part of a line arrived, but no newline; end each reply with a "
        f"newline and flush stdout after it ({FLUSH_HINT})"
    )

"""The game log: one JSON Lines file per game, with everything needed to replay and re-verify the game.

Lines, each an object with an ``event`` field, in order:

- ``game``: log format, game id, names, ruleset options, seed (or null), the deal (always), each seat's move time.
- ``player``: each seat's bot after start-up, with its hello reply (or null).
- ``send`` / ``recv``: every message to a bot (``msg``, the object sent) and every line from it (``line``, the
  raw text; ``ms``, milliseconds since the request). ``t`` is milliseconds since the game began; ``seat`` the
  bot's seat. An accepted reply line is kept whole (it is at most the protocol's ``MAX_LINE`` bytes), so
  ``verify`` re-parses exactly what the bot sent; of a line that was a fault (not JSON, over ``MAX_LINE``
  bytes, ...) only the start the fault kept is logged.
- ``discard``: a seat's discard as applied (``by``: ``"bot"`` or ``"referee"`` for a forfeiter).
- ``action``: a turn action as applied, with the engine's history entry (``entry``) it produced.
- ``fault``: a recorded fault; ``forfeit``: the referee's forfeit of a seat (with ``forfeited: false`` when
  the game was already over and the result stands).
- ``round_end``: a finished round with its table; ``result``: scores, ranks, forfeits, faults.

Each kind of line has its frozen record in ``referee.runner.logrecords`` (the writer writes them, every reader
gets them back from its parser); this module writes and reads the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Protocol

from protocol import MAX_LINE
from protocol.wire import history_entry, legal_reply
from referee.engine import Event, RoundRecord, Ruleset, State, TurnAction
from referee.memo import Memo, Policy
from referee.runner.logfile import DECODE_ERRORS, LogPacker, open_log
from referee.runner.logrecords import (
    LogError,
    LogEvent,
    LogHeader,
    NoHeader,
    ResultEvent,
    parse_event,
    parse_header,
)
from referee.runner.safe_text import line_text

__all__ = [
    "GameLogWriter",
    "LogError",
    "NoHeader",
    "applied_events",
    "log_content",
    "log_lines",
    "read_header",
    "read_log",
    "read_records",
]


class _Record(Protocol):
    """A record the writer writes through ``to_json`` (every one but ``send`` and ``recv``, which have their own
    ways in)."""

    def to_json(self) -> dict[str, Any]: ...


#: The most of one received line the log keeps: a whole accepted reply line (a longer line is a fault, and the
#: runner hands only its start to the log).
_RAW_KEPT = MAX_LINE
#: One encoder for every line (``json.dumps`` with separators builds a new one per call).
_encode = json.JSONEncoder(separators=(",", ":")).encode
#: What ``_encode`` does with a string (``ensure_ascii``), without its dispatch on the value's type.
_encode_text: Callable[[str], str] = json.encoder.encode_basestring_ascii

#: What ``received`` writes after a received line's ``ms`` (its ``"line"`` field and the line's end), by the line:
#: bots repeat their replies (a random bot's 10,000 replies in 240 games are under 300 distinct lines). Short lines
#: only, and at most its size of them.
_LINES: Memo[bytes, bytes] = Memo("runner.gamelog.LINES", 4096)
_LINE_SHORT = 128

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC

#: The most a writer holds before it writes to its file. A game's lines are gathered in memory and written when it
#: ends (about 60 kB for four random bots: one write a game); a longer game is written in pieces of this size.
HOLD = 256 * 1024


class GameLogWriter:
    """Writes one game's log (or nothing, for ``path=None``). Use as a context manager: the lines are held in memory
    (about ``HOLD`` bytes at most) and written when it closes, also when the game ends by an exception (an interrupt
    leaves the log of the game so far). A ``path`` ending in ``.zst`` is written compressed (one Zstandard frame,
    ``referee.runner.logfile``); ``wire=False`` leaves out the ``send`` and ``recv`` lines (``--logs compact``: the
    header says ``"wire":false``).

    The file is written as bytes: every line is ASCII JSON (``_encode`` escapes the rest) except the ``msg`` of a
    ``send``, which is the UTF-8 line sent to the bot, copied as it is. Times are read from ``clock`` (seconds, any
    epoch; ``play_game`` gives trio's clock, so the times it reads for a request's deadline stamp its lines too):
    the methods that take ``at`` stamp their line with that reading, else with the clock's time now.
    """

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.perf_counter, *, wire: bool = True) -> None:
        self.path = path
        self.wire = wire
        self._fd: int | None = None
        self._packer = None if path is None else LogPacker.for_path(path)
        self._out: list[bytes] = []  # the lines not written yet
        self._size = 0  # about the bytes in _out: the lines of messages and replies, the bulk of a log
        self._clock = clock
        self._t0 = clock()
        self._digest = hashlib.sha256()  # of the log's bytes as written, uncompressed: the results' hash chain links it
        if path is not None:
            try:
                self._fd = os.open(path, _CREATE, 0o666)
            except FileNotFoundError:  # the folder is made once, by the first game that needs it
                path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(path, _CREATE, 0o666)

    def __enter__(self) -> GameLogWriter:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def ms(self, at: float | None = None) -> float:
        """Milliseconds since the game began, to the microsecond: now, or at ``at`` (a reading of the clock). The
        lines the writer assembles write the same number as this float's ``repr`` (``_ms_text``)."""
        return round(((self._clock() if at is None else at) - self._t0) * 1e6) / 1000

    def _now(self) -> str:
        """``ms()`` as the lines write it (``_ms_text``)."""
        return _ms_text(self._clock() - self._t0)

    def _spill(self) -> None:
        """Write the lines held (the file is open)."""
        joined = b"".join(self._out)
        self._digest.update(joined)
        self._out.clear()
        self._size = 0
        self._write(joined if self._packer is None else self._packer.pack(joined))

    def _write(self, raw: bytes) -> None:
        assert self._fd is not None
        data = memoryview(raw)
        while data:
            data = data[os.write(self._fd, data) :]

    def record(self, record: _Record) -> None:
        """Write one event (a record of ``referee.runner.logrecords`` that has ``to_json``)."""
        if self._fd is None:
            return
        self._out.append(_encode(record.to_json()).encode() + b"\n")

    def header(self, header: LogHeader) -> None:
        """The ``game`` line: what ``record(header)`` writes, assembled from its parts (the ruleset's JSON once per
        ruleset)."""
        if self._fd is None:
            return
        deal = ",".join('{"hands":' + _encode(hands) + "}" for hands in header.deal)
        move = ",".join("null" if ms is None else str(ms) for ms in header.move_ms)
        seed = "null" if header.seed is None else str(header.seed)
        wire = "" if self.wire and header.wire else ',"wire":false'
        self._out.append(
            f'{{"event":"game","format":{header.format},"game":{_encode_text(header.game)},'
            f'"names":{_encode(list(header.names))},"rules":{_rules_json(header.ruleset)},"seed":{seed},'
            f'"deal":{{"rounds":[{deal}]}},"move_ms":[{move}]{wire}}}\n'.encode()
        )

    def player(self, seat: int, name: str, hello: str) -> None:
        """A seat's ``player`` line: what ``record(PlayerEvent(seat, name, h))`` writes, ``hello`` being the JSON of
        ``h`` (``json_text(h)``: ``"null"`` for None)."""
        if self._fd is None:
            return
        self._out.append(f'{{"event":"player","seat":{seat},"name":{_encode_text(name)},"hello":{hello}}}\n'.encode())

    def result(self, result: ResultEvent) -> None:
        """The ``result`` line: what ``record(result)`` writes (assembled when there is no fault)."""
        if self._fd is None:
            return
        if result.faults:
            self.record(result)
            return
        self._out.append(
            f'{{"event":"result","t":{result.t},"scores":[{",".join(map(str, result.scores))}],'
            f'"ranks":[{",".join(map(str, result.ranks))}],"forfeits":[{",".join(map(str, result.forfeits))}],'
            f'"faults":[]}}\n'.encode()
        )

    def sent(self, seat: int, line: bytes, at: float | None = None) -> None:
        """A message line sent to ``seat`` (already-encoded JSON, embedded without re-encoding), at ``at``."""
        if self._fd is None or not self.wire:
            return
        # Every message ends with one newline: the line is copied once, without it.
        body = line[:-1] if line.endswith(b"\n") and not line.endswith(b"\n\n") else line.rstrip(b"\n")
        t = _ms_bytes((self._clock() if at is None else at) - self._t0)
        entry = b'{"event":"send","t":%b,"seat":%d,"msg":%b}\n' % (t, seat, body)
        self._out.append(entry)
        self._size += len(entry)
        if self._size >= HOLD:
            self._spill()

    def received(
        self, seat: int, line: bytes | str | None, elapsed: float, cpu: float | None = None, at: float | None = None
    ) -> None:
        """A line from ``seat`` (raw text), ``elapsed`` seconds after the request, read at ``at``; ``cpu``: the CPU
        seconds the bot used for it (logged as ``cpu_ms`` under ``--clock cpu``)."""
        if self._fd is None or not self.wire:
            return
        tail = _LINES.get(line) if type(line) is bytes else None
        if tail is None:
            tail = b',"line":%b}\n' % _encode_text(line_text(line, _RAW_KEPT) or "").encode()
            if type(line) is bytes and len(line) <= _LINE_SHORT:
                _LINES.keep(line, tail)
        t = _ms_bytes((self._clock() if at is None else at) - self._t0)
        head = b'{"event":"recv","t":%b,"seat":%d,"ms":%b' % (t, seat, _ms_bytes(elapsed))
        if cpu is not None:
            head += b',"cpu_ms":%b' % _ms_bytes(cpu)
        self._out.append(head + tail)
        self._size += len(tail)
        if self._size >= HOLD:
            self._spill()

    def action(self, round_1based: int, turn: int, seat: int, action: TurnAction, events: Sequence[Event]) -> None:
        """A turn action as applied, with the history ``events`` it produced: the line ``record`` writes for
        ``ActionEvent(self.ms(), round_1based, turn, seat, action, entries)`` (``entries`` the events' ``to_dict()``),
        assembled from the wire's encoding of the action and of each entry (the same JSON, key for key)."""
        if self._fd is None:
            return
        entries = ",".join(map(history_entry, events))
        self._out.append(
            f'{{"event":"action","t":{self._now()},"round":{round_1based},"turn":{turn},"seat":{seat},'
            f'"action":{legal_reply(action)},"entries":[{entries}]}}\n'.encode()
        )

    def discard(self, round_1based: int, seat: int, cards: Sequence[int], by: str) -> None:
        """A discard as applied: the line ``record(DiscardEvent(self.ms(), round_1based, seat, cards, by))`` writes."""
        if self._fd is None:
            return
        self._out.append(
            f'{{"event":"discard","t":{self._now()},"round":{round_1based},"seat":{seat},'
            f'"cards":[{",".join(map(str, cards))}],"by":"{by}"}}\n'.encode()
        )

    def round_end(self, record: RoundRecord) -> None:
        """A finished round: the line ``record(RoundEndEvent(self.ms(), ...))`` writes for it, with each seat's
        discard and its row of the table (``PlayerView._asdict()``)."""
        if self._fd is None:
            return
        discards = ",".join("[" + ",".join(map(str, d)) + "]" for d in record.discards)
        table = ",".join(
            f'{{"cards":{cards},"penalty":{penalty},"bonus":{bonus},"status":"{status}"}}'
            for cards, penalty, bonus, status in record.players
        )
        self._out.append(
            f'{{"event":"round_end","t":{self._now()},"round":{record.round},"discards":[{discards}],'
            f'"table":[{table}]}}\n'.encode()
        )

    @property
    def sha256(self) -> str | None:
        """SHA-256 (hex) of the log's content as written so far, uncompressed (all of it once closed); None without
        a file."""
        return None if self.path is None else self._digest.hexdigest()

    def close(self) -> None:
        """Write the lines held and close the file (once; a failed write still closes it, and raises)."""
        if self._fd is None:
            return
        try:
            if self._out:
                self._spill()
            if self._packer is not None:
                self._write(self._packer.end())
        finally:
            fd, self._fd = self._fd, None
            self._out = []
            os.close(fd)


#: The fraction of a count of microseconds written as milliseconds, by the count modulo 1,000, as ``repr`` writes
#: ``us / 1000``: ``.0``, ``.001``, ..., ``.01``, ..., ``.1``, ... (no trailing zeros).
_FRACTION = [f".{r:03d}".rstrip("0").encode() if r else b".0" for r in range(1000)]


def _ms_bytes(seconds: float) -> bytes:
    """``repr(round(seconds * 1e6) / 1000)`` as bytes: milliseconds to the microsecond as the log writes them,
    without formatting a float (``repr`` of ``us / 1000`` is the integer part, a point and the fraction without
    trailing zeros, for any count of microseconds a game reaches: tests/runner/test_log_lines.py checks every count
    below a million and random ones up to 10**13, 115 days)."""
    us = round(seconds * 1e6)
    return b"%d%b" % (us // 1000, _FRACTION[us % 1000]) if us >= 0 else repr(us / 1000).encode()


def _ms_text(seconds: float) -> str:
    """``_ms_bytes(seconds)`` as text."""
    return _ms_bytes(seconds).decode()


def json_text(value: object) -> str:
    """``value`` as the log writes JSON (ASCII, no spaces)."""
    return _encode(value)


#: The ``rules`` of a header, by ruleset (a tournament plays one or a few).
_RULES: Memo[Ruleset, str] = Memo("runner.gamelog.RULES", 64, Policy.RENEW)


def _rules_json(ruleset: Ruleset) -> str:
    known = _RULES.get(ruleset)
    if known is None:
        known = _RULES.keep(ruleset, _encode(ruleset.to_dict()))
    return known


#: The longest line a game log of this referee holds: an accepted reply of ``MAX_LINE`` bytes, every byte escaped
#: (``\\u00XX``, 6 bytes), with room to spare. A longer line means the file is not a game log.
MAX_LOG_LINE = 8 * 1024 * 1024
#: The most of a file ``read_log`` reads (the turn limit caps a game's length; this is far beyond it).
MAX_LOG_BYTES = 4 * 1024**3


def log_lines(path: Path, skip: tuple[bytes, ...] = ()) -> Iterator[tuple[int, str]]:
    """The numbered, non-blank lines of the game log at ``path`` (plain or compressed: ``open_log``), read a line at
    a time within ``MAX_LOG_LINE`` bytes a line and ``MAX_LOG_BYTES`` a file (counted as decompressed), so that a
    device (``/dev/zero``), a huge file or a decompression bomb ends quickly with a ``LogError`` naming it instead
    of filling memory. Lines after the first that start with one of ``skip`` are passed by without being decoded."""
    with _opened(path) as handle:
        read = 0
        number = 0
        while True:
            raw = handle.readline(MAX_LOG_LINE + 1)
            if not raw:
                return
            number += 1
            read += len(raw)
            if len(raw) > MAX_LOG_LINE:
                raise LogError(f"a line longer than {MAX_LOG_LINE} bytes: not a game log", path=path, line=number)
            if read > MAX_LOG_BYTES:
                raise LogError(f"{path} is longer than {MAX_LOG_BYTES} bytes: not a game log")
            if skip and number > 1 and raw.startswith(skip):
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise LogError("not UTF-8 text: not a game log", path=path, line=number) from None
            if line.strip():
                yield number, line


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[BinaryIO]:
    """``open_log(path)``; what opening or reading it raises (``OSError``, a compressed file cut short or corrupt)
    comes out as ``LogError`` naming the file."""
    try:
        with open_log(path) as handle:
            yield handle
    except OSError as exc:
        raise LogError(f"cannot read game log {path}: {exc.strerror or exc}") from None
    except DECODE_ERRORS as exc:
        raise LogError(f"{path} is not a readable compressed game log: {exc}") from None


def log_content(path: Path) -> bytes:
    """The content of the game log at ``path``: its JSON Lines as written, decompressed (the same bytes whether the
    file is plain or compressed, so what is computed from them does not depend on how the log is stored). Raises
    ``LogError`` naming the file when it cannot be read, is cut short, or holds more than ``MAX_LOG_BYTES``."""
    with _opened(path) as handle:
        data = handle.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise LogError(f"{path} is longer than {MAX_LOG_BYTES} bytes: not a game log")
    return data


def parse_log_line(path: Path, number: int, line: str) -> dict[str, Any]:
    """One log line as an event object. Raises ``LogError`` for what is not one, including JSON that Python's
    parser refuses past its limits (nesting thousands deep, integers of thousands of digits)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LogError(f"not JSON ({exc.msg})", path=path, line=number) from None
    except RecursionError:
        raise LogError("JSON nested too deeply to be a game log event", path=path, line=number) from None
    except ValueError:  # an integer of more digits than int() converts
        raise LogError("a number too long to be in a game log event", path=path, line=number) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("event"), str):
        raise LogError("not a game log event (an object with an 'event' field)", path=path, line=number)
    return obj


def read_log(path: Path, *, sent: bool = True) -> list[dict[str, Any]]:
    """The events of a game log as the JSON objects written (each with its line number as ``_line``): for
    ``verify_log``, ``render_log`` and tools that read fields as they are; ``sent=False`` passes the ``send`` lines
    (the referee's messages, most of a log's bytes) by undecoded. Raises ``LogError`` for a missing file, bad JSON
    or a log without header."""
    events: list[dict[str, Any]] = []
    # Lines end with "\n" only (log_lines splits the bytes there): str.splitlines would also split inside a string
    # holding U+2028 or \x1c (a bot's declared name may), which the log writes unescaped.
    for number, line in log_lines(path, () if sent else _WIRE[:1]):
        obj = parse_log_line(path, number, line)
        obj["_line"] = number
        events.append(obj)
    if not events or events[0]["event"] != "game":
        raise NoHeader(f"{path} is not a game log: its first line is not the 'game' header", empty=not events)
    return events


def read_header(path: Path) -> LogHeader:
    """The ``game`` header of a game log (its first line), read without the rest of the file."""
    for number, line in log_lines(path):
        obj = parse_log_line(path, number, line)
        if obj["event"] != "game":
            break
        try:
            return parse_header(obj, number)
        except LogError as exc:
            raise exc.at(path) from None
    raise NoHeader(f"{path} is not a game log: its first line is not the 'game' header")


#: How the writer starts the bulky lines (``GameLogWriter.sent`` / ``received``), so a reader that needs no wire
#: can pass them by without decoding.
_WIRE = (b'{"event":"send"', b'{"event":"recv"')


def read_records(path: Path, *, wire: bool = True) -> tuple[LogHeader, list[LogEvent]]:
    """The header and the event records of the game log at ``path``, in order; ``wire=False`` passes the ``send``
    and ``recv`` lines by undecoded (a replay needs only the applied steps). Raises ``NoHeader`` for an empty file
    or one that does not begin with the header, ``LogError`` (naming file and line) for any other line that is not
    a game log event."""
    header: LogHeader | None = None
    events: list[LogEvent] = []
    for number, line in log_lines(path, () if wire else _WIRE):
        obj = parse_log_line(path, number, line)
        try:
            if header is None:
                if obj["event"] != "game":
                    raise NoHeader(f"{path} is not a game log: its first line is not the 'game' header")
                header = parse_header(obj, number)
            elif (event := parse_event(obj, number)) is not None:
                events.append(event)
        except NoHeader:
            raise
        except LogError as exc:
            raise exc.at(path) from None
    if header is None:
        raise NoHeader(f"{path} is empty: no 'game' header", empty=True)
    return header, events


def applied_events(before: State, after: State) -> list[Event]:
    """The history events one action appended (when it ended the round, taken from that round's record)."""
    if len(after.rounds_done) > len(before.rounds_done):
        return list(after.rounds_done[len(before.rounds_done)].history[len(before.history) :])
    return list(after.history[len(before.history) :])

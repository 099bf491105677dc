"""What a lane's parent and its worker process say to each other (``lane_workers``): typed messages over a socket.

The parent sends ``Play`` (the games of one table batch), ``Retire`` (between rounds: close the bots of the
entrants a round leaves out) and ``Stop``; the worker answers each ``Play`` with ``Done`` (the finished games and
what its pool did for them, ``PoolReport``), and ends with ``Bye`` (its own CPU time) or, on a failure,
``Failed``. Each message is a 4-byte length and a pickle; both ends are ours.
"""

from __future__ import annotations

import dataclasses
import operator
import pickle
import socket
import struct
from dataclasses import dataclass
from typing import Any

import trio

from referee.contest.pool import PoolReport
from referee.contest.schedule import ScheduledGame

__all__ = ["Bye", "Channel", "Done", "Failed", "GameOut", "Play", "Retire", "Stop", "ToParent", "ToWorker"]

_HEADER = struct.Struct("!I")
#: A scheduled game as a plain tuple of its fields (``Play`` sends them so: a tuple pickles faster).
_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(ScheduledGame)))

#: A finished game as a worker sends it back: (the runner's result, seconds of wall time, the bots' declared names).
GameOut = tuple[Any, float, dict[str, tuple[str | None, str | None]]]


@dataclass(frozen=True, slots=True)
class Play:
    """Parent → worker: play these games of table batch ``batch`` (none of them stored yet), in order."""

    batch: int
    rows: tuple[tuple[Any, ...], ...]

    @classmethod
    def of(cls, batch: int, games: tuple[ScheduledGame, ...]) -> Play:
        return cls(batch, tuple(_fields(g) for g in games))

    @property
    def games(self) -> tuple[ScheduledGame, ...]:
        return tuple(ScheduledGame(*row) for row in self.rows)


@dataclass(frozen=True, slots=True)
class Retire:
    """Parent → worker: close the bots of every entrant not in ``keep`` (a new round leaves them out)."""

    keep: frozenset[str]


@dataclass(frozen=True, slots=True)
class Stop:
    """Parent → worker: abandon a game in progress, close every bot, say ``Bye`` and exit."""


@dataclass(frozen=True, slots=True)
class Done:
    """Worker → parent: the games of the last ``Play``, each finished, and the processes its pool chose for them."""

    games: tuple[GameOut, ...]
    pool: PoolReport


@dataclass(frozen=True, slots=True)
class Bye:
    """Worker → parent: it stopped as told, every bot closed; its own CPU seconds (user + system)."""

    cpu_seconds: float


@dataclass(frozen=True, slots=True)
class Failed:
    """Worker → parent: it failed; its exception pickled (None when it would not pickle) and its traceback."""

    error: bytes | None
    traceback: str


ToWorker = Play | Retire | Stop
ToParent = Done | Bye | Failed


class Channel:
    """Messages over a connected socket, each a 4-byte length and a pickle."""

    def __init__(self, sock: socket.socket) -> None:
        self._stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
        self._buffer = bytearray()
        self._sending = trio.Lock()

    async def send(self, message: ToWorker | ToParent) -> None:
        """Send ``message`` whole, shielded: a message cut by a cancellation would garble every one after it (the
        other end always reads, so this waits only for a socket buffer)."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with trio.CancelScope(shield=True):
            async with self._sending:
                await self._stream.send_all(_HEADER.pack(len(data)) + data)

    async def receive(self) -> Any:
        """The next message (a ``ToWorker`` or ``ToParent``, as the other end sent); None at the end of the stream
        (the other end closed or exited)."""
        buffer = self._buffer
        while True:
            if len(buffer) >= _HEADER.size:
                (size,) = _HEADER.unpack_from(buffer)
                end = _HEADER.size + size
                if len(buffer) >= end:
                    message = pickle.loads(buffer[_HEADER.size : end])
                    del buffer[:end]
                    return message
            try:
                chunk = await self._stream.receive_some(1 << 16)
            except trio.BrokenResourceError:
                chunk = b""
            if not chunk:
                return None
            buffer += chunk

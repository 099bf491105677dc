"""One game of 23 with real bots: messages in PROTOCOL.md order, deadlines, faults turned into forfeits, the log."""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from protocol.errors import ProtocolViolation
from protocol.inbound import DropReply, PassReply, PlayReply, reply_to_action
from protocol.replies import DiscardReply, Expect, HelloReply, discard_to_action, hello_json
from protocol.replies import Reply as AnyReply
from protocol.wire import GameWire
from referee.engine import (
    STANDARD,
    BotError,
    Deal,
    Drop,
    IllegalMove,
    Pass,
    Phase,
    Play,
    Ruleset,
    State,
    apply,
    forfeit,
    legal_actions,
    new_game,
    observation_for,
)
from referee.memo import Memo, Policy
from referee.runner.common_random import deal_key, rng_seed
from referee.runner.config import CPU_BACKSTOP
from referee.runner.errors import BotCrashed, BotFault, BotTimeout, OutputCapped, shorten
from referee.runner.faults import Fault, FaultKind
from referee.runner.gamelog import GameLogWriter, applied_events, json_text
from referee.runner.logrecords import (
    FaultEvent,
    ForfeitEvent,
    LogHeader,
    ResultEvent,
)
from referee.runner.replay import ReplayRecorder

_K = TypeVar("_K")
_V = TypeVar("_V")

_OVER, _PLAY, _DISCARD = Phase.OVER, Phase.PLAY, Phase.DISCARD
#: The replies to a turn (a tuple: ``A | B`` would build a union object at every turn).
_MOVES = (PlayReply, PassReply, DropReply)


class Participant(Protocol):
    """What ``play_game`` needs of a seat: a ``Player`` (a bot process) or a person at the terminal."""

    @property
    def name(self) -> str: ...
    @property
    def ready(self) -> bool: ...
    @property
    def wants_legal_moves(self) -> bool: ...
    @property
    def move_time(self) -> float | None: ...
    @property
    def time_bank(self) -> float | None: ...

    startup_fault: BotFault | ProtocolViolation | None
    hello: HelloReply | None

    async def ensure_started(self) -> None: ...
    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]: ...
    async def notify(self, line: bytes, deadline: float) -> None: ...
    async def end(self, message: str | None = None) -> None: ...
    async def aclose(self) -> None: ...
    def exited(self) -> BotCrashed | None: ...


#: What ``_Game._request`` gives back: the parsed reply, its raw line, the seconds it took, and the bot's fault
#: (reply and line are None when there is a fault).
_Answer = tuple[AnyReply | None, bytes | None, float, BotError | None]


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game, by seat. ``forfeits`` are the seats that forfeited; ``faults`` every fault.
    ``replay`` is the game's compact replay for the report (``referee.runner.replay``), recorded as it was played."""

    game_id: str
    names: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[int, ...]
    faults: tuple[Fault, ...]
    log_path: Path | None
    seed: int | None
    deal: Deal
    replay: dict[str, Any] | None = None
    log_sha256: str | None = None  # SHA-256 of the log's bytes, as written (the results' hash chain links it)

    def to_json(self) -> dict[str, Any]:
        """The summary object of ``referee play --json``: the game id, the names and the seed (None for a deal
        given), then the result by seat."""
        return {
            "game": self.game_id,
            "names": list(self.names),
            "seed": self.seed,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "forfeits": list(self.forfeits),
            "faults": [{"seat": f.seat, "kind": f.kind, "round": f.round, "detail": f.detail} for f in self.faults],
            "log": str(self.log_path) if self.log_path is not None else None,
        }


async def play_game(
    players: Sequence[Participant],
    *,
    game_id: str,
    ruleset: Ruleset = STANDARD,
    seed: int | None = None,
    deal: Deal | None = None,
    log_path: Path | None = None,
    log_wire: bool = True,
    wire_id: str | None = None,
    common_random: bool = True,
) -> GameResult:
    """Play one game; seat ``i`` is ``players[i]``. Without ``seed`` and ``deal`` a random seed is drawn. The game's
    log goes to ``log_path`` (none: None; compressed when it ends in ``.zst``), every message and reply in it unless
    ``log_wire`` is False (a compact log: the applied moves, faults and result).

    ``game_id`` names the game in its log and result; the bots see ``wire_id`` instead (default ``game_id``), so that
    a tournament's ids, which number its schedule, tell a bot nothing of which deal it plays (``opaque_game_id``).
    Each seat's ``game_start`` carries its seed of common random numbers (``common_random.rng_seed``, keyed by the
    deal seed: the same for whoever holds that seat's cards of this deal; a deal given without a seed gets a fresh
    key, so a seed no other game shares) unless ``common_random`` is False.

    Starts (or reuses) each player's process. Bot faults never raise: each is recorded, the bot gets an
    ``error`` message, forfeits (RULES.md, "Forfeit") and its process is ended (``ensure_started`` starts a fresh
    one for its next game). Raises ``RulesetError`` / ``DealError`` for a ruleset or deal that cannot be
    played (before any bot is contacted), ``BotSpecError`` when a required sandbox is missing.
    """
    if seed is not None and deal is not None:
        raise ValueError("play_game takes a seed or a deal, not both")
    if seed is None and deal is None:
        seed = secrets.randbits(63)
    state = new_game(len(players), ruleset, seed=seed, deal=deal)
    # trio's clock, read through its own object (``trio.current_time`` wraps it in two more calls): a request's
    # deadline and the times in its log lines come from the same readings.
    clock = trio.lowlevel.current_clock().current_time
    with GameLogWriter(log_path, clock, wire=log_wire) as log:
        game = _Game(list(players), state, game_id, log, clock, wire_id or game_id, common_random)
        await game.run()
        final = game.state
        assert final.scores is not None and final.ranks is not None
        result = GameResult(
            game_id=game_id,
            names=tuple(game.names),
            scores=final.scores,
            ranks=final.ranks,
            forfeits=tuple(s for s, f in enumerate(final.forfeited) if f),
            faults=tuple(game.faults),
            log_path=log_path,
            seed=seed,
            deal=final.deal,
            replay=game.replay.replay(),
        )
        log.result(ResultEvent(log.ms(), result.scores, result.ranks, result.forfeits, result.faults))
    return replace(result, log_sha256=log.sha256)  # of the whole log, once closed


class _Game:
    def __init__(
        self,
        players: list[Participant],
        state: State,
        game_id: str,
        log: GameLogWriter,
        clock: Callable[[], float],
        wire_id: str,
        common_random: bool = True,
    ) -> None:
        self.players = players
        self.clock = clock
        self.names = [p.name for p in players]
        self.state = state
        self.replay = ReplayRecorder(state)  # told of every later state
        self.game_id = game_id
        self.wire_id = wire_id  # the id the bots see
        self.log = log
        self.faults: list[Fault] = []
        self.out: set[int] = set()  # seats whose process was ended in this game: no more messages
        self.bank: list[float] = [p.time_bank if p.time_bank is not None else 0.0 for p in players]
        self.rounds_announced = 0
        self.current_round = 0  # 1-based round faults are recorded in; 0 during start-up
        self.referee_discards: set[tuple[int, int]] = set()  # (round index, seat) already logged
        self.dealt = 0  # the last round (1-based) whose deal messages went out
        self.wire = GameWire(wire_id, self.names)  # the lines of deal, turn, round_end, game_end
        # What each seat's requests need, read once (a participant's settings do not change during a game).
        self.move: list[float | None] = [p.move_time for p in players]
        # --clock cpu: the bot is charged the CPU time its processes use for the reply, and may take up to
        # CPU_BACKSTOP times its allowance of wall time (so a loaded machine does not cost it the game).
        self.cpu_clock = [bool(getattr(p, "cpu_clock", False)) and p.move_time is not None for p in players]
        self.backstop: list[float] = [getattr(p, "cpu_backstop", CPU_BACKSTOP) for p in players]
        # Each seat's bytes of reply lines so far, and the most it may send in this game (its game log's share).
        self.output = [0] * len(players)
        self.output_cap: list[int | None] = [getattr(p, "game_output", None) for p in players]
        self.legal_moves = [False] * len(players)  # per seat, once started: whether its turns carry the legal moves
        self.common_random = common_random  # whether each game_start carries its seat's rng_seed
        self.rng_key = deal_key(state.seed)  # the secret rng_seed is keyed with (never sent)

    # ------------------------------------------------------------------------------------------ flow

    async def run(self) -> None:
        s = self.state
        rules = s.ruleset.to_dict()
        move_ms = tuple(_ms(p.move_time) for p in self.players)
        self.log.header(LogHeader(self.game_id, tuple(self.names), s.ruleset, s.seed, s.deal, move_ms))
        await self._start_all()
        for seat, p in enumerate(self.players):
            if seat not in self.out:
                bank = None if p.time_bank is None else round(p.time_bank * 1000)
                rng = rng_seed(s.deal, seat, self.rng_key) if self.common_random else None
                start = self.wire.game_start(seat, rules, _ms(p.move_time) or 1, bank, rng)
                await self._notify(seat, start)
        exited = [p.exited for p in self.players]  # asked of every seat before every turn
        while self.state.phase is not _OVER:
            if self.rounds_announced < len(self.state.rounds_done):
                await self._announce_rounds()
                if self.state.phase is _OVER:
                    break
            self.current_round = self.state.round + 1
            for gone in exited:  # a plain loop: this runs before every turn
                if gone() is not None:
                    await self._check_exits()
                    break
            phase = self.state.phase
            if phase is _PLAY:
                if self.dealt < self.current_round:
                    await self._empty_deals()
                else:
                    await self._turn()
            elif phase is _DISCARD:
                await self._discards()
        await self._announce_rounds()
        st = self.state
        assert st.scores is not None and st.ranks is not None
        end = self.wire.game_end(st.scores, st.ranks, st.forfeited)
        for seat in range(len(self.players)):
            await self._notify(seat, end)

    async def _start_all(self) -> None:
        if not all(p.ready for p in self.players):  # between games of a lane, every process is usually running
            async with trio.open_nursery() as nursery:
                for p in self.players:
                    nursery.start_soon(p.ensure_started)
        for seat, p in enumerate(self.players):
            self.legal_moves[seat] = p.wants_legal_moves
            self.log.player(seat, p.name, _hello_json(p.hello))
            if not p.ready:
                # A bot that answered hello and then exited has no start-up fault: its exit is a crash.
                exc: BotError | None = p.startup_fault or p.exited()
                if exc is None:  # pragma: no cover - a referee bug: not ready, yet neither a fault nor an exit
                    raise AssertionError(f"seat {seat} ({p.name}) did not start, and its player does not say why")
                await self._fault(seat, exc)

    async def _announce_rounds(self) -> None:
        done = self.state.rounds_done
        while self.rounds_announced < len(done):
            record = done[self.rounds_announced]
            self.rounds_announced += 1
            self.current_round = record.round
            self.log.round_end(record)
            line = self.wire.round_end(record)
            for seat in range(len(self.players)):
                await self._notify(seat, line)

    def _log_referee_discards(self) -> None:
        """Log the discards the referee made for forfeiters (their three highest cards), once each."""
        st = self.state
        if st.is_over:
            return
        for seat in range(st.players):
            cards = st.discards[seat]
            if st.forfeited[seat] and cards is not None and (st.round, seat) not in self.referee_discards:
                self.referee_discards.add((st.round, seat))
                self.log.discard(st.round + 1, seat, cards, "referee")

    async def _discards(self) -> None:
        self._log_referee_discards()
        state = self.state
        need = [s for s in range(state.players) if state.discards[s] is None and s not in self.out]
        for seat, (reply, raw, _, exc) in (await self._deal(need)).items():
            if exc is not None:
                await self._fault(seat, exc)
                continue
            assert isinstance(reply, DiscardReply)
            action = discard_to_action(seat, reply)
            try:
                self.state = apply(self.state, action)
            except IllegalMove as err:
                await self._fault(seat, IllegalMove(err.detail, kind=FaultKind.ILLEGAL_DISCARD, line=raw))
                continue
            self.replay.step(self.state)
            self.log.discard(state.round + 1, seat, action.cards, "bot")
        self._log_referee_discards()

    async def _empty_deals(self) -> None:
        """A ruleset that discards nothing starts each round without a discard step, but protocol v1 still starts
        every round with ``deal`` (``"discard":0``): each bot gets its hand and replies with no cards."""
        state = self.state
        seats = [s for s in range(state.players) if s not in self.out and not state.forfeited[s]]
        for seat, (reply, raw, _, exc) in (await self._deal(seats)).items():
            if exc is not None:
                await self._fault(seat, exc)
            elif isinstance(reply, DiscardReply) and reply.cards:
                wrong = f"a discard names exactly 0 cards, got {len(reply.cards)}"
                await self._fault(seat, IllegalMove(wrong, kind=FaultKind.ILLEGAL_DISCARD, line=raw))

    async def _deal(self, seats: list[int]) -> dict[int, _Answer]:
        """Send this round's ``deal`` to ``seats`` at once; each seat's ``_request`` answer, in seat order."""
        state = self.state
        self.dealt = state.round + 1
        results: dict[int, _Answer] = {}

        async def ask(seat: int) -> None:
            line = self.wire.deal(state.round + 1, state.hands[seat], state.ruleset.discard)
            results[seat] = await self._request(seat, line, Expect.DISCARD)

        if len(seats) > 1:
            # The first seat's request runs in this task, the others' in tasks of their own: one task less to start.
            async with trio.open_nursery() as nursery:
                for seat in seats[1:]:
                    nursery.start_soon(ask, seat)
                await ask(seats[0])
        elif seats:
            await ask(seats[0])
        return {seat: results[seat] for seat in seats}

    async def _turn(self) -> None:
        state = self.state
        seat = state.to_move
        legal = legal_actions(state) if self.legal_moves[seat] else None
        line = self.wire.turn(observation_for(state, seat), legal)
        reply, raw, _, exc = await self._request(seat, line, Expect.TURN)
        turn = state.turns + 1
        if exc is not None:
            await self._fault(seat, exc, turn=turn)
            return
        assert isinstance(reply, _MOVES)
        action = _action_of(reply)
        try:
            new = apply(state, action)
        except IllegalMove as err:
            await self._fault(seat, IllegalMove(err.detail, line=raw), turn=turn)
            return
        self.state = new
        self.replay.step(new)
        self.log.action(state.round + 1, turn, seat, action, applied_events(state, new))

    # ------------------------------------------------------------------------------------------ I/O

    def _deadline(self, seat: int, now: float) -> float:
        """The seat's deadline for a message sent at ``now``: its move time plus what is left of its bank."""
        move = self.move[seat]
        if move is None:
            return math.inf
        return now + move + self.bank[seat]

    async def _request(self, seat: int, line: bytes, expect: Expect) -> _Answer:
        """Send ``line`` to ``seat`` and wait for its reply by its deadline; the clock is read once before the request
        (its deadline and the ``send`` line's time) and once after (the time taken and the ``recv`` line's time)."""
        p = self.players[seat]
        move = self.move[seat]
        cpu_start = _cpu_now(p) if self.cpu_clock[seat] else None
        start = self.clock()
        if cpu_start is not None and move is not None:
            deadline = start + self.backstop[seat] * (move + self.bank[seat])
        else:
            deadline = self._deadline(seat, start)
        self.log.sent(seat, line, start)
        try:
            reply, raw = await p.request(line, expect, deadline)
        except (BotFault, ProtocolViolation) as exc:
            end = self.clock()
            if exc.line is not None:
                self.log.received(seat, exc.line, end - start, _used(p, cpu_start), end)
            if cpu_start is not None and isinstance(exc, BotTimeout):
                backstop = self.backstop[seat]
                exc = BotTimeout(f"no reply within the wall-clock backstop ({backstop:g}x its CPU time)")
            return None, None, end - start, exc
        end = self.clock()
        elapsed = end - start
        cpu = _used(p, cpu_start)
        cap = self.output_cap[seat]
        if cap is not None:
            self.output[seat] += len(raw) + 1
            if self.output[seat] > cap:
                # The line is not logged: the log holds at most the cap of the bot's lines (and the fault's head).
                detail = f"its lines in this game passed {cap:,} bytes, the most a bot may send in a game"
                return None, None, elapsed, OutputCapped(detail, line=raw)
        self.log.received(seat, raw, elapsed, cpu, end)
        charged = elapsed if cpu is None else cpu
        if cpu is not None and move is not None and cpu > move + self.bank[seat]:
            allowed = move + self.bank[seat]
            timeout = BotTimeout(f"its reply used {cpu:.3f} s of CPU time, over its {allowed:.3f} s (--clock cpu)")
            return None, None, elapsed, timeout
        if move is not None and charged > move:
            self.bank[seat] = max(0.0, self.bank[seat] - (charged - move))
        return reply, raw, elapsed, None

    async def _notify(self, seat: int, line: bytes) -> None:
        if seat in self.out:
            return
        now = self.clock()
        self.log.sent(seat, line, now)
        try:
            await self.players[seat].notify(line, self._deadline(seat, now))
        except BotFault as exc:
            await self._fault(seat, exc)

    # ------------------------------------------------------------------------------------------ faults

    async def _check_exits(self) -> None:
        """Forfeit every bot whose process has exited during the game although nothing was asked of it (it had
        dropped out or finished its hand): an exit is a fault whenever it happens, not only when the bot's
        next message would find it gone."""
        for seat, p in enumerate(self.players):
            if seat not in self.out and (exc := p.exited()) is not None:
                await self._fault(seat, exc)

    async def _fault(self, seat: int, exc: BotError, *, turn: int = 0) -> None:
        state = self.state
        kind, detail = exc.kind, exc.detail
        fault = Fault(seat=seat, kind=kind, round=self.current_round, turn=turn, detail=detail, line=shorten(exc.line))
        self.faults.append(fault)
        self.log.record(FaultEvent(self.log.ms(), fault))
        self.out.add(seat)
        await self.players[seat].end(f"{kind.replace('_', ' ')}: {detail}; you forfeit game {self.wire_id}")
        if state.is_over or state.forfeited[seat]:
            self.log.record(ForfeitEvent(self.log.ms(), seat, False))
            return
        self.state = forfeit(state, seat)
        self.replay.step(self.state)
        entries = tuple(e.to_dict() for e in applied_events(state, self.state))
        self.log.record(ForfeitEvent(self.log.ms(), seat, True, entries))


#: Values computed once per frozen reply object, keyed by ``id`` (the object is kept, so an id is never reused
#: while its entry lives): the log's JSON of each hello, the engine action of each turn reply.
_HELLOS: Memo[int, tuple[object, str]] = Memo("runner.game.HELLOS", 256, Policy.RENEW)
_ACTIONS: Memo[int, tuple[object, Play | Pass | Drop]] = Memo("runner.game.ACTIONS", 4096, Policy.RENEW)


def _once_per_object(cache: Memo[int, tuple[object, _V]], obj: _K, make: Callable[[_K], _V]) -> _V:
    """``make(obj)``, computed once per object while ``cache`` holds it (renewed when full)."""
    known = cache.get(id(obj))
    if known is None or known[0] is not obj:
        known = cache.keep(id(obj), (obj, make(obj)))
    return known[1]


def _hello_json(hello: HelloReply | None) -> str:
    """The JSON of ``hello_json(hello)`` (as the model dumps it) as the log writes it (``null`` for None), once per
    reply object (a process's hello is logged in each of its games)."""
    if hello is None:
        return "null"
    return _once_per_object(_HELLOS, hello, _dump_hello)


def _dump_hello(hello: HelloReply) -> str:
    return json_text(hello_json(hello))


def _action_of(reply: PlayReply | PassReply | DropReply) -> Play | Pass | Drop:
    """``reply_to_action(reply)``, once per reply object (the parse cache hands out the same reply for a line)."""
    return _once_per_object(_ACTIONS, reply, reply_to_action)


def _cpu_now(p: Participant) -> float | None:
    """CPU seconds the seat's bot processes used so far, when it can tell (a ``Player``; not a person)."""
    measure = getattr(p, "cpu_seconds", None)
    return None if measure is None else measure()


def _used(p: Participant, start: float | None) -> float | None:
    """CPU seconds the seat's bot used since ``start`` (None when not measured)."""
    if start is None:
        return None
    now = _cpu_now(p)
    return None if now is None else max(0.0, now - start)


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else max(1, round(seconds * 1000))

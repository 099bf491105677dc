"""Re-verifying a game log: re-run every discard, move and forfeit through the engine and compare."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol import (
    AnyReply,
    DiscardReply,
    DropReply,
    Expect,
    PassReply,
    PlayReply,
    ProtocolViolation,
    discard_to_action,
    parse_reply,
    reply_to_action,
)
from referee.engine import (
    Action,
    DealError,
    Discard,
    IllegalMove,
    RulesetError,
    State,
    apply,
    forfeit,
    new_game,
    seeded_deal,
)
from referee.runner.faults import FaultKind
from referee.runner.gamelog import applied_events, read_log
from referee.runner.logrecords import (
    ActionEvent,
    DiscardEvent,
    FaultEvent,
    ForfeitEvent,
    LogError,
    RecvEvent,
    ResultEvent,
    RoundEndEvent,
    parse_event,
    parse_header,
)


@dataclass(frozen=True)
class Verdict:
    """``ok`` when the log agrees with the engine; otherwise ``line`` is the first line that disagrees."""

    ok: bool
    message: str
    line: int | None = None
    actions: int = 0
    discards: int = 0
    faults: int = 0
    #: The logged result's scores by seat (None: the log has no result); ``wire`` False for a compact log.
    scores: tuple[int, ...] | None = None
    wire: bool = True


class _Disagree(Exception):
    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def verify_log(events: list[dict[str, Any]]) -> Verdict:
    """Check a game log (events from ``read_log``) against the engine.

    Confirms that the deal fits the seed, that each recorded discard and move is exactly what the bot
    replied and is legal, that each event the engine produced matches the log, that each illegal-move fault
    really was illegal, and that the result matches. A compact log (``"wire":false`` in its header) has no reply
    lines: its moves are checked against the engine only. Never raises for a bad log: the verdict names the first
    disagreement.
    """
    checker = _Checker()
    try:
        checker.run(events)
    except _Disagree as exc:
        return Verdict(
            False, exc.message, exc.line, checker.actions, checker.discards, checker.faults, None, checker.wire
        )
    compact = "" if checker.wire else " (a compact log: the bots' reply lines were not logged, so not compared)"
    return Verdict(
        True,
        f"verified: {checker.discards} discards, {checker.actions} moves, {checker.faults} faults; "
        f"every move, forfeit and score agrees with the engine{compact}",
        None,
        checker.actions,
        checker.discards,
        checker.faults,
        checker.scores,
        checker.wire,
    )


def verify_file(path: Path) -> Verdict:
    """``verify_log`` of the game log at ``path`` (plain or compressed), read without its ``send`` lines: the
    verifier checks what the bots replied and what the engine made of it, not the referee's messages. Raises
    ``LogError`` for a file that is not a game log (missing, unreadable, not JSON Lines, without a header)."""
    return verify_log(read_log(path, sent=False))


class _Checker:
    def __init__(self) -> None:
        self.actions = 0
        self.discards = 0
        self.faults = 0
        self.state: State | None = None
        self.last_line: dict[int, str] = {}
        self.wire = True  # the log has the reply lines (not a compact log)
        self.scores: tuple[int, ...] | None = None  # the logged result's

    def run(self, events: list[dict[str, Any]]) -> None:
        try:
            header = parse_header(events[0], events[0].get("_line", 1))
        except LogError as exc:
            raise _Disagree(exc.line, exc.reason) from None
        self.wire = header.wire
        try:
            self.state = new_game(len(header.names), header.ruleset, deal=header.deal)
        except (RulesetError, DealError) as exc:
            raise _Disagree(header.line, f"the game header's rules or deal are invalid: {exc}") from None
        if header.seed is not None and seeded_deal(header.seed, len(header.names), header.ruleset) != header.deal:
            raise _Disagree(header.line, f"the logged deal is not the deal of seed {header.seed}")
        result_seen = False
        for obj in events[1:]:
            try:
                event = parse_event(obj, obj.get("_line", 0))
            except LogError as exc:
                raise _Disagree(exc.line, exc.reason) from None
            match event:
                case RecvEvent(seat=seat, text=text):
                    self.last_line[seat] = text
                case DiscardEvent():
                    self._discard(event)
                case ActionEvent():
                    self._action(event)
                case FaultEvent():
                    self._fault(event)
                case ForfeitEvent():
                    self._forfeit(event)
                case RoundEndEvent():
                    self._round_end(event)
                case ResultEvent():
                    self._result(event)
                    result_seen = True
        if not result_seen:
            raise _Disagree(None, "the log ends before the result: the game did not finish")

    # ------------------------------------------------------------------------------------------ events

    def _discard(self, ev: DiscardEvent) -> None:
        state = self._state()
        seat, cards = ev.seat, ev.cards
        if ev.by == "referee":
            # A forfeiter's discard: the engine makes it; the log must name the same cards.
            made = state.discards[seat] if not state.is_over else None
            if made is None or tuple(made) != cards:
                raise _Disagree(
                    ev.line,
                    f"the log has the referee discard {list(cards)} for seat {seat}, "
                    f"the engine {list(made) if made is not None else 'none'}",
                )
            return
        if ev.by == "bot" and self.wire:
            reply = self._reply(ev.line, seat, Expect.DISCARD)
            assert isinstance(reply, DiscardReply)
            said = discard_to_action(seat, reply)
            if said.cards != cards:
                raise _Disagree(
                    ev.line, f"seat {seat} replied discard {list(said.cards)}, the log applied {list(cards)}"
                )
        try:
            self.state = apply(state, Discard(seat, cards))
        except IllegalMove as exc:
            raise _Disagree(ev.line, f"seat {seat}'s discard {list(cards)} is illegal: {exc.detail}") from None
        self.discards += 1

    def _action(self, ev: ActionEvent) -> None:
        state = self._state()
        seat = ev.seat
        if state.to_move != seat:
            raise _Disagree(ev.line, f"the log has seat {seat} moving, the engine has seat {state.to_move} to move")
        if ev.round != state.round + 1 or ev.turn != state.turns + 1:
            raise _Disagree(
                ev.line,
                f"the log puts this move at round {ev.round} turn {ev.turn}, "
                f"the engine at round {state.round + 1} turn {state.turns + 1}",
            )
        action = ev.action
        if self.wire:
            reply = self._reply(ev.line, seat, Expect.TURN)
            assert isinstance(reply, PlayReply | PassReply | DropReply)
            said = reply_to_action(reply)
            if said != action:
                raise _Disagree(ev.line, f"seat {seat} replied {said}, the log applied {action}")
        try:
            new = apply(state, action)
        except IllegalMove as exc:
            raise _Disagree(ev.line, f"seat {seat}'s move {action} is illegal: {exc.detail}") from None
        entries = [e.to_dict() for e in applied_events(state, new)]
        if entries != list(ev.entries):
            raise _Disagree(ev.line, f"the engine records {entries}, the log {list(ev.entries)}")
        self.state = new
        self.actions += 1

    def _fault(self, ev: FaultEvent) -> None:
        self.faults += 1
        kind, seat = ev.fault.kind, ev.fault.seat
        if kind not in (FaultKind.ILLEGAL_MOVE, FaultKind.ILLEGAL_DISCARD):
            return
        state = self._state()
        # The fault keeps only the start of the line; the recv event before it has the whole reply.
        line = self.last_line.pop(seat, None) or ev.fault.line or ""
        try:
            reply = parse_reply(line.encode(), Expect.TURN if kind == FaultKind.ILLEGAL_MOVE else Expect.DISCARD)
            if isinstance(reply, PlayReply | PassReply | DropReply):
                action: Action = reply_to_action(reply)
                if state.to_move != seat:
                    raise _Disagree(
                        ev.line, f"an illegal-move fault of seat {seat}, but seat {state.to_move} was to move"
                    )
            else:
                assert isinstance(reply, DiscardReply)
                action = discard_to_action(seat, reply)
            apply(state, action)
        except IllegalMove:
            return
        except ProtocolViolation as exc:
            if not self.wire:  # a compact log keeps only the start of the line a fault was about: it may be cut
                return
            raise _Disagree(ev.line, f"the {kind} fault's line is not a valid reply: {exc.detail}") from None
        raise _Disagree(ev.line, f"seat {seat}'s {action} was recorded as {kind}, but the engine accepts it")

    def _forfeit(self, ev: ForfeitEvent) -> None:
        if not ev.forfeited:
            return
        seat = ev.seat
        before = self._state()
        try:
            self.state = forfeit(before, seat)
        except IllegalMove as exc:
            raise _Disagree(ev.line, f"the forfeit of seat {seat} is not possible: {exc.detail}") from None
        entries = [e.to_dict() for e in applied_events(before, self.state)]
        if ev.entries is not None and entries != list(ev.entries):
            raise _Disagree(ev.line, f"the engine records {entries} for the forfeit, the log {list(ev.entries)}")

    def _round_end(self, ev: RoundEndEvent) -> None:
        state = self._state()
        r = ev.round
        if len(state.rounds_done) < r:
            raise _Disagree(ev.line, f"the log ends round {r}, the engine has not finished it")
        table = [list(p) for p in state.rounds_done[r - 1].players]
        try:
            logged = [[p["cards"], p["penalty"], p["bonus"], p["status"]] for p in ev.table]
        except KeyError as exc:
            raise _Disagree(ev.line, f"malformed round_end event: {exc}") from None
        if [[c, p, b, str(s)] for c, p, b, s in table] != logged:
            raise _Disagree(ev.line, f"round {r} ends with table {logged} in the log, {table} in the engine")

    def _result(self, ev: ResultEvent) -> None:
        state = self._state()
        if not state.is_over:
            raise _Disagree(ev.line, "the log has a result, but the engine's game is not over")
        forfeits = [s for s, f in enumerate(state.forfeited) if f]
        for name, engine, logged in (
            ("scores", list(state.scores or ()), list(ev.scores)),
            ("ranks", list(state.ranks or ()), list(ev.ranks)),
            ("forfeits", forfeits, list(ev.forfeits)),
        ):
            if engine != logged:
                raise _Disagree(ev.line, f"{name}: the log says {logged}, the engine {engine}")
        self.scores = ev.scores

    # ------------------------------------------------------------------------------------------ helpers

    def _state(self) -> State:
        assert self.state is not None
        return self.state

    def _reply(self, at: int, seat: int, expect: Expect) -> AnyReply:
        line = self.last_line.pop(seat, None)
        if line is None:
            raise _Disagree(at, f"seat {seat}'s move has no reply line from the bot before it")
        try:
            return parse_reply(line.encode(), expect)
        except ProtocolViolation as exc:
            raise _Disagree(at, f"seat {seat}'s reply line is not a valid reply: {exc.detail}") from None

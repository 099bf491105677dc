"""Re-verifying a game log: re-run every discard, move and forfeit through the engine and compare."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from protocol import Expect, ProtocolViolation, discard_to_action, parse_reply, reply_to_action
from referee.engine import (
    DealError,
    Discard,
    Drop,
    IllegalMove,
    Pass,
    Play,
    RefereeError,
    Ruleset,
    RulesetError,
    State,
    apply,
    deal_from_json,
    forfeit,
    new_game,
    seeded_deal,
)
from referee.runner.gamelog import applied_events


@dataclass(frozen=True)
class Verdict:
    """``ok`` when the log agrees with the engine; otherwise ``line`` is the first line that disagrees."""

    ok: bool
    message: str
    line: int | None = None
    actions: int = 0
    discards: int = 0
    faults: int = 0


class _Disagree(Exception):
    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def verify_log(events: list[dict[str, Any]]) -> Verdict:
    """Check a game log (events from ``read_log``) against the engine.

    Confirms that the deal fits the seed, that each recorded discard and move is exactly what the bot
    replied and is legal, that each event the engine produced matches the log, that each illegal-move fault
    really was illegal, and that the result matches. Never raises for a bad log: the verdict names the first
    disagreement.
    """
    checker = _Checker()
    try:
        checker.run(events)
    except _Disagree as exc:
        return Verdict(False, exc.message, exc.line, checker.actions, checker.discards, checker.faults)
    return Verdict(
        True,
        f"verified: {checker.discards} discards, {checker.actions} moves, {checker.faults} faults; "
        "every move, forfeit and score agrees with the engine",
        None,
        checker.actions,
        checker.discards,
        checker.faults,
    )


class _Checker:
    def __init__(self) -> None:
        self.actions = 0
        self.discards = 0
        self.faults = 0
        self.state: State | None = None
        self.last_line: dict[int, str] = {}

    def run(self, events: list[dict[str, Any]]) -> None:
        header = events[0]
        try:
            ruleset = Ruleset.from_dict(header["rules"])
            deal = deal_from_json(header["deal"], ruleset)
            names = list(header["names"])
            self.state = new_game(len(names), ruleset, deal=deal)
        except (KeyError, TypeError) as exc:
            raise _Disagree(header["_line"], f"the game header lacks {exc}") from None
        except (RulesetError, DealError) as exc:
            raise _Disagree(header["_line"], f"the game header's rules or deal are invalid: {exc}") from None
        seed = header.get("seed")
        if seed is not None and seeded_deal(int(seed), len(names), ruleset) != deal:
            raise _Disagree(header["_line"], f"the logged deal is not the deal of seed {seed}")
        result_seen = False
        for ev in events[1:]:
            kind = ev["event"]
            handler = getattr(self, f"_on_{kind}", None)
            if handler is not None:
                try:
                    handler(ev)
                except _Disagree:
                    raise
                except (KeyError, TypeError, ValueError) as exc:
                    raise _Disagree(ev["_line"], f"malformed {kind} event: {exc}") from None
            if kind == "result":
                result_seen = True
        if not result_seen:
            raise _Disagree(None, "the log ends before the result: the game did not finish")

    # ------------------------------------------------------------------------------------------ events

    def _on_recv(self, ev: dict[str, Any]) -> None:
        self.last_line[int(ev["seat"])] = str(ev["line"])

    def _on_discard(self, ev: dict[str, Any]) -> None:
        state = self._state()
        seat = int(ev["seat"])
        cards = tuple(sorted(int(c) for c in ev["cards"]))
        if ev.get("by") == "referee":
            # A forfeiter's discard: the engine makes it; the log must name the same cards.
            made = state.discards[seat] if not state.is_over else None
            if made is None or tuple(made) != cards:
                raise _Disagree(
                    ev["_line"],
                    f"the log has the referee discard {list(cards)} for seat {seat}, "
                    f"the engine {list(made) if made is not None else 'none'}",
                )
            return
        if ev.get("by") == "bot":
            reply = self._reply(ev, seat, Expect.DISCARD)
            said = discard_to_action(seat, reply)
            if said.cards != cards:
                raise _Disagree(
                    ev["_line"], f"seat {seat} replied discard {list(said.cards)}, the log applied {list(cards)}"
                )
        try:
            self.state = apply(state, Discard(seat, cards))
        except IllegalMove as exc:
            raise _Disagree(ev["_line"], f"seat {seat}'s discard {list(cards)} is illegal: {exc.detail}") from None
        self.discards += 1

    def _on_action(self, ev: dict[str, Any]) -> None:
        state = self._state()
        seat = int(ev["seat"])
        if state.to_move != seat:
            raise _Disagree(ev["_line"], f"the log has seat {seat} moving, the engine has seat {state.to_move} to move")
        if int(ev["round"]) != state.round + 1 or int(ev["turn"]) != state.turns + 1:
            raise _Disagree(
                ev["_line"],
                f"the log puts this move at round {ev['round']} turn {ev['turn']}, "
                f"the engine at round {state.round + 1} turn {state.turns + 1}",
            )
        action = _action(ev["action"])
        said = reply_to_action(self._reply(ev, seat, Expect.TURN))
        if said != action:
            raise _Disagree(ev["_line"], f"seat {seat} replied {said}, the log applied {action}")
        try:
            new = apply(state, action)
        except IllegalMove as exc:
            raise _Disagree(ev["_line"], f"seat {seat}'s move {action} is illegal: {exc.detail}") from None
        entries = [e.to_dict() for e in applied_events(state, new)]
        if entries != ev["entries"]:
            raise _Disagree(ev["_line"], f"the engine records {entries}, the log {ev['entries']}")
        self.state = new
        self.actions += 1

    def _on_fault(self, ev: dict[str, Any]) -> None:
        self.faults += 1
        kind = ev["kind"]
        seat = int(ev["seat"])
        if kind not in ("illegal_move", "illegal_discard"):
            return
        state = self._state()
        # The fault keeps only the start of the line; the recv event before it has the whole reply.
        line = self.last_line.pop(seat, None) or ev.get("line") or ""
        try:
            if kind == "illegal_move":
                action: Any = reply_to_action(parse_reply(line.encode(), Expect.TURN))  # type: ignore[arg-type]
                if state.to_move != seat:
                    raise _Disagree(
                        ev["_line"], f"an illegal-move fault of seat {seat}, but seat {state.to_move} was to move"
                    )
            else:
                action = discard_to_action(seat, parse_reply(line.encode(), Expect.DISCARD))  # type: ignore[arg-type]
            apply(state, action)
        except IllegalMove:
            return
        except ProtocolViolation as exc:
            raise _Disagree(ev["_line"], f"the {kind} fault's line is not a valid reply: {exc.detail}") from None
        raise _Disagree(ev["_line"], f"seat {seat}'s {action} was recorded as {kind}, but the engine accepts it")

    def _on_forfeit(self, ev: dict[str, Any]) -> None:
        if not ev.get("forfeited", True):
            return
        seat = int(ev["seat"])
        before = self._state()
        try:
            self.state = forfeit(before, seat)
        except IllegalMove as exc:
            raise _Disagree(ev["_line"], f"the forfeit of seat {seat} is not possible: {exc.detail}") from None
        entries = [e.to_dict() for e in applied_events(before, self.state)]
        if "entries" in ev and entries != ev["entries"]:
            raise _Disagree(ev["_line"], f"the engine records {entries} for the forfeit, the log {ev['entries']}")

    def _on_round_end(self, ev: dict[str, Any]) -> None:
        state = self._state()
        r = int(ev["round"])
        if len(state.rounds_done) < r:
            raise _Disagree(ev["_line"], f"the log ends round {r}, the engine has not finished it")
        table = [list(p) for p in state.rounds_done[r - 1].players]
        logged = [[p["cards"], p["penalty"], p["bonus"], p["status"]] for p in ev["table"]]
        if [[c, p, b, str(s)] for c, p, b, s in table] != logged:
            raise _Disagree(ev["_line"], f"round {r} ends with table {logged} in the log, {table} in the engine")

    def _on_result(self, ev: dict[str, Any]) -> None:
        state = self._state()
        if not state.is_over:
            raise _Disagree(ev["_line"], "the log has a result, but the engine's game is not over")
        forfeits = [s for s, f in enumerate(state.forfeited) if f]
        for name, engine, logged in (
            ("scores", list(state.scores or ()), ev["scores"]),
            ("ranks", list(state.ranks or ()), ev["ranks"]),
            ("forfeits", forfeits, ev["forfeits"]),
        ):
            if engine != logged:
                raise _Disagree(ev["_line"], f"{name}: the log says {logged}, the engine {engine}")

    # ------------------------------------------------------------------------------------------ helpers

    def _state(self) -> State:
        assert self.state is not None
        return self.state

    def _reply(self, ev: dict[str, Any], seat: int, expect: Expect) -> Any:
        line = self.last_line.pop(seat, None)
        if line is None:
            raise _Disagree(ev["_line"], f"seat {seat}'s move has no reply line from the bot before it")
        try:
            return parse_reply(line.encode(), expect)
        except ProtocolViolation as exc:
            raise _Disagree(ev["_line"], f"seat {seat}'s reply line is not a valid reply: {exc.detail}") from None


def _action(data: Any) -> Play | Pass | Drop:
    try:
        return reply_to_action(parse_reply(_json_bytes(data), Expect.TURN))  # type: ignore[arg-type]
    except (ProtocolViolation, RefereeError) as exc:
        raise ValueError(f"not an action: {data!r} ({exc})") from None


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data).encode()

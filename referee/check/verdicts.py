"""From what the suite saw to named checks: pure functions, no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.replies import HelloReply
from referee.check.latency import latency
from referee.check.model import CheckResult, Evidence, Outcome
from referee.check.observe import Exchange, GameRecord, StalledTable
from referee.check.plan import SEATS, PlannedGame
from referee.check.probe import BYE, ProbeResult
from referee.check.situations import Situation
from referee.engine import BotError
from referee.runner import Fault, GameResult
from referee.runner.faults import FaultKind
from referee.runner.player import ANSWERED_NO_REPLY
from referee.runner.safe_text import line_text

#: Which fault kinds fail which check (faults in the tolerance game count for ``tolerates-unknown`` only).
FAULT_CHECKS: dict[str, tuple[str, frozenset[str]]] = {
    "handshake": ("answers hello within the start-up time", frozenset({FaultKind.STARTUP})),
    "protocol-version": ("speaks protocol version 1", frozenset({FaultKind.PROTOCOL_VERSION})),
    "stdout-protocol-only": (
        "writes nothing but protocol lines on stdout",
        frozenset(
            {
                FaultKind.INVALID_JSON,
                FaultKind.NOT_OBJECT,
                FaultKind.LINE_TOO_LONG,
                FaultKind.UNSOLICITED,
                FaultKind.OUTPUT_CAP,
            }
        ),
    ),
    "reply-fields": (
        "replies with the awaited type and valid fields",
        frozenset({FaultKind.UNKNOWN_TYPE, FaultKind.WRONG_TYPE, FaultKind.BAD_FIELD}),
    ),
    "legal-discards": ("discards legally", frozenset({FaultKind.ILLEGAL_DISCARD})),
    "legal-moves": ("moves legally", frozenset({FaultKind.ILLEGAL_MOVE})),
    "stays-alive": ("keeps running through every game", frozenset({FaultKind.CRASH})),
    "stalled-table": ("never keeps a round going to the turn limit", frozenset({StalledTable.kind})),
    "move-time": ("replies within the move time", frozenset({FaultKind.TIMEOUT})),
}
_REQUESTS = ("hello", "deal", "turn")


@dataclass(frozen=True, slots=True)
class SuiteGame:
    """A finished game of the suite with the bot's recorded exchanges."""

    planned: PlannedGame
    tolerance: bool
    result: GameResult
    record: GameRecord

    @property
    def faults(self) -> tuple[Fault, ...]:
        """The faults of the bot under check in this game."""
        return tuple(f for f in self.result.faults if f.seat == self.planned.seat)


@dataclass(slots=True)
class Observations:
    """Everything the suite collected about the bot."""

    move_time: float
    grace: float
    startup_fault: BotError | None = None
    hello: HelloReply | None = None
    probe: ProbeResult | None = None
    games: list[SuiteGame] = field(default_factory=list)
    bye_exits: list[tuple[bool, float]] = field(default_factory=list)
    stray: list[Evidence] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------ evidence


def culprit(record: GameRecord) -> tuple[Exchange | None, Exchange | None]:
    """The exchange a game's fault happened on, and the one before it.

    The last exchange that raised; else (an illegal reply, which parses but the engine refuses) the last
    request that got an answer.
    """
    exchanges = record.exchanges
    for i in range(len(exchanges) - 1, -1, -1):
        if exchanges[i].error is not None:
            return exchanges[i], exchanges[i - 1] if i else None
    for i in range(len(exchanges) - 1, -1, -1):
        if exchanges[i].kind in _REQUESTS:
            return exchanges[i], exchanges[i - 1] if i else None
    return None, None


def fault_evidence(game: SuiteGame, fault: Fault) -> Evidence:
    """Where ``fault`` happened: game, round, turn, the message sent and the line received."""
    ex, before = culprit(game.record)
    what = f"{fault.kind.replace('_', ' ')}: {fault.detail}"
    sent = ex.sent if ex is not None else None
    if fault.kind == FaultKind.UNSOLICITED and before is not None:
        # The stray line arrived after an earlier message; show that one.
        what += " (the line arrived after the message shown)"
        sent = before.sent
    received = fault.line if fault.line is not None else (ex.received if ex is not None else None)
    return Evidence(what, game.planned.game_id, fault.round, fault.turn or None, sent, received)


def _result(
    name: str, title: str, evidence: Sequence[Evidence], ok: str, *, figures: dict[str, Any] | None = None
) -> CheckResult:
    if evidence:
        first = evidence[0]
        where = f" (game {first.game}, round {first.round})" if first.game else ""
        summary = f"{first.what}{where}" + (f"; {len(evidence)} times" if len(evidence) > 1 else "")
        return CheckResult(name, title, Outcome.FAILED, summary, tuple(evidence), figures or {})
    return CheckResult(name, title, Outcome.PASSED, ok, (), figures or {})


def _skip(name: str, title: str, why: str, figures: dict[str, Any] | None = None) -> CheckResult:
    return CheckResult(name, title, Outcome.SKIPPED, why, (), figures or {})


# ------------------------------------------------------------------------------------------------ checks


def evaluate(obs: Observations) -> list[CheckResult]:
    """Every check, in report order."""
    regular = [g for g in obs.games if not g.tolerance]
    by_check: dict[str, list[Evidence]] = {name: [] for name in FAULT_CHECKS}
    for game in regular:
        for fault in game.faults:
            if ANSWERED_NO_REPLY in fault.detail:
                # An answer to a message that needs none, read in place of a reply: a stdout fault first of all.
                by_check["stdout-protocol-only"].append(fault_evidence(game, fault))
                continue
            for name, (_, kinds) in FAULT_CHECKS.items():
                if fault.kind in kinds:
                    by_check[name].append(fault_evidence(game, fault))
    by_check["stdout-protocol-only"].extend(obs.stray)
    out = [*_handshake(obs, by_check), _tolerance(obs)]
    for name in ("stdout-protocol-only", "reply-fields", "legal-discards", "legal-moves", "stays-alive"):
        title = FAULT_CHECKS[name][0]
        out.append(_gated(obs, name, title, by_check[name], f"no such fault in {len(regular)} games"))
    out.append(_stalled_table(obs, regular, by_check["stalled-table"]))
    out.append(_move_time(obs, regular, by_check["move-time"]))
    out.extend(_seat_counts(obs, regular))
    out.extend(_situations(obs, regular))
    out.append(_bye(obs))
    return out


def _handshake(obs: Observations, by_check: dict[str, list[Evidence]]) -> list[CheckResult]:
    title_h, title_v = FAULT_CHECKS["handshake"][0], FAULT_CHECKS["protocol-version"][0]
    fault = obs.startup_fault
    hello_line = '{"type":"hello","protocol":1}'
    if fault is not None and fault.kind != FaultKind.PROTOCOL_VERSION:
        e = Evidence(f"startup: {fault.detail}", None, 0, None, hello_line, fault_line(fault))
        return [
            _result("handshake", title_h, [e], ""),
            _skip("protocol-version", title_v, "not reached: the bot did not complete its hello"),
        ]
    name = obs.hello.name if obs.hello is not None else "?"
    handshake = _result("handshake", title_h, by_check["handshake"], f"answered hello as {name!r}")
    if fault is not None:
        e = Evidence(f"protocol version: {fault.detail}", None, 0, None, hello_line, fault_line(fault))
        return [handshake, _result("protocol-version", title_v, [e], "")]
    return [handshake, _result("protocol-version", title_v, by_check["protocol-version"], "protocol 1")]


def fault_line(fault: BotError) -> str | None:
    return line_text(fault.line)


def _gated(obs: Observations, name: str, title: str, evidence: list[Evidence], ok: str) -> CheckResult:
    if not obs.games:
        return _skip(name, title, "not reached: no game was played")
    return _result(name, title, evidence, ok)


def _tolerance(obs: Observations) -> CheckResult:
    name, title = "tolerates-unknown", "ignores unknown fields and messages of unknown type"
    evidence: list[Evidence] = []
    probe = obs.probe
    if probe is not None and probe.problem is not None and obs.startup_fault is None:
        evidence.append(Evidence(probe.problem, None, 0, None, probe.problem_sent, probe.problem_line))
    tolerance = [g for g in obs.games if g.tolerance]
    inconclusive = []
    for game in tolerance:
        # Stopping a stalled game says nothing about unknown fields (the stalled-table check judges stalls).
        faults = [f for f in game.faults if f.kind != StalledTable.kind]
        if not faults:
            continue
        control = next((g for g in obs.games if not g.tolerance and g.planned.deal == game.planned.deal), None)
        if control is not None and control.faults:
            inconclusive.append(game.planned.game_id)
            continue
        for fault in faults:
            e = fault_evidence(game, fault)
            evidence.append(Evidence(f"with unknown fields and message types: {e.what}", *_where(e)))
    if evidence:
        return _result(name, title, evidence, "")
    if obs.startup_fault is not None:
        return _skip(name, title, "not reached: the bot did not complete its hello")
    if not tolerance and (probe is None or not probe.started):
        return _skip(name, title, "not reached: no session with the bot got that far")
    if inconclusive:
        return _skip(name, title, "not decided: the bot also faulted in the same game without unknown fields")
    return _result(name, title, [], f"{len(tolerance)} game(s) with unknown fields and message types, no fault")


def _where(e: Evidence) -> tuple[str | None, int, int | None, str | None, str | None]:
    return e.game, e.round, e.turn, e.sent, e.received


def _stalled_table(obs: Observations, regular: list[SuiteGame], evidence: list[Evidence]) -> CheckResult:
    """Fails when the bot kept passing on a stalled table (the suite stopped the game) or a round ran to the turn
    limit; passes on a stalled table that stopped in time are counted in the summary as a warning."""
    name, title = "stalled-table", FAULT_CHECKS["stalled-table"][0]
    found = list(evidence)
    for game in regular:
        stopped = {f.round for f in game.faults if f.kind == StalledTable.kind}
        for r in game.record.limit_rounds:
            if r not in stopped:
                what = (
                    f"round {r} ran to the {game.record.max_turns:,}-turn limit: everyone still playing was dropped "
                    "with a chip per card; when nobody has played since your own last pass, play or drop instead"
                )
                found.append(Evidence(what, game.planned.game_id, r))
    passes = sum(g.record.stalled_passes for g in regular)
    longest = max((g.record.longest_stall for g in regular), default=0)
    figures = {"stalled_passes": passes, "longest_stall": longest}
    if not regular:
        return _skip(name, title, "not reached: no game was played", figures)
    if not found and passes:
        warning = (
            f"{passes} passes on a stalled table in {len(regular)} games (at most {longest} in a row), each a chip "
            "that changed nothing: when nobody has played since your own last pass, play or drop"
        )
        return CheckResult(name, title, Outcome.WARNED, warning, (), figures)
    return _result(name, title, found, f"no round stalled in {len(regular)} games", figures=figures)


def _move_time(obs: Observations, regular: list[SuiteGame], evidence: list[Evidence]) -> CheckResult:
    title = FAULT_CHECKS["move-time"][0]
    samples = [ex.ms for g in regular for ex in g.record.exchanges if ex.ms is not None and ex.kind in ("deal", "turn")]
    lat = latency(samples)
    cpu = latency(
        [
            ex.cpu_ms
            for g in regular
            for ex in g.record.exchanges
            if ex.cpu_ms is not None and ex.kind in ("deal", "turn")
        ]
    )
    budget = obs.move_time * 1000
    figures = {**lat.to_dict(), "move_time_ms": round(budget, 1), "cpu": cpu.to_dict()}
    if not regular:
        return _skip("move-time", title, "not reached: no game was played")
    text = (
        f"median {lat.median_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms, max {lat.max_ms:.1f} ms"
        f" over {lat.count} replies; move time {budget:.0f} ms"
    )
    if cpu.count:
        text += f"; CPU per reply: median {cpu.median_ms:.1f} ms, p99 {cpu.p99_ms:.1f} ms, max {cpu.max_ms:.1f} ms"
    result = _result("move-time", title, evidence, text, figures=figures)
    if result.failed:
        return CheckResult(
            result.name, result.title, result.outcome, f"{result.summary}; {text}", result.evidence, figures
        )
    return result


def _seat_counts(obs: Observations, regular: list[SuiteGame]) -> list[CheckResult]:
    out = []
    for seats in SEATS:
        name, title = f"games-{seats}-seats", f"plays {seats}-player games to the end without a fault"
        games = [g for g in regular if g.planned.seats == seats]
        if not games:
            out.append(_skip(name, title, f"not reached: no {seats}-player game was played"))
            continue
        evidence = [fault_evidence(g, f) for g in games for f in g.faults[:1]]
        ok = f"{len(games)} games, no fault"
        out.append(_result(name, title, evidence, ok))
    return out


def _situations(obs: Observations, regular: list[SuiteGame]) -> list[CheckResult]:
    reached: dict[Situation, int] = dict.fromkeys(Situation, 0)
    evidence: dict[Situation, list[Evidence]] = {s: [] for s in Situation}
    for game in regular:
        bad, _ = culprit(game.record) if game.faults else (None, None)
        for ex in game.record.exchanges:
            for s in ex.situations:
                reached[s] += 1
        if bad is not None and bad.situations:
            for s in bad.situations:
                evidence[s].append(fault_evidence(game, game.faults[0]))
    out = []
    for s in Situation:
        figures = {"reached": reached[s]}
        if not regular:
            out.append(_skip(s.value, s.label, "not reached: no game was played", figures))
        elif evidence[s] or reached[s]:
            out.append(_result(s.value, s.label, evidence[s], f"reached {reached[s]} times, no fault", figures=figures))
        else:
            why = "not reached in these games (the bot's own play decides some)"
            out.append(_skip(s.value, s.label, why, figures))
    return out


def _bye(obs: Observations) -> CheckResult:
    name, title = "exit-on-bye", f"exits by itself within {obs.grace:g} s of bye"
    bye = BYE.decode().strip()
    evidence = []
    if obs.probe is not None and obs.probe.exited is False:
        evidence.append(
            Evidence(f"still running {obs.grace:g} s after bye (right after hello)", None, 0, None, bye, None)
        )
    for exited, _seconds in obs.bye_exits:
        if not exited:
            evidence.append(
                Evidence(f"still running {obs.grace:g} s after bye (after its games)", None, 0, None, bye, None)
            )
    tried = len(obs.bye_exits) + (1 if obs.probe is not None and obs.probe.exited is not None else 0)
    if not tried:
        return _skip(name, title, "not reached: the bot was never running when the suite ended")
    slowest = max((s for _, s in obs.bye_exits), default=0.0)
    times = "once" if tried == 1 else f"{tried} times"
    return _result(name, title, evidence, f"exited {times}; slowest {slowest * 1000:.0f} ms after bye")

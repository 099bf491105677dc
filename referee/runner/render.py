"""A game log as readable text, turn by turn (``referee replay LOG``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.runner.logrecords import (
    ActionEvent,
    DiscardEvent,
    FaultEvent,
    ForfeitEvent,
    JsonObject,
    LogEvent,
    LogHeader,
    RecvEvent,
    ResultEvent,
    RoundEndEvent,
    SendEvent,
    parse_event,
    parse_header,
)
from referee.runner.safe_text import line_text, visible


def render_log(events: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """Lines of text telling the game in ``events`` (from ``read_log``): deals, discards, every move with its
    penalty and reply time, faults and forfeits, the table after each round, and the result.

    Everything taken from the log (bot names, fault details, offending lines) is shown literally: each line is
    one line, with no control character or escape sequence in it (``referee.runner.safe_text.visible``). Raises
    ``LogError`` (before the first line) for an event that is not one of a game log."""
    header = parse_header(events[0], events[0].get("_line", 1))
    records = [r for obj in events[1:] if (r := parse_event(obj, obj.get("_line", 0))) is not None]
    return (visible(line) for line in _render(header, records))


def _render(header: LogHeader, events: list[LogEvent]) -> Iterator[str]:
    names: list[str] = [visible(n) for n in header.names]
    deal = header.deal
    width = max((len(n) for n in names), default=4)

    def who(seat: int) -> str:
        name = names[seat] if 0 <= seat < len(names) else "?"
        return f"seat {seat} {name:<{width}}"

    how = f"seed {header.seed}" if header.seed is not None else "dealt from a file"
    yield f"Game {header.game} ({how}): " + ", ".join(f"{i}: {n}" for i, n in enumerate(names))
    yield "Rules: " + ", ".join(f"{k}={v}" for k, v in header.ruleset.to_dict().items())
    reply_ms: dict[int, float] = {}
    current_round = 0

    def open_round(r: int) -> Iterator[str]:
        nonlocal current_round
        while current_round < r:
            current_round += 1
            yield ""
            yield f"Round {current_round}"
            if current_round - 1 < len(deal):
                for seat, hand in enumerate(deal[current_round - 1]):
                    yield f"  {who(seat)}  dealt {' '.join(str(c) for c in hand)}"

    for ev in events:
        if isinstance(ev, RecvEvent):
            reply_ms[ev.seat] = ev.ms
        elif isinstance(ev, SendEvent) and ev.msg.get("type") == "deal":
            yield from open_round(int(ev.msg["round"]))
        elif isinstance(ev, DiscardEvent):
            yield from open_round(ev.round)
            by = "  (by the referee: forfeited)" if ev.by == "referee" else _took(reply_ms, ev.seat)
            yield f"  {who(ev.seat)}  discards {' '.join(str(c) for c in ev.cards)}{by}"
        elif isinstance(ev, ActionEvent):
            yield from open_round(ev.round)
            yield f"  turn {ev.turn:>3}  {who(ev.seat)}  {_describe(ev.entries)}{_took(reply_ms, ev.seat)}"
        elif isinstance(ev, FaultEvent):
            f = ev.fault
            if f.round:
                yield from open_round(f.round)
            when = f"round {f.round}" + (f", turn {f.turn}" if f.turn else "") if f.round else "start-up"
            yield f"  FAULT {who(f.seat)}  {f.kind} ({when}): {f.detail}"
            if f.line:
                yield f"        line: {line_text(f.line, 100)}"
        elif isinstance(ev, ForfeitEvent) and ev.forfeited:
            yield f"  FORFEIT {who(ev.seat)}: drops out for the rest of the game"
            if ev.entries:
                yield f"           the referee: {_describe(ev.entries)}"
        elif isinstance(ev, RoundEndEvent):
            yield f"  -- round {ev.round} over --"
            for seat, p in enumerate(ev.table):
                yield (
                    f"     {who(seat)}  cards {p['cards']:>2}  penalty {p['penalty']:>3}  bonus {p['bonus']}"
                    f"  {p['status']}"
                )
        elif isinstance(ev, ResultEvent):
            yield ""
            yield "Result"
            forfeits = set(ev.forfeits)
            order = sorted(range(len(ev.scores)), key=lambda s: (ev.ranks[s], s))
            for seat in order:
                note = "  forfeit" if seat in forfeits else ""
                yield f"  rank {ev.ranks[seat]}  {who(seat)}  score {ev.scores[seat]:>4}{note}"


def _took(reply_ms: dict[int, float], seat: int) -> str:
    ms = reply_ms.pop(seat, None)
    return "" if ms is None else f"   [{ms:.1f} ms]"


def _describe(entries: Sequence[JsonObject]) -> str:
    parts = []
    for entry in entries:
        action = entry.get("action")
        if action == "play":
            text = f"plays {entry['count']}x {entry['value']}" if entry["count"] > 1 else f"plays {entry['value']}"
            if entry.get("bonus"):
                text += f" spending {entry['bonus']} bonus"
            text += f", penalty {entry['penalty']:+d}"
            if entry.get("finished"):
                text += ", FINISHED"
        elif action == "pass":
            text = ("passes and forces" if entry.get("force") else "passes") + f", penalty {entry['penalty']:+d}"
        else:
            text = f"drops, penalty {entry['penalty']:+d}"
            if entry.get("limit"):
                text = f"seat {entry['seat']} dropped by the turn limit, penalty {entry['penalty']:+d}"
        parts.append(text)
    return "; ".join(parts)

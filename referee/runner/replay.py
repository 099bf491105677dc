"""A game log as readable text, turn by turn."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.runner.safe_text import visible


def render_log(events: list[dict[str, Any]]) -> Iterator[str]:
    """Lines of text telling the game in ``events`` (from ``read_log``): deals, discards, every move with its
    penalty and reply time, faults and forfeits, the table after each round, and the result.

    Everything taken from the log (bot names, fault details, offending lines) is shown literally: each line is
    one line, with no control character or escape sequence in it (``referee.runner.safe_text.visible``)."""
    return (visible(line) for line in _render(events))


def _render(events: list[dict[str, Any]]) -> Iterator[str]:
    header = events[0]
    names: list[str] = [visible(str(n)) for n in header.get("names", [])]
    deal = header.get("deal", {}).get("rounds", [])
    width = max((len(n) for n in names), default=4)

    def who(seat: int) -> str:
        name = names[seat] if 0 <= seat < len(names) else "?"
        return f"seat {seat} {name:<{width}}"

    how = f"seed {header['seed']}" if header.get("seed") is not None else "dealt from a file"
    yield f"Game {header.get('game', '?')} ({how}): " + ", ".join(f"{i}: {n}" for i, n in enumerate(names))
    rules = header.get("rules", {})
    if rules:
        yield "Rules: " + ", ".join(f"{k}={v}" for k, v in rules.items())
    reply_ms: dict[int, float] = {}
    current_round = 0

    def open_round(r: int) -> Iterator[str]:
        nonlocal current_round
        while current_round < r:
            current_round += 1
            yield ""
            yield f"Round {current_round}"
            if current_round - 1 < len(deal):
                for seat, hand in enumerate(deal[current_round - 1]["hands"]):
                    yield f"  {who(seat)}  dealt {' '.join(str(c) for c in hand)}"

    for ev in events[1:]:
        kind = ev["event"]
        if kind == "recv":
            reply_ms[int(ev["seat"])] = float(ev.get("ms", 0.0))
        elif kind == "send" and ev["msg"].get("type") == "deal":
            yield from open_round(int(ev["msg"]["round"]))
        elif kind == "discard":
            yield from open_round(int(ev.get("round", current_round or 1)))
            by = "  (by the referee: forfeited)" if ev.get("by") == "referee" else _took(reply_ms, ev["seat"])
            yield f"  {who(ev['seat'])}  discards {' '.join(str(c) for c in ev['cards'])}{by}"
        elif kind == "action":
            yield from open_round(int(ev["round"]))
            yield f"  turn {ev['turn']:>3}  {who(ev['seat'])}  {_describe(ev)}{_took(reply_ms, ev['seat'])}"
        elif kind == "fault":
            if ev["round"]:
                yield from open_round(int(ev["round"]))
            when = (
                f"round {ev['round']}" + (f", turn {ev['turn']}" if ev.get("turn") else "")
                if ev["round"]
                else "start-up"
            )
            yield f"  FAULT {who(ev['seat'])}  {ev['kind']} ({when}): {ev['detail']}"
            if ev.get("line"):
                yield f"        line: {ev['line'][:100]}"
        elif kind == "forfeit" and ev.get("forfeited", True):
            yield f"  FORFEIT {who(ev['seat'])}: drops out for the rest of the game"
            if ev.get("entries"):
                yield f"           the referee: {_describe(ev)}"
        elif kind == "round_end":
            yield f"  -- round {ev['round']} over --"
            for seat, p in enumerate(ev["table"]):
                yield (
                    f"     {who(seat)}  cards {p['cards']:>2}  penalty {p['penalty']:>3}  bonus {p['bonus']}"
                    f"  {p['status']}"
                )
        elif kind == "result":
            yield ""
            yield "Result"
            forfeits = set(ev.get("forfeits", []))
            order = sorted(range(len(ev["scores"])), key=lambda s: (ev["ranks"][s], s))
            for seat in order:
                note = "  forfeit" if seat in forfeits else ""
                yield f"  rank {ev['ranks'][seat]}  {who(seat)}  score {ev['scores'][seat]:>4}{note}"


def _took(reply_ms: dict[int, float], seat: int) -> str:
    ms = reply_ms.pop(int(seat), None)
    return "" if ms is None else f"   [{ms:.1f} ms]"


def _describe(ev: dict[str, Any]) -> str:
    parts = []
    for entry in ev.get("entries", []):
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

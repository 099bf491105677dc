"""Reply lines with long unknown fields are logged whole, so ``verify`` re-parses exactly what the bot sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import trio

from protocol import MAX_LINE
from referee.runner import play_game, read_log
from referee.runner.verify import verify_log

from .scripted import ScriptedEntrant, honest

PAD = "p" * 5000


def _padded(msg: dict[str, Any]) -> dict[str, Any]:
    return {**honest(msg), "padding": PAD}


def _illegal_padded(msg: dict[str, Any]) -> dict[str, Any] | None:
    """Plays a card it does not hold at its first answerable turn, with a long unknown field."""
    if msg["type"] != "turn" or msg["last"] is None:
        return _padded(msg)
    missing = next(v for v in range(23, 1, -1) if v not in msg["hand"])
    return {"type": "play", "value": missing, "count": 1, "bonus": 0, "padding": PAD}


def _play(tmp_path: Path, script: Any, seed: int = 5) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path / "g.jsonl"
    entrants = [ScriptedEntrant("pad", script), ScriptedEntrant("plain")]
    trio.run(lambda: play_game(entrants, game_id="g", seed=seed, log_path=path))
    return path, read_log(path)


def test_long_reply_lines_are_logged_whole_and_verify(tmp_path: Path) -> None:
    _, events = _play(tmp_path, _padded)
    lines = [e["line"] for e in events if e["event"] == "recv" and e["seat"] == 0]
    assert lines and all(json.loads(x)["padding"] == PAD for x in lines)
    verdict = verify_log(events)
    assert verdict.ok, verdict.message
    assert verdict.actions > 0


def test_illegal_move_with_a_long_line_is_verified_from_the_whole_line(tmp_path: Path) -> None:
    _, events = _play(tmp_path, _illegal_padded)
    faults = [e for e in events if e["event"] == "fault"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "illegal_move")]
    assert len(faults[0]["line"]) < 400  # the fault itself keeps only the start of the line
    verdict = verify_log(events)
    assert verdict.ok, verdict.message
    assert verdict.faults == 1


def test_a_cut_reply_line_still_disagrees(tmp_path: Path) -> None:
    """verify stays a real check: a logged reply that is not the whole line cannot be confirmed."""
    path, _ = _play(tmp_path, _padded)
    lines = path.read_text().splitlines()
    i = next(n for n, x in enumerate(lines) if '"event":"recv"' in x and '"seat":0' in x)
    obj = json.loads(lines[i])
    obj["line"] = obj["line"][:4096]
    lines[i] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")
    verdict = verify_log(read_log(path))
    assert not verdict.ok and "not a valid reply" in verdict.message


def test_a_line_of_exactly_max_line_bytes_is_logged_whole(tmp_path: Path) -> None:
    def exact(msg: dict[str, Any]) -> dict[str, Any]:
        reply = honest(msg)
        bare = len(json.dumps({**reply, "padding": ""}).encode())
        return {**reply, "padding": "q" * (MAX_LINE - bare)}

    _, events = _play(tmp_path, exact)
    lines = [e["line"] for e in events if e["event"] == "recv" and e["seat"] == 0]
    assert lines and all(len(x.encode()) == MAX_LINE for x in lines)
    assert verify_log(events).ok

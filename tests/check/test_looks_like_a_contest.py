"""Issue 25, item 8: ``referee check`` looks like a contest to the bot it checks. A bot that behaves only when it
sees a check (an id ``check-NN``, a seat name ``...-under-check``, fields named ``x_check_...``) and stalls every
contest game passed the check 20 of 20 before; now it cannot tell, and fails. What a contest never sends (the
dressed-up game, the probe's hello with an unknown field) comes after every plain game."""

from __future__ import annotations

import json
import re
from pathlib import Path

import trio

from referee.check import run_check
from referee.check.observe import EXTRA_FIELD, UNKNOWN_TYPE
from referee.runner.gamelog import log_content

from .conftest import fast_options, runner_bot


def test_a_bot_that_behaves_only_when_checked_fails_the_check(tmp_path: Path) -> None:
    report = trio.run(run_check, runner_bot("contest_detector"), fast_options(games=6, logs=tmp_path))
    failed = {c.name for c in report.checks if c.failed}
    assert "stalled-table" in failed, [c.name for c in report.checks]
    said = "".join(p.read_text() for p in tmp_path.glob("bot-stderr-*.log"))
    assert "detector: this is a check" not in said, said  # not even in the dressed-up game, played last
    # The probe (a hello with an unknown field) comes after every game too: its bot process starts after the last
    # game log is written.
    games = list(tmp_path.glob("check-*.jsonl*"))
    assert games and (tmp_path / "bot-stderr-probe.log").stat().st_mtime_ns >= max(p.stat().st_mtime_ns for p in games)
    # What the bots were sent in the plain games: opaque ids, neutral names, no extension fields.
    sent = [
        e["msg"]
        for log in sorted(tmp_path.glob("check-[0-9]*.jsonl*"))
        for e in map(json.loads, log_content(log).decode().splitlines())
        if e["event"] == "send"
    ]
    assert sent and all(re.fullmatch(r"g[0-9a-f]{16}", m["game"]) for m in sent if "game" in m)
    assert not any(EXTRA_FIELD in m or m["type"] == UNKNOWN_TYPE for m in sent)
    names = {n if isinstance(n, str) else n["name"] for m in sent for n in m.get("players", ())}
    assert names and not any("check" in n for n in names), names

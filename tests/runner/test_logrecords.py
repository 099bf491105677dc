"""The game log's records: what the writer writes, the one parser reads back as the same record."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from referee.engine import STANDARD, Drop, Pass, Play, seeded_deal
from referee.runner import Fault
from referee.runner.gamelog import read_records
from referee.runner.logrecords import (
    ActionEvent,
    DiscardEvent,
    FaultEvent,
    ForfeitEvent,
    LogError,
    LogHeader,
    PlayerEvent,
    ResultEvent,
    RoundEndEvent,
    parse_event,
    parse_header,
)

LOGS = Path(__file__).parent.parent / "golden" / "logs"


def test_every_record_reads_back_as_written() -> None:
    fault = Fault(seat=1, kind="illegal_move", round=2, turn=3, detail="you hold no 9", line='{"type":"play"}')
    records = [
        PlayerEvent(0, "greedy", {"type": "hello", "protocol": 1, "name": "g"}),
        DiscardEvent(1.5, 1, 2, (20, 21, 23), "referee"),
        ActionEvent(2.0, 1, 4, 0, Play(9, 2, 1), ({"seat": 0, "action": "play", "penalty": 3},)),
        ActionEvent(2.5, 1, 5, 1, Pass(force=True), ({"seat": 1, "action": "pass", "force": True, "penalty": 1},)),
        ActionEvent(3.0, 1, 6, 2, Drop(), ({"seat": 2, "action": "drop", "penalty": 4},)),
        FaultEvent(3.5, fault),
        ForfeitEvent(4.0, 1, True, ({"seat": 1, "action": "drop", "penalty": 5, "forfeit": True},)),
        ForfeitEvent(4.5, 2, False),
        RoundEndEvent(5.0, 1, ((20, 21, 23), (5, 6, 7)), ({"cards": 0, "penalty": 3, "bonus": 2, "status": "out"},)),
        ResultEvent(6.0, (3, 8), (1, 2), (1,), (fault,)),
    ]
    for number, record in enumerate(records, start=2):
        written = json.loads(json.dumps(record.to_json()))
        assert parse_event(written, number) == replace(record, line=number)
    header = LogHeader("g1", ("a", "b"), STANDARD, 7, seeded_deal(7, 2, STANDARD), (1000, None))
    assert parse_header(json.loads(json.dumps(header.to_json())), 1) == replace(header, line=1)


def test_a_malformed_event_names_its_line_and_an_unknown_kind_is_passed_by() -> None:
    with pytest.raises(LogError, match="line 9: malformed action event: not a turn reply") as err:
        parse_event({"event": "action", "action": {"type": "jump"}}, 9)
    assert err.value.line == 9
    with pytest.raises(LogError, match="malformed discard event: 'seat'"):
        parse_event({"event": "discard", "round": 1, "cards": [2, 3, 4], "by": "bot"}, 3)
    assert parse_event({"event": "comment", "text": "from a later referee"}, 4) is None
    with pytest.raises(LogError, match="the game header lacks 'deal'"):
        parse_header({"event": "game", "names": ["a", "b"], "rules": {}}, 1)


def test_a_log_of_8afb408_reads_as_records() -> None:
    header, events = read_records(LOGS / "play_b.jsonl", wire=False)
    assert header.names == ("honest", "too_many", "discard_unheld", "honest") and header.seed == 12
    assert [e.fault.kind for e in events if isinstance(e, FaultEvent)] == ["illegal_discard", "illegal_move"]
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.forfeits == (1, 2)

"""JSON Schemas of the messages, and ``referee protocol schema``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from protocol import MESSAGES, all_schemas, message_schema
from referee.cli import main


def test_every_message_has_a_schema_requiring_its_type() -> None:
    schemas = all_schemas()
    assert set(schemas) == {
        "hello",
        "game_start",
        "deal",
        "turn",
        "round_end",
        "game_end",
        "error",
        "bye",
        "hello_reply",
        "discard",
        "play",
        "pass",
        "drop",
    }
    for name, schema in schemas.items():
        assert schema["type"] == "object"
        assert schema["required"][0] == "type", name
        assert "const" in schema["properties"]["type"]
    play = message_schema("play")
    assert play["required"] == ["type", "value", "count", "bonus"]
    assert play["properties"]["value"]["minimum"] == 1 and play["properties"]["value"]["maximum"] == 23
    assert message_schema("hello_reply")["properties"]["type"]["const"] == "hello"


def test_cli_prints_every_schema_or_one() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["protocol", "schema"])
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.output)) == set(MESSAGES)
    result = runner.invoke(main, ["protocol", "schema", "--message", "TURN"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["title"] == "Turn"


def test_cli_refuses_an_unknown_message_with_one_clear_line() -> None:
    result = CliRunner().invoke(main, ["protocol", "schema", "--message", "fold"])
    assert result.exit_code == 2
    assert "'fold' is not one of" in result.output
    assert "Traceback" not in result.output


def test_transcript_prints_one_seats_conversation(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    events = [
        {"event": "game", "format": 1, "game": "g1", "names": ["a", "b"]},
        {"event": "player", "seat": 0, "name": "a", "hello": {"type": "hello", "protocol": 1, "name": "a"}},
        {"event": "player", "seat": 1, "name": "b", "hello": {"type": "hello", "protocol": 1, "name": "b"}},
        {"event": "send", "seat": 1, "msg": {"type": "deal", "game": "g1", "round": 1, "hand": [2], "discard": 0}},
        {"event": "send", "seat": 0, "msg": {"type": "deal", "game": "g1", "round": 1, "hand": [1], "discard": 0}},
        {"event": "recv", "seat": 0, "ms": 3.1, "line": '{"type":"discard","cards":[]}'},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    result = CliRunner().invoke(main, ["protocol", "transcript", str(log), "--seat", "0"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        '→ {"type":"hello","protocol":1}',
        '← {"type":"hello","protocol":1,"name":"a"}',
        '→ {"type":"deal","game":"g1","round":1,"hand":[1],"discard":0}',
        '← {"type":"discard","cards":[]}',
    ]
    missing = CliRunner().invoke(main, ["protocol", "transcript", str(log), "--seat", "3"])
    assert missing.exit_code == 1 and "no messages for seat 3" in missing.output
    log.write_text("not a log\n")
    broken = CliRunner().invoke(main, ["protocol", "transcript", str(log)])
    assert broken.exit_code == 1 and "Traceback" not in broken.output and len(broken.output.splitlines()) == 1

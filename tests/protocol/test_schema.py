"""JSON Schemas of the messages, and ``referee protocol schema``."""

from __future__ import annotations

import json

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

"""``referee protocol ...``: the wire protocol for bot authors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

#: The names of protocol v1's messages (``protocol.schema.MESSAGES``), spelled out so that ``--help`` imports
#: no pydantic model; a test compares them.
MESSAGE_NAMES = (
    *("hello", "game_start", "deal", "turn", "round_end", "game_end", "error", "bye"),
    *("hello_reply", "discard", "play", "pass", "drop"),
)


@click.group("protocol")
def protocol_group() -> None:
    """Bot protocol v1: the JSON messages between the referee and a bot."""


@protocol_group.command("schema")
@click.option(
    "--message",
    "name",
    type=click.Choice(MESSAGE_NAMES, case_sensitive=False),
    default=None,
    help="Print only this message's schema (default: every message, by name).",
)
def schema_cmd(name: str | None) -> None:
    """Print the JSON Schema of protocol v1's messages."""
    from protocol.schema import all_schemas, message_schema

    data = message_schema(name.lower()) if name else all_schemas()
    click.echo(json.dumps(data, indent=2))


@protocol_group.command("transcript")
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seat", type=int, default=0, show_default=True, help="Whose side of the conversation to print.")
def transcript_cmd(log: Path, seat: int) -> None:
    """Print one bot's conversation from a game LOG: "→" lines the referee sent, "←" lines the bot sent.

    The lines are exactly those on the wire (the hello exchange as recorded at the bot's start-up).
    """
    from referee.runner import LogError, read_log

    try:
        lines = conversation(read_log(log), seat)
    except LogError as exc:
        raise click.ClickException(str(exc if exc.path else exc.at(log))) from None
    if not lines:
        raise click.ClickException(f"{log} has no messages for seat {seat}")
    for line in lines:
        click.echo(line)


def conversation(events: list[dict[str, Any]], seat: int) -> list[str]:
    """The ``→``/``←`` lines of ``seat`` in a game log's events, in order. Raises ``LogError`` for an event that
    is not one of a game log."""
    from protocol import Hello, encode
    from referee.runner.logrecords import PlayerEvent, RecvEvent, SendEvent, parse_event

    out: list[str] = []
    for obj in events[1:]:
        event = parse_event(obj, obj.get("_line", 0))
        if isinstance(event, PlayerEvent) and event.seat == seat and event.hello is not None:
            out.append("→ " + encode(Hello()).decode().rstrip("\n"))
            out.append("← " + json.dumps(event.hello, separators=(",", ":"), ensure_ascii=False))
        elif isinstance(event, SendEvent) and event.seat == seat:
            out.append("→ " + json.dumps(event.msg, separators=(",", ":"), ensure_ascii=False))
        elif isinstance(event, RecvEvent) and event.seat == seat:
            out.append("← " + event.text.rstrip("\n"))
    return out

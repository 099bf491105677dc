"""``referee protocol ...``: the wire protocol for bot authors."""

from __future__ import annotations

import json

import click

from protocol.schema import MESSAGES, all_schemas, message_schema
from referee.cli.app import main


@main.group("protocol")
def protocol_group() -> None:
    """Bot protocol v1: the JSON messages between the referee and a bot."""


@protocol_group.command("schema")
@click.option(
    "--message",
    "name",
    type=click.Choice(list(MESSAGES), case_sensitive=False),
    default=None,
    help="Print only this message's schema (default: every message, by name).",
)
def schema_cmd(name: str | None) -> None:
    """Print the JSON Schema of protocol v1's messages."""
    data = message_schema(name.lower()) if name else all_schemas()
    click.echo(json.dumps(data, indent=2))

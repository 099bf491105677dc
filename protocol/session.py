"""The referee's lines outside a game's play (``hello``, ``bye``, ``error``), written without the models.

They are the bytes ``encode(Hello())``, ``encode(Bye())`` and ``encode(ErrorMessage(message=...))`` give (the
models and their JSON Schema stay the contract; a test compares both), so a run whose bots behave never loads
pydantic to greet them and say goodbye.
"""

from __future__ import annotations

import json

from protocol.jsonline import PROTOCOL_VERSION

#: ``encode(Hello())``: the first line to every bot process.
HELLO_LINE = b'{"type":"hello","protocol":%d}\n' % PROTOCOL_VERSION
#: ``encode(Bye())``: the last line, before the referee closes the bot's stdin.
BYE_LINE = b'{"type":"bye"}\n'

#: JSON text as the models write it: UTF-8 rather than ``\u`` escapes, control characters escaped.
_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def error_line(message: str) -> bytes:
    """``encode(ErrorMessage(message=message))``: why the bot is about to forfeit. A lone surrogate (which the
    model refuses) is written as ``?``."""
    return b'{"type":"error","message":' + _TEXT(message).encode("utf-8", "replace") + b"}\n"

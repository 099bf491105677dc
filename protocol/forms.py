"""Every form of every protocol message, in one table: what to write when a message (or a field) is added.

The pydantic models (``protocol.messages``) are the contract and give the JSON Schema; the referee and the SDK
also read and write each line without them, for speed (a run whose bots behave never imports pydantic), and the
game log records some of them again. Measured: the light forms are what makes a turn cheap (bench/bench_hotpaths.py,
figure 5), so each message keeps them, and this table lists them all; ``tests/protocol/test_forms.py`` fails when a
form is added anywhere without its row, or a row misses a form its direction needs, and holds the light forms'
fields to the model's. Each form is named ``module:qualified name``; None where the message has no such form.

Columns: ``model`` (pydantic), ``light`` (the named tuple the light readers give), ``reader`` (reads a line into the
light form: the SDK's ``inbound`` for the referee's messages, ``replies`` for the bots'), ``encoder`` (writes the
line without the models, byte for byte theirs), ``builder`` (the model from the engine's values), ``to_engine``
(the engine's value from the model) and ``light_to_engine`` (from the light form), ``log_record`` and
``log_writer`` (the game log's record of it and the writer that writes that record without building it).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FORMS", "LOG_ONLY", "Forms"]


@dataclass(frozen=True, slots=True)
class Forms:
    """The forms of one message, or of one part of messages (a history entry, a table row)."""

    model: str
    light: str | None = None
    reader: str | None = None
    encoder: str | None = None
    builder: str | None = None
    to_engine: str | None = None
    light_to_engine: str | None = None
    log_record: str | None = None
    log_writer: str | None = None


_M = "protocol.messages:"
_IN = "protocol.inbound:"
_RE = "protocol.replies:"
_WIRE = "protocol.wire:"
_CONV = "protocol.convert:"
_REC = "referee.runner.logrecords:"
_LOG = "referee.runner.gamelog:GameLogWriter."


def _turn_reply(kind: str) -> Forms:
    """The forms of a turn's reply (``Play``, ``Pass`` or ``Drop``): every one is read, written, converted and
    logged by the same functions."""
    return Forms(
        f"{_M}{kind}Reply",
        f"{_IN}{kind}Reply",
        f"{_RE}_read_{kind.lower()}",
        _WIRE + "legal_reply",
        _CONV + "action_to_reply",
        _CONV + "reply_to_action",
        _IN + "reply_to_action",
        _REC + "ActionEvent",
        _LOG + "action",
    )


def _entry(kind: str) -> Forms:
    """The forms of a history entry (``Play``, ``Pass`` or ``Drop``)."""
    return Forms(
        f"{_M}{kind}Entry",
        f"{_IN}{kind}Entry",
        _IN + "_entry",
        _WIRE + "history_entry",
        _CONV + "event_to_entry",
        _CONV + "entry_to_event",
        _IN + "entry_to_event",
    )


#: Message (``protocol.schema.MESSAGES``' names) or part → its forms, referee → bot first, then bot → referee,
#: then the parts.
FORMS: dict[str, Forms] = {
    "hello": Forms(_M + "Hello", _IN + "Hello", _IN + "parse_message", "protocol.session:HELLO_LINE"),
    "game_start": Forms(
        _M + "GameStart",
        _IN + "GameStart",
        _IN + "parse_message",
        _WIRE + "GameWire.game_start",
        _CONV + "game_start_message",
    ),
    "deal": Forms(
        _M + "DealMessage", _IN + "DealMessage", _IN + "parse_message", _WIRE + "GameWire.deal", _CONV + "deal_message"
    ),
    "turn": Forms(
        _M + "Turn",
        _IN + "Turn",
        _IN + "parse_message",
        _WIRE + "GameWire.turn",
        _CONV + "turn_message",
        _CONV + "observation_from_turn",
        _IN + "observation_from_turn",
    ),
    "round_end": Forms(
        _M + "RoundEnd",
        _IN + "RoundEnd",
        _IN + "parse_message",
        _WIRE + "GameWire.round_end",
        _CONV + "round_end_message",
        log_record=_REC + "RoundEndEvent",
        log_writer=_LOG + "round_end",
    ),
    "game_end": Forms(
        _M + "GameEnd",
        _IN + "GameEnd",
        _IN + "parse_message",
        _WIRE + "GameWire.game_end",
        _CONV + "game_end_message",
        log_record=_REC + "ResultEvent",
        log_writer=_LOG + "result",
    ),
    "error": Forms(_M + "ErrorMessage", _IN + "ErrorMessage", _IN + "parse_message", "protocol.session:error_line"),
    "bye": Forms(_M + "Bye", _IN + "Bye", _IN + "parse_message", "protocol.session:BYE_LINE"),
    "hello_reply": Forms(
        _M + "HelloReply",
        _RE + "HelloReply",
        _RE + "_read_hello",
        "protocol.sdk:_Session.hello_reply",
        light_to_engine=_RE + "hello_json",
        log_record=_REC + "PlayerEvent",
        log_writer=_LOG + "player",
    ),
    "discard": Forms(
        _M + "DiscardReply",
        _RE + "DiscardReply",
        _RE + "_read_discard",
        "protocol.sdk:_Session.answer_deal",
        _CONV + "action_to_reply",
        _CONV + "discard_to_action",
        _RE + "discard_to_action",
        _REC + "DiscardEvent",
        _LOG + "discard",
    ),
    "play": _turn_reply("Play"),
    "pass": _turn_reply("Pass"),
    "drop": _turn_reply("Drop"),
    # parts of messages
    "hello_options": Forms(_M + "HelloOptions", _RE + "HelloOptions", _RE + "_read_hello"),
    "time": Forms(_M + "TimeControl", _IN + "TimeControl", _IN + "_time", _WIRE + "GameWire.game_start"),
    "player": Forms(
        _M + "PlayerEntry",
        _IN + "PlayerEntry",
        _IN + "_player",
        _WIRE + "GameWire._players",
        _CONV + "player_entries",
        _CONV + "player_view",
        _IN + "player_view",
    ),
    "play_entry": _entry("Play"),
    "pass_entry": _entry("Pass"),
    "drop_entry": _entry("Drop"),
}

#: What the game log records that is no protocol message, with its writer: the header, each line sent and
#: received (every message's bytes, as they went), a fault and a forfeit.
LOG_ONLY: dict[str, str | None] = {
    _REC + "LogHeader": _LOG + "header",
    _REC + "SendEvent": _LOG + "sent",
    _REC + "RecvEvent": _LOG + "received",
    _REC + "FaultEvent": None,
    _REC + "ForfeitEvent": None,
}

"""Bot protocol v1: wire messages, strict reply parsing, engine conversions and JSON Schemas.

The referee encodes its messages with ``encode`` and reads bot lines with ``parse_reply``, which raises
only ``ProtocolViolation``. Bots read referee lines with ``parse_message``; the Python bot SDK is
``protocol.sdk`` (with ``protocol.noise``, the ``--noise P`` strength knob the sample bots take).
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names

if TYPE_CHECKING:
    from protocol.bounds import MAX_SENT_LINE, check_line_bound, longest_line
    from protocol.codec import encode, parse_message, parse_reply
    from protocol.convert import (
        action_to_reply,
        deal_message,
        discard_to_action,
        entry_to_event,
        event_to_entry,
        game_end_message,
        game_start_message,
        observation_from_turn,
        player_entries,
        player_view,
        reply_to_action,
        round_end_message,
        turn_message,
    )
    from protocol.errors import ProtocolViolation, ViolationKind
    from protocol.jsonline import MAX_LINE
    from protocol.messages import (
        PROTOCOL_VERSION,
        AnyRefereeMessage,
        AnyReply,
        Bye,
        DealMessage,
        DiscardReply,
        DropEntry,
        DropReply,
        ErrorMessage,
        GameEnd,
        GameStart,
        Hello,
        HelloOptions,
        HelloReply,
        HistoryEntry,
        PassEntry,
        PassReply,
        PlayEntry,
        PlayerEntry,
        PlayReply,
        RefereeMessage,
        Reply,
        RoundEnd,
        TimeControl,
        Turn,
        TurnReply,
    )
    from protocol.replies import Expect
    from protocol.schema import MESSAGES, all_schemas, message_schema
    from protocol.wire import GameWire

#: Where each public name lives. They are imported on first use (PEP 562), so that ``import protocol.sdk`` or
#: ``protocol.wire`` does not load the pydantic models: a bot on the SDK starts in a few tens of milliseconds.
_WHERE: dict[str, str] = {
    "AnyRefereeMessage": "protocol.messages",
    "AnyReply": "protocol.messages",
    "Bye": "protocol.messages",
    "DealMessage": "protocol.messages",
    "DiscardReply": "protocol.messages",
    "DropEntry": "protocol.messages",
    "DropReply": "protocol.messages",
    "ErrorMessage": "protocol.messages",
    "Expect": "protocol.replies",
    "GameEnd": "protocol.messages",
    "GameStart": "protocol.messages",
    "GameWire": "protocol.wire",
    "Hello": "protocol.messages",
    "HelloOptions": "protocol.messages",
    "HelloReply": "protocol.messages",
    "HistoryEntry": "protocol.messages",
    "MAX_LINE": "protocol.jsonline",
    "MAX_SENT_LINE": "protocol.bounds",
    "MESSAGES": "protocol.schema",
    "PROTOCOL_VERSION": "protocol.messages",
    "PassEntry": "protocol.messages",
    "PassReply": "protocol.messages",
    "PlayEntry": "protocol.messages",
    "PlayReply": "protocol.messages",
    "PlayerEntry": "protocol.messages",
    "ProtocolViolation": "protocol.errors",
    "ViolationKind": "protocol.errors",
    "RefereeMessage": "protocol.messages",
    "Reply": "protocol.messages",
    "RoundEnd": "protocol.messages",
    "TimeControl": "protocol.messages",
    "Turn": "protocol.messages",
    "TurnReply": "protocol.messages",
    "action_to_reply": "protocol.convert",
    "all_schemas": "protocol.schema",
    "check_line_bound": "protocol.bounds",
    "deal_message": "protocol.convert",
    "discard_to_action": "protocol.convert",
    "encode": "protocol.codec",
    "entry_to_event": "protocol.convert",
    "event_to_entry": "protocol.convert",
    "game_end_message": "protocol.convert",
    "game_start_message": "protocol.convert",
    "longest_line": "protocol.bounds",
    "message_schema": "protocol.schema",
    "observation_from_turn": "protocol.convert",
    "parse_message": "protocol.codec",
    "parse_reply": "protocol.codec",
    "player_entries": "protocol.convert",
    "player_view": "protocol.convert",
    "reply_to_action": "protocol.convert",
    "round_end_message": "protocol.convert",
    "turn_message": "protocol.convert",
}


__getattr__, __dir__ = lazy_names("protocol", _WHERE, globals())


__all__ = sorted(_WHERE)

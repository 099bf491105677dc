"""JSON Schema of every protocol v1 message, for bot authors in any language."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from protocol.messages import (
    Bye,
    DealMessage,
    DiscardReply,
    DropReply,
    ErrorMessage,
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    PassReply,
    PlayReply,
    RoundEnd,
    Turn,
)

#: Message name → model. Referee → bot messages are named by their ``type``; replies by theirs, except the
#: hello reply, named ``hello_reply`` (its ``type`` is ``"hello"`` like the referee's hello).
MESSAGES: dict[str, type[BaseModel]] = {
    "hello": Hello,
    "game_start": GameStart,
    "deal": DealMessage,
    "turn": Turn,
    "round_end": RoundEnd,
    "game_end": GameEnd,
    "error": ErrorMessage,
    "bye": Bye,
    "hello_reply": HelloReply,
    "discard": DiscardReply,
    "play": PlayReply,
    "pass": PassReply,
    "drop": DropReply,
}

REFEREE_TO_BOT = ("hello", "game_start", "deal", "turn", "round_end", "game_end", "error", "bye")
BOT_TO_REFEREE = ("hello_reply", "discard", "play", "pass", "drop")


def message_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of one message. Raises ``KeyError`` naming the known messages for an unknown name."""
    model = MESSAGES.get(name)
    if model is None:
        raise KeyError(f"unknown message {name!r}; known messages: {', '.join(MESSAGES)}")
    schema = model.model_json_schema(mode="validation")
    # ``type`` has a default in the models (for convenient construction) but every line must carry it.
    schema["required"] = ["type", *(f for f in schema.get("required", []) if f != "type")]
    direction = "referee to bot" if name in REFEREE_TO_BOT else "bot to referee"
    schema["$comment"] = f"protocol v1, {direction}; unknown fields are ignored by the receiver"
    return schema


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every message's JSON Schema, by message name (see ``MESSAGES``)."""
    return {name: message_schema(name) for name in MESSAGES}

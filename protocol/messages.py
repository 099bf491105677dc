"""Every message of protocol v1 as a frozen pydantic model, discriminated on ``type``.

Referee → bot: ``Hello``, ``GameStart``, ``DealMessage``, ``Turn``, ``RoundEnd``, ``GameEnd``, ``ErrorMessage``,
``Bye``. Bot → referee: ``HelloReply``, ``DiscardReply``, ``PlayReply``, ``PassReply``, ``DropReply``.

Validation is strict (an integer field takes only a JSON integer: not ``"3"``, ``3.0`` or ``true``) and unknown
fields are ignored, as protocol v1 asks of both sides. Optional fields that protocol v1 does not show when unset
(``legal``, the reply's ``version``/``author``/``options``, history flags that are false, a pass's ``force`` when
false) are left out of the encoded line; ``last`` is always written, as ``null`` before the opening.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from protocol.jsonline import PROTOCOL_VERSION as PROTOCOL_VERSION
from referee.engine.deck import HIGHEST

Card = Annotated[int, Field(ge=1, le=HIGHEST)]
Seat = Annotated[int, Field(ge=0)]
Count = Annotated[int, Field(ge=0)]


def _unicode(text: str) -> str:
    """Refuse strings that cannot be written back as UTF-8 (lone surrogates from ``\\ud800`` escapes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (it holds a lone surrogate escape)") from None
    return text


Text = Annotated[str, AfterValidator(_unicode)]


class _Model(BaseModel):
    """Base of every protocol model: frozen, strict, unknown fields ignored.

    ``_omit_none``/``_omit_false`` name fields left out of the encoded form when None/False.
    """

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    _omit_none: ClassVar[frozenset[str]] = frozenset()
    _omit_false: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in self._omit_none:
                if key in data and data[key] is None:
                    del data[key]
            for key in self._omit_false:
                if key in data and data[key] is False:
                    del data[key]
        return data


# ------------------------------------------------------------------------------------------ bot → referee


class HelloOptions(_Model):
    """Options a bot may ask for in its hello reply."""

    legal_moves: bool = False


class HelloReply(_Model):
    """``{"type":"hello","protocol":1,"name":"greedy"}``, optionally with version, author and options."""

    _omit_none = frozenset({"version", "author", "options"})

    type: Literal["hello"] = "hello"
    protocol: int
    name: Text
    version: Text | None = None
    author: Text | None = None
    options: HelloOptions | None = None

    @property
    def wants_legal_moves(self) -> bool:
        return self.options is not None and self.options.legal_moves


class DiscardReply(_Model):
    """``{"type":"discard","cards":[22,23,23]}``: the cards to discard, as a multiset."""

    type: Literal["discard"] = "discard"
    cards: list[Card]


class PlayReply(_Model):
    """``{"type":"play","value":8,"count":1,"bonus":0}``."""

    type: Literal["play"] = "play"
    value: Card
    count: Annotated[int, Field(ge=1)]
    bonus: Count


class PassReply(_Model):
    """``{"type":"pass"}`` or, passing and forcing the next playing seat, ``{"type":"pass","force":true}``."""

    _omit_false = frozenset({"force"})

    type: Literal["pass"] = "pass"
    force: bool = False


class DropReply(_Model):
    """``{"type":"drop"}``: drop out of the round."""

    type: Literal["drop"] = "drop"


TurnReply = Annotated[PlayReply | PassReply | DropReply, Field(discriminator="type")]
Reply = Annotated[HelloReply | DiscardReply | PlayReply | PassReply | DropReply, Field(discriminator="type")]

# ------------------------------------------------------------------------------------------ public entries


class PlayerEntry(_Model):
    """One seat of the public table: name, cards in hand, chips and round status."""

    name: Text
    cards: Count
    penalty: int
    bonus: Count
    status: Literal["playing", "finished", "dropped"]


class PlayEntry(_Model):
    """A play in the round's history; ``penalty`` is net of the refund when ``finished``."""

    _omit_false = frozenset({"finished", "forfeit"})

    seat: Seat
    action: Literal["play"] = "play"
    value: Card
    count: Annotated[int, Field(ge=1)]
    bonus: Count
    penalty: int
    finished: bool = False
    forfeit: bool = False


class PassEntry(_Model):
    """A pass in the round's history; ``force`` when the next playing seat was forced."""

    seat: Seat
    action: Literal["pass"] = "pass"
    force: bool
    penalty: int


class DropEntry(_Model):
    """A drop in the round's history: by choice, by a forfeit (``forfeit``) or by the turn limit (``limit``)."""

    _omit_false = frozenset({"forfeit", "limit"})

    seat: Seat
    action: Literal["drop"] = "drop"
    penalty: int
    forfeit: bool = False
    limit: bool = False


HistoryEntry = Annotated[PlayEntry | PassEntry | DropEntry, Field(discriminator="action")]

# ------------------------------------------------------------------------------------------ referee → bot


class Hello(_Model):
    """``{"type":"hello","protocol":1}``: the first line to a bot process; it answers with a ``HelloReply``."""

    type: Literal["hello"] = "hello"
    protocol: int = PROTOCOL_VERSION


class TimeControl(_Model):
    """The bot's time per reply (deal and turn), in milliseconds; ``bank_ms`` (an extension, only when the
    contest gives one) is the time bank: extra milliseconds per game the bot may spend beyond ``move_ms`` in
    total, across its replies."""

    _omit_none = frozenset({"bank_ms"})

    move_ms: Annotated[int, Field(ge=1)]
    bank_ms: Annotated[int, Field(ge=0)] | None = None


class GameStart(_Model):
    """A new game: the bot's seat, every seat's name, the ruleset's options and the move time.

    ``rng_seed`` (an extension; the referee writes 16 lowercase hex digits) is the seed of common random numbers:
    the same for whoever sits in this seat on this deal, in every game that plays it (PROTOCOL.md, "Common random
    numbers"); a bot may seed its random generator with it, or ignore it."""

    _omit_none = frozenset({"rng_seed"})

    type: Literal["game_start"] = "game_start"
    game: Text
    seat: Seat
    players: list[Text]
    rules: dict[str, Any]
    time: TimeControl
    rng_seed: Text | None = None


class DealMessage(_Model):
    """A round's hand (sorted ascending) and how many cards to discard; answered by a ``DiscardReply``."""

    type: Literal["deal"] = "deal"
    game: Text
    round: Annotated[int, Field(ge=1)]
    hand: list[Card]
    discard: Count


class Turn(_Model):
    """The bot is to move; answered by a play, pass or drop. ``legal`` only if the bot asked for it."""

    _omit_none = frozenset({"legal"})

    type: Literal["turn"] = "turn"
    game: Text
    round: Annotated[int, Field(ge=1)]
    seat: Seat
    hand: list[Card]
    last: Card | None
    forced: bool
    players: list[PlayerEntry]
    history: list[HistoryEntry]
    legal: list[TurnReply] | None = None


class RoundEnd(_Model):
    """A round is over: the table at its end and its whole public history."""

    type: Literal["round_end"] = "round_end"
    game: Text
    round: Annotated[int, Field(ge=1)]
    players: list[PlayerEntry]
    history: list[HistoryEntry]


class GameEnd(_Model):
    """A game is over: scores and ranks by seat (lower score is better) and the seats that forfeited."""

    type: Literal["game_end"] = "game_end"
    game: Text
    scores: list[int]
    ranks: list[Annotated[int, Field(ge=1)]]
    forfeits: list[Seat]


class ErrorMessage(_Model):
    """Why the bot is about to forfeit its game, for its author's log."""

    type: Literal["error"] = "error"
    message: Text


class Bye(_Model):
    """The end of the session: the referee closes the bot's stdin next; the bot exits."""

    type: Literal["bye"] = "bye"


AnyRefereeMessage = Hello | GameStart | DealMessage | Turn | RoundEnd | GameEnd | ErrorMessage | Bye
AnyReply = HelloReply | DiscardReply | PlayReply | PassReply | DropReply
RefereeMessage = Annotated[AnyRefereeMessage, Field(discriminator="type")]

REFEREE_MESSAGES: tuple[type[_Model], ...] = (Hello, GameStart, DealMessage, Turn, RoundEnd, GameEnd, ErrorMessage, Bye)
REPLY_MESSAGES: tuple[type[_Model], ...] = (HelloReply, DiscardReply, PlayReply, PassReply, DropReply)

"""Engine values ↔ wire messages, for the referee (building messages) and for bots (reading them)."""

from __future__ import annotations

from collections.abc import Sequence

from protocol import inbound
from protocol.messages import (
    DealMessage,
    DiscardReply,
    DropEntry,
    DropReply,
    GameEnd,
    GameStart,
    PassEntry,
    PassReply,
    PlayEntry,
    PlayerEntry,
    PlayReply,
    RoundEnd,
    TimeControl,
    Turn,
)
from referee.engine import (
    Action,
    Discard,
    Drop,
    Event,
    Hand,
    Observation,
    Pass,
    PassEvent,
    Play,
    PlayerView,
    PlayEvent,
    RoundRecord,
    Ruleset,
    Status,
)

TurnReplyModel = PlayReply | PassReply | DropReply
HistoryModel = PlayEntry | PassEntry | DropEntry


# ------------------------------------------------------------------------------------------ referee → bot


def game_start_message(
    game_id: str,
    seat: int,
    names: Sequence[str],
    ruleset: Ruleset,
    move_ms: int,
    bank_ms: int | None = None,
    rng_seed: str | None = None,
) -> GameStart:
    """The ``game_start`` for ``seat``: every seat's name, the ruleset's options, the move time and (when the
    contest has one) the time bank; ``rng_seed``, when given, the seat's seed of common random numbers."""
    time = TimeControl(move_ms=move_ms, bank_ms=bank_ms)
    return GameStart(
        game=game_id, seat=seat, players=list(names), rules=ruleset.to_dict(), time=time, rng_seed=rng_seed
    )


def deal_message(game_id: str, round_1based: int, hand: Hand, discard: int) -> DealMessage:
    """The ``deal`` of round ``round_1based``: the hand (sorted here) and how many cards to discard."""
    return DealMessage(game=game_id, round=round_1based, hand=sorted(hand), discard=discard)


def turn_message(
    game_id: str, obs: Observation, legal: Sequence[Action] | None = None, *, names: Sequence[str]
) -> Turn:
    """The ``turn`` for ``obs.seat``; ``names`` are every seat's names (the table's ``name`` fields).

    With ``legal`` (for a bot whose hello asked ``"options":{"legal_moves":true}``) the turn lists them as
    replies. Raises ``ValueError`` when ``names`` does not have one name per seat or ``legal`` holds a discard.
    """
    return Turn(
        game=game_id,
        round=obs.round,
        seat=obs.seat,
        hand=list(obs.hand),
        last=obs.last,
        forced=obs.forced,
        players=player_entries(obs.players, names),
        history=[event_to_entry(e) for e in obs.history],
        legal=None if legal is None else [_turn_reply(a) for a in legal],
    )


def round_end_message(game_id: str, record: RoundRecord, *, names: Sequence[str]) -> RoundEnd:
    """The ``round_end`` of a finished round: its table at the end and its whole public history."""
    return RoundEnd(
        game=game_id,
        round=record.round,
        players=player_entries(record.players, names),
        history=[event_to_entry(e) for e in record.history],
    )


def game_end_message(
    game_id: str, scores: Sequence[int], ranks: Sequence[int], forfeits: Sequence[int] | Sequence[bool]
) -> GameEnd:
    """The ``game_end``: scores and ranks by seat, and the forfeited seats.

    ``forfeits`` is either the list of forfeited seats or one flag per seat (``state.forfeited``).
    """
    if len(forfeits) == len(scores) and all(isinstance(f, bool) for f in forfeits):
        seats = [s for s, flag in enumerate(forfeits) if flag]
    else:
        seats = sorted(int(s) for s in forfeits)
    return GameEnd(game=game_id, scores=list(scores), ranks=list(ranks), forfeits=seats)


def player_entries(players: Sequence[PlayerView], names: Sequence[str]) -> list[PlayerEntry]:
    """The table's ``players`` entries. Raises ``ValueError`` unless there is one name per seat."""
    if len(names) != len(players):
        raise ValueError(f"{len(names)} names for a table of {len(players)} seats")
    return [
        PlayerEntry(name=name, cards=p.cards, penalty=p.penalty, bonus=p.bonus, status=Status(p.status).value)
        for name, p in zip(names, players, strict=True)
    ]


def event_to_entry(event: Event) -> HistoryModel:
    """The ``history`` entry of an engine event."""
    if isinstance(event, PlayEvent):
        return PlayEntry(
            seat=event.seat,
            value=event.value,
            count=event.count,
            bonus=event.bonus,
            penalty=event.penalty,
            finished=event.finished,
            forfeit=event.forfeit,
        )
    if isinstance(event, PassEvent):
        return PassEntry(seat=event.seat, force=event.force, penalty=event.penalty)
    return DropEntry(seat=event.seat, penalty=event.penalty, forfeit=event.forfeit, limit=event.limit)


# ------------------------------------------------------------------------------------------ bot → referee


def reply_to_action(reply: TurnReplyModel) -> Play | Pass | Drop:
    """The engine action of a turn reply (legality is the engine's to check)."""
    return inbound.reply_to_action(reply)  # type: ignore[arg-type]  # the models have the named tuples' fields


def discard_to_action(seat: int, reply: DiscardReply) -> Discard:
    """The engine action of ``seat``'s discard reply (cards sorted; legality is the engine's to check)."""
    return Discard(seat, tuple(sorted(reply.cards)))


def action_to_reply(action: Action) -> TurnReplyModel | DiscardReply:
    """The reply a bot sends for an engine action."""
    if isinstance(action, Play):
        return PlayReply(value=action.value, count=action.count, bonus=action.bonus)
    if isinstance(action, Pass):
        return PassReply(force=action.force)
    if isinstance(action, Drop):
        return DropReply()
    return DiscardReply(cards=list(action.cards))


def _turn_reply(action: Action) -> TurnReplyModel:
    reply = action_to_reply(action)
    if isinstance(reply, DiscardReply):
        raise ValueError("a discard is not a legal move of a turn")
    return reply


# ------------------------------------------------------------------------------------------ bot side


def entry_to_event(entry: HistoryModel) -> Event:
    """The engine event of a ``history`` entry."""
    return inbound.entry_to_event(entry)  # type: ignore[arg-type]  # the models have the named tuples' fields


def player_view(entry: PlayerEntry) -> PlayerView:
    """The engine's view of one ``players`` entry (the name is not part of it)."""
    return inbound.player_view(entry)  # type: ignore[arg-type]  # the models have the named tuples' fields


def observation_from_turn(turn: Turn) -> Observation:
    """The engine observation a ``turn`` message carries (the bot's seat is the one to move)."""
    return inbound.observation_from_turn(turn)  # type: ignore[arg-type]  # the models have the named tuples' fields

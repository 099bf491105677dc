"""The referee's fast path to the wire: its messages of one game written straight from engine values.

``GameWire`` writes, byte for byte, what ``encode`` writes for the models that ``protocol.convert`` builds
(``deal_message``, ``turn_message``, ``round_end_message``, ``game_end_message``): the models and their JSON
Schema stay the contract, and the tests compare both paths over many random games. What this skips is the
models' cost: no validation of the referee's own values, no model per history entry. Each history entry of a
round is encoded once, when it first appears, and every ``turn`` and the ``round_end`` reuse the round's
encoded history, so a turn costs what changed since the last one, not the whole round so far.

The values come from the engine (trusted): nothing here checks them. Names and the game id are JSON-escaped
once, as the models do (UTF-8, not ``\\u`` escapes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from referee.engine.actions import Drop, Pass, Play
from referee.engine.events import DropEvent, PassEvent
from referee.memo import Memo

if TYPE_CHECKING:
    from referee.engine import Action, Event, Hand, Observation, PlayerView, RoundRecord

_Key = TypeVar("_Key")

_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _ints(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


#: Entries already encoded, by event. An entry is a function of its event alone, and a tournament's events repeat
#: (a few thousand distinct ones); the three kinds of event are tuples of different lengths, so no two kinds are
#: ever equal keys. Bounded: once full, further events are encoded each time.
_ENTRIES: Memo[Event, str] = Memo("protocol.wire.ENTRIES", 8192)


def history_entry(event: Event) -> str:
    """One ``history`` entry, as ``event_to_entry(event)`` encodes (false flags left out, as the models do)."""
    known = _ENTRIES.get(event)
    return known if known is not None else _ENTRIES.keep(event, _encode_entry(event))


def _encode_entry(event: Event) -> str:
    if isinstance(event, PassEvent):
        seat, force, penalty = event
        return f'{{"seat":{seat},"action":"pass","force":{"true" if force else "false"},"penalty":{penalty}}}'
    if isinstance(event, DropEvent):
        seat, penalty, forfeit, limit = event
        flags = (',"forfeit":true' if forfeit else "") + (',"limit":true' if limit else "")
        return f'{{"seat":{seat},"action":"drop","penalty":{penalty}{flags}}}'
    seat, value, count, bonus, penalty, finished, forfeit = event
    flags = (',"finished":true' if finished else "") + (',"forfeit":true' if forfeit else "")
    return (
        f'{{"seat":{seat},"action":"play","value":{value},"count":{count},"bonus":{bonus},"penalty":{penalty}{flags}}}'
    )


#: ``legal`` entries already encoded, by action (a game's moves come from a few hundred distinct ones; the three kinds
#: of move are tuples of different lengths, so no two kinds are equal keys).
_MOVES: Memo[Action, str] = Memo("protocol.wire.MOVES", 8192)


def legal_reply(action: Action) -> str:
    """One entry of a turn's ``legal`` list, as ``action_to_reply(action)`` encodes. Raises ``ValueError`` for
    a discard (not a move of a turn), as ``turn_message`` does."""
    known = _MOVES.get(action)
    return known if known is not None else _MOVES.keep(action, _encode_move(action))


def _encode_move(action: Action) -> str:
    if isinstance(action, Play):
        value, count, bonus = action
        return f'{{"type":"play","value":{value},"count":{count},"bonus":{bonus}}}'
    if isinstance(action, Pass):
        return '{"type":"pass","force":true}' if action.force else '{"type":"pass"}'
    if isinstance(action, Drop):
        return '{"type":"drop"}'
    raise ValueError("a discard is not a legal move of a turn")


class GameWire:
    """The lines of one game's messages; ``names`` are every seat's names (the table's ``name`` fields).

    Keeps the encoded history of the current round; a turn or round end of another round (or with a history
    that is not a continuation of the one kept) starts it afresh, so any call order gives the right bytes.
    """

    def __init__(self, game_id: str, names: Sequence[str]) -> None:
        self._game = _text(game_id)
        self._names = [_text(n) for n in names]
        self._round = 0  # the round whose history is kept
        self._events: list[Event] = []
        self._history = ""  # the entries joined with commas
        # Each seat's row of the table and each hand, as last encoded: a turn changes one row or none, and a hand
        # shows up again in every later turn of its seat until it plays.
        self._rows: list[tuple[PlayerView | None, str]] = [(None, "")] * len(self._names)
        self._hands: dict[Hand, str] = {}
        self._last_hands: list[tuple[Hand | None, str]] = [(None, "")] * len(self._names)  # by seat
        self._table: tuple[PlayerView, ...] | None = None  # the last table encoded, and its text
        self._table_text = ""

    def game_start(
        self,
        seat: int,
        rules: Mapping[str, object],
        move_ms: int,
        bank_ms: int | None = None,
        rng_seed: str | None = None,
    ) -> bytes:
        """The ``game_start`` line for ``seat`` (``encode(game_start_message(game_id, seat, names, ruleset,
        move_ms, bank_ms, rng_seed))`` with ``rules`` the ruleset's ``to_dict()``: integers and booleans)."""
        time = f'{{"move_ms":{move_ms}}}' if bank_ms is None else f'{{"move_ms":{move_ms},"bank_ms":{bank_ms}}}'
        rng = "" if rng_seed is None else f',"rng_seed":{_text(rng_seed)}'
        return (
            f'{{"type":"game_start","game":{self._game},"seat":{seat},"players":[{",".join(self._names)}],'
            f'"rules":{_text(rules)},"time":{time}{rng}}}\n'
        ).encode()

    def deal(self, round_1based: int, hand: Hand, discard: int) -> bytes:
        """The ``deal`` line (``encode(deal_message(...))``)."""
        return (
            f'{{"type":"deal","game":{self._game},"round":{round_1based},"hand":{_ints(sorted(hand))},'
            f'"discard":{discard}}}\n'
        ).encode()

    def turn(self, obs: Observation, legal: Sequence[Action] | None = None) -> bytes:
        """The ``turn`` line for ``obs.seat`` (``encode(turn_message(game_id, obs, legal, names=names))``)."""
        last = "null" if obs.last is None else obs.last
        seat = obs.seat
        hand = self._hand(seat, obs.hand)
        end = "]}\n" if legal is None else f'],"legal":[{",".join(map(legal_reply, legal))}]}}\n'
        return (
            f'{{"type":"turn","game":{self._game},"round":{obs.round},"seat":{seat},"hand":{hand},'
            f'"last":{last},"forced":{"true" if obs.forced else "false"},"players":{self._players(obs.players)},'
            f'"history":[{self._encoded_history(obs.round, obs.history)}{end}'
        ).encode()

    def round_end(self, record: RoundRecord) -> bytes:
        """The ``round_end`` line (``encode(round_end_message(game_id, record, names=names))``)."""
        history = self._encoded_history(record.round, record.history)
        return (
            f'{{"type":"round_end","game":{self._game},"round":{record.round},'
            f'"players":{self._players(record.players)},"history":[{history}]}}\n'
        ).encode()

    def game_end(self, scores: Sequence[int], ranks: Sequence[int], forfeited: Sequence[bool]) -> bytes:
        """The ``game_end`` line (``encode(game_end_message(game_id, scores, ranks, forfeited))``), with one
        forfeit flag per seat."""
        seats = [s for s, flag in enumerate(forfeited) if flag]
        return (
            f'{{"type":"game_end","game":{self._game},"scores":{_ints(scores)},"ranks":{_ints(ranks)},'
            f'"forfeits":{_ints(seats)}}}\n'
        ).encode()

    def _players(self, players: Sequence[PlayerView]) -> str:
        if self._table == players:  # the same seats as last time: the same check passed then
            return self._table_text
        if len(players) != len(self._names):
            raise ValueError(f"{len(self._names)} names for a table of {len(players)} seats")
        rows = self._rows
        for seat, view in enumerate(players):
            if rows[seat][0] != view:
                cards, penalty, bonus, status = view
                row = (
                    f'{{"name":{self._names[seat]},"cards":{cards},"penalty":{penalty},"bonus":{bonus},'
                    f'"status":"{status}"}}'
                )
                rows[seat] = (view, row)
        self._table = tuple(players)
        self._table_text = "[" + ",".join([row for _, row in rows]) + "]"
        return self._table_text

    def _hand(self, seat: int, hand: Hand) -> str:
        """The hand as a JSON list: the seat's last one when it is the same object (the engine keeps a hand's tuple
        until the seat plays), else from the kept ones when it is a tuple (the engine's hands are)."""
        last = self._last_hands[seat]
        if last[0] is hand:
            return last[1]
        if type(hand) is not tuple:
            return _ints(hand)
        known = self._hands.get(hand)
        if known is None:
            if len(self._hands) >= 256:
                self._hands.clear()
            known = self._hands[hand] = _ints(hand)
        self._last_hands[seat] = (hand, known)
        return known

    def _encoded_history(self, round_1based: int, history: Sequence[Event]) -> str:
        """The round's history entries joined with commas; only entries not seen before are encoded.

        Within a round the engine only appends to the history, and this relies on it: a history of another round,
        a shorter one, or one whose entry at the kept length differs starts the kept one afresh, but a history
        that differs only before that entry is taken for a continuation. Lines of unrelated histories need a
        ``GameWire`` of their own (as ``protocol.bounds`` uses)."""
        events = self._events
        kept = len(events)
        if round_1based != self._round or kept > len(history) or (kept and history[kept - 1] != events[-1]):
            self._round = round_1based
            events.clear()
            self._history = ""
            kept = 0
        if kept < len(history):
            new = history[kept:]
            events.extend(new)
            fresh = ",".join(map(history_entry, new))
            self._history = self._history + "," + fresh if kept else fresh
        return self._history

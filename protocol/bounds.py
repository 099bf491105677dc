"""The longest line the referee can send in a game, computed from the ruleset, the seats' names and the game id.

A turn carries the round's history so far, so its length grows with the round; the ruleset bounds it. The
bound is found by encoding, with the referee's own encoder, every message in its longest possible form:

- every number at its widest value (a play's penalty is between ``-finish_refund`` and 21, the most a card
  can skip; a drop's is at most ``hand_size``; a seat's running penalty at most 23 chips a turn);
- a round's history holds at most ``max_turns_per_round`` turns' entries (plays, passes, drops), plus a drop
  for each seat that did not leave the round on its own turn (a forfeit or the turn limit) and the referee's
  play of a forfeiter's 1; plays are at most the cards dealt to the table, drops at most one per seat;
- every optional flag set (``finished``, ``forfeit``, ``limit``), the ``legal`` list of a bot that asked for it
  (a play for every card held and every bonus chip count, then both passes and the drop).

``check_line_bound`` refuses, before a game, a ruleset and names whose bound is over ``MAX_SENT_LINE``, so the
referee never sends a longer line (PROTOCOL.md, "Line length").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from protocol.codec import encode
from protocol.messages import (
    DealMessage,
    DropEntry,
    DropReply,
    GameEnd,
    GameStart,
    HistoryEntry,
    PassEntry,
    PassReply,
    PlayEntry,
    PlayerEntry,
    PlayReply,
    RoundEnd,
    TimeControl,
    Turn,
    TurnReply,
)
from referee.engine import Ruleset, RulesetError
from referee.engine.deck import HIGHEST

#: The longest line, newline included, the referee sends to a bot (the limit on a bot's reply lines is the
#: same, ``protocol.MAX_LINE``).
MAX_SENT_LINE = 65_536

#: The largest turn limit and bonus chip count ``check_line_bound`` measures: more turns' entries, or plays, than
#: this are over ``MAX_SENT_LINE`` at more than 16 bytes each.
_MEASURED = MAX_SENT_LINE // 16
#: The most penalty chips one play can take: the highest card on the lowest ``last``, no bonus chip.
_MAX_PLAY_PENALTY = HIGHEST - 1 - 1
#: The widest millisecond count a ``time`` field can hold (any 64-bit integer).
_WIDEST_MS = 2**63 - 1


def _widest(*values: int) -> int:
    """The value of ``values`` with the most characters when written in JSON."""
    return max(values, key=lambda v: len(str(v)))


def _history(ruleset: Ruleset, seats: int, turns: int) -> list[HistoryEntry]:
    """The longest history of a round after ``turns`` turns (see the module docstring)."""
    seat = seats - 1
    held = seats * (ruleset.hand_size - ruleset.discard)
    play = PlayEntry(
        seat=seat,
        value=HIGHEST,
        count=3,
        bonus=ruleset.start_bonus,
        penalty=_widest(_MAX_PLAY_PENALTY, -ruleset.finish_refund),
        finished=True,
        forfeit=True,
    )
    pass_ = PassEntry(seat=seat, force=False, penalty=2)
    drop = DropEntry(seat=seat, penalty=ruleset.hand_size, forfeit=True, limit=True)
    # Plays and passes are turns, except the referee's play of a forfeiter's 1; drops are at most one a seat.
    plays = min(held, turns + 1)
    return [play] * plays + [pass_] * (turns + 1 - plays) + [drop] * seats


def _players(ruleset: Ruleset, names: Sequence[str]) -> list[PlayerEntry]:
    per_round = ruleset.max_turns_per_round * (_MAX_PLAY_PENALTY + 2) + ruleset.hand_size
    penalty = _widest(ruleset.rounds * per_round, -ruleset.rounds * ruleset.finish_refund)
    cards = ruleset.hand_size
    return [
        PlayerEntry(name=name, cards=cards, penalty=penalty, bonus=ruleset.start_bonus, status="finished")
        for name in names
    ]


def _legal(ruleset: Ruleset) -> list[TurnReply]:
    held = ruleset.hand_size - ruleset.discard
    play = PlayReply(value=HIGHEST, count=3, bonus=ruleset.start_bonus)
    return [*[play] * (held * (ruleset.start_bonus + 1)), PassReply(), PassReply(force=True), DropReply()]


def longest_line(ruleset: Ruleset, names: Sequence[str], game_id: str) -> int:
    """An upper bound on the bytes (newline included) of every line the referee sends to a seat in a game with
    ``ruleset``, the seats' ``names`` and the id ``game_id``; the longest is a turn or a ``round_end``.

    ``error`` lines are left out: one sentence about the bot's own fault, a few hundred bytes at most.
    """
    seats = len(names)
    seat = seats - 1
    rounds = ruleset.rounds
    players = _players(ruleset, names)
    hand = [HIGHEST] * ruleset.hand_size
    kept = hand[: ruleset.hand_size - ruleset.discard]
    widest_score = _widest(
        ruleset.rounds * (ruleset.max_turns_per_round * (_MAX_PLAY_PENALTY + 2) + ruleset.hand_size),
        -ruleset.rounds * ruleset.finish_refund - ruleset.bonus_refund * ruleset.start_bonus,
    )
    time = TimeControl(move_ms=_WIDEST_MS, bank_ms=_WIDEST_MS)
    turns = ruleset.max_turns_per_round
    messages = [
        GameStart(game=game_id, seat=seat, players=list(names), rules=ruleset.to_dict(), time=time),
        DealMessage(game=game_id, round=rounds, hand=hand, discard=ruleset.discard),
        Turn(
            game=game_id,
            round=rounds,
            seat=seat,
            hand=kept,
            last=HIGHEST,
            forced=False,
            players=players,
            history=_history(ruleset, seats, turns - 1),
            legal=_legal(ruleset),
        ),
        RoundEnd(game=game_id, round=rounds, players=players, history=_history(ruleset, seats, turns)),
        GameEnd(game=game_id, scores=[widest_score] * seats, ranks=[seats] * seats, forfeits=list(range(seats))),
    ]
    return max(len(encode(m)) for m in messages)


def check_line_bound(ruleset: Ruleset, names: Sequence[str], game_id: str) -> None:
    """Raise ``RulesetError`` when a game of ``names`` under ``ruleset`` could make the referee send a line over
    ``MAX_SENT_LINE`` bytes (see ``longest_line``), naming what to change.

    A turn limit or a bonus chip count over ``_MEASURED`` is over the limit whatever else: a history entry, or a play
    in ``legal``, takes more than 16 bytes. Such values are measured at ``_MEASURED`` instead (building their lines
    whole took gigabytes, or failed with an ``OverflowError``)."""
    ruleset.validate(len(names))  # a ruleset that cannot deal the table has no bound (a huge hand_size: no list)
    measured = replace(
        ruleset,
        max_turns_per_round=min(ruleset.max_turns_per_round, _MEASURED),
        start_bonus=min(ruleset.start_bonus, _MEASURED),
    )
    longest = longest_line(measured, names, game_id)
    if longest <= MAX_SENT_LINE:
        return
    widest = max(len(n.encode("utf-8")) for n in names)
    fits = _most_turns_that_fit(measured, names, game_id)
    advice = f"max_turns_per_round {fits} or less fits" if fits else "lower start_bonus or shorten the names"
    size = f"{longest:,}" if measured == ruleset else f"more than {longest:,}"
    raise RulesetError(
        f"with {len(names)} players, max_turns_per_round {ruleset.max_turns_per_round}, start_bonus "
        f"{ruleset.start_bonus} and names of up to {widest} bytes, the referee could have to send a line of "
        f"{size} bytes, over the {MAX_SENT_LINE:,} it may send: {advice}"
    )


def _most_turns_that_fit(ruleset: Ruleset, names: Sequence[str], game_id: str) -> int:
    """The largest ``max_turns_per_round`` (below the ruleset's) whose lines fit, or 0 when none does."""
    low, high = 0, ruleset.max_turns_per_round  # low fits (0: nothing does), high does not
    while high - low > 1:
        mid = (low + high) // 2
        if longest_line(replace(ruleset, max_turns_per_round=mid), names, game_id) <= MAX_SENT_LINE:
            low = mid
        else:
            high = mid
    return low

"""The longest line the referee can send in a game, computed from the ruleset, the seats' names and the game id.

A turn carries the round's history so far, so its length grows with the round; the ruleset bounds it. The
bound is found by writing, with the referee's own writer (``protocol.wire.GameWire``, byte for byte what the
models encode), every message in its longest possible form:

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

from protocol.wire import GameWire
from referee.engine import Drop, Pass, Play, Ruleset, RulesetError
from referee.engine.deck import HIGHEST
from referee.engine.events import DropEvent, Event, PassEvent, PlayEvent
from referee.engine.observation import Observation
from referee.engine.state import PlayerView, RoundRecord, Status
from referee.memo import Policy, memoized

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


def _history(ruleset: Ruleset, seats: int, turns: int) -> tuple[Event, ...]:
    """The longest history of a round after ``turns`` turns (see the module docstring)."""
    seat = seats - 1
    held = seats * (ruleset.hand_size - ruleset.discard)
    play = PlayEvent(
        seat=seat,
        value=HIGHEST,
        count=3,
        bonus=ruleset.start_bonus,
        penalty=_widest(_MAX_PLAY_PENALTY, -ruleset.finish_refund),
        finished=True,
        forfeit=True,
    )
    pass_ = PassEvent(seat=seat, force=False, penalty=2)
    drop = DropEvent(seat=seat, penalty=ruleset.hand_size, forfeit=True, limit=True)
    # Plays and passes are turns, except the referee's play of a forfeiter's 1; drops are at most one a seat.
    plays = min(held, turns + 1)
    return (play,) * plays + (pass_,) * (turns + 1 - plays) + (drop,) * seats


def _players(ruleset: Ruleset, seats: int) -> tuple[PlayerView, ...]:
    per_round = ruleset.max_turns_per_round * (_MAX_PLAY_PENALTY + 2) + ruleset.hand_size
    penalty = _widest(ruleset.rounds * per_round, -ruleset.rounds * ruleset.finish_refund)
    return (PlayerView(ruleset.hand_size, penalty, ruleset.start_bonus, Status.FINISHED),) * seats


def _legal(ruleset: Ruleset) -> list[Play | Pass | Drop]:
    held = ruleset.hand_size - ruleset.discard
    play = Play(HIGHEST, 3, ruleset.start_bonus)
    return [*[play] * (held * (ruleset.start_bonus + 1)), Pass(), Pass(force=True), Drop()]


def longest_line(ruleset: Ruleset, names: Sequence[str], game_id: str) -> int:
    """An upper bound on the bytes (newline included) of every line the referee sends to a seat in a game with
    ``ruleset``, the seats' ``names`` and the id ``game_id``; the longest is a turn or a ``round_end``.

    ``error`` lines are left out: one sentence about the bot's own fault, a few hundred bytes at most. Computed once
    for each ruleset, names and game id (a run asks more than once).
    """
    return _longest_line(ruleset, tuple(names), game_id)


@memoized("protocol.bounds.longest_line", 64, Policy.RENEW)
def _longest_line(ruleset: Ruleset, names: tuple[str, ...], game_id: str) -> int:
    return max(map(len, widest_lines(ruleset, names, game_id)))


def widest_lines(ruleset: Ruleset, names: Sequence[str], game_id: str) -> list[bytes]:
    """Every message of a game in its longest form (``game_start``, ``deal``, ``turn``, ``round_end``,
    ``game_end``), as the referee writes them."""
    seats = len(names)
    seat = seats - 1
    rounds = ruleset.rounds
    players = _players(ruleset, seats)
    hand = (HIGHEST,) * ruleset.hand_size
    kept = hand[: ruleset.hand_size - ruleset.discard]
    widest_score = _widest(
        ruleset.rounds * (ruleset.max_turns_per_round * (_MAX_PLAY_PENALTY + 2) + ruleset.hand_size),
        -ruleset.rounds * ruleset.finish_refund - ruleset.bonus_refund * ruleset.start_bonus,
    )
    turns = ruleset.max_turns_per_round
    wire = GameWire(game_id, names)
    history = _history(ruleset, seats, turns - 1)
    view = Observation(seat, rounds, kept, HIGHEST, False, seat, players, history)
    return [
        wire.game_start(seat, ruleset.to_dict(), _WIDEST_MS, _WIDEST_MS),
        wire.deal(rounds, hand, ruleset.discard),
        wire.turn(view, _legal(ruleset)),
        # Another writer: this history does not continue the turn's (GameWire keeps one round's, as a game grows it).
        GameWire(game_id, names).round_end(RoundRecord(rounds, (), (), _history(ruleset, seats, turns), players)),
        wire.game_end([widest_score] * seats, [seats] * seats, [True] * seats),
    ]


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

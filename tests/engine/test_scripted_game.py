"""One complete 2-player, 2-round game from an explicit deal, every chip worked out by hand."""

from __future__ import annotations

from referee.engine import (
    DROP,
    OPENING,
    PASS,
    PASS_FORCE,
    STANDARD,
    Discard,
    DropEvent,
    PassEvent,
    Phase,
    Play,
    PlayerView,
    PlayEvent,
    Status,
    apply,
    deal_from_json,
    legal_actions,
    new_game,
)

DEAL_FILE = {
    "rounds": [
        {
            "hands": [
                [1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 23, 23, 23],
                [6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 22, 22, 22],
            ]
        },
        {
            "hands": [
                [14, 14, 14, 15, 15, 15, 16, 16, 16, 17, 17, 17, 21, 21, 21],
                [1, 2, 2, 3, 10, 10, 10, 11, 11, 11, 12, 12, 12, 13, 13],
            ]
        },
    ]
}


def step(state, action, penalty, bonus):  # type: ignore[no-untyped-def]
    """Apply ``action`` and check both players' penalty and bonus chips afterwards."""
    state = apply(state, action)
    assert state.penalty == penalty, (action, state.penalty)
    assert state.bonus == bonus, (action, state.bonus)
    return state


def test_a_complete_two_round_game_scored_by_hand() -> None:
    s = new_game(2, STANDARD, deal=deal_from_json(DEAL_FILE, STANDARD))
    assert s.phase is Phase.DISCARD
    assert s.bonus == (3, 3)

    # ---- Round 1. Both discard their three high cards; seat 0 keeps 1 2 2 3 3 3 4 4 4 5 5 5,
    # seat 1 keeps 6 6 6 7 7 7 8 8 8 9 9 9.
    s = apply(s, Discard(1, (22, 22, 22)))
    s = apply(s, Discard(0, (23, 23, 23)))
    assert s.phase is Phase.PLAY
    assert s.to_move == 0  # seat 0 holds the 1
    s = step(s, OPENING, (0, 0), (3, 3))
    # Three 6s on the 1 skip 2 3 4 5: 4 chips.
    s = step(s, Play(6, 3, 0), (0, 4), (3, 3))
    # Two 2s on the 6 with one bonus chip (2 >= 6 - 5): free, the chip is spent.
    s = step(s, Play(2, 2, 1), (0, 4), (2, 3))
    # Three 7s on a 2 skip 3 4 5 6: 4 chips (8 in all).
    s = step(s, Play(7, 3, 0), (0, 8), (2, 3))
    # Three 3s on the 7 with one chip (3 >= 2): free.
    s = step(s, Play(3, 3, 1), (0, 8), (1, 3))
    # Seat 1 passes: 1 chip.
    s = step(s, PASS, (0, 9), (1, 3))
    # Three 4s on a 3: one higher, free.
    s = step(s, Play(4, 3, 0), (0, 9), (1, 3))
    # Three 8s on a 4 skip 5 6 7: 3 chips.
    s = step(s, Play(8, 3, 0), (0, 12), (1, 3))
    # Seat 0 passes and forces seat 1: 2 chips.
    s = step(s, PASS_FORCE, (2, 12), (1, 3))
    assert s.forced
    assert legal_actions(s) == [Play(9, c, b) for c in (1, 2, 3) for b in range(4)] + [DROP]
    # Forced seat 1 plays its last cards, three 9s on an 8: free, and finishing gives back 3: 12 - 3 = 9.
    s = step(s, Play(9, 3, 0), (2, 9), (1, 3))
    assert s.history[-1] == PlayEvent(1, 9, 3, 0, -3, finished=True)
    assert s.status == (Status.PLAYING, Status.FINISHED)
    # Seat 0 plays on alone: three 5s on the 9 with its last chip (5 >= 4), free, and finishes: 2 - 3 = -1.
    assert s.to_move == 0 and not s.forced
    s = step(s, Play(5, 3, 1), (-1, 9), (0, 3))

    # ---- The round is over; round 2 is dealt.
    assert s.round == 1 and s.phase is Phase.DISCARD
    r1 = s.rounds_done[0]
    assert r1.round == 1
    assert r1.discards == ((23, 23, 23), (22, 22, 22))
    assert r1.players == (PlayerView(0, -1, 0, Status.FINISHED), PlayerView(0, 9, 3, Status.FINISHED))
    assert [e.penalty for e in r1.history] == [0, 4, 0, 4, 0, 1, 0, 3, 2, -3, -3]
    assert r1.history[5] == PassEvent(1, False, 1)
    assert r1.history[8] == PassEvent(0, True, 2)

    # ---- Round 2. Seat 0 keeps 14 14 14 15 15 15 16 16 16 17 17 17; seat 1 holds the 1 and throws
    # away its low cards: 1 10 10 10 11 11 11 12 12 12 13 13. Chips carried over: (-1, 9), bonus (0, 3).
    s = apply(s, Discard(0, (21, 21, 21)))
    s = apply(s, Discard(1, (2, 2, 3)))
    assert s.to_move == 1
    s = step(s, OPENING, (-1, 9), (0, 3))
    s = step(s, PASS, (0, 9), (0, 3))
    # Three 10s on the 1: 8 chips.
    s = step(s, Play(10, 3, 0), (0, 17), (0, 3))
    # Two 14s on a 10 skip 11 12 13: 3 chips.
    s = step(s, Play(14, 2, 0), (3, 17), (0, 3))
    # Three 11s on the 14 with one chip (11 >= 9): free.
    s = step(s, Play(11, 3, 1), (3, 17), (0, 2))
    # The last 14 on an 11: 2 chips.
    s = step(s, Play(14, 1, 0), (5, 17), (0, 2))
    # Three 12s on the 14 with one chip: free.
    s = step(s, Play(12, 3, 1), (5, 17), (0, 1))
    # Three 15s on a 12: 2 chips.
    s = step(s, Play(15, 3, 0), (7, 17), (0, 1))
    # Seat 1 drops with two 13s in hand: 2 chips.
    s = step(s, DROP, (7, 19), (0, 1))
    assert s.history[-1] == DropEvent(1, 2)
    # Seat 0 alone: 16s free, then 17s free and finished: 7 - 3 = 4.
    s = step(s, Play(16, 3, 0), (7, 19), (0, 1))
    s = step(s, Play(17, 3, 0), (4, 19), (0, 1))

    # ---- Game over. Seat 0: 4 chips, no bonus chip: score 4. Seat 1: 19 chips, one bonus chip worth 2: 17.
    assert s.phase is Phase.OVER
    assert s.scores == (4, 17)
    assert s.ranks == (1, 2)
    r2 = s.rounds_done[1]
    assert [e.penalty for e in r2.history] == [0, 1, 8, 3, 0, 2, 0, 2, 2, 0, -3]
    # Each player's penalty is the sum of their history penalties over both rounds.
    for seat in (0, 1):
        assert sum(e.penalty for r in s.rounds_done for e in r.history if e.seat == seat) == s.penalty[seat]

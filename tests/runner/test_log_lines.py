"""The game log's fast lines are the records' lines: ``GameLogWriter.action``, ``discard``, ``round_end``, ``header``,
``player`` and ``result`` write, byte for byte, what ``record`` writes for ``ActionEvent``, ``DiscardEvent``,
``RoundEndEvent``, ``LogHeader``, ``PlayerEvent`` and ``ResultEvent``; ``sent`` embeds
the message without its newline; ``received`` writes the same line whether its JSON string came from the cache or
was encoded afresh."""

from __future__ import annotations

import random
from pathlib import Path

from referee.engine import Phase, Ruleset, State, apply, discard_options, forfeit, legal_actions, new_game
from referee.engine.actions import Discard
from referee.runner import gamelog
from referee.runner.faults import Fault
from referee.runner.gamelog import GameLogWriter, applied_events, json_text
from referee.runner.logrecords import (
    ActionEvent,
    DiscardEvent,
    LogHeader,
    PlayerEvent,
    ResultEvent,
    RoundEndEvent,
)


class _FixedClock(GameLogWriter):
    """A writer whose clock stands still (every time it writes is 0.0), so two writers' lines can be compared."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, clock=lambda: 7.25)


def test_action_discard_and_round_end_lines_are_the_records_lines_over_random_games(tmp_path: Path) -> None:
    rng = random.Random(13)
    fast_path, slow_path = tmp_path / "fast.jsonl", tmp_path / "slow.jsonl"
    actions = rounds = 0
    with _FixedClock(fast_path) as fast, _FixedClock(slow_path) as slow:
        for game in range(60):
            players = 2 + game % 3
            state = new_game(players, seed=rng.randrange(2**32))
            turn = 0
            while not state.is_over:
                done = len(state.rounds_done)
                if state.phase is Phase.DISCARD:
                    seat = next(s for s in range(players) if state.discards[s] is None)
                    options = discard_options(state.hands[seat], state.ruleset.discard)
                    cards = options[rng.randrange(len(options))]
                    state = apply(state, Discard(seat, cards))
                    by = "bot" if rng.random() < 0.5 else "referee"
                    fast.discard(state.round + 1, seat, cards, by)
                    slow.record(DiscardEvent(slow.ms(), state.round + 1, seat, tuple(cards), by))  # type: ignore[arg-type]
                elif rng.random() < 0.002:  # a forfeit now and then: entries with their flags, rounds cut short
                    state = forfeit(state, state.to_move)
                else:
                    state = _turn(state, rng, turn := turn + 1, fast, slow)
                    actions += 1
                for record in state.rounds_done[done:]:
                    fast.round_end(record)
                    table = tuple(p._asdict() for p in record.players)
                    slow.record(RoundEndEvent(slow.ms(), record.round, tuple(record.discards), table))
                    rounds += 1
    assert actions > 1000 and rounds > 100
    assert fast_path.read_bytes() == slow_path.read_bytes()


def _turn(state: State, rng: random.Random, turn: int, fast: GameLogWriter, slow: GameLogWriter) -> State:
    """Play a random legal move of ``state``, logging it both ways."""
    action = rng.choice(legal_actions(state))
    new = apply(state, action)
    events = applied_events(state, new)
    fast.action(state.round + 1, turn, state.to_move, action, events)
    entries = tuple(e.to_dict() for e in events)
    slow.record(ActionEvent(slow.ms(), state.round + 1, turn, state.to_move, action, entries))
    return new


def test_a_received_line_is_logged_alike_from_the_cache_and_afresh(tmp_path: Path) -> None:
    lines = [b'{"type":"play","value":5,"count":1,"bonus":0}', b'{"type":"pass"}\r', "caf\u00e9 \u2028".encode(),
             b'\xff\xfe{"type": "drop"}', b"x" * 300]  # fmt: skip
    written = []
    for attempt in range(3):
        if attempt == 2:
            gamelog._LINES.clear()
        path = tmp_path / f"recv{attempt}.jsonl"
        with _FixedClock(path) as log:
            for seat, line in enumerate(lines):
                log.received(seat, line, 0.0015)
        written.append(path.read_bytes())
    assert written[0] == written[1] == written[2]
    assert b'"line":"caf\\u00e9 \\u2028"' in written[0]
    assert b'"line":"\\ufffd\\ufffd{\\"type\\": \\"drop\\"}"' in written[0]


def test_a_sent_line_embeds_the_message_without_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "sent.jsonl"
    with _FixedClock(path) as log:
        log.sent(1, b'{"type":"bye"}\n')
        log.sent(2, b'{"type":"bye"}')
        log.sent(3, b'{"type":"bye"}\n\n')
    assert path.read_bytes() == b"".join(
        b'{"event":"send","t":0.0,"seat":%d,"msg":{"type":"bye"}}\n' % seat for seat in (1, 2, 3)
    )


def test_header_player_and_result_lines_are_the_records_lines(tmp_path: Path) -> None:
    rng = random.Random(5)
    fast_path, slow_path = tmp_path / "fast.jsonl", tmp_path / "slow.jsonl"
    names = ["greedy", 'quo"te', "caf\u00e9 \u2028", "tab\there", "\U0001f600"]
    hellos: list[dict[str, object] | None] = [
        None,
        {"type": "hello", "protocol": 1, "name": "x"},
        {"type": "hello", "protocol": 1, "name": '\u00e9"\\', "version": "1.0", "wants_legal_moves": True},
    ]
    with _FixedClock(fast_path) as fast, _FixedClock(slow_path) as slow:
        for game in range(40):
            players = 2 + game % 3
            ruleset = Ruleset(discard=rng.choice([0, 3]), rounds=rng.choice([1, 2, 3]), chip_floor=rng.random() < 0.5)
            seed = None if game % 3 == 0 else rng.randrange(2**63)
            state = new_game(players, ruleset, seed=rng.randrange(2**32))
            seats = tuple(rng.choice(names) for _ in range(players))
            move_ms = tuple(rng.choice([None, 1, 1000]) for _ in range(players))
            header = LogHeader(f"g{game}-\u00e9", seats, ruleset, seed, state.deal, move_ms)
            fast.header(header)
            slow.record(header)
            for seat, name in enumerate(seats):
                hello = rng.choice(hellos)
                fast.player(seat, name, json_text(hello))
                slow.record(PlayerEvent(seat, name, hello))
            scores = tuple(rng.randrange(-50, 50) for _ in range(players))
            ranks = tuple(rng.randrange(1, players + 1) for _ in range(players))
            forfeits = tuple(s for s in range(players) if rng.random() < 0.2)
            late = Fault(seat=0, kind="timeout", round=1, turn=3, detail="late", line=None)
            faults = (late,) if game % 5 == 0 else ()
            result = ResultEvent(slow.ms(), scores, ranks, forfeits, faults)
            fast.result(result)
            slow.record(result)
    assert fast_path.read_bytes() == slow_path.read_bytes()


def test_times_are_written_as_the_floats_repr() -> None:
    """The lines the writer assembles write a time as ``repr(round(seconds * 1e6) / 1000)`` would (what ``record``
    writes for a record's float), without formatting a float."""
    rng = random.Random(3)
    counts = [*range(1_000_000), *(rng.randrange(10**13) for _ in range(100_000))]
    for us in counts:
        assert gamelog._ms_text(us / 1e6) == repr(round(us / 1e6 * 1e6) / 1000)
    for seconds in (0.0, 1e-7, 4e-7, 6e-7, 0.0015, 0.0125, 1.0, 59.999_999_6, 3600.25, rng.random() * 1e5):
        text = repr(round(seconds * 1e6) / 1000)
        assert gamelog._ms_text(seconds) == text and gamelog._ms_bytes(seconds) == text.encode()

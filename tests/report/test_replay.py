"""Replays: a game re-run through the engine and encoded for the page keeps every event, seat to move and chip."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.engine import STANDARD, Discard, Phase, Ruleset, apply, discard_options, forfeit, legal_actions, new_game
from referee.report import Forfeit, ReplayError, encode_replay, read_game_log, run_steps
from referee.report.replay import Step
from referee.runner.gamelog import log_content
from tests.report.dbread import query


def random_steps(seed: int, players: int, forfeits: int, ruleset: Ruleset = STANDARD) -> list[Step]:
    """A random legal game with ``forfeits`` referee forfeits at random moments (in and out of turn, in discards)."""
    rng = random.Random(seed)
    state = new_game(players, ruleset, seed=seed)
    steps: list[Step] = []
    left = forfeits
    while not state.is_over:
        if left and rng.random() < 0.05:
            seat = rng.randrange(players)
            if not state.forfeited[seat]:
                state = forfeit(state, seat)
                steps.append(Forfeit(seat))
                left -= 1
                continue
        if state.phase is Phase.DISCARD:
            seat = rng.choice([s for s in range(players) if state.discards[s] is None])
            action: Discard | object = Discard(seat, rng.choice(discard_options(state.hands[seat], ruleset.discard)))
        else:
            action = rng.choice(legal_actions(state))
        state = apply(state, action)  # type: ignore[arg-type]
        steps.append(action)  # type: ignore[arg-type]
    return steps


@pytest.mark.parametrize("seed", range(40))
def test_encoded_events_match_the_engine(seed: int) -> None:
    players = 2 + seed % 3
    ruleset = STANDARD if seed % 5 else Ruleset(max_turns_per_round=12)  # also games cut by the turn limit
    steps = random_steps(seed, players, forfeits=seed % 3, ruleset=ruleset)
    states = run_steps(players, ruleset, steps, seed=seed)
    final = states[-1]
    rep = encode_replay(players, ruleset, steps, seed=seed)
    json.dumps(rep)  # JSON-ready
    assert rep["n"] == players
    assert rep["s"] == list(final.scores or ()) and rep["k"] == list(final.ranks or ())
    assert rep["f"] == [s for s in range(players) if final.forfeited[s]]
    assert len(rep["r"]) == len(final.rounds_done)
    pen, bon = [0] * players, [ruleset.start_bonus] * players
    for r, (enc, record) in enumerate(zip(rep["r"], final.rounds_done, strict=True)):
        assert enc["h"] == [list(h) for h in record.hands]
        assert enc["d"] == [list(d) for d in record.discards]
        assert (enc["p"], enc["b"]) == (pen, bon), r
        assert len(enc["e"]) == len(record.history)
        for ev, event in zip(enc["e"], record.history, strict=True):
            d = event.to_dict()
            assert ev[0] == d["seat"]
            kind = ["play", "pass", "drop"][ev[1]]
            assert kind == d["action"]
            if kind == "play":
                assert ev[2:6] == [d["value"], d["count"], d["bonus"], d["penalty"]]
                assert ev[6] == (1 if d.get("finished") else 0) | (2 if d.get("forfeit") else 0)
            elif kind == "pass":
                assert ev[2:4] == [int(d["force"]), d["penalty"]]
            else:
                assert ev[2:4] == [d["penalty"], (1 if d.get("forfeit") else 0) | (2 if d.get("limit") else 0)]
        assert enc["e"][-1][-1] == -1  # nobody moves after the last event of a round
        pen, bon = [p.penalty for p in record.players], [p.bonus for p in record.players]
    # "next": the engine's seat to move after the step that produced the event
    for state in states[1:]:
        if state.phase is Phase.PLAY and state.history:
            ev = rep["r"][len(state.rounds_done)]["e"][len(state.history) - 1]
            assert ev[-1] == state.to_move


def test_an_illegal_step_is_a_replay_error_naming_the_step() -> None:
    steps = random_steps(3, 3, forfeits=0)
    turn = next(i for i, s in enumerate(steps) if not isinstance(s, Discard))
    bad = [*steps[:turn], Discard(0, (5, 6, 7))]
    with pytest.raises(ReplayError, match=rf"step {turn + 1} \(Discard"):
        encode_replay(3, STANDARD, bad, seed=3)


def test_a_game_log_replays_to_the_stored_result(tournament: Path) -> None:
    for game_id, log_path in query(tournament, "SELECT game_id, log_path FROM games ORDER BY ordinal"):
        logged = read_game_log(tournament / log_path)
        stored = [s for (s,) in query(tournament, "SELECT score FROM seats WHERE game_id=? ORDER BY seat", game_id)]
        assert list(logged.scores or ()) == stored
        rep = encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
        assert rep["s"] == stored, game_id


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("", "is empty"),
        ('{"event":"action","action":{"type":"pass"}}\n', "first event is not the 'game' header"),
        ("not json\n", ":1: not a game log event"),
        (None, "cannot read game log"),
    ],
)
def test_a_broken_log_is_a_replay_error_naming_the_file(tmp_path: Path, content: str | None, needle: str) -> None:
    path = tmp_path / "g1.jsonl"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ReplayError, match=r"g1\.jsonl") as err:
        read_game_log(path)
    assert needle in str(err.value)


def test_a_bad_line_later_in_a_real_log_names_its_line(tournament: Path, tmp_path: Path) -> None:
    (log_path,) = query(tournament, "SELECT log_path FROM games ORDER BY ordinal LIMIT 1")[0]
    lines = log_content(tournament / log_path).decode().splitlines()
    index = next(i for i, line in enumerate(lines) if '"event":"action"' in line)
    lines[index] = '{"event":"action","action":{"type":"jump"}}'
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match=rf"bad.jsonl:{index + 1}: .*jump"):
        read_game_log(bad)

"""The longest line the referee sends: ``protocol.longest_line`` bounds every line of real games, the bound is
tight for the standard ruleset, and a ruleset or names that could break ``MAX_SENT_LINE`` are refused before
any game, by the API and by ``referee play`` / ``referee run``, in one line."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol import (
    MAX_LINE,
    MAX_SENT_LINE,
    DealMessage,
    GameEnd,
    GameStart,
    GameWire,
    RoundEnd,
    TimeControl,
    Turn,
    action_to_reply,
    bounds,
    check_line_bound,
    encode,
    event_to_entry,
    longest_line,
    player_entries,
)
from protocol.bounds import widest_lines
from referee.cli import main
from referee.engine import (
    STANDARD,
    Discard,
    Drop,
    Pass,
    Phase,
    Ruleset,
    RulesetError,
    apply,
    discard_options,
    forfeit,
    legal_actions,
    new_game,
    observation_for,
)

#: Names as an organiser may give them: long, quoted, escaped, non-ASCII (control characters take 6 bytes).
NAMES = ["x" * 40, 'q"uote\\back', "tab\there", "émile ☃ 😀", "\x01\x1f" * 10, "greedy", "b"]


def longest_sent(ruleset: Ruleset, names: list[str], game_id: str, rng: random.Random, pass_bias: float) -> int:
    """Play one random game and return the length of the longest line the referee would send in it (every
    turn with its legal list, every round_end), built by the referee's own ``GameWire``."""
    wire = GameWire(game_id, names)
    state = new_game(len(names), ruleset, seed=rng.getrandbits(32))
    longest = 0
    rounds_seen = 0
    forfeit_rate = rng.choice([0.0, 0.0005])
    while state.phase is not Phase.OVER:
        for record in state.rounds_done[rounds_seen:]:
            longest = max(longest, len(wire.round_end(record)))
        rounds_seen = len(state.rounds_done)
        if rng.random() < forfeit_rate:
            seat = rng.randrange(len(names))
            if not state.forfeited[seat]:
                state = forfeit(state, seat)
                continue
        if state.phase is Phase.DISCARD:
            seat = next(s for s in range(len(names)) if state.discards[s] is None)
            state = apply(state, Discard(seat, rng.choice(discard_options(state.hands[seat], ruleset.discard))))
            continue
        legal = legal_actions(state)
        longest = max(longest, len(wire.turn(observation_for(state, state.to_move), legal)))
        passes = [a for a in legal if isinstance(a, Pass) and not a.force]
        others = [a for a in legal if not isinstance(a, Pass | Drop)] or legal  # a drop only when nothing else
        state = apply(state, rng.choice(passes if passes and rng.random() < pass_bias else others))
    for record in state.rounds_done[rounds_seen:]:
        longest = max(longest, len(wire.round_end(record)))
    return longest


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_bound_holds_and_is_tight_over_long_standard_games_at_the_turn_limit(seats: int) -> None:
    """Rounds of passes that reach the 1,000-turn limit make the longest lines there are; every one of them is
    within the bound, and the longest comes within 8% of it (the bound is not loose)."""
    rng = random.Random(seats)
    names = ["x" * 40] * seats
    bound = longest_line(STANDARD, names, "g000001")
    assert bound <= MAX_SENT_LINE
    seen = max(longest_sent(STANDARD, names, "g000001", rng, pass_bias=0.995) for _ in range(3))
    assert seen <= bound
    assert seen >= 0.92 * bound, (seen, bound)


def _random_ruleset(rng: random.Random, seats: int, rounds: int = 3, turns: int = 20) -> Ruleset:
    hand = rng.randint(3, 66 // seats)
    return Ruleset(
        chip_floor=rng.random() < 0.3,
        rounds=rng.randint(1, rounds),
        hand_size=hand,
        discard=rng.randint(0, hand - 1),
        start_bonus=rng.randint(0, 12),
        bonus_step=rng.randint(1, 8),
        finish_refund=rng.choice([0, 3, 12345]),
        bonus_refund=rng.randint(0, 9),
        max_turns_per_round=rng.randint(turns, 400),
    )


@pytest.mark.parametrize("block", range(4))
def test_the_bound_holds_over_random_rulesets_names_and_games(block: int) -> None:
    rng = random.Random(100 + block)
    for _ in range(6):
        seats = rng.randint(2, 4)
        ruleset = _random_ruleset(rng, seats)
        names = rng.sample(NAMES, seats)
        game_id = rng.choice(["g000001", "play-20261130-203000-s4294967295", 'odd "id" é'])
        bound = longest_line(ruleset, names, game_id)
        for _ in range(3):
            assert longest_sent(ruleset, names, game_id, rng, pass_bias=rng.choice([0.5, 0.99])) <= bound


def _model_lines(ruleset: Ruleset, names: list[str], game_id: str) -> list[bytes]:
    """The messages of ``widest_lines`` built through the pydantic models (the contract) and encoded."""
    seats, seat, rounds = len(names), len(names) - 1, ruleset.rounds
    lines = widest_lines(ruleset, names, game_id)
    start, deal, turn, round_end, end = (json.loads(line) for line in lines)
    history = [event_to_entry(e) for e in bounds._history(ruleset, seats, ruleset.max_turns_per_round - 1)]
    last_history = [event_to_entry(e) for e in bounds._history(ruleset, seats, ruleset.max_turns_per_round)]
    players = player_entries(bounds._players(ruleset, seats), names)
    messages = [
        GameStart(game=game_id, seat=seat, players=names, rules=ruleset.to_dict(), time=TimeControl(**start["time"])),
        DealMessage(game=game_id, round=rounds, hand=deal["hand"], discard=ruleset.discard),
        Turn(
            game=game_id,
            round=rounds,
            seat=seat,
            hand=turn["hand"],
            last=turn["last"],
            forced=False,
            players=players,
            history=history,
            legal=[action_to_reply(a) for a in bounds._legal(ruleset)],
        ),
        RoundEnd(game=game_id, round=rounds, players=players, history=last_history),
        GameEnd(game=game_id, scores=end["scores"], ranks=end["ranks"], forfeits=list(range(seats))),
    ]
    assert [m["type"] for m in (start, deal, turn, round_end, end)] == [m.type for m in messages]
    return [encode(m) for m in messages]


@pytest.mark.parametrize("block", range(3))
def test_the_widest_lines_are_the_models_byte_for_byte(block: int) -> None:
    """The bound is measured on lines the referee writes without the models; they are the models' bytes."""
    rng = random.Random(200 + block)
    for _ in range(8):
        seats = rng.randint(2, 4)
        ruleset = _random_ruleset(rng, seats, rounds=12, turns=1)
        names, game_id = rng.sample(NAMES, seats), rng.choice(["g000001", 'odd "id" é\x01'])
        assert widest_lines(ruleset, names, game_id) == _model_lines(ruleset, names, game_id)
        assert longest_line(ruleset, names, game_id) == max(map(len, _model_lines(ruleset, names, game_id)))


def test_replies_and_referee_lines_share_one_limit() -> None:
    assert MAX_SENT_LINE == MAX_LINE


def test_a_ruleset_that_could_break_the_limit_is_refused_with_the_largest_turn_limit_that_fits() -> None:
    names = ["greedy", "heuristic", "random_bot", "montecarlo"]
    check_line_bound(STANDARD, names, "g000001")  # the standard ruleset fits
    with pytest.raises(RulesetError, match=r"max_turns_per_round (\d+) or less fits") as info:
        check_line_bound(Ruleset(max_turns_per_round=5000), names, "g000001")
    fits = int(info.value.args[0].rsplit("max_turns_per_round ", 1)[1].split()[0])
    assert longest_line(replace(STANDARD, max_turns_per_round=fits), names, "g000001") <= MAX_SENT_LINE
    assert longest_line(replace(STANDARD, max_turns_per_round=fits + 1), names, "g000001") > MAX_SENT_LINE
    with pytest.raises(RulesetError, match="lower start_bonus or shorten the names"):
        check_line_bound(Ruleset(start_bonus=300), names, "g000001")
    with pytest.raises(RulesetError, match="names of up to 20000 bytes"):
        check_line_bound(STANDARD, ["n" * 20000, "b"], "g000001")


@pytest.mark.parametrize(
    ("options", "advice"),
    [
        ({"max_turns_per_round": 10**9}, "max_turns_per_round 1"),  # its lines would take gigabytes to build
        ({"max_turns_per_round": 10**23}, "max_turns_per_round 1"),  # OverflowError building them
        ({"start_bonus": 10**12}, "lower start_bonus"),
    ],
)
def test_a_huge_turn_limit_or_bonus_is_refused_at_once(options: dict[str, int], advice: str) -> None:
    """Values far over the limit are refused with the same advice, without building their lines whole."""
    with pytest.raises(RulesetError, match=r"a line of more than [\d,]+ bytes") as info:
        check_line_bound(Ruleset(**options), ["greedy", "heuristic"], "g000001")
    assert advice in str(info.value)


@pytest.mark.parametrize("command", ["play", "run"])
def test_play_and_run_refuse_such_a_ruleset_in_one_line_before_any_game(tmp_path: Path, command: str) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text('{"max_turns_per_round": 4000}')
    bots = ["sample_bots/greedy.py", "sample_bots/random_bot.py"]
    extra = ["--out", str(tmp_path / "out")] if command == "run" else ["--log", str(tmp_path / "g.jsonl")]
    result = CliRunner().invoke(main, [command, *bots, "--rules", str(rules), *extra])
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit), "no traceback"
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "max_turns_per_round" in lines[0] and "65,536" in lines[0], result.output
    assert not (tmp_path / "g.jsonl").exists() and not (tmp_path / "out" / "games").exists()

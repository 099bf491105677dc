"""Real misbehaving bot files against an honest one, in both sandbox modes, and bare with every wait for a turn's
reply allowed to hold the loop (``RunnerConfig.hold_loop``, as a lane alone in its process plays).

Each misbehaving bot must be forfeited with the right fault kind; the honest bot finishes the game; the log
re-verifies through the engine; afterwards no process of the game remains. All games of one sandbox mode run
concurrently (a few at a time) in one trio run, and each test checks one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio

from referee.engine import STANDARD, seeded_deal
from referee.runner import GameResult, Limits, RunnerConfig, memory_cgroup
from referee.runner.config import HOLD_LOOP_MAX
from referee.runner.faults import FAULT_KINDS

from .helpers import MODES, assert_verified, bot, config, new_mark, pids_enforced, play_games, processes_with

MiB = 1024 * 1024


@dataclass(frozen=True)
class Case:
    bot: str
    kind: str | None  # expected fault kind of the misbehaving seat; None: no fault at all
    words: str = ""  # expected in the fault's detail
    env: dict[str, str] = field(default_factory=dict)
    settings: dict[str, object] = field(default_factory=dict)  # runner settings of the misbehaving seat
    opponent: str = "honest"
    seat: int = 0  # the misbehaving seat (the opponent takes the other)
    seed: int = 1
    before_deal: bool = False  # the fault comes before the first deal (recorded in round 0)


def _seed_with_one_at(seat: int) -> int:
    """A seed whose first round deals the 1 to ``seat`` (of two)."""
    return next(s for s in range(100) if 1 in seeded_deal(s, 2, STANDARD)[0][seat])


def _timeout(bot: str, **env: str) -> Case:
    return Case(bot, "timeout", "deadline", env, {"move_time": 1.0})


def _illegal(mode: str, kind: str, words: str) -> Case:
    seed = _seed_with_one_at(0) if mode in ("opening", "discard_one") else 1
    return Case("illegal", kind, words, {"ILLEGAL": mode}, seed=seed)


CASES: dict[str, Case] = {
    "crash_start": Case("crash_start", "startup", "exit code 3"),
    "crash_mid": Case("crash_mid", "crash", "exit code 1"),
    # A death by signal is named, also from the sandbox (where bwrap reports it as exit code 128 + N).
    "segfault": Case("segfault", "crash", "killed by SIGSEGV (a segmentation fault: a bad pointer"),
    "cpu_burner": Case(
        "cpu_burner",
        "crash",
        "killed by SIGKILL (not sent by the referee: most likely the CPU-time limit (cpu_seconds=1 per process)",
        settings={"limits": Limits(cpu_seconds=1), "move_time": 60.0},  # a busy machine: CPU time comes slowly
    ),
    # Nothing on stdout by the start-up time: the message says the reply may be stuck in the bot's buffer.
    "unflushed": Case(
        "unflushed",
        "startup",
        "no hello reply within 2 s, and nothing at all arrived on stdout: if the bot did answer, its reply is still "
        "in its output buffer. Flush stdout after each line (C: fflush(stdout);",
        settings={"startup_time": 2.0},
    ),
    "no_newline": Case(
        "no_newline", "startup", "part of a line arrived, but no newline", settings={"startup_time": 2.0}
    ),
    # It exits between its hello and the game's start (the opponent answers hello late, so the exit is seen).
    "exit_after_hello": Case("exit_after_hello", "crash", "exit code 3", opponent="slow_hello", before_deal=True),
    "hang": _timeout("hang"),
    "slow": _timeout("slow", SLOW_SECONDS="3"),
    "invalid_json": Case("invalid_json", "invalid_json", "not valid JSON"),
    "not_object": Case("not_object", "not_object", "array"),
    "unknown_type": Case("unknown_type", "unknown_type", "attack"),
    "wrong_type": Case("wrong_type", "wrong_type", "discard"),
    "bad_fields": Case("bad_fields", "bad_field", "value"),
    "old_protocol": Case("old_protocol", "protocol_version", "protocol 2"),
    "long_line": Case("long_line", "line_too_long", "65536"),
    "flood": Case("flood", "unsolicited", "no reply was awaited"),
    # It drops out of round 2 and exits: nothing more is asked of it, but the game is not over.
    "leaves": Case("leaves", "crash", "exit code 3", opponent="steady"),
    "closed_stdout": Case("closed_stdout", "crash", "closed its output", settings={"move_time": 1.0}),
    "fork_child": Case("fork_child", "crash", "exit code 1"),
    "ignore_term": _timeout("ignore_term"),
    "memory_hog": Case("memory_hog", "crash", "exit code 1", settings={"limits": Limits(address_space=768 * MiB)}),
    # Its processes together pass the memory cgroup's cap, each far below its address-space limit.
    "fork_hog": Case(
        "fork_hog", "crash", "more memory than its limit (ram=96M", settings={"limits": Limits(ram=96 * MiB)}
    ),
    "fork_bomb": Case("fork_bomb", "timeout", "deadline", settings={"move_time": 1.0, "limits": Limits(processes=32)}),
    "illegal_opening": _illegal("opening", "illegal_move", "opens with the 1"),
    "illegal_not_held": _illegal("not_held", "illegal_move", "you hold no"),
    "illegal_too_many": _illegal("too_many", "illegal_move", "but hold"),
    "illegal_too_low": _illegal("too_low", "illegal_move", "lower than last"),
    "illegal_bonus_over": _illegal("bonus_over", "illegal_move", "bonus chips but hold"),
    "illegal_force_alone": _illegal("force_alone", "illegal_move", "another player still playing"),
    "illegal_pass_forced": Case(
        "illegal", "illegal_move", "you are forced", {"ILLEGAL": "pass_forced"}, opponent="forcer", seat=1
    ),
    "illegal_discard_count": _illegal("discard_count", "illegal_discard", "exactly 3 cards"),
    "illegal_discard_one": _illegal("discard_one", "illegal_discard", "the 1 may not be discarded"),
    "illegal_discard_unheld": _illegal("discard_unheld", "illegal_discard", "but hold no"),
    # Every reply padded to 60,000 bytes: its lines pass the game's cap on them (and so its share of the game log).
    "output_flood": Case(
        "padded",
        "output_cap",
        "its lines in this game passed 262,144 bytes",
        env={"PADDING_BYTES": "60000"},
        settings={"limits": Limits(game_output=256 * 1024)},
    ),
    # Not faults: stderr is the bot's own (capped) log; a slow move within the time bank is fine.
    "stderr_flood": Case("stderr_flood", None, settings={"stderr_cap": 256 * 1024}),
    # Idle longer than trio's worker threads live: the bot must not die with the thread that started it.
    "idle_long": Case("slow", None, env={"SLOW_SECONDS": "12"}, settings={"move_time": 20.0}),
    "slow_within_bank": Case("slow", None, env={"SLOW_SECONDS": "1.5"}, settings={"move_time": 1.0, "time_bank": 3.0}),
}


@dataclass
class Outcome:
    result: GameResult
    leftovers: list[int]
    folder: Path


async def _run_case(name: str, case: Case, mode: str, folder: Path, limiter: trio.CapacityLimiter) -> Outcome:
    async with limiter:
        mark = new_mark()
        held = {"hold_loop": HOLD_LOOP_MAX} if mode == HELD else {}
        mode = "none" if mode == HELD else mode
        specs = [bot(case.opponent, mark)]
        configs: list[RunnerConfig] = [config(mode, **held)]
        specs.insert(case.seat, bot(case.bot, mark, **case.env))
        configs.insert(case.seat, config(mode, **held, **case.settings))
        (result,), _ = await play_games(specs, configs, folder, seeds=[case.seed])
        return Outcome(result, processes_with(mark), folder)


@dataclass
class Outcomes:
    mode: str
    games: dict[str, Outcome]


#: The bare mode with ``hold_loop``: a turn's reply read by a blocking poll where it comes within the hold.
HELD = "none-held"
#: What that mode leaves out: faults before the first turn or not of a reply (start-up, limits, a long idle).
NOT_HELD = {
    "crash_start", "unflushed", "no_newline", "exit_after_hello", "old_protocol", "segfault", "cpu_burner",
    "memory_hog", "fork_hog", "fork_bomb", "idle_long",
}  # fmt: skip


@pytest.fixture(scope="module", params=[*MODES, pytest.param(HELD, id=HELD)])
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Outcomes:
    mode: str = request.param
    cases = dict(CASES)
    if mode == HELD:
        cases = {name: case for name, case in cases.items() if name not in NOT_HELD}
    if not pids_enforced("none" if mode == HELD else mode):
        cases.pop("fork_bomb")  # unsafe without a process cap (root without a writable pids cgroup)
    if memory_cgroup.problem() is not None:
        cases.pop("fork_hog")  # unsafe without a memory cgroup: only the address space of each process is capped
    out: dict[str, Outcome] = {}

    async def main() -> None:
        limiter = trio.CapacityLimiter(6)

        async def one(name: str, case: Case) -> None:
            out[name] = await _run_case(name, case, mode, tmp_path_factory.mktemp(name), limiter)

        async with trio.open_nursery() as nursery:
            for name, case in cases.items():
                nursery.start_soon(one, name, case)

    trio.run(main)
    return Outcomes(mode, out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_misbehaving_bot(outcomes: Outcomes, name: str) -> None:
    if outcomes.mode == HELD and name in NOT_HELD:
        pytest.skip("not a turn's reply: the hold does not apply")
    if name == "fork_hog" and name not in outcomes.games:
        pytest.skip(f"no memory cgroup can be made here ({memory_cgroup.problem()})")
    if name not in outcomes.games:
        pytest.skip("no process limit can be enforced here (root without a writable pids cgroup)")
    case, outcome = CASES[name], outcomes.games[name]
    result = outcome.result
    kind, words = case.kind, case.words
    if name == "closed_stdout" and outcomes.mode == "bwrap":
        # bubblewrap's own processes hold the bot's stdout open, so closing it looks like silence.
        kind, words = "timeout", "deadline"
    assert_verified(result)
    assert outcome.leftovers == []
    if kind is None:
        assert result.faults == ()
        return
    assert [(f.seat, f.kind) for f in result.faults] == [(case.seat, kind)], result.faults
    fault = result.faults[0]
    assert fault.kind in FAULT_KINDS
    assert words in fault.detail
    assert result.forfeits == (case.seat,)
    assert result.ranks[case.seat] == 2 and result.ranks[1 - case.seat] == 1
    if kind in ("startup", "protocol_version") or case.before_deal:
        assert fault.round == 0
    else:
        assert fault.round >= 1
    if kind.startswith("illegal") or kind in ("invalid_json", "not_object", "unknown_type", "bad_field"):
        assert fault.line is not None  # the offending reply is kept


def test_the_game_log_of_an_output_flood_holds_no_more_than_its_cap(outcomes: Outcomes) -> None:
    # The flooder's lines up to its cap, the other seat's and the referee's: far below what the flooder sent.
    log = outcomes.games["output_flood"].folder / "g0.jsonl"
    assert log.stat().st_size < 256 * 1024 + 64 * 1024


def test_stderr_flood_log_is_capped(outcomes: Outcomes) -> None:
    log = outcomes.games["stderr_flood"].folder / "seat0.stderr_flood.stderr.log"
    size = log.stat().st_size
    assert 256 * 1024 <= size <= 256 * 1024 + 200
    assert log.read_bytes().endswith(b"the rest was dropped]\n")

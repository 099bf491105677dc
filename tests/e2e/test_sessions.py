"""Bot processes across games: one process plays many games; after a fault a fresh one starts; CLI runs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.runner import read_log
from referee.runner.verify import verify_log

from .helpers import BOTS, MODES, assert_verified, bot, config, new_mark, processes_with, run_games


@pytest.mark.parametrize("mode", MODES)
def test_one_process_plays_many_games(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    specs = [bot("honest", mark), bot("legal_random", mark), bot("honest", mark)]
    results, players = run_games(specs, config(mode), tmp_path, seeds=[1, 2, 3])
    assert [r.faults for r in results] == [(), (), ()]
    assert [p.starts for p in players] == [1, 1, 1]
    for r in results:
        assert_verified(r)
        assert sorted(r.ranks)[0] == 1
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_fresh_process_after_a_fault(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    specs = [bot("crash_mid", mark), bot("honest", mark)]
    results, players = run_games(specs, config(mode), tmp_path, seeds=[1, 2])
    assert [[f.kind for f in r.faults] for r in results] == [["crash"], ["crash"]]
    assert players[0].starts == 2
    assert players[1].starts == 1
    assert processes_with(mark) == []


REFEREE_THEN_SLEEP = """
import sys, time, trio
from dataclasses import replace
from referee.runner import Player, RunnerConfig, parse_bot_spec

async def main():
    spec = replace(parse_bot_spec(sys.argv[1]), env={"REFEREE_TEST_MARK": sys.argv[3]})
    player = Player(spec, RunnerConfig(sandbox=sys.argv[2]))
    await player.ensure_started()
    assert player.ready
    print("ready", flush=True)
    await trio.sleep(600)

trio.run(main)
"""


@pytest.mark.parametrize("mode", MODES)
def test_bots_die_with_a_killed_referee(tmp_path: Path, mode: str) -> None:
    """SIGKILL to the referee leaves no bot behind: a bare bot gets the parent-death signal; in bubblewrap
    (--die-with-parent) the whole sandbox ends, even a child that left the bot's session."""
    mark = new_mark()
    script = tmp_path / "referee_then_sleep.py"
    script.write_text(REFEREE_THEN_SLEEP)
    # A bare bot's own children are not covered by its parent-death signal: the bare case uses a bot that ignores
    # end of input (so only the signal can end it), the sandboxed case one whose child left its session.
    bot_file = BOTS / ("fork_child.py" if mode == "bwrap" else "deaf.py")
    referee = subprocess.Popen(
        [sys.executable, str(script), str(bot_file), mode, mark], stdout=subprocess.PIPE, text=True
    )
    try:
        assert referee.stdout is not None and referee.stdout.readline().strip() == "ready"
        assert processes_with(mark) != []
        referee.kill()
        referee.wait()
        deadline = time.monotonic() + 10
        while processes_with(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        referee.kill()
    left = processes_with(mark)
    assert left == [], [_described(pid) for pid in left]


def _described(pid: int) -> str:
    """What a process left behind was doing (its state, parent, PID in each namespace, command), for the failure."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError as exc:
        return f"{pid}: gone ({exc.strerror})"
    wanted = ("State", "PPid", "NSpid")
    fields = [line for line in status.splitlines() if line.split(":")[0] in wanted]
    return f"{pid} {command.strip()!r}: " + "; ".join(" ".join(f.split()) for f in fields)


def _referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_play_json_prints_exactly_one_object(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    proc = _referee(
        "play", str(BOTS / "honest.py"), str(BOTS / "hang.py"), "--seed", "5", "--move-time", "1",
        "--log", str(log), "--json", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"game", "names", "seed", "scores", "ranks", "forfeits", "faults", "log"}
    assert out["names"] == ["honest", "hang"] and out["seed"] == 5 and out["game"].startswith("play-")
    assert read_log(log)[0]["game"] == out["game"]
    assert out["forfeits"] == [1]
    assert out["faults"] == [{"seat": 1, "kind": "timeout", "round": 1, "detail": "no reply before the deadline"}]
    assert out["log"] == str(log)
    assert verify_log(read_log(log)).ok
    replay = _referee("replay", str(log), cwd=tmp_path)
    assert replay.returncode == 0
    assert "FAULT seat 1 hang" in replay.stdout and "Result" in replay.stdout
    verify = _referee("verify", str(log), cwd=tmp_path)
    assert verify.returncode == 0 and "verified" in verify.stdout


def test_play_takes_the_sample_bots_by_name_as_check_and_compare_do(tmp_path: Path) -> None:
    proc = _referee("play", "greedy", "random_bot", "--seed", "4", "--sandbox", "none", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["names"] == ["greedy", "random_bot"]
    unknown = _referee("play", "greedy", "nosuchbot", cwd=tmp_path)
    assert unknown.returncode != 0 and "no sample bot named 'nosuchbot'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_play_summary_and_default_log(tmp_path: Path) -> None:
    proc = _referee("play", str(BOTS / "honest.py"), str(BOTS / "legal_random.py"), "--seed", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "rank 1" in proc.stdout and "seed 2" in proc.stdout
    logs = list((tmp_path / "referee-logs").glob("*.jsonl"))
    assert len(logs) == 1
    # Each bot's stderr is saved beside the log, named by its seat.
    stderr_logs = sorted(p.name.removeprefix(logs[0].stem) for p in logs[0].parent.glob("*.stderr.log"))
    assert stderr_logs == [".seat0.honest.stderr.log", ".seat1.legal_random.stderr.log"]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["nope.py", "honest.py"], 1, "bot 'nope.py' not found"),
        (["honest.py"], 2, "a game has 2 to 4 players"),
        (["honest.py", "honest.py", "--seed", "1", "--deal", "d.json"], 2, "give --seed or --deal, not both"),
        (["honest.py", "honest.py", "--deal", "missing.json"], 1, "deal file missing.json not found"),
        (["honest.py", "honest.py", "--move-time", "0"], 1, "move-time must be a positive number"),
        (["honest.py", "honest.py", "--rules", "rules.json"], 1, "unknown ruleset option 'colour'"),
    ],
)
def test_play_refuses_bad_input_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], code: int, message: str
) -> None:
    (tmp_path / "honest.py").write_text((BOTS / "honest.py").read_text())
    (tmp_path / "rules.json").write_text('{"colour": "red"}')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == code
    assert message in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_play_with_a_deal_file(tmp_path: Path) -> None:
    from referee.engine import STANDARD, deal_to_json, seeded_deal

    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps(deal_to_json(seeded_deal(7, 2, STANDARD))))
    proc = _referee("play", str(BOTS / "honest.py"), str(BOTS / "honest.py"), "--deal", str(deal), "--json",
                    cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    events = read_log(Path(out["log"]))
    assert events[0]["seed"] is None
    assert events[0]["deal"] == json.loads(deal.read_text())
    assert verify_log(events).ok


def test_play_human_seat_from_the_terminal(tmp_path: Path) -> None:
    """A person at seat 0: bad input is refused with a clear message and asked again; the game completes."""
    from referee.engine import STANDARD, seeded_deal

    deal = seeded_deal(4, 2, STANDARD)
    discards = [" ".join(str(c) for c in [c for c in rnd[0] if c != 1][-3:]) for rnd in deal]
    moves = ["drop", "play 1"] * 12
    answers = ["1 2", discards[0], "play 99", "play eight", *moves, discards[1], *moves]
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "play", "--human", str(BOTS / "honest.py"), "--seed", "4", "--json"],
        cwd=tmp_path, input="\n".join(answers) + "\n", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # with --json the person's screen is on stderr
    assert result["faults"] == []
    screen = proc.stderr
    assert "name exactly 3 cards, you named 2" in screen
    assert "'play 99' is not a move" in screen
    assert "cannot read 'play eight'" in screen
    assert "Your hand:" in screen and "=== game over ===" in screen
    assert verify_log(read_log(Path(result["log"]))).ok


def test_bare_bot_child_outside_its_group_is_found_without_cgroup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a cgroup (a non-root referee) and without bubblewrap, the child that left the bot's session is
    still ended: it carries the bot's REFEREE_BOT tag."""
    from referee.runner import limits

    monkeypatch.setattr(limits, "_usable_root", None)  # as if no pids cgroup could be made
    mark = new_mark()
    specs = [bot("fork_child", mark), bot("honest", mark)]
    (result,), _ = run_games(specs, config("none"), tmp_path)
    assert [f.kind for f in result.faults] == ["crash"]
    assert processes_with(mark) == []

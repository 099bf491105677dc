"""The starter kits for compiled languages (C, Go, Rust, Java) build with their own `build.sh` and their
language's toolchain, pass `referee check` in both sandbox modes, play each other and themselves without
passing to the turn limit, and read a line of any length.

Each kit is built once per test session, in a copy of its folder; a kit is skipped only when its toolchain is
not installed (CI installs all four: see .ci/run)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol import Expect, parse_reply
from protocol.convert import observation_from_turn, reply_to_action
from protocol.messages import DropReply, PassReply, PlayReply, Turn
from referee.cli import main
from referee.engine import STANDARD, legal_actions_for
from referee.runner import parse_bot_spec

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "examples" / "templates"
#: The check's default sandbox (bubblewrap where it works) with the full suite; no sandbox with a short one.
MODES = {"auto": [], "none": ["--games", "6"]}

#: kit folder -> (the tools its build and run need, the BOT argument relative to the built folder, its name)
KITS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "c": (("cc",), "bot", "c-template"),
    "go": (("go",), "bot", "go-template"),
    "rust": (("rustc",), "bot", "rust-template"),
    "java": (("javac", "jar", "java"), "java -jar {dir}/bot.jar", "java-template"),
}
BUILT = shutil.ignore_patterns("bot", "bot.jar", "classes")

Build = Callable[[str], str]


@pytest.fixture(scope="session")
def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """``build(kit)``: the BOT argument of the kit, built with its ``build.sh`` the first time it is asked for."""
    built: dict[str, str] = {}

    def get(kit: str) -> str:
        tools, bot, _ = KITS[kit]
        missing = [t for t in tools if shutil.which(t) is None]
        if missing:
            pytest.skip(f"the {kit} toolchain is not installed ({', '.join(missing)} absent)")
        if kit not in built:
            folder = tmp_path_factory.mktemp(f"kit-{kit}") / kit
            shutil.copytree(TEMPLATES / kit, folder, ignore=BUILT)
            env = dict(os.environ)
            if not env.get("HOME") and not env.get("XDG_CACHE_HOME"):
                env["GOCACHE"] = str(folder.parent / "go-cache")  # go build needs a cache folder
            build_sh = ["sh", str(folder / "build.sh")]
            done = subprocess.run(build_sh, capture_output=True, text=True, timeout=600, env=env)
            assert done.returncode == 0, f"{kit}/build.sh failed:\n{done.stdout}{done.stderr}"
            built[kit] = bot.format(dir=folder) if "{dir}" in bot else str(folder / bot)
        return built[kit]

    return get


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kit", list(KITS))
def test_kit_passes_referee_check(build: Build, kit: str, mode: str) -> None:
    # A generous move time: a JVM or a fresh Go runtime on a loaded CI machine can take more than the 1 s default
    # for its first replies; what the test asserts is that the kit speaks the protocol and passes every check.
    args = ["check", build(kit), "--sandbox", mode, *MODES[mode], "--startup-time", "30", "--move-time", "5", "--json"]
    result = CliRunner().invoke(main, args)
    report = json.loads(result.stdout)
    failed = [c for c in report["checks"] if c["outcome"] != "passed"]
    assert result.exit_code == 0 and report["passed"], failed
    assert report["name"] == KITS[kit][2]


def _limit_drops(log: Path) -> int:
    return log.read_text(encoding="utf-8").count('"limit":true')


@pytest.mark.parametrize("rules", ["{}", '{"discard": 0}'])
def test_kits_play_each_other_and_themselves_without_reaching_the_turn_limit(
    build: Build, tmp_path: Path, rules: str
) -> None:
    """Two copies of one bot that pass whenever every play costs more pass to each other until the turn limit;
    the kits stop passing once the table is stalled or they are alone. Under a ruleset that discards nothing,
    every deal still asks for a discard, answered with an empty list."""
    (tmp_path / "rules.json").write_text(rules)
    kits = [k for k in KITS if all(shutil.which(t) for t in KITS[k][0])]
    if not kits:
        pytest.skip("no toolchain of a kit is installed")
    tables = [[build(k), build(k)] for k in kits]
    if len(kits) > 1:
        tables.append([build(k) for k in kits])
    for i, table in enumerate(tables):
        for seed in (1, 2):
            log = tmp_path / f"t{i}-s{seed}.jsonl"
            args = ["play", *table, "--seed", str(seed), "--rules", str(tmp_path / "rules.json")]
            result = CliRunner().invoke(main, [*args, "--startup-time", "30", "--json", "--log", str(log)])
            assert result.exit_code == 0, result.output
            game = json.loads(result.stdout)
            assert game["faults"] == [], game
            assert _limit_drops(log) == 0, f"{table} reached the turn limit with seed {seed}"


def _long_turn(history_entries: int) -> bytes:
    """A turn for seat 0 far longer than any the referee sends, with unknown fields, escapes and non-ASCII text.
    Seat 0 passed and nobody has played since (the table is stalled), and its plain play costs 5 chips."""
    history = [
        {"seat": 0, "action": "play", "value": 1, "count": 1, "bonus": 0, "penalty": 0},
        {"seat": 1, "action": "play", "value": 7, "count": 1, "bonus": 0, "penalty": 5, "note": "é\u2603"},
    ]
    history += [{"seat": s % 2, "action": "pass", "force": False, "penalty": 1} for s in range(history_entries)]
    names = ['tab\t"quoted" \\ slash/ ☃ 😀', "zweiter Spieler é"]
    players = [
        {"name": name, "cards": 2, "penalty": 9, "bonus": 3, "status": "playing", "extra": [1, {"x": None}]}
        for name in names
    ]
    turn = {"type": "turn", "game": "g1", "round": 1, "seat": 0, "hand": [5, 13], "last": 7, "forced": False}
    turn |= {"players": players, "history": history, "unknown": {"deep": [[[1.5e3, -2, True, False, None]]]}}
    return json.dumps(turn, ensure_ascii=True).encode() + b"\n"


@pytest.mark.parametrize("kit", list(KITS))
def test_kit_reads_a_line_of_any_length(build: Build, kit: str) -> None:
    """A 200 KB turn (three times the longest the referee may send) is read whole and answered with a legal
    move that is not a pass (the table is stalled)."""
    spec = parse_bot_spec(build(kit))
    turn = _long_turn(4000)
    assert len(turn) > 3 * 65_536
    game_start = {"type": "game_start", "game": "g1", "seat": 0, "players": ["a", "b"], "rules": STANDARD.to_dict()}
    lines = [
        {"type": "hello", "protocol": 1},
        game_start | {"time": {"move_ms": 1000}},
        {"type": "deal", "game": "g1", "round": 1, "hand": [1, 5, 9, 13, 20], "discard": 3},
    ]
    stdin = b"".join(json.dumps(m).encode() + b"\n" for m in lines) + turn + b'{"type":"bye"}\n'
    done = subprocess.run(spec.argv, input=stdin, capture_output=True, timeout=60, cwd=spec.cwd)
    assert done.returncode == 0, done.stderr
    # Every message above is one the kit understands: game_start's players are names, the turn's are objects
    # (PROTOCOL.md), and a kit that logs a decoding complaint has missed the rules of the game it plays.
    assert done.stderr == b"", done.stderr
    replies = done.stdout.decode().splitlines()
    assert len(replies) == 3, replies
    assert json.loads(replies[1]) == {"type": "discard", "cards": [9, 13, 20]}
    reply = parse_reply(replies[2].encode(), Expect.TURN)
    assert isinstance(reply, PlayReply | PassReply | DropReply)
    obs = observation_from_turn(Turn.model_validate_json(turn))
    assert reply_to_action(reply) in legal_actions_for(obs, STANDARD), replies[2]
    assert not isinstance(reply, PassReply), "the table is stalled: passing again changes nothing"


def test_templates_readme_lists_every_kit() -> None:
    text = (TEMPLATES / "README.md").read_text(encoding="utf-8")
    for kit in KITS:
        assert f"`{kit}/`" in text, kit
        kit_readme = (TEMPLATES / kit / "README.md").read_text(encoding="utf-8")
        assert "build.sh" in kit_readme and "referee check" in kit_readme and "[[bot]]" in kit_readme, kit

"""A version runs only its own files and the system's programs, and what its build leaves behind is capped.

The builds are real: each runs in the sandbox, as serve runs it; the conformance suite is the fakes' (it is not
what is tested here, and a real one takes seconds per version).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from referee.ladder import Ladder, VersionState
from referee.ladder.errors import IntakeError
from referee.ladder.gate import Gatekeeper
from referee.ladder.serve import ServeOptions, serve
from referee.runner import memory_cgroup
from referee.runner.sandbox import bwrap_path, bwrap_problem
from tests.ladder.fakes import FakeReport
from tests.ladder.samples import sample_folder

HAVE_SANDBOX = bwrap_path() is not None and bwrap_problem(bwrap_path() or "") is None
needs_sandbox = pytest.mark.skipif(not HAVE_SANDBOX, reason="bubblewrap absent or not usable here")


def _ladder(tmp_path: Path, extra: str = "", games: str = "") -> Ladder:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text('[games]\nsandbox = "bwrap"\n' + games + extra)
    made.close()
    return Ladder.open(tmp_path / "lad")


def _folder(tmp_path: Path, manifest: str, files: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "src"
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(manifest)
    for name, text in (files or {"bot.py": "print('bot')\n"}).items():
        (folder / name).write_text(text)
    return folder


async def _passes(spec: object, options: object) -> FakeReport:
    await trio.lowlevel.checkpoint()
    return FakeReport(True)


def _gate(ladder: Ladder) -> list[str]:
    lines: list[str] = []
    keeper = Gatekeeper(ladder, lines.append, lambda: None, _passes)
    assert trio.run(keeper.step)
    return lines


def test_a_command_on_path_outside_the_system_folders_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A program of the organiser's home on serve's PATH: the sandbox would have had to show the home to run it.
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "canary.txt").write_text("the organiser's secret\n")
    helper = home / "bin" / "helper"
    helper.write_text("#!/bin/sh\ncat ../canary.txt\n")
    helper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{home / 'bin'}:/usr/bin:/bin")
    with _ladder(tmp_path) as ladder:
        ladder.add_entrant("eve")
        for manifest in ('command = "helper"\n', 'command = "python bot.py"\nbuild = "helper"\n'):
            source = _folder(tmp_path / str(len(manifest)), manifest)
            with pytest.raises(IntakeError) as err:
                ladder.submit("eve", source)
            message = str(err.value)
            assert "\n" not in message and "'helper' is not a system program" in message, message
            assert str(home) not in message  # no host path in what the author sees
        # A program of the system (sh, under /usr or /bin) is still taken.
        ladder.submit("eve", _folder(tmp_path / "ok", 'command = "sh bot.sh"\n', {"bot.sh": "exit 0\n"}))


@needs_sandbox
def test_a_link_a_build_makes_out_of_the_folder_fails_the_gate(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "helper"
    outside.parent.mkdir()
    outside.write_text("#!/bin/sh\nexit 0\n")
    outside.chmod(0o755)
    with _ladder(tmp_path) as ladder:
        ladder.add_entrant("eve")
        ladder.submit("eve", _folder(tmp_path, f'command = "./bot"\nbuild = "ln -s {outside} bot"\n'))
        lines = _gate(ladder)
        v = ladder.version("eve", 1)
        assert v.state == VersionState.FAILED, (v, lines)
        assert v.reason == "bot.toml: command program './bot' is not a file inside the bot's folder", v.reason


@needs_sandbox
def test_a_build_that_leaves_more_than_max_unpacked_fails_the_gate_and_one_within_passes(tmp_path: Path) -> None:
    with _ladder(tmp_path, '[submissions]\nmax_unpacked = "1M"\n') as ladder:
        ladder.add_entrant("big")
        ladder.add_entrant("small")
        manifest = 'command = "python bot.py"\nbuild = "sh -c \'head -c {} /dev/zero > blob\'"\n'
        ladder.submit("big", _folder(tmp_path / "b", manifest.format(3 << 20)))
        ladder.submit("small", _folder(tmp_path / "s", manifest.format(4096)))
        _gate(ladder)
        _gate(ladder)
        big, small = ladder.version("big", 1), ladder.version("small", 1)
        assert big.state == VersionState.FAILED, big
        assert "more than 1,048,576 bytes of files in its folder (max_unpacked)" in (big.reason or ""), big.reason
        assert "\n" not in (big.reason or "")
        assert small.state == VersionState.PLACEMENT, small
        # the failed build leaves nothing behind: its folder holds what was submitted, and the passed one its build
        big_folder, small_folder = ladder.version_folder(big), ladder.version_folder(small)
        assert sorted(p.name for p in big_folder.iterdir()) == ["bot.py", "bot.toml"]
        assert (small_folder / "blob").stat().st_size == 4096


@needs_sandbox
def test_a_bot_that_floods_only_in_ranked_play_fails_its_gate(tmp_path: Path) -> None:
    # The gate's opponents bear versions' names, as ranked play's seats do; its games follow the ladder's rules.
    bot = (Path(__file__).parents[1] / "bots" / "ranked_flooder.py").read_text()
    base = (Path(__file__).parents[1] / "bots" / "_base.py").read_text()
    extra = '[limits]\ngame_output = "256K"\n[submissions]\ngate_games = 3\n[rules]\nrounds = 1\n'
    with _ladder(tmp_path, extra) as ladder:
        ladder.add_entrant("mallory")
        source = _folder(tmp_path, 'command = "python bot.py"\n', {"bot.py": bot, "_base.py": base})
        ladder.submit("mallory", source)
        lines: list[str] = []
        assert trio.run(Gatekeeper(ladder, lines.append, lambda: None).step)
        v = ladder.version("mallory", 1)
        assert v.state == VersionState.FAILED, (v, lines)
        # the first failed check's reason: whichever check's game met the flood first names the cap
        assert ": output cap: its lines in this game passed 262,144" in (v.reason or ""), v
        assert "\n" not in (v.reason or "")
        gate = ladder.store.gate(v.id)
        assert gate is not None and gate.report is not None
        games = json.loads(gate.report)["games"]
        names = {n for g in games for n in g["names"]} - {"mallory#1"}
        assert names and all("#" in n for n in names), names


@needs_sandbox
def test_no_host_path_of_the_version_reaches_its_author(tmp_path: Path) -> None:
    # A bot that tells its working folder and dies with a traceback: its stderr and its gate's reasons (what its
    # author sees; the stored report is the organiser's) show /bot only.
    bot = "import os, sys\nprint('cwd', os.getcwd(), file=sys.stderr, flush=True)\nraise RuntimeError('boom')\n"
    with _ladder(tmp_path, "[submissions]\ngate_games = 1\n") as ladder:
        ladder.add_entrant("ann")
        ladder.submit("ann", _folder(tmp_path, 'command = "python bot.py"\n', {"bot.py": bot}))
        root = str(ladder.layout.root)
        assert trio.run(Gatekeeper(ladder, [].append, lambda: None).step)
        v = ladder.version("ann", 1)
        assert v.state == VersionState.FAILED, v
        said = "".join(p.read_text() for p in ladder.stderr_logs("ann", 1))
        gate = ladder.store.gate(v.id)
        assert gate is not None
        shown = said + "".join(gate.reasons) + (v.reason or "")
        assert "cwd /bot\n" in said and 'File "/bot/bot.py"' in said, said
        assert root not in shown and str(tmp_path) not in shown


def test_every_option_of_a_sandbox_command_line_is_known_to_the_relocation() -> None:
    from referee.runner import BotSpec
    from referee.runner.config import SandboxMode
    from referee.runner.sandbox import RELOCATION_FLAGS, RELOCATION_OPERANDS, bot_argv

    if bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    spec = BotSpec("b", ("/usr/bin/true",), Path(__file__).parent, shown_at="/bot")
    args = bot_argv(spec, SandboxMode.BWRAP, 1 << 20, (str(Path(__file__)),), seccomp_fd=3)
    i = 1
    while args[i] != "--":
        assert args[i] in RELOCATION_FLAGS or args[i] in RELOCATION_OPERANDS, args[i]
        i += 1 + RELOCATION_OPERANDS.get(args[i], (0, False))[0]
    assert args[args.index("--chdir") + 1] == "/bot"


def test_the_gates_opponents_bear_distinct_version_names_whatever_the_field(tmp_path: Path) -> None:
    with _ladder(tmp_path) as ladder:
        for name in ("greedy", "heuristic", "ann"):
            ladder.add_entrant(name)
            ladder.submit(name, _folder(tmp_path / name, f'command = "python bot.py"  # {name}\n'))
        keeper = Gatekeeper(ladder, [].append, lambda: None, _passes)
        ann = ladder.version("ann", 1)
        for active in ([], ["greedy"], ["greedy", "heuristic"]):
            for name in active:
                ladder.store.set_version_state(ladder.version(name, 1).id, VersionState.RANKED)
            for _ in range(10):
                names = [spec.name for spec in keeper._opponents(ann)]
                assert len(set(names)) == 3 and all("#" in n for n in names) and "ann#1" not in names, names
                assert {f"{n}#1" for n in active} <= set(names), (active, names)


@needs_sandbox
@pytest.mark.skipif(memory_cgroup.problem() is not None, reason="no memory cgroup can be made here")
def test_a_bot_over_its_memory_in_ranked_play_is_killed_and_suspended_and_serve_plays_on(tmp_path: Path) -> None:
    bots = Path(__file__).parents[1] / "bots"
    files = {"bot.py": (bots / "grudge_hog.py").read_text(), "_base.py": (bots / "_base.py").read_text()}
    settings = (
        '[limits]\nram = "96M"\n[matchmaking]\nplacement_blocks = 1\n[faults]\nrecent_games = 2\n'
        "[submissions]\ngate_games = 1\n[serve]\njobs = 1\nmax_processes = 8\n"
    )
    with _ladder(tmp_path, settings, "table_sizes = [2]\ntable_weights = [1]\n") as ladder:
        ladder.add_entrant("hog")
        ladder.submit("hog", _folder(tmp_path / "h", 'command = "python bot.py"\n', files))
        ladder.add_entrant("victim")
        ladder.submit("victim", sample_folder("greedy", tmp_path / "v"))
    lines: list[str] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            lad = await nursery.start(serve, tmp_path / "lad", ServeOptions(announce=lines.append, poll=0.05, seed=1))
            with trio.fail_after(120):
                while lad.version("hog", 1).state != VersionState.SUSPENDED:
                    await trio.sleep(0.05)
                # serve lives on: the next gate still runs
                await trio.to_thread.run_sync(lambda: lad.submit("victim", sample_folder("heuristic", tmp_path / "v2")))
                while lad.version("victim", 2).state not in (VersionState.PLACEMENT, VersionState.RANKED):
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    trio.run(main)
    with Ladder.open(tmp_path / "lad") as ladder:
        hog = ladder.version("hog", 1)
        faults = ladder.faults("hog", 1)
        assert faults and all(f["kind"] == "crash" for f in faults), faults
        assert "killed for holding more memory than its limit (ram=96M" in faults[0]["detail"], faults[0]
        assert ladder.faults("victim", 1) == []
        assert any(line.startswith("hog#1 suspended") for line in lines), lines
        assert lines[0].startswith("bots' memory: a memory cgroup per bot start, 0.09 GiB each"), lines
        assert hog.state == VersionState.SUSPENDED

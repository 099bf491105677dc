"""What freezing idle warm processes saves the field: blocks a ladder plays in a fixed time when some versions burn
CPU between their games, with ``serve`` freezing its warm processes (the default) and without.

Not a test. A fresh ladder of the three sample bots (heuristic, greedy, random_bot) and ``--burners`` versions of
``tests/bots/idle_burner.py`` (it plays honestly, and from the end of its first game on a child of each of its
processes spins while nobody asks it anything), tables of 3, ``--jobs`` lanes, the real sandbox and gate. Once every
version is active, serve plays for ``--seconds``; the blocks finished in that time are counted, with and without
the freezer, one ladder each (the order alternates over ``--runs``). Figures in bench/README.md, "Idle warm
processes frozen".

Run: ``python bench/bench_idle_freeze.py --seconds 60 --runs 2``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import BlockState, Ladder, VersionState  # noqa: E402
from referee.ladder.serve import ServeOptions, serve  # noqa: E402

SAMPLES = ("heuristic", "greedy", "random_bot")
SETTINGS = """
[games]
table_sizes = [3]
table_weights = [1]
[matchmaking]
placement_blocks = 1
[submissions]
gate_games = 2
[serve]
jobs = {jobs}
"""


def _folder(dest: Path, name: str, files: dict[str, str]) -> Path:
    folder = dest / name
    folder.mkdir(parents=True)
    for file, text in files.items():
        (folder / file).write_text(text)
    return folder


def _ladder(root: Path, burners: int, jobs: int) -> Path:
    made, _ = Ladder.init(root / "lad")
    made.layout.config.write_text(SETTINGS.format(jobs=jobs))
    bots = ROOT / "tests" / "bots"
    for name in SAMPLES:
        made.add_entrant(name.removesuffix("_bot"))
        text = (ROOT / "sample_bots" / f"{name}.py").read_text()
        made.submit(
            name.removesuffix("_bot"),
            _folder(root / "src", name, {f"{name}.py": text, "bot.toml": f'command = "python {name}.py"\n'}),
        )
    burner = {"bot.py": (bots / "idle_burner.py").read_text(), "_base.py": (bots / "_base.py").read_text()}
    for i in range(burners):
        made.add_entrant(f"burner{i}")
        made.submit(
            f"burner{i}",
            _folder(root / "src", f"burner{i}", {**burner, "bot.toml": f'command = "python bot.py"  # {i}\n'}),
        )
    made.close()
    return root / "lad"


async def _run(directory: Path, seconds: float, freeze: bool) -> tuple[int, int]:
    """Blocks finished in ``seconds`` once every version is active, and how many of them had no burner."""
    async with trio.open_nursery() as nursery:
        options = ServeOptions(announce=lambda line: None, poll=0.05, seed=1, freeze_idle=freeze)
        ladder = await nursery.start(serve, directory, options)
        while any(
            v.state in (VersionState.SUBMITTED, VersionState.BUILDING, VersionState.GATING)
            for v in ladder.store.versions()
        ):
            await trio.sleep(0.2)
        before = {b.id for b in ladder.store.blocks(states=[BlockState.DONE], limit=None)}
        await trio.sleep(seconds)
        blocks = [b for b in ladder.store.blocks(states=[BlockState.DONE], limit=None) if b.id not in before]
        burners = {v.id for v in ladder.store.versions() if v.entrant.startswith("burner")}
        nursery.cancel_scope.cancel()
    return len(blocks), sum(1 for b in blocks if not burners & set(b.seats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    got: dict[bool, list[tuple[int, int]]] = {True: [], False: []}
    for run in range(args.runs):
        for freeze in (True, False) if run % 2 == 0 else (False, True):
            root = Path(tempfile.mkdtemp(prefix="bench-idle-freeze-"))
            try:
                figures = trio.run(_run, _ladder(root, args.burners, args.jobs), args.seconds, freeze)
            finally:
                shutil.rmtree(root, ignore_errors=True)
            got[freeze].append(figures)
            print(
                f"run {run + 1}, {'frozen' if freeze else 'not frozen'}: {figures[0]} blocks in {args.seconds:g} s, "
                f"{figures[1]} of them without a burner",
                flush=True,
            )
    for freeze in (True, False):
        total = sum(b for b, _ in got[freeze])
        clean = sum(c for _, c in got[freeze])
        print(
            f"{'frozen' if freeze else 'not frozen'}: {total / len(got[freeze]):.1f} blocks a run "
            f"({clean / len(got[freeze]):.1f} without a burner)"
        )


if __name__ == "__main__":
    main()

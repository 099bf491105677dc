"""Make a field of known order for ``referee run --format race``: copies of the greedy sample bot, each playing a
share P of random legal moves (``--noise P``), so the lower P, the stronger the entrant.

    python examples/race/make_field.py /tmp/race40                 # 40 entrants, the folder and its bots.toml
    referee run --manifest /tmp/race40/bots.toml --format race --top 3 --jobs 2 --out /tmp/race40/results

The top three play with noise 0, 0.15 and 0.3; the others' noise is spread evenly from 0.4 to 1.0. The folder gets
a copy of ``sample_bots/`` (an entrant's folder must lie inside the
manifest's folder) and ``bots.toml``, one ``[[bot]]`` table per entrant (``command = "greedy.py --noise P"``: a
``.py`` file runs with the referee's own Python, whose packages hold the SDK the sample bots import), named
``greedy-P`` after its noise.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

#: The sample bots, found from this file in a checkout of the referee.
SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
#: The noise of the three strongest entrants: the race should settle them in this order.
TOP = (0.0, 0.15, 0.3)


def noises(entrants: int) -> list[float]:
    """The noise of each entrant, strongest first: ``TOP``, then the rest spread evenly from 0.4 to 1.0."""
    rest = entrants - len(TOP)
    if rest < 1:
        raise ValueError(f"a field needs at least {len(TOP) + 1} entrants, got {entrants}")
    step = 0.6 / (rest - 1) if rest > 1 else 0.0
    return [*TOP, *(round(0.4 + i * step, 4) for i in range(rest))]


def make_field(folder: Path, entrants: int = 40) -> Path:
    """Write the field into ``folder`` (created; its ``sample_bots`` copy is replaced) and return its manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    bots = folder / "sample_bots"
    shutil.rmtree(bots, ignore_errors=True)
    shutil.copytree(SAMPLE_BOTS, bots, ignore=shutil.ignore_patterns("__pycache__"))
    lines = ["# A field of known order: greedy copies, the lower the noise the stronger (examples/race/make_field.py)"]
    for p in noises(entrants):
        command = f"greedy.py --noise {p:g}"
        lines += ["", "[[bot]]", f'name = "greedy-{p:g}"', f'command = "{command}"', 'cwd = "sample_bots"']
    manifest = folder / "bots.toml"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where to write the field (bots.toml and a copy of sample_bots/)")
    parser.add_argument("--entrants", type=int, default=40, help="how many entrants (at least 4; default 40)")
    args = parser.parse_args(argv)
    try:
        manifest = make_field(args.folder, args.entrants)
    except (ValueError, OSError) as e:
        print(f"make_field: {e}", file=sys.stderr)
        return 2
    print(f"{args.entrants} entrants in {manifest}; the right top 3 is greedy-0, greedy-0.15, greedy-0.3")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m tests.ladder.serve_fakes DIR [DELAY]``: ``serve`` with the in-process fake entrants, until killed.

The kill -9 test runs it as a process of its own, so that it can be killed as a real ``serve`` would be.
"""

from __future__ import annotations

import sys
from pathlib import Path

from referee.ladder.serve import ServeOptions, serve
from referee.runner import Stopped, run_until_stopped
from tests.ladder.fakes import Fakes


def main(directory: str, delay: float = 0.002) -> None:
    fakes = Fakes(delay=delay)
    options = ServeOptions(
        announce=lambda line: print(line, flush=True), poll=0.05, play=fakes.play, factory=fakes.factory,
        check=fakes.check,
    )  # fmt: skip
    try:
        run_until_stopped(lambda: serve(Path(directory), options))
    except Stopped:
        sys.exit(130)


if __name__ == "__main__":
    main(sys.argv[1], *(float(a) for a in sys.argv[2:3]))

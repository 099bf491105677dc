"""A comparison's progress as text: one line per block (the same on a terminal and in a CI log), and the verdict."""

from __future__ import annotations

from rich.console import Console

from referee.compare.run import CompareProgress, CompareState
from referee.compare.sprt import BlockStats

__all__ = ["BlockLines", "describe_diff", "early_crossing", "progress_line", "verdict_line"]

_VERDICT_TEXT = {
    "stronger": "NEW is stronger",
    "not stronger": "NEW is not stronger",
    "inconclusive": "inconclusive: --max-games ran out before the test decided",
}


def describe_diff(stats: BlockStats, unit: str) -> str:
    """``+2.31 points/game [+1.02, +3.60]``: the mean paired difference and its 95% interval over blocks."""
    if stats.n == 0:
        return f"- {unit}/game"
    ci = stats.ci95()
    interval = "" if ci is None else f" [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    return f"{stats.mean:+.2f} {unit}/game{interval}"


def progress_line(state: CompareState) -> str:
    design = state.settings.design
    return (
        f"block {state.blocks:>4}  games {state.games:>5}  "
        f"LLR {state.llr:+6.2f} [{design.lower:+.2f}, {design.upper:+.2f}]  "
        f"{describe_diff(state.points, 'points')}  {describe_diff(state.ranks, 'ranks')}"
    )


def verdict_line(state: CompareState) -> str:
    """The verdict in one sentence, with what it rests on."""
    design = state.settings.design
    verdict = state.verdict or "inconclusive"
    unit = state.settings.metric
    return (
        f"Verdict: {_VERDICT_TEXT[verdict]} (H0: {design.d0:g} vs H1: {design.d1:g} {unit}/game, "
        f"alpha {design.alpha:g}, beta {design.beta:g}): LLR {state.llr:+.2f} in [{design.lower:+.2f}, "
        f"{design.upper:+.2f}] after {state.blocks} blocks ({state.games} games). NEW's gain per game (OLD's result "
        f"minus NEW's, positive: NEW better): {describe_diff(state.points, 'points')}, "
        f"{describe_diff(state.ranks, 'ranks')} (95% intervals over blocks)."
    )


def early_crossing(state: CompareState) -> str | None:
    """The line to say when the LLR is past a bound before the test may decide (``min_blocks``): why it goes on.
    None otherwise."""
    design = state.settings.design
    if state.verdict is not None or state.blocks >= design.min_blocks:
        return None
    if design.lower < state.llr < design.upper:
        return None
    bound = "upper" if state.llr >= design.upper else "lower"
    return (
        f"LLR {state.llr:+.2f} is past its {bound} bound at block {state.blocks}, but the test decides no earlier "
        f"than block {design.min_blocks} (its minimum, against a verdict from a few lucky deals: docs/compare.md), "
        "so it plays on"
    )


class BlockLines(CompareProgress):
    """Prints a line per finished block on ``console``: blocks, games, the LLR with its bounds, and the mean paired
    difference in points and in ranks with its 95% interval; once, when the LLR crosses a bound before the test's
    minimum of blocks, a line saying why it goes on (``early_crossing``)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._said_early = False

    def start(self, state: CompareState) -> None:
        if state.blocks:
            self.console.print(f"{state.blocks} block(s) already played:", highlight=False)
            self.console.print(progress_line(state), highlight=False)

    def block_done(self, state: CompareState) -> None:
        self.console.print(progress_line(state), highlight=False)
        note = early_crossing(state)
        if note is not None and not self._said_early:
            self._said_early = True
            self.console.print(note, highlight=False)

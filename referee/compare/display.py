"""A comparison's progress as text: one line per block (the same on a terminal and in a CI log), and the verdict."""

from __future__ import annotations

from rich.console import Console

from referee.compare.run import CompareProgress, CompareState
from referee.compare.sprt import BlockStats

__all__ = ["BlockLines", "cap_line", "describe_diff", "early_crossing", "progress_line", "verdict_line"]

_VERDICT_TEXT = {
    "stronger": "NEW is stronger",
    "not stronger": "NEW is not stronger",
    "inconclusive": "inconclusive: the cap ran out before the test decided",
}
#: The unit of each metric's gain.
_UNIT = {"matchpoints": "matchpoints", "points": "points/game", "ranks": "ranks/game"}


def _gain(n: int, mean: float, interval: tuple[float, float] | None, unit: str, digits: int) -> str:
    """``+2.31 points/game [+1.02, +3.60]``: a mean gain over ``n`` blocks and its interval (``-`` before any)."""
    if n == 0:
        return f"- {unit}"
    shown = "" if interval is None else f" [{interval[0]:+.{digits}f}, {interval[1]:+.{digits}f}]"
    return f"{mean:+.{digits}f} {unit}{shown}"


def describe_diff(stats: BlockStats, unit: str) -> str:
    """``+2.31 points/game [+1.02, +3.60]``: the mean paired difference and its 95% t interval over blocks."""
    return _gain(stats.n, stats.mean, stats.ci95() if stats.n else None, unit, 2)


def _tested(state: CompareState) -> str:
    """The tested metric's mean gain with its confidence sequence."""
    unit = _UNIT[state.settings.metric]
    return _gain(state.blocks, state.tested.mean, state.interval() if state.blocks else None, unit, 3)


def _evidence(state: CompareState) -> str:
    design = state.settings.design
    if state.test is None:
        return f"LLR {state.llr:+6.2f} [{design.lower:+.2f}, {design.upper:+.2f}]"
    test = state.test
    stronger, weaker = test.evidence()
    return (
        f"evidence stronger {stronger:+5.2f}/{test.stronger.threshold:.2f}, "
        f"not stronger {weaker:+5.2f}/{test.weaker.threshold:.2f}"
    )


def _others(state: CompareState) -> str:
    return "  ".join(describe_diff(s, _UNIT[m]) for m, s in state.stats.items() if m != state.settings.metric)


def progress_line(state: CompareState) -> str:
    return (
        f"block {state.blocks:>4}  games {state.games:>5}  {_tested(state)}  {_evidence(state)}  "
        f"cap {state.cap_blocks} blocks  {_others(state)}"
    )


def cap_line(state: CompareState) -> str:
    """How the cap was set: sized from power (and on what), or ``--max-games``."""
    design = state.settings.design
    games = state.cap_blocks * (state.games // state.blocks if state.blocks else 0)
    if not state.cap_sized:
        return f"cap: {state.cap_blocks} blocks (--max-games {state.settings.max_games}); power at d1 not sized"
    return (
        f"cap: {state.cap_blocks} blocks{f' ({games} games)' if games else ''}, sized for power {1 - design.beta:.0%} "
        f"at d1 = {design.d1:g} {_UNIT[state.settings.metric]} from the spread of the blocks so far (it moves as "
        "they come; --max-games fixes it)"
    )


def verdict_line(state: CompareState) -> str:
    """The verdict in one sentence, with what it rests on."""
    design = state.settings.design
    verdict = state.verdict or "inconclusive"
    metric = state.settings.metric
    if state.test is None:
        rests = (
            f"GSPRT on points, H0 {design.d0:g} vs H1 {design.d1:g} points/game, alpha {design.alpha:g}, beta "
            f"{design.beta:g}: LLR {state.llr:+.2f} in [{design.lower:+.2f}, {design.upper:+.2f}], calibrated, "
            "not guaranteed"
        )
        kind = "95% asymptotic confidence sequence"
    else:
        rests = (
            f"betting tests on {metric}, H0 gain <= {design.d0:g} (alpha {design.alpha:g}) and H1 gain >= "
            f"{design.d1:g} (beta {design.beta:g}); {_evidence(state)}"
        )
        kind = f"{1 - design.alpha - design.beta:.0%} confidence sequence of the tests, valid at this stop"
    text = (
        f"Verdict: {_VERDICT_TEXT[verdict]} ({rests}) after {state.blocks} blocks ({state.games} games). "
        f"NEW's gain over OLD (positive: NEW better): {_tested(state)} ({kind}); {_others(state)} (95% t intervals "
        "over blocks, not adjusted for the stop)."
    )
    warning = state.warning()
    return text if warning is None else f"{text}\nWarning: {warning}."


def early_crossing(state: CompareState) -> str | None:
    """For the GSPRT (``--metric points``), the line to say when the LLR is past a bound before the test may decide
    (``min_blocks``): why it goes on. None otherwise (the betting tests have no minimum: they stop at their bound)."""
    design = state.settings.design
    if state.test is not None or state.verdict is not None or state.blocks >= design.min_blocks:
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
    """Prints a line per finished block on ``console``: blocks, games, the tested gain with its confidence
    sequence, the test's evidence, the cap, and the other metrics' mean gains with their 95% intervals; once, when
    the GSPRT's LLR crosses a bound before its minimum of blocks, a line saying why it goes on (``early_crossing``)."""

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

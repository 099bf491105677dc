"""Report benchmark: the size (and build time) of the report of a 10,000-game tournament.

Not a test. Builds a synthetic tournament folder through the real APIs: ``ResultsStore.initialise`` and
``record_game`` for the database and the runner's ``GameLogWriter`` for one game log per game. Games are
4-player games (the largest replays) played in-process through the engine by a greedy policy (cheapest play,
else pass; forced or stalled it plays or drops), with a forfeit for a timeout in about 2% of games. The logs
hold the applied discards, actions, forfeits and results, but not the send/recv message lines a real run adds
(the report skips those without decoding them). Then it runs ``build_report`` and prints the file size.

Run: ``python bench/bench_report.py`` (``--games``, ``--entrants``, ``--keep DIR``; ``--help``).
The target: the report of 10,000 games stays under 10 MB.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from referee.engine import (
    STANDARD,
    Discard,
    Drop,
    Pass,
    Phase,
    Play,
    PlayEvent,
    State,
    apply,
    forfeit,
    legal_actions,
    new_game,
)
from referee.report import build_report
from referee.runner import Fault, GameResult
from referee.runner.gamelog import GameLogWriter, applied_events
from referee.runner.logrecords import ActionEvent, DiscardEvent, FaultEvent, ForfeitEvent, LogHeader, ResultEvent
from referee.tournament import DealSecret, EntrantInfo, ResultsStore, ScheduledGame, TournamentParams, make_schedule

TARGET = 10_000_000
TABLE = 4


def _choose(state: State) -> Play | Pass | Drop:
    """Greedy: the cheapest play (penalty plus 2 per bonus chip); pass when that costs more than a pass."""
    legal = legal_actions(state)
    plays = [a for a in legal if isinstance(a, Play)]
    if state.last is None:
        return plays[0]
    seat = state.to_move
    hand = state.hands[seat]

    def cost(p: Play) -> int:
        pen = max(0, p.value - (state.last or 0) - 5 * p.bonus - 1) + 2 * p.bonus
        return pen - (3 if p.count == len(hand) else 0)

    best = min(plays, key=lambda p: (cost(p), -p.count, p.value), default=None)
    recent = state.history[-(state.players - 1) :]
    stalled = len(recent) == state.players - 1 and not any(isinstance(e, PlayEvent) for e in recent)
    if best is not None and (cost(best) <= 1 or state.forced or stalled):
        return best if cost(best) < len(hand) else Drop()
    if state.forced or stalled:
        return Drop()
    return Pass()


def play_game(args: tuple[ScheduledGame, str]) -> tuple[ScheduledGame, GameResult]:
    """Play one scheduled game through the engine, writing its log; returns the result for the store."""
    game, folder = args
    rng = random.Random(game.game_id)
    path = Path(folder) / "games" / f"{game.game_id}.jsonl"
    state = new_game(len(game.seats), STANDARD, seed=game.seed)
    fault_at = rng.randrange(10, 120) if rng.random() < 0.02 else -1
    faults: list[Fault] = []
    steps = 0
    with GameLogWriter(path) as log:
        log.record(
            LogHeader(game.game_id, tuple(game.seats), STANDARD, game.seed, state.deal, (1000,) * len(game.seats))
        )
        while not state.is_over:
            steps += 1
            if steps == fault_at and state.phase is Phase.PLAY:
                seat = state.to_move
                fault = Fault(seat, "timeout", state.round + 1, state.turns + 1, "no reply within 1000 ms")
                faults.append(fault)
                log.record(FaultEvent(log.ms(), fault))
                before, state = state, forfeit(state, seat)
                log.record(
                    ForfeitEvent(log.ms(), seat, True, tuple(e.to_dict() for e in applied_events(before, state)))
                )
                continue
            if state.phase is Phase.DISCARD:
                for seat in range(state.players):
                    if state.discards[seat] is None:
                        keep = [c for c in state.hands[seat] if c != 1]
                        cards = tuple(sorted(keep[-STANDARD.discard :]))
                        state = apply(state, Discard(seat, cards))
                        log.record(DiscardEvent(log.ms(), state.round + 1, seat, cards, "bot"))
                continue
            action = _choose(state)
            seat, rnd, turn = state.to_move, state.round + 1, state.turns + 1
            before, state = state, apply(state, action)
            entries = tuple(e.to_dict() for e in applied_events(before, state))
            log.record(ActionEvent(log.ms(), rnd, turn, seat, action, entries))
        assert state.scores is not None and state.ranks is not None
        forfeits = tuple(s for s, f in enumerate(state.forfeited) if f)
        log.record(ResultEvent(log.ms(), state.scores, state.ranks, forfeits, tuple(faults)))
    result = GameResult(
        game.game_id, game.seats, state.scores, state.ranks, forfeits, tuple(faults), path, game.seed, state.deal
    )
    return game, result


def make_tournament(folder: Path, games: int, entrants: int, jobs: int) -> int:
    """Create the synthetic tournament in ``folder``; returns the number of games stored."""
    names = [f"bot{i + 1}" for i in range(entrants)]
    per_repeat = math.comb(entrants, TABLE) * TABLE
    repeats = max(1, math.ceil(games / per_repeat))
    params = TournamentParams(
        entrants=tuple(EntrantInfo(n, ("python3", f"{n}.py")) for n in names),
        table_size=TABLE,
        repeats=repeats,
        seed=2026,
        ruleset=STANDARD.to_dict(),
        move_time=1.0,
        startup_time=10.0,
        time_bank=None,
        sandbox="none",
    )
    secret = DealSecret.new()
    schedule = [
        g for b in make_schedule(names, table_size=TABLE, repeats=repeats, seed=2026, secret=secret) for g in b.games
    ]
    schedule = schedule[:games]
    with ResultsStore(folder) as store:
        store.initialise(params, secret)
        with multiprocessing.Pool(jobs) as pool:
            for game, result in pool.imap(play_game, [(g, str(folder)) for g in schedule], chunksize=50):
                store.record_game(game, result, duration=0.01)
        return store.game_count()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in the tournament (default 10000)")
    parser.add_argument("--entrants", type=int, default=5, help="entrants, tables of 4 (default 5: 20 games a deal)")
    parser.add_argument("--jobs", type=int, default=max(1, multiprocessing.cpu_count()), help="processes")
    parser.add_argument("--keep", type=Path, help="build the tournament in this folder and keep it")
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        t0 = time.perf_counter()
        stored = make_tournament(folder, args.games, args.entrants, args.jobs)
        t1 = time.perf_counter()
        outcome = build_report(folder)
        t2 = time.perf_counter()
        print(f"tournament: {stored} games of {TABLE} players, {args.entrants} entrants ({t1 - t0:.1f} s to make)")
        print(
            f"report: {outcome.path.name} {outcome.size:,} bytes ({outcome.size / 1e6:.2f} MB), "
            f"{outcome.size / max(stored, 1):.0f} bytes a game, {outcome.replays} of {outcome.games} replays "
            f"embedded; built in {t2 - t1:.1f} s"
        )
        ok = outcome.size < TARGET
        print(f"target: under {TARGET / 1e6:.0f} MB: {'met' if ok else 'MISSED'} ({outcome.size / TARGET:.2f} of it)")
        return 0 if ok else 1
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

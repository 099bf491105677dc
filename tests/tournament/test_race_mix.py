"""The race at a mix of table sizes (``--table-mix``, what a ladder's final plays): it ranks by the mix of the
round robins' strengths at those sizes, its observations come at the sizes' weights, and one size is the race it
always was."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from referee.cli import main
from referee.tournament import Race

from .fields import Field

#: Strengths at tables of 3 and of 4: e05 is the best at 3 and fourth at 4.
AT = {3: [0.0, 0.5, 1.0, 1.5, 2.0, 5.0], 4: [0.0, 0.5, 1.0, 1.5, 2.0, 1.0]}
MIX = {3: 3.0, 4: 1.0}
SAMPLES = Path(__file__).parents[2] / "sample_bots"


def _play(race: Race, seed: int) -> Counter[int]:
    """Play ``race`` to its end, each table's block totals from the field of its size; the tables played per size."""
    fields = {k: Field(s) for k, s in AT.items()}
    index = {name: i for i, name in enumerate(fields[3].names)}
    rng = np.random.default_rng(seed)
    played: Counter[int] = Counter()
    while (tables := race.next_tables()) is not None:
        totals: list[dict[str, float]] = [{} for _ in tables]
        for k, fld in fields.items():
            rows = [i for i, t in enumerate(tables) if len(t) == k]
            if not rows:
                continue
            played[k] += len(rows)
            seats = np.array([[index[e] for e in tables[i]] for i in rows], dtype=np.int64)
            for i, row in zip(rows, fld.totals(seats, rng), strict=True):
                totals[i] = dict(zip(tables[i], row.tolist(), strict=True))
        race.record(totals)
    return played


def _race(seed: int, mix: dict[int, float] | None, max_games: int = 40_000) -> Race:
    names = Field(AT[3]).names
    return Race(names, table_size=4, seed=seed, top=1, confidence=0.95, max_games=max_games, table_mix=mix)


def test_a_mixed_race_settles_the_mixs_best_where_one_size_settles_another() -> None:
    truth = sum(w / sum(MIX.values()) * Field(AT[k]).truth(k, draws=2000) for k, w in MIX.items())
    assert int(np.argmax(truth)) == 5 and int(np.argmax(Field(AT[4]).truth(4, draws=2000))) == 4
    for seed in range(3):
        mixed = _race(seed, MIX)
        played = _play(mixed, seed)
        outcome = mixed.outcome()
        assert outcome.settled and outcome.order[0] == "e05", outcome
        assert set(played) == {3, 4}, played
        one = _race(seed, None)
        _play(one, seed)
        assert one.outcome().settled and one.outcome().order[0] == "e04", one.outcome()


def test_the_contenders_observations_come_at_the_mixs_weights() -> None:
    """A pairwise pass that draws more seats leaves fewer contenders outside its common opponents; the race draws and
    counts so that a contender's own-table observations still come at the sizes' weights (here 3:1)."""
    race = _race(7, {3: 1.0, 4: 3.0}, max_games=10**6)
    counted: Counter[int] = Counter()
    for _ in range(100):
        tables = race.next_tables()
        assert tables is not None
        for t in race._pending or []:
            counted[len(t.seats)] += t.counted[0]
        race.record([dict.fromkeys(t, 0.0) for t in tables])  # all tie: nothing is decided, the passes go on
    share = counted[4] / (counted[3] + counted[4])
    assert abs(share - 0.75) < 0.02, counted  # 0.69 when a pass draws its size with the weights alone


def test_one_size_in_a_mix_is_the_one_size_race() -> None:
    plain, mixed = _race(3, None), _race(3, {4: 2.0, 3: 0.0})
    for _ in range(6):
        tables = plain.next_tables()
        assert tables == mixed.next_tables() and tables is not None
        results = [{e: float(hash((e, i)) % 7) for e in t} for i, t in enumerate(tables)]
        plain.record(results)
        mixed.record(results)
    assert plain.outcome() == mixed.outcome()


def test_a_bad_table_mix_is_one_line(tmp_path: Path) -> None:
    bots = [str(SAMPLES / f"{b}.py") for b in ("random_bot", "greedy", "heuristic", "random_bot")]
    for mix, extra, text in [
        ("3:1,5:1", [], "each size 2 to 4 once, each weight 0 or more"),
        ("3:1,4:x", [], "give SIZE:WEIGHT pairs"),
        ("3:0,4:0", [], "the weights are all zero"),
        ("3:1,4:1", ["--table-size", "3"], "--table-size 3 must be the largest size --table-mix weighs (4)"),
        ("3:1", ["--format", "balanced"], "--table-mix applies to --format race only"),
    ]:
        args = ["run", *bots, "--format", "race", *extra, "--table-mix", mix, "--out", str(tmp_path / "x")]
        done = CliRunner().invoke(main, args)
        lines = done.stderr.strip().splitlines()
        assert done.exit_code == 2 and len(lines) == 1 and text in lines[0], (mix, done.output)
        assert not (tmp_path / "x").exists()

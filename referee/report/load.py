"""Read a tournament folder for the report: the results database (through ``ResultsStore``, read-only) and, for a
game stored without its replay (by an older referee), its game log.

The store is opened read-only and read in one snapshot, so a tournament that is still running is seen in one
consistent state and is never written to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from referee.contest.errors import ScheduleError
from referee.report.errors import NoTournament, ReplayError, ReportError
from referee.report.gamelog import read_game_log
from referee.report.model import Entrant, FaultEntry, Game, Tournament
from referee.report.replay import encode_replay
from referee.runner.safe_text import visible
from referee.tournament.errors import EmptyStore, StoreError
from referee.tournament.formats import check_format, format_of, planned_games
from referee.tournament.params import TournamentParams
from referee.tournament.standings import Tally, with_format
from referee.tournament.store import DB_NAME, ResultsStore


def load_tournament(
    directory: Path,
    *,
    replays: bool = True,
    on_game: Callable[[int], None] | None = None,
    counted: Tally | None = None,
) -> Tournament:
    """Everything the report shows about the tournament in ``directory``.

    With ``replays`` each game gets its replay: the one stored with its result, recorded as it was played from the
    same states as the result (its JSON text, not parsed: the page takes it as it is); a game
    stored without one (by an older referee) has its game log re-run through the engine (``on_game`` is called
    with the count of games done). Raises ``ReportError`` with one line when the folder holds no tournament or
    its database cannot be read. A game without a stored replay whose log is missing or does not replay keeps
    its result and gets a note instead of a replay.

    ``counted`` is the standings of this folder's games already counted (``tally_from_store(store, history=True)``,
    as ``referee run`` does right before its report, holding the folder's lock): taken as they are when they
    count as many games as the folder holds, instead of counting every game (OpenSkill's update) once more.
    """
    if not directory.is_dir():
        raise NoTournament(f"{directory}: no such folder")
    if not (directory / DB_NAME).is_file():
        raise NoTournament(
            f"{directory} holds no tournament ({DB_NAME} not found); run one with: referee run BOT... --out {directory}"
        )
    try:
        with ResultsStore(directory, read_only=True) as store, store.snapshot():
            params = store.tournament()
            stored_entrants = store.entrants()
            stored_games = list(store.games())
            stored_faults = store.faults()
            deals = store.deals()
            recorded = store.replays() if replays else {}
    except EmptyStore as exc:
        raise NoTournament(str(exc)) from None
    except StoreError as exc:
        raise ReportError(str(exc)) from None

    # A bot's hello name is its own text: invisible and direction-changing characters shown as escapes (``visible``).
    entrants = tuple(
        Entrant(key, e.name, None if e.declared is None else visible(e.declared), " ".join(e.argv))
        for key, e in enumerate(stored_entrants)
    )
    key_of = {e.name: e.key for e in entrants}
    own = counted is None or not counted.keeps_history or counted.games != len(stored_games)
    tally = Tally([e.name for e in entrants], {e.name: e.declared for e in entrants}, history=True) if own else counted
    assert tally is not None
    games: list[Game] = []
    for done, stored in enumerate(stored_games, start=1):
        rows = stored.seats
        if own:
            tally.add(rows, stored.batch)
        game = Game(
            key=stored.ordinal,
            label=stored.game_id,
            seats=tuple(key_of[r.entrant] for r in rows),
            scores=tuple(r.score for r in rows),
            ranks=tuple(r.rank for r in rows),
            forfeits=tuple(r.forfeit_kind is not None for r in rows),
            seed=stored.seed,
        )
        if replays:
            text = recorded.get(stored.game_id)
            game = _with_replay(directory, game, stored.log_path) if text is None else replace(game, replay=text)
            if on_game is not None:
                on_game(done)
        games.append(game)
    ordinal_of = {g.game_id: g.ordinal for g in stored_games}
    faults = [
        FaultEntry(ordinal_of[f.game_id], key_of[f.entrant], f.seat, f.kind, f.detail, f.round, f.turn or None, f.line)
        for f in stored_faults
        if f.game_id in ordinal_of and f.entrant in key_of
    ]
    if own:
        with_format(tally, params, {g.game_id: g.seats for g in stored_games})
    planned = _planned(params, tally)
    return Tournament(
        name=directory.resolve().name,
        entrants=entrants,
        games=tuple(games),
        standings=tally.standings(),
        faults=tuple(faults),
        planned=planned,
        ruleset=dict(params.ruleset),
        deals=deals,
        ratings=tuple(tuple(tally.rating_history()[e.name]) for e in entrants),
    )


def _planned(params: TournamentParams, tally: Tally) -> int | None:
    """The games the tournament plans: its format's count (for a race, or a gauntlet stopped early by
    ``--early-stop``, once it has ended: the games it played); None when its stored parameters make no schedule."""
    try:
        check_format(params)
    except ScheduleError:
        return None
    final = tally.decided.final_games if tally.decided is not None else None
    return final if format_of(params).adaptive or final is not None else planned_games(params)


def _with_replay(directory: Path, game: Game, log_path: str | None) -> Game:
    """``game`` with the replay of its game log (re-run through the engine), or a note saying why it has none."""
    if not log_path:
        return replace(game, replay_note="no game log was kept")
    try:
        logged = read_game_log(directory / log_path)
        replay = encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
    except ReplayError as exc:
        return replace(game, replay_note=f"the game log does not replay: {exc}")
    if tuple(replay.get("s", ())) != game.scores:
        return replace(game, replay_note="the game log does not match the stored result")
    return replace(game, replay=replay)

"""The names of what a referee writes on disk, in one place: the results folder's database and folders, and the
game logs of ``referee play``.

The runner's sandbox covers earlier results found inside a bot's folder by these names; the results store, the
executors and the commands write under them.
"""

from __future__ import annotations

from typing import Final

__all__ = ["BOTS_DIR", "DB_NAME", "GAMES_DIR", "PLAY_LOGS_DIR"]

#: The results database of a tournament or comparison: ``DIR/results.sqlite`` (``referee.tournament.store``).
DB_NAME: Final = "results.sqlite"
#: The game logs of a results folder: ``DIR/games/<game id>.jsonl``.
GAMES_DIR: Final = "games"
#: The bots' stderr of a results folder: ``DIR/bots/<entrant>.*.log``.
BOTS_DIR: Final = "bots"
#: Where ``referee play`` writes its game log unless told: ``./referee-logs/<game>.jsonl``.
PLAY_LOGS_DIR: Final = "referee-logs"

"""A freezer per bot start: an idle bot process stopped whole, so that it takes no CPU between its games.

A process a ladder keeps warm between blocks may burn CPU while nobody asks it anything (and an entrant's warm
processes may time each other): the CPU it takes slows every other bot's games. Frozen (cgroup v2's
``cgroup.freeze``, v1's ``freezer.state``), every process of the bot stops at once, whatever it forked, and runs
again when thawed; a frozen bot cannot tell how long it slept but by the clock.

On cgroup v2 the freezer is the bot's own cgroup (its memory cgroup, ``memory_cgroup``); on v1 a cgroup of its own
in the ``freezer`` hierarchy, below the referee's. Where neither can be made, ``make_freezer`` gives None and
idle processes are not frozen. A v1 freezer delays even SIGKILL until thawed, so a bot is thawed before it is
ended (``BotProcess.terminate``), and the cgroups of a referee that died are thawed at the next start (``sweep``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from referee.runner.limits import own_cgroup, remove_cgroup, sweep

__all__ = ["Freezer", "make_freezer"]

_V1 = Path("/sys/fs/cgroup/freezer")
_PREFIX = "referee-frz-"
_counter = itertools.count()
_parent: Path | bool | None = False  # False: not probed yet


@dataclass(frozen=True, slots=True)
class Freezer:
    """The cgroup ``path`` that freezes one bot start: its own (``v2``: ``cgroup.freeze``) or a v1 freezer one."""

    path: Path
    v2: bool

    def _write(self, frozen: bool) -> bool:
        if self.v2:
            name, value = "cgroup.freeze", "1" if frozen else "0"
        else:
            name, value = "freezer.state", "FROZEN" if frozen else "THAWED"
        try:
            with open(self.path / name, "w") as f:
                f.write(value)
        except OSError:
            return False
        return True

    def freeze(self) -> bool:
        """Stop every process of the bot; False when the cgroup is gone."""
        return self._write(True)

    def thaw(self) -> bool:
        """Let the bot's processes run again; False when the cgroup is gone."""
        return self._write(False)

    def remove(self) -> bool:
        """Remove a v1 freezer cgroup (a v2 one is the bot's own cgroup, removed with it); False while in use."""
        return True if self.v2 else remove_cgroup(self.path)


def _v1_parent() -> Path | None:
    """The referee's folder in the v1 freezer hierarchy, when bot cgroups can be made there (probed once)."""
    global _parent
    if _parent is False:
        _parent = None
        own = own_cgroup("freezer")
        if own is not None and (_V1 / "cgroup.procs").exists():
            folder = _V1 / own.lstrip("/")
            for stale in folder.glob(f"{_PREFIX}*-*"):
                owner = stale.name[len(_PREFIX) :].split("-")[0]
                if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                    Freezer(stale, False).thaw()  # what a dead referee froze may die now
            sweep(folder, _PREFIX)
            probe = folder / f"{_PREFIX}{os.getpid()}-probe"
            try:
                probe.mkdir()
                probe.rmdir()
                _parent = folder
            except OSError:
                with contextlib.suppress(OSError):
                    probe.rmdir()
    return _parent if isinstance(_parent, Path) else None


def make_freezer(v2_cgroup: Path | None) -> Freezer | None:
    """The freezer of a bot start whose cgroup v2 is ``v2_cgroup`` (None: it has none), or None where none can be
    made; a v1 one is joined by the bot's first process (``limits.preexec``'s ``also``)."""
    if v2_cgroup is not None:
        return Freezer(v2_cgroup, True) if (v2_cgroup / "cgroup.freeze").exists() else None
    parent = _v1_parent()
    if parent is None:
        return None
    path = parent / f"{_PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
    except OSError:
        return None
    return Freezer(path, False)

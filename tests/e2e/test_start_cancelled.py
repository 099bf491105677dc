"""A bot process started while its scope is being cancelled (Ctrl-C or SIGTERM of a run, a lane told to stop) is
handed back to its owner, which ends it; it is never dropped.

``BotProcess.start`` launches the process on the starter thread, shielded ("a process that was started is always
handed back", ``run_in_starter``), but then ends with ``await trio.lowlevel.checkpoint()``: in a cancelled scope that
raises ``Cancelled`` and the started process is lost. Nobody terminates it: its pids cgroup is never killed or
removed, and a child it started in a new session outlives the referee (seen with ``tests/bots/fork_child.py`` after
a Ctrl-C of ``referee run --sandbox none``, at ``--jobs 1`` and ``--jobs 2``, about one run in four).
"""

from __future__ import annotations

import os
import signal
import time

import trio

from referee.runner.process import BotProcess

from .helpers import bot, config, new_mark, processes_with


def test_a_bot_started_in_a_cancelled_scope_is_handed_back_and_ended() -> None:
    mark = new_mark()
    spec = bot("fork_child", mark)
    started: list[BotProcess] = []

    async def main() -> None:
        with trio.CancelScope() as scope:
            scope.cancel()  # as a Ctrl-C does while a game starts its bots
            started.append(await BotProcess.start(spec, config("none"), None, "none"))
        for proc in started:
            await proc.terminate(0.3)

    try:
        trio.run(main)
        end = time.monotonic() + 10
        while processes_with(mark) and time.monotonic() < end:
            time.sleep(0.05)
        left = processes_with(mark)
    finally:
        for pid in processes_with(mark):  # what the referee dropped (its own child, and the child's child)
            os.kill(pid, signal.SIGKILL)
    assert left == [], "a started bot process was dropped, and lives on"
    assert len(started) == 1

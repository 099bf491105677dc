"""Answers its first turn with a line of terminal escape codes: clear the screen, a fake message in green,
a new window title."""

import _base


def hook(msg):
    if msg["type"] == "turn":
        _base.send_raw(b"\x1b[2J\x1b[H\x1b[32mall bots passed\x1b[0m\x1b]0;owned\x07\n")
        return _base.DONE


_base.run(hook)

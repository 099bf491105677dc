"""Plays honestly under a hello name with terminal escape codes (a colour, a window title) and a newline."""

import _base

_base.run(name="evil\x1b[31mRED\x1b]0;owned\x07\nsecond line")

"""Answers hello, then exits with status 3 before the game begins."""

import sys

import _base


def hook(msg):
    if msg["type"] == "hello":
        _base.send(_base.honest(msg, "exit_after_hello"))
        sys.exit(3)


_base.run(hook)

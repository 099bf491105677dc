"""A machine's platform tag: which machines can run each other's built files.

``platform_tag()`` is ``<os>-<machine>`` as Python names them (``sysconfig.get_platform()``: ``linux-x86_64``,
``linux-aarch64``, ``macosx-14.0-arm64``, ``win-amd64``), followed on Linux by the C library and its version when
Python can name them (``platform.libc_ver()``: ``-glibc2.36``; musl and others it cannot name add nothing). Two
machines run each other's built files when their tags are equal; a build made against a newer glibc may not run
on an older one, so the version is part of the tag. An operator who knows better (workers on glibc 2.39 running
what a coordinator on 2.36 built, or a musl worker that must not share a glibc coordinator's files) sets
``REFEREE_PLATFORM`` (the tests do too): its value is the tag, on the coordinator and on each worker alike, one to
``MAX_TAG`` characters among letters, digits and ``. _ + -``.
"""

from __future__ import annotations

import os
import platform
import re
import sysconfig

from referee.ladder.errors import LadderError
from referee.memo import memoized

__all__ = ["PLATFORM_ENV", "platform_tag"]

#: The environment variable that sets this machine's platform tag.
PLATFORM_ENV = "REFEREE_PLATFORM"
#: The longest tag.
MAX_TAG = 80
_TAG = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._+-]{{0,{MAX_TAG - 1}}}")


def platform_tag() -> str:
    """This machine's platform tag (see the module's docstring). Raises ``LadderError`` when ``REFEREE_PLATFORM``
    is set to something that is not a tag."""
    told = os.environ.get(PLATFORM_ENV)
    if told is None or told == "":
        return _machine_tag()
    if not _TAG.fullmatch(told):
        raise LadderError(
            f"{PLATFORM_ENV}={told[:MAX_TAG]!r} is not a platform tag: use 1 to {MAX_TAG} letters, digits and . _ + - "
            "(or unset it to use this machine's own)"
        )
    return told


@memoized("referee.ladder.platforms.machine_tag", 1)
def _machine_tag() -> str:
    tag = sysconfig.get_platform().replace(" ", "_")
    if platform.system() == "Linux":
        lib, version = platform.libc_ver()
        if lib and version:
            tag += f"-{lib}{version}"
    return tag

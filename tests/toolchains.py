"""Which outside tools this machine has, for the tests that need one: each such test skips with a one-line reason
where the tool is absent (a machine with Python alone); `.ci/run` installs them, so CI runs every test."""

from __future__ import annotations

import shutil

import pytest

HAVE_NODE = shutil.which("node") is not None
#: a test that runs a JavaScript bot (or asks for node by name)
NEEDS_NODE = pytest.mark.skipif(not HAVE_NODE, reason="needs node (a JavaScript bot)")

"""Fixtures every test folder may use: one real browser for the whole session, and a temporary folder of each
test process's own (the suite runs in several processes at once: ``-n auto`` in pyproject.toml).

Playwright's sync API runs its own event loop for as long as its context is open, so a second one opened while
the first lives fails ("Sync API inside the asyncio loop"); the report's and the web's browser tests share this one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (headless); the tests skip only when chromium is not installed."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("chromium is not installed (/usr/bin/chromium); .ci/run installs it with apt")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session", autouse=True)
def own_temp_folder() -> Iterator[None]:
    """``tempfile`` makes its files in a folder of this test process alone, so a test that looks for what the
    referee left behind there (an upload's spool file, say) sees its own process's files only. Like /tmp it is
    open to every user (sticky), for the tests that run the referee as nobody."""
    before = tempfile.tempdir
    folder = tempfile.mkdtemp(prefix="referee-tests-")
    os.chmod(folder, 0o1777)
    tempfile.tempdir = folder
    yield
    tempfile.tempdir = before
    shutil.rmtree(folder, ignore_errors=True)

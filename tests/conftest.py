"""Fixtures every test folder may use: one real browser for the whole session.

Playwright's sync API runs its own event loop for as long as its context is open, so a second one opened while
the first lives fails ("Sync API inside the asyncio loop"); the report's and the web's browser tests share this one.
"""

from __future__ import annotations

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
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed (/usr/bin/chromium); .ci/run installs it with apt")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()

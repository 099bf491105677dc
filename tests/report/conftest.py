"""Fixtures of the report tests: a real tournament (real bot processes, with faults) and a real browser."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the tournament tests' random bot: MISBEHAVE=illegal|crash makes it fault on its MISBEHAVE_AT-th turn of every game
RANDOM_BOT = ROOT / "tests" / "bots" / "random_bot.py"


def referee(*args: object, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m referee ARGS`` to the end; text output."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def write_manifest(folder: Path, entries: list[tuple[str | None, Path, str]]) -> Path:
    """``FOLDER/bots.toml`` of ENTRIES (name or None, bot file, env table or ""), with copies of the bot files.

    A manifest's entrants live inside its folder (the referee refuses others), so each bot's folder is copied
    to ``FOLDER/bots/`` (a sample bot imports its neighbours).
    """
    tables = []
    for name, source, env in entries:
        copy = folder / "bots" / source.parent.name
        shutil.copytree(source.parent, copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        table = "[[bot]]\n" + (f'name = "{name}"\n' if name else "") + f'command = "{copy / source.name}"\n'
        tables.append(table + (f"env = {{ {env} }}\n" if env else ""))
    path = folder / "bots.toml"
    path.write_text("".join(tables), encoding="utf-8")
    return path


def manifest(folder: Path) -> Path:
    """Five entrants: two sample bots, a random bot, and two random bots that fault (an illegal move; a crash)."""
    return write_manifest(
        folder,
        [
            (None, ROOT / "sample_bots" / "greedy.py", ""),
            (None, ROOT / "sample_bots" / "heuristic.py", ""),
            ("random", RANDOM_BOT, ""),
            ("cheater", RANDOM_BOT, 'MISBEHAVE = "illegal", MISBEHAVE_AT = "4"'),
            ("crashy", RANDOM_BOT, 'MISBEHAVE = "crash", MISBEHAVE_AT = "9"'),
        ],
    )


@pytest.fixture(scope="session")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament of 30 games (tables of 3, seat rotations) with illegal-move and crash faults.

    ``referee run`` writes its report too: ``DIR/report.html``.
    """
    folder = tmp_path_factory.mktemp("report")
    out = folder / "t"
    done = referee("run", "--manifest", manifest(folder), "-k", "3", "--games", "1", "--seed", "7", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def copy_of(tmp_path: Path) -> Any:
    """``copy_of(folder)``: a copy of a tournament folder to change freely."""

    def copy(folder: Path) -> Path:
        target = tmp_path / folder.name
        shutil.copytree(folder, target)
        return target

    return copy


@pytest.fixture
def open_report(browser: Any) -> Iterator[Any]:
    """``open_report(path)``: a page showing the report file, once its script has decoded the data."""
    pages: list[Any] = []
    errors: list[str] = []

    def open_(path: Path, fragment: str = "") -> Any:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda req: req.url.startswith("file:") or errors.append(f"network request {req.url}"))
        pages.append(page)
        page.goto(path.resolve().as_uri() + fragment)
        page.wait_for_selector("body[data-ready]")
        assert page.get_attribute("body", "data-ready") == "1"
        return page

    yield open_
    for page in pages:
        page.close()
    assert errors == []

"""Sample bots as ladder submissions: a folder with the bot's file, what it imports beside it, and a bot.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def sample_folder(name: str, dest: Path, *, tag: str = "") -> Path:
    """``dest/<name><tag>/``: ``sample_bots/<name>.py`` (and the sample bots' helper package, when it has one) with a
    bot.toml that runs it; ``tag`` (a comment) makes a version of different content."""
    folder = dest / f"{name}{tag}"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLES / f"{name}.py", folder / f"{name}.py")
    helpers = SAMPLES / "noise"
    if helpers.is_dir():
        shutil.copytree(helpers, folder / "noise", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(f'command = "python {name}.py"  # {tag or "first"}\n')
    return folder

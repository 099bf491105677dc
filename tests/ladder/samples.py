"""Sample bots as ladder submissions: a folder with the bot's file, what it imports beside it, and a bot.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def sample_folder(name: str, dest: Path, *, tag: str = "") -> Path:
    """``dest/<name><tag>/``: ``sample_bots/<name>.py`` (one file: its --noise knob is the SDK's) with a bot.toml that
    runs it; ``tag`` (a comment) makes a version of different content."""
    folder = dest / f"{name}{tag}"
    folder.mkdir(parents=True)
    shutil.copy(SAMPLES / f"{name}.py", folder / f"{name}.py")
    (folder / "bot.toml").write_text(f'command = "python {name}.py"  # {tag or "first"}\n')
    return folder

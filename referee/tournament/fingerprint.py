"""What an entrant *is*: the SHA-256 of each file its command names inside its own folder, taken when the
tournament starts, so that a resume notices a bot replaced in between (its earlier games were played by another
program) and refuses to mix the two."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["bot_files", "changed_file", "file_digests"]

_CHUNK = 1 << 20


def bot_files(argv: Sequence[str], cwd: str | None) -> list[Path]:
    """The regular files among the command's words that lie in the bot's folder ``cwd`` (its script, its
    executable, its jar), resolved; an interpreter elsewhere (python3, node, java) is not the entrant's."""
    if cwd is None:
        return []
    folder = Path(cwd).resolve()
    out: list[Path] = []
    for word in argv:
        path = Path(word) if Path(word).is_absolute() else folder / word
        try:
            path = path.resolve()
            if path.is_file() and folder in path.parents and path not in out:
                out.append(path)
        except (OSError, ValueError):
            continue
    return out


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def file_digests(argv: Sequence[str], cwd: str | None) -> dict[str, str]:
    """Path → SHA-256 of each of ``bot_files``; a file that cannot be read is left out (it cannot run either)."""
    out: dict[str, str] = {}
    for path in bot_files(argv, cwd):
        try:
            out[str(path)] = _digest(path)
        except OSError:
            continue
    return out


def changed_file(recorded: Mapping[str, str]) -> str | None:
    """The first recorded file that is gone or whose content changed, as a phrase; None when all are as they were."""
    for name, digest in recorded.items():
        path = Path(name)
        try:
            now = _digest(path)
        except OSError:
            return f"{name} is gone"
        if now != digest:
            return f"{name} changed"
    return None

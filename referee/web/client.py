"""The API from the other side: ``referee ladder submit --server URL --token-file F PATH`` submits a version from
anywhere (a bot's CI on every merge), and can wait for its gate.

A bot file or an archive is sent as it is; a folder is packed into a ``.tar.gz`` first (its ``bot.toml`` at the top;
``.git`` and ``__pycache__`` left out). Every failure is a ``SubmitError`` with one line: the server's own refusal
(with its status), or why the server could not be reached.
"""

from __future__ import annotations

import io
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2

from referee.engine.errors import RefereeError

__all__ = [
    "FINAL_STATES",
    "SubmitError",
    "Submitted",
    "activate",
    "placed",
    "read_token",
    "standing_line",
    "submit",
    "wait",
]

#: A version's states after which nothing more happens to it on its own (``ranked`` is where a good one ends up).
FINAL_STATES = frozenset({"ranked", "failed", "suspended", "retired"})
#: What a packed folder leaves out.
_SKIP = frozenset({".git", "__pycache__", ".venv", "node_modules"})


class SubmitError(RefereeError):
    """A submission that did not go through, or a wait that did not end well; one line."""


@dataclass(frozen=True, slots=True)
class Submitted:
    """The version the server took: its key, state and where its status is."""

    key: str
    state: str
    url: str
    body: dict[str, Any]


def read_token(path: Path) -> str:
    """The token in the file at ``path`` (its first line). Raises ``SubmitError``."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SubmitError(f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    token = text.splitlines()[0].strip() if text else ""
    if not token:
        raise SubmitError(f"the token file {path} is empty: put the token `referee ladder add` printed in it")
    return token


def _payload(path: Path) -> tuple[str, bytes]:
    """(file name, bytes) of what to send for ``path``."""
    if path.is_dir():
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:gz") as tar:
            for item in sorted(path.rglob("*")):
                rel = item.relative_to(path)
                if _SKIP & set(rel.parts) or item.is_dir():
                    continue
                tar.add(item, arcname=rel.as_posix(), recursive=False)
        return f"{path.resolve().name or 'bot'}.tar.gz", out.getvalue()
    try:
        return path.name, path.read_bytes()
    except OSError as exc:
        raise SubmitError(f"cannot read {path}: {exc.strerror or exc}") from None


def _error(response: httpx2.Response) -> SubmitError:
    try:
        message = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        message = response.text.strip().splitlines()[0] if response.text.strip() else response.reason_phrase
    return SubmitError(f"the server refused it ({response.status_code}): {message}")


def _client(server: str, token: str, timeout: float) -> httpx2.Client:
    return httpx2.Client(base_url=server.rstrip("/"), headers={"Authorization": f"Bearer {token}"}, timeout=timeout)


def submit(server: str, token: str, path: Path, *, entrant: str | None = None, timeout: float = 120.0) -> Submitted:
    """Submit the bot at ``path`` (a file, an archive or a folder) to ``server``. Raises ``SubmitError``."""
    if not path.exists():
        raise SubmitError(f"{path} does not exist: give a bot file, a folder with a bot.toml, or an archive")
    name, data = _payload(path)
    params = {"entrant": entrant} if entrant else None
    try:
        with _client(server, token, timeout) as client:
            response = client.post("/api/versions", params=params, files={"file": (name, data)})
    except httpx2.HTTPError as exc:
        raise SubmitError(f"cannot reach {server}: {exc}") from None
    if response.status_code != 201:
        raise _error(response)
    body = response.json()
    return Submitted(body["key"], body["state"], response.headers.get("location", ""), body)


def activate(server: str, token: str, name: str, number: int, *, timeout: float = 30.0) -> dict[str, Any]:
    """Make version ``number`` of ``name`` active again on ``server`` (a rollback); its status as the server answers.
    Raises ``SubmitError``."""
    try:
        with _client(server, token, timeout) as client:
            response = client.post(f"/api/entrants/{quote(name, safe='')}/versions/{number}/activate")
    except httpx2.HTTPError as exc:
        raise SubmitError(f"cannot reach {server}: {exc}") from None
    if response.status_code != 200:
        raise _error(response)
    body: dict[str, Any] = response.json()
    return body


def placed(server: str, token: str, key: str) -> str:
    """``standing_line`` for version ``key`` from the server's leaderboard now. Raises ``SubmitError`` when the
    server cannot be reached or answers with an error."""
    try:
        with _client(server, token, 30.0) as client:
            response = client.get("/api/leaderboard")
            if response.status_code != 200:
                raise _error(response)
            board: dict[str, Any] = response.json()
    except httpx2.HTTPError as exc:
        raise SubmitError(f"cannot reach {server}: {exc}") from None
    return standing_line(server, key, board)


def standing_line(server: str, key: str, board: dict[str, Any]) -> str:
    """Where version ``key`` stands on ``board`` (the ``/api/leaderboard`` body), in one line: its place among the
    ranked versions, its joint 95% rank interval, its official figure with its 95% interval, the blocks and
    opponents behind it, and its page's address."""
    entrant, _, number = key.rpartition("#")
    url = f"{server.rstrip('/')}/entrants/{quote(entrant, safe='')}/versions/{number}"
    ranked = board.get("ranked", [])
    row = next((r for r in ranked if r.get("key") == key), None)
    if row is None or row.get("place") is None:
        return f"{key} is ranked; not on the leaderboard yet (it is recomputed after each block): {url}"
    low, high = row["rank_interval"]
    places = f"{low}" if low == high else f"{low}-{high}"
    ci_low, ci_high = row["matchpoints_ci95"]
    return (
        f"{key} is ranked: place {row['place']} of {len(ranked)} (95% rank interval {places}), expected "
        f"matchpoints {row['matchpoints']:.3f} [{ci_low:.3f}, {ci_high:.3f}] over {row['blocks']} blocks against "
        f"{row['opponents']} opponents: {url}"
    )


def wait(
    server: str,
    token: str,
    submitted: Submitted,
    *,
    timeout: float,
    every: float = 2.0,
    on_state: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Follow the version's status until it reaches a final state (``FINAL_STATES``) and return it. Raises
    ``SubmitError`` when ``timeout`` seconds pass first or the server cannot be reached."""
    entrant, _, number = submitted.key.rpartition("#")
    url = submitted.url or f"/api/entrants/{quote(entrant, safe='')}/versions/{number}"
    deadline = time.monotonic() + timeout
    last = submitted.state
    try:
        with _client(server, token, 30.0) as client:
            while True:
                response = client.get(url)
                if response.status_code != 200:
                    raise _error(response)
                body: dict[str, Any] = response.json()
                if body["state"] != last and on_state is not None:
                    on_state(body["state"])
                last = body["state"]
                if last in FINAL_STATES:
                    return body
                if time.monotonic() > deadline:
                    raise SubmitError(f"{submitted.key} is still {last} after {timeout:g} s")
                time.sleep(every)
    except httpx2.HTTPError as exc:
        raise SubmitError(f"cannot reach {server}: {exc}") from None

"""A real bot whose replies carry long unknown fields (protocol v1 ignores them): its games re-verify.

``referee verify`` re-parses every logged reply line, so the game log must keep each accepted line whole, up to
the protocol's MAX_LINE bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol import MAX_LINE
from referee.cli.app import main
from referee.runner import read_log

from .helpers import MODES, bot, config, new_mark, processes_with, run_games


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("env", "size"),
    [
        pytest.param({}, None, id="5000-byte-field"),
        pytest.param({"PADDED_LINE": str(MAX_LINE)}, MAX_LINE, id="max-line"),
    ],
)
def test_padded_replies_verify(mode: str, env: dict[str, str], size: int | None, tmp_path: Path) -> None:
    mark = new_mark()
    specs = [bot("padded", mark, **env), bot("honest", mark)]
    (result,), _ = run_games(specs, config(mode), tmp_path)
    assert result.faults == ()
    assert result.log_path is not None
    replies = [e["line"] for e in read_log(result.log_path) if e["event"] == "recv" and e["seat"] == 0]
    assert replies
    for line in replies:
        assert "padding" in json.loads(line)
        if size is not None:
            assert len(line.encode()) == size
    out = CliRunner().invoke(main, ["verify", str(result.log_path)])
    assert out.exit_code == 0, out.output
    assert "verified:" in out.output and "DISAGREES" not in out.output
    assert processes_with(mark) == []

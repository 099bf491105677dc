"""RULES.md cites a test for every worked example; each cited test must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def defined_tests(module: str) -> set[str]:
    tree = ast.parse((HERE / f"{module}.py").read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_test_cited_by_rules_md_exists() -> None:
    text = (ROOT / "RULES.md").read_text(encoding="utf-8")
    cited = re.findall(r"\[(test_\w+):\s+(test_\w+)\]", text)
    # The penalty table names its tests in a column headed "Test (test_play)".
    cited += [("test_play", name) for name in re.findall(r"\| (test_\w+) \|$", text, flags=re.MULTILINE)]
    assert len(cited) >= 30
    missing = [f"{module}::{name}" for module, name in cited if name not in defined_tests(module)]
    assert not missing, f"RULES.md cites tests that do not exist: {missing}"
    for module in set(re.findall(r"\[(test_\w+)\]", text)):
        assert (HERE / f"{module}.py").exists(), module

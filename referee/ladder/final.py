"""``referee ladder final``: the ladder's active versions, frozen, as the entrants of a normal tournament.

``prepare_final`` closes submissions (``Ladder.submit`` refuses from then on, with the reason) and writes two files
into the ladder folder for ``referee run``: ``final-bots.toml``, a manifest with one ``[[bot]]`` per active
version (its key as the name, its resolved command, its version folder as ``cwd``), and ``final-rules.json``, the
ladder's ruleset. It also closes the ladder's open epoch and reveals the secret of every closed one
(``close_epochs``): the ladder's play ends with the final, so its deals may be known and ``verify-deals`` checks them.
The final is then a ``race`` (or ``balanced``) tournament run by ``referee run`` into its own results folder with a
fresh committed deal secret, so it has its usual standings, report and ``verify-deals``; its bots run with the
ladder's move time, sandbox and limits, and it stops at ``--max-games`` (``DEFAULT_MAX_GAMES``) if it has not settled.

The race's estimand is the ladder's official one: each version's expected matchpoints against the whole field at a
table whose size is drawn with the ladder's ``table_weights`` (``final_mix``: the sizes the field can fill, as the
matchmaker opens them), the table drawn as a round robin draws it; the race draws each pass's table size from that
mix (``--table-mix``). A final at one table size measures another quantity wherever a version's strength depends
on the table size, and its order may then differ from the ladder's with both right. ``verdict_lines`` says what the
final proved, and whether its order agrees with the ladder's official one (each place of its top K inside that
version's joint 95% rank interval on the ladder).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.ladder.botmanifest import BotManifest, version_spec
from referee.ladder.config import LadderConfig
from referee.ladder.errors import Refused
from referee.ladder.model import BlockState, EntrantState, Epoch, Version
from referee.ladder.service import Ladder
from referee.ladder.store import now

__all__ = [
    "DEFAULT_MAX_GAMES",
    "FinalPlan",
    "close_epochs",
    "estimand_line",
    "final_folder",
    "final_mix",
    "mix_text",
    "prepare_final",
    "verdict_lines",
]

#: The ladder's meta key holding the final's results folder, once a final began: ``serve`` then plays no more blocks
#: (the ladder's play ended with it) and the web shows the final (``final_folder``).
FINAL_META = "final_results"
MANIFEST = "final-bots.toml"
RULES = "final-rules.json"
#: The final's cap unless ``--max-games`` says otherwise: a bounded time (about half an hour at two tables at a time
#: with a bot that thinks a second a move; seconds with fast bots), after which it stops with what it proved.
DEFAULT_MAX_GAMES = 2_000


@dataclass(frozen=True, slots=True)
class FinalPlan:
    """The files written and the versions entered."""

    manifest: Path
    rules: Path
    versions: tuple[Version, ...]
    revealed: tuple[Epoch, ...] = ()  # the epochs whose secret was revealed now


def final_mix(config: LadderConfig, entrants: int) -> dict[int, float]:
    """The ladder's table sizes a field of ``entrants`` versions can fill, with their weights (as the matchmaker
    opens them, and as the official figure mixes them); a field too small for every size: one table of them all."""
    g = config.games
    mix = {k: w for k, w in zip(g.table_sizes, g.table_weights, strict=True) if k <= entrants and w > 0}
    return mix or {min(max(g.table_sizes), entrants): 1.0}


def mix_text(mix: Mapping[int, float]) -> str:
    """A mix as ``--table-mix`` takes it: ``3:1,4:2``."""
    return ",".join(f"{k}:{w:g}" for k, w in sorted(mix.items()))


def estimand_line(played: Mapping[int, float], ladder: Mapping[int, float]) -> str:
    """What the final ranks by, said against the ladder's official figure: ``played`` the table sizes (with their
    weights) the final plays, ``ladder`` those of the ladder's field (``final_mix``)."""

    def shares(mix: Mapping[int, float]) -> dict[int, float]:
        return {k: round(w / sum(mix.values()), 9) for k, w in mix.items() if w > 0}

    ks = [str(k) for k in sorted(played)]
    sizes = ks[0] if len(ks) == 1 else f"{', '.join(ks[:-1])} and {ks[-1]}"
    if len(played) == 1:
        what = f"at tables of {sizes} (a round robin's)"
    else:
        what = f"at tables of {sizes} mixed {mix_text(played)} (each pass of the race draws its size)"
    same = shares(played) == shares(ladder)
    return f"ladder final: it ranks by expected matchpoints against the whole field {what}: " + (
        "the ladder's official estimand"
        if same
        else f"the ladder's official one mixes its table sizes {mix_text(ladder)}: where a version's strength depends "
        "on the table size, the two orders may differ"
    )


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string (same escapes)


def prepare_final(ladder: Ladder, results: Path | None = None) -> FinalPlan:
    """Close submissions and write the final's manifest and ruleset; ``results``: the final's results folder, kept
    in the ladder (``final_folder``). Raises ``Refused`` with fewer than two active versions."""
    playing = {e.id for e in ladder.entrants() if e.state == EntrantState.ACTIVE}
    versions = tuple(v for v in ladder.store.active_versions() if v.entrant_id in playing)
    if len(versions) < 2:
        raise Refused(f"a final needs at least two active versions; the ladder has {len(versions)}")
    if ladder.store.meta("submissions_closed") is None:
        ladder.store.set_meta("submissions_closed", f"closed for the final at {now()}")
    revealed = close_epochs(ladder)
    if results is not None:
        ladder.store.set_meta(FINAL_META, str(results.resolve()))
    root = ladder.layout.root
    lines = ["# The ladder's final: its active versions (written by referee ladder final).\n"]
    for v in versions:
        folder = ladder.version_folder(v)
        if v.command[0] in ("python", "python3") and len(v.command) > 1 and v.command[1].endswith(".py"):
            words = v.command[1:]  # a .py file alone: referee run runs it with its own Python (which has the SDK)
        else:
            words = version_spec(v.key, BotManifest(v.command, v.build), folder).argv
        command = ", ".join(_toml(word) for word in words)
        lines.append(
            f"[[bot]]\nname = {_toml(v.key)}\ncommand = [{command}]\ncwd = {_toml(str(folder.relative_to(root)))}\n"
        )
    manifest = root / MANIFEST
    manifest.write_text("\n".join(lines), encoding="utf-8")
    rules = root / RULES
    rules.write_text(json.dumps(ladder.config.ruleset().to_dict(), indent=2) + "\n", encoding="utf-8")
    return FinalPlan(manifest, rules, versions, tuple(revealed))


def final_folder(ladder: Ladder) -> Path | None:
    """The results folder of the ladder's final, once one began (None: no final yet)."""
    where = ladder.store.meta(FINAL_META)
    return None if where is None else Path(where)


def close_epochs(ladder: Ladder) -> list[Epoch]:
    """Close the ladder's open epoch and reveal every closed epoch not revealed yet (call it with no ``serve``
    running). A block a stopped ``serve`` left in play is voided first, with its partial logs, as the next ``serve``
    would void it; in a closed epoch it is never played again. Returns the epochs revealed, oldest first."""
    store = ladder.store
    for block in store.blocks(states=[BlockState.PLAYING], limit=None):
        store.void_block(block.id, "the ladder's final closed its epoch")
        for path in ladder.layout.block_dir(block.id).glob(f"{block.id}.*.jsonl*"):
            path.unlink(missing_ok=True)
    epoch = store.open_epoch_now()
    if epoch is not None:
        store.close_epoch(epoch.id)
    revealed = []
    for epoch_id in store.epochs_to_reveal():
        store.reveal_epoch(epoch_id)
        revealed.append(store.epoch(epoch_id))
    return revealed


def verdict_lines(standings: Mapping[str, Any], ladder_ranks: Mapping[str, tuple[int, int]]) -> list[str]:
    """What a finished final proved, from its ``standings.json`` (a race's), and how its order compares with the
    ladder's: ``ladder_ranks`` maps a version's key to its joint 95% rank interval in the ladder's official standing."""
    race = standings.get("race")
    rows: Sequence[Mapping[str, Any]] = standings.get("entrants", [])
    if not race:
        return ["ladder final: a balanced final ranks by its standings; it proves no order (use --format race)"]
    top = int(race["top"])
    order = [str(r["name"]) for r in rows]
    level = f"{race['confidence']:.0%}"
    if race["settled"]:
        head = f"settled: {' > '.join(order[:top])}; {race.get('reason', '')}"
    else:
        proved = [
            f"{a} ahead of {b}"
            for a, b, r in zip(order, order[1 : top + 1], rows, strict=False)
            if r.get("separated_from_next")
        ]
        open_ = [
            f"{a} vs {b}"
            for a, b, r in zip(order, order[1 : top + 1], rows, strict=False)
            if not r.get("separated_from_next")
        ]
        head = (
            f"not settled: {race.get('reason') or 'the race was interrupted'}; proved at {level}: "
            f"{', '.join(proved) or 'no place'}; not proved: {', '.join(open_)}; the order shown for them is the "
            "race's estimate"
        )
    lines = [f"ladder final: {head}"]
    places = _proved_places(rows, top, bool(race["settled"]))
    outside, unproved = [], []
    for place, key in enumerate(order[:top], start=1):
        interval = ladder_ranks.get(key)
        if interval is None or interval[0] <= place <= interval[1]:
            continue
        lo, hi = places[place - 1]
        where = f"outside its ladder rank interval {interval[0]}-{interval[1]}"
        if hi < interval[0] or lo > interval[1]:  # every place the final leaves it is outside: a real disagreement
            said = _ordinal(lo) if lo == hi else f"{_ordinal(lo)} to {_ordinal(hi)}"
            outside.append(f"{key} is {said} in the final, {where}")
        else:
            proved_at = f"it proved {_ordinal(lo)} to {_ordinal(hi)}"
            unproved.append(f"{key} ({_ordinal(place)} by its estimate, {where}; {proved_at})")
    missing = [key for key in order[:top] if key not in ladder_ranks]
    if len(missing) == top:
        lines.append("ladder final: no version of its top has an official place on the ladder to compare with")
    elif outside:
        lines.append("ladder final: disagrees with the ladder's official standing: " + "; ".join(outside))
    elif unproved:
        lines.append(
            "ladder final: no proven disagreement with the ladder's official standing, but the places it did not "
            "prove could still differ: " + "; ".join(unproved)
        )
    else:
        lines.append(
            f"ladder final: agrees with the ladder's official standing: each of its top {top} is placed within its "
            "joint 95% rank interval on the ladder"
            + (f" (no ladder place yet: {', '.join(missing)})" if missing else "")
        )
    return lines


def _proved_places(rows: Sequence[Mapping[str, Any]], top: int, settled: bool) -> list[tuple[int, int]]:
    """For each place of the final's order, the places it proved that version within: its own for a settled race's
    top; otherwise 1 + the run of "proven ahead of the next" just above it, down to n - the run just below it
    (proven "ahead" is transitive; nothing else is known from the order)."""
    n = len(rows)
    ahead = [bool(r.get("separated_from_next")) for r in rows]
    out = []
    for i in range(n):
        if settled and i < top:
            out.append((i + 1, i + 1))
            continue
        above = next((j for j in range(i - 1, -1, -1) if not ahead[j]), -1)  # the first break above i
        below = next((j for j in range(i, n - 1) if not ahead[j]), n - 1)  # the first break from i down
        out.append((i - above, n - (below - i)))
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"

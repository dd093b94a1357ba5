"""tools/mine_puzzles.py's verification: a position is a puzzle only if a deeper search
finds one clearly winning move (a mate no second move matches), and then it carries its
source."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chuhan.variants import get_variant

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mine_puzzles", ROOT / "tools" / "mine_puzzles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mine_puzzles", module)
    spec.loader.exec_module(module)
    return module


mine = _load()
JANGGI = {
    row["id"]: row
    for row in (
        json.loads(line)
        for line in (ROOT / "tests" / "data" / "janggi-mates.jsonl").read_text("utf-8").splitlines()
        if line
    )
}


def _candidate(case: dict[str, Any]) -> Any:
    return mine.Candidate(get_variant("janggi", case["rules"]), 7, ["b0c2"], ["h9g7"], case["fen"])


def test_a_mate_with_one_winning_move_is_kept_with_its_source() -> None:
    case = JANGGI["janggi-m2-01"]  # proved: f8g6 is the only first move that mates in 2
    puzzle, verdict = mine.verify(_candidate(case), 10.0)
    assert verdict == "kept"
    assert puzzle["plies"] == 3 and puzzle["line"][0] == "f8g6"
    source = puzzle["source"]
    assert source["mined"] and source["game"] == 7 and source["ply"] == 2
    assert "f8g6 mates in 2" in source["verified_by"]


@pytest.mark.parametrize("ident", ["janggi-m2-03", "janggi-m3-08"])
def test_a_mate_with_two_winning_moves_is_not_a_puzzle(ident: str) -> None:
    puzzle, verdict = mine.verify(_candidate(JANGGI[ident]), 10.0)
    assert puzzle is None
    assert verdict.startswith("a second move mates as fast")

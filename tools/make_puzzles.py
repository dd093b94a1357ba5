"""Make the web app's puzzle set, ``src/chuhan/web/puzzles/data/puzzles.jsonl``, from the two mate
sets in ``tests/data`` (and keep the mined puzzles already in it).

Usage::

    nice -n 19 .venv/bin/python tools/make_puzzles.py [--jobs 2] [--seconds 8]

Every puzzle is "the side to move mates within ``plies`` plies". For each problem of

* ``tests/data/xiangqibench-cases.jsonl`` (the MIT-licensed xiangqibench 0.1.1 data, its
  licence copied beside the puzzles as ``XIANGQIBENCH-LICENSE``): the first winning move
  it lists, with the further first moves ``bench/tactics.py`` proved;
* ``tests/data/janggi-mates.jsonl`` (made and proved by ``tools/make_janggi_mates.py``):
  every winning first move it lists,

the solution line is played out with chuhan's engine (:func:`solve_line`): the defender
plays the engine's best defence (the longest resistance: a full search to the puzzle's
remaining depth), the attacker the engine's mating move; the line must end in mate within
the puzzle's length, or the problem is left out (the run says which). The web app shows
this line as the solution and plays its defences; a move off it is checked by a search
when it is played (:mod:`chuhan.web.puzzles.service`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
OUT = ROOT / "src" / "chuhan" / "web" / "puzzles" / "data" / "puzzles.jsonl"

try:
    import chuhan
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan

from chuhan.search.limits import SearchLimits  # noqa: E402  (after the path is set)

XIANGQIBENCH = "xiangqibench 0.1.1 (PyPI, MIT licence, copyright FloatAI)"
JANGGI_SET = "chuhan janggi mates (tools/make_janggi_mates.py, proved exhaustively)"


def defender_lost(board: chuhan.Board) -> bool:
    """The side to move has no legal move, and that loses (mate; stalemate in xiangqi)."""
    if board.is_game_over_by_passing() or board.legal_move_codes():
        return False
    return board.is_check() or not board.variant.is_janggi


def solve_line(
    board: chuhan.Board, plies: int, first: str | None, seconds: float
) -> tuple[list[str], str | None]:
    """The solution line from ``board`` (the attacker to move), mate within ``plies``:
    the engine's mating moves (``first`` as the first one, if given) and its best
    defences. Returns (line, None), or (the line so far, why it failed)."""
    from chuhan.search.search import Searcher

    searcher = Searcher(hash_mb=64)
    board = board.copy()
    attacker = board.turn
    line: list[str] = []
    budget = round(seconds * 1000)
    for ply in range(plies):
        remaining = plies - ply
        if board.turn == attacker:
            if ply == 0 and first is not None:
                move = first
            else:
                moves = (remaining + 1) // 2
                result = searcher.search(board, SearchLimits(mate=moves, movetime=budget))
                info = result.lines[0] if result.lines else None
                if result.best is None or info is None or info.mate is None:
                    return line, f"no mate found at ply {ply}"
                if not 0 < info.mate <= moves:
                    return line, f"mate in {info.mate} at ply {ply}, more than {moves} left"
                move = result.best.iccs()
        else:
            result = searcher.search(board, SearchLimits(depth=remaining + 1, movetime=budget))
            if result.best is None:
                return line, f"the defender has no move at ply {ply}"
            move = result.best.iccs()
        board.push_iccs(move)
        line.append(move)
        if defender_lost(board):
            return line, None
    return line, f"no mate after {plies} plies"


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _more_xiangqi_winners() -> dict[str, tuple[str, ...]]:
    spec = importlib.util.spec_from_file_location("bench_tactics", ROOT / "bench" / "tactics.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_tactics", module)
    spec.loader.exec_module(module)
    more: dict[str, tuple[str, ...]] = module.XIANGQI_MORE_WINNERS
    return more


def problems() -> list[dict[str, Any]]:
    """The puzzles to solve, without their lines yet."""
    more = _more_xiangqi_winners()
    found: list[dict[str, Any]] = []
    for case in _read_jsonl(DATA / "xiangqibench-cases.jsonl"):
        found.append(
            {
                "id": case["id"],
                "game": "xiangqi",
                "rules": "asian",
                "fen": case["fen"],
                "plies": case["win_in_plies"],
                "winning_first_moves": sorted(
                    {case["first_winning_move"], *more.get(case["id"], ())}
                ),
                "first": case["first_winning_move"],
                "source": {
                    "collection": XIANGQIBENCH,
                    "case": case["id"],
                    "name": case["name"],
                    "licence": "MIT; see XIANGQIBENCH-LICENSE beside this file",
                },
            }
        )
    for case in _read_jsonl(DATA / "janggi-mates.jsonl"):
        found.append(
            {
                "id": case["id"],
                "game": "janggi",
                "rules": case["rules"],
                "fen": case["fen"],
                "plies": case["mate_in_plies"],
                "winning_first_moves": case["all_winning_first_moves"],
                "first": case["first_winning_move"],
                "source": {
                    "collection": JANGGI_SET,
                    "case": case["id"],
                    "made_by": case["source"],
                },
            }
        )
    return found


def solve(problem: dict[str, Any], seconds: float) -> tuple[dict[str, Any], str | None, float]:
    started = time.monotonic()
    board = chuhan.Board(problem["fen"], variant=problem["game"], rules=problem["rules"])
    line, failure = solve_line(board, problem["plies"], problem.pop("first"), seconds)
    problem["line"] = line
    problem["line_by"] = (
        f"chuhan's engine: each defence a search to the remaining depth + 1 (at most "
        f"{seconds:g} s), each attacking move a mate search"
    )
    return problem, failure, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=8.0, help="per search (default 8)")
    parser.add_argument("--limit", type=int, default=None, help="the first N problems only")
    parser.add_argument("--only", nargs="*", default=None, help="these problems (by id) only")
    args = parser.parse_args()
    todo = [p for p in problems() if args.only is None or p["id"] in args.only][: args.limit]
    kept: list[dict[str, Any]] = []
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(solve, problem, args.seconds) for problem in todo]
        for future in futures:
            puzzle, failure, took = future.result()
            mark = "kept" if failure is None else f"LEFT OUT: {failure}"
            print(
                f"{puzzle['id']:28} {len(puzzle['line']):>2}/{puzzle['plies']:>2} plies "
                f"{took:6.1f} s  {mark}",
                flush=True,
            )
            if failure is None:
                kept.append(puzzle)
    # The puzzles already in the file stay unless solved again now; mined ones stay last.
    before = _read_jsonl(OUT) if OUT.exists() else []
    mined = [p for p in before if p["source"].get("mined")]
    made = {p["id"]: p for p in before if not p["source"].get("mined")}
    made.update((p["id"], p) for p in kept)
    order = [p["id"] for p in problems()]
    ordered = sorted(made.values(), key=lambda p: order.index(p["id"]) if p["id"] in order else 0)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as out:
        for puzzle in ordered + mined:
            out.write(json.dumps(puzzle, ensure_ascii=False) + "\n")
    print(
        f"{len(kept)} of {len(todo)} problems kept, {len(mined)} mined puzzles kept, "
        f"{time.monotonic() - started:.0f} s; written to {OUT}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

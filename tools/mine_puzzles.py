"""Mine puzzles from chuhan's own self-play: positions with one clearly winning move, a mate,
verified by a deeper search; added to ``src/chuhan/web/puzzles/data/puzzles.jsonl`` with their
source.

Usage::

    nice -n 19 .venv/bin/python tools/mine_puzzles.py --seed 1 --minutes 20 [--games 200]
        [--variant both] [--movetime 150] [--dry-run]

1. **Games.** Each game starts from a seeded random opening (``chuhan.match.random_opening``,
   4 to 8 plies; janggi from random horse-elephant arrangements). chuhan's full engine
   (level 8, ``--movetime`` ms a move) plays one side against the same engine at casual
   level 4 (which picks among its near-best moves and so goes wrong now and then); the
   sides alternate from game to game. Games stop at the end, or at 200 plies.
2. **Candidates.** A position counts when the engine to move there (either side) reported
   a mate in 2 to 4 moves. Only the first such position of each mating attack is taken (the
   later ones are the same puzzle, shorter).
3. **Verification.** A fresh searcher looks again, deeper: two lines (multi-PV 2) to depth
   2m + 2, at most ``--verify-seconds``. The position is kept only if the best line is a
   mate in m <= 4 and the second best move is no mate within those m moves: one clearly
   winning move. The solution line is then played out as for the composed sets
   (``tools/make_puzzles.py``: the engine's best defences, its mating moves) and must mate
   within 2m - 1 plies.
4. **Provenance.** Each puzzle records the seed, the game number, the opening and the moves
   up to the position, the ply, the engines' settings and the verifying search's result.

The run prints the numbers the README quotes: games played, positions tried, puzzles kept,
and the time taken. Given the seed, the games are the same on every run as long as the
searches see the same node counts (the play searches use ``--nodes`` when given instead of
a movetime, for reproducible games).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

try:
    import chuhan
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan

from chuhan.match import random_opening  # noqa: E402  (after the path is set)
from chuhan.search.limits import SearchLimits  # noqa: E402
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant, get_variant  # noqa: E402

MAX_PLIES = 200
STRONG_LEVEL = 8
WEAK_LEVEL = 4
MAX_MATE = 4


def _make_puzzles() -> Any:
    spec = importlib.util.spec_from_file_location(
        "make_puzzles", ROOT / "tools" / "make_puzzles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_puzzles", module)
    spec.loader.exec_module(module)
    return module


make_puzzles = _make_puzzles()


@dataclass
class Candidate:
    variant: Variant
    game: int
    opening: list[str]
    moves: list[str]  # from the opening's end to the position
    fen: str
    setup: dict[str, str] = field(default_factory=dict)

    @property
    def ply(self) -> int:
        return len(self.opening) + len(self.moves)


def play_game(
    variant: Variant, number: int, rng: random.Random, args: argparse.Namespace
) -> tuple[list[Candidate], str]:
    """One self-play game; the positions where the full engine saw a mate in 2 to 4."""
    from chuhan.search.search import Searcher

    arrangement = ("마상상마", "마상상마")
    if variant.is_janggi:
        arrangement = (rng.choice(JANGGI_ARRANGEMENTS), rng.choice(JANGGI_ARRANGEMENTS))
    opening = random_opening(variant, rng.randint(4, 8), rng, arrangement)
    game = opening.new_game(variant)
    strong_side = number % 2 == 1  # the full engine plays first in odd games
    engines = {True: Searcher(hash_mb=32, seed=number), False: Searcher(hash_mb=32, seed=number)}
    limits = SearchLimits(nodes=args.nodes) if args.nodes else SearchLimits(movetime=args.movetime)
    found: list[Candidate] = []
    moves: list[str] = []
    in_attack = {True: False, False: False}
    while game.outcome() is None and game.board.ply < MAX_PLIES:
        board = game.board
        mover = board.turn
        level = STRONG_LEVEL if mover == strong_side else WEAK_LEVEL
        result = engines[mover].search(board, limits, level=level)
        if result.best is None:
            break
        # Either side's search may see a mate (the casual level's among its best lines).
        mate = max((line.mate for line in result.lines if line.mate is not None), default=None)
        if mate is not None and 2 <= mate <= MAX_MATE and not in_attack[mover]:
            found.append(
                Candidate(
                    variant,
                    number,
                    [m.iccs() for m in opening.moves],
                    list(moves),
                    board.fen(),
                    dict(opening.setup),
                )
            )
        in_attack[mover] = mate is not None and mate > 0
        game.push(result.best)
        moves.append(result.best.iccs())
    outcome = game.outcome()
    ending = outcome.result() if outcome is not None else "*"
    return found, f"{ending} in {game.board.ply} plies"


def verify(candidate: Candidate, seconds: float) -> tuple[dict[str, Any] | None, str]:
    """The puzzle from ``candidate`` if a deeper search finds one clearly winning move."""
    from chuhan.search.search import Searcher

    board = chuhan.Board(candidate.fen, variant=candidate.variant)
    searcher = Searcher(hash_mb=64)
    result = searcher.search(
        board, SearchLimits(depth=2 * MAX_MATE + 2, movetime=round(seconds * 1000)), multipv=2
    )
    if len(result.lines) < 2:
        return None, "one legal move only"
    best, second = result.lines[0], result.lines[1]
    if best.mate is None or not 0 < best.mate <= MAX_MATE:
        return None, f"the deeper search sees no mate in 1-{MAX_MATE} (mate {best.mate})"
    if second.mate is not None and 0 < second.mate <= best.mate:
        return None, f"a second move mates as fast ({second.pv[0].iccs()})"
    plies = 2 * best.mate - 1
    first = best.pv[0].iccs()
    line, failure = make_puzzles.solve_line(board, plies, first, seconds)
    if failure is not None:
        return None, f"the solution line failed: {failure}"
    second_text = f"mate in {second.mate}" if second.mate is not None else f"{second.score_cp} cp"
    game = candidate.variant.game
    return {
        "id": "",  # named by main(), with the seed
        "game": game,
        "rules": candidate.variant.rules,
        "fen": candidate.fen,
        "plies": plies,
        "winning_first_moves": [first],
        "source": {
            "mined": True,
            "collection": "chuhan self-play (tools/mine_puzzles.py)",
            "game": candidate.game,
            "ply": candidate.ply,
            "opening": candidate.opening,
            "janggi_setup": candidate.setup,
            "moves": candidate.moves,
            "engine": "",  # filled in by main()
            "verified_by": (
                f"chuhan search, multi-PV 2, depth {best.depth} ({best.nodes:,} nodes): "
                f"{first} mates in {best.mate}; the second best, {second.pv[0].iccs()}, "
                f"{second_text}"
            ),
        },
        "line": line,
        "line_by": (
            f"chuhan's engine: each defence a search to the remaining depth + 1 (at most "
            f"{seconds:g} s), each attacking move a mate search"
        ),
    }, "kept"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=1000, help="at most this many games")
    parser.add_argument("--minutes", type=float, default=20.0, help="stop after this long")
    parser.add_argument("--variant", choices=["xiangqi", "janggi", "both"], default="both")
    parser.add_argument("--movetime", type=int, default=150, help="ms a move in the games")
    parser.add_argument("--nodes", type=int, default=None, help="nodes a move instead")
    parser.add_argument("--verify-seconds", type=float, default=10.0)
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    games = ["xiangqi", "janggi"] if args.variant == "both" else [args.variant]
    budget = f"{args.nodes} nodes" if args.nodes else f"{args.movetime} ms"
    engine = (
        f"seed {args.seed}; level {STRONG_LEVEL} against level {WEAK_LEVEL}, {budget} a move, "
        f"from random openings of 4-8 plies"
    )
    started = time.monotonic()
    deadline = started + args.minutes * 60
    played = tried = 0
    kept: list[dict[str, Any]] = []
    for number in range(1, args.games + 1):
        if time.monotonic() > deadline:
            break
        variant = get_variant(games[(number - 1) % len(games)])
        candidates, result = play_game(variant, number, rng, args)
        played += 1
        print(f"game {number:3} {variant.game:7} {result:20} {len(candidates)} candidate(s)")
        for candidate in candidates:
            if time.monotonic() > deadline:
                break
            tried += 1
            puzzle, verdict = verify(candidate, args.verify_seconds)
            print(f"    ply {candidate.ply:3}: {verdict}", flush=True)
            if puzzle is not None:
                puzzle["source"]["engine"] = engine
                puzzle["id"] = (
                    f"mined-{variant.game}-s{args.seed}-g{candidate.game}-p{candidate.ply}"
                )
                kept.append(puzzle)
    took = time.monotonic() - started
    print(
        f"{played} games, {tried} positions tried, {len(kept)} puzzles kept, "
        f"{took / 60:.1f} minutes (seed {args.seed}, {args.variant})"
    )
    if kept and not args.dry_run:
        out = make_puzzles.OUT
        before = [json.loads(line) for line in out.read_text("utf-8").splitlines() if line]
        known = {p["id"] for p in before} | {p["fen"] for p in before}
        fresh = [p for p in kept if p["id"] not in known and p["fen"] not in known]
        with open(out, "a", encoding="utf-8") as handle:
            for puzzle in fresh:
                handle.write(json.dumps(puzzle, ensure_ascii=False) + "\n")
        print(f"{len(fresh)} new puzzles added to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

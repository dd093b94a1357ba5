"""Perft and memory benchmark: chuhan against cchess and python-chess.

Run from the repository root::

    .venv/bin/python bench/perft.py            # full run, best of 3 (about two minutes)
    .venv/bin/python bench/perft.py --quick    # one run of each, cchess at depth 2 (< 30 s)
    .venv/bin/python bench/perft.py --json     # JSON on stdout, the table on stderr

What is measured (every timing with ``time.perf_counter``, best of ``--repeat`` runs):

* chuhan perft(4) from the xiangqi start (3,290,240 nodes) and the janggi start
  (1,065,277 nodes), once with bulk counting at the last ply (``chuhan.perft(board, 4)``)
  and once pushing and popping every leaf (``bulk=False``).
* cchess (a pure-Python xiangqi library) perft(3) (perft(2) with ``--quick``) from the
  xiangqi start, with the legal-move test cchess itself uses (see :func:`cchess_legal`).
* python-chess perft(4) from the western-chess start (197,281 nodes).
* Memory (tracemalloc, baseline subtracted): 10,000 ``copy()`` boards of a middlegame
  position, and the move stack of a 1,000-ply seeded random game.

Every node count is checked against the published value; the script exits with status 1
if any is wrong (after printing everything).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import random
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent

try:
    import chuhan
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan

try:
    import cchess  # type: ignore[import-untyped]
    import chess
except ImportError as exc:
    sys.exit(f"bench/perft.py needs the bench extras ({exc}): pip install -e '.[bench]'")

XIANGQI_PERFT = {1: 44, 2: 1_920, 3: 79_666, 4: 3_290_240, 5: 133_312_995}
JANGGI_PERFT = {1: 32, 2: 1_024, 3: 33_000, 4: 1_065_277, 5: 35_243_995}
CHESS_PERFT = {1: 20, 2: 400, 3: 8_902, 4: 197_281, 5: 4_865_609}

# Middlegame positions for the copy() measurements (the xiangqi one is "xiangqi-mid-2"
# of tests/data/perft.json, the chess one is "Kiwipete").
XIANGQI_MIDDLEGAME = "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1"
CHESS_MIDDLEGAME = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

JANGGI_TARGET = 1.5  # janggi time per node at most this many times xiangqi's

COPIES = 10_000
STACK_PLIES = 1_000
HISTORY_PLIES = 40


# ---------------------------------------------------------------------------- machine


def machine_info() -> dict[str, Any]:
    """CPU model, CPU count, Python and library versions, for the README to quote."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        usable = os.cpu_count() or 1
    try:
        git = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        git = ""
    return {
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": usable,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "chuhan": chuhan.__version__ + (f" (git {git})" if git else ""),
        "build": chuhan.BUILD.describe(),
        "cchess": metadata.version("cchess"),
        "python-chess": chess.__version__,
    }


# ---------------------------------------------------------------------------- perft


def chuhan_perft(board: chuhan.Board, depth: int, bulk: bool) -> Callable[[], int]:
    return lambda: chuhan.perft(board, depth, bulk=bulk)


def chess_perft(board: chess.Board, depth: int, bulk: bool) -> int:
    """python-chess perft, shaped like chuhan's: a list of legal moves per node; at the
    last ply either count them (bulk) or push and pop each one."""
    if depth == 1 and bulk:
        return board.legal_moves.count()  # len(list(...)); LegalMoveGenerator has no len()
    moves = list(board.legal_moves)
    push = board.push
    pop = board.pop
    if depth == 1:
        for m in moves:
            push(m)
            pop()
        return len(moves)
    total = 0
    for m in moves:
        push(m)
        total += chess_perft(board, depth - 1, bulk)
        pop()
    return total


CchessMove = tuple[tuple[int, int], tuple[int, int]]


def cchess_legal(board: cchess.ChessBoard) -> list[CchessMove]:
    """The legal moves of the side to move, found the way cchess finds them itself (this is
    the loop of ``ChessBoard.no_moves``, which its checkmate test uses).

    ``create_moves()`` makes a Piece object for each piece of the side to move and filters
    its candidate squares through ``is_valid_move`` (rooks, cannons and pawns try all 89
    other points); ``is_checked_move`` validates the move again, deep-copies the board,
    plays the move on the copy and asks every enemy piece whether it can reach the king (a
    king on the same open file can, which rules out facing kings).
    """
    return [m for m in board.create_moves() if not board.is_checked_move(m[0], m[1])]


def cchess_perft(board: cchess.ChessBoard, depth: int, bulk: bool) -> int:
    """cchess perft. cchess has no undo: its public ``ChessBoard.move()`` validates the move,
    deep-copies the board three times (for the returned Move), tests check and mate and
    does not switch the side to move. So push and pop use the primitives its own
    ``is_checked_move`` uses: ``_move_piece`` and ``next_turn()``, with the captured piece
    put back by ``put_fench``."""
    moves = cchess_legal(board)
    if depth == 1 and bulk:
        return len(moves)
    get = board.get_fench
    move_piece = board._move_piece
    put = board.put_fench
    turn = board.next_turn
    if depth == 1:
        for fr, to in moves:
            captured = get(to)
            move_piece(fr, to)
            turn()
            move_piece(to, fr)
            put(captured, to)
            turn()
        return len(moves)
    total = 0
    for fr, to in moves:
        captured = get(to)
        move_piece(fr, to)
        turn()
        total += cchess_perft(board, depth - 1, bulk)
        move_piece(to, fr)
        put(captured, to)
        turn()
    return total


@dataclass
class PerftResult:
    library: str
    game: str
    mode: str  # "bulk" or "full"
    depth: int
    expected: int
    nodes: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # process time of the best run: below ``seconds`` if starved
    runs: int = 0
    counts: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.counts) and all(n == self.expected for n in self.counts)

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0

    @property
    def cpu_share(self) -> float:
        return self.cpu_seconds / self.seconds if self.seconds else 0.0

    @property
    def us_per_node(self) -> float:
        return self.seconds / self.nodes * 1e6 if self.nodes else 0.0

    def label(self) -> str:
        return f"{self.library} {self.game} start, {self.mode}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "game": self.game,
            "mode": self.mode,
            "depth": self.depth,
            "nodes": self.nodes,
            "expected": self.expected,
            "ok": self.ok,
            "runs": self.runs,
            "best_seconds": round(self.seconds, 6),
            "cpu_seconds": round(self.cpu_seconds, 6),
            "nodes_per_second": round(self.nodes_per_second),
            "us_per_node": round(self.us_per_node, 4),
        }


def run_perft(result: PerftResult, fn: Callable[[], int], runs: int) -> PerftResult:
    """Time ``fn`` ``runs`` times and keep the best wall time (and every count). The process
    time of that run is kept too: much less than the wall time means the CPU was shared."""
    best = best_cpu = float("inf")
    for _ in range(runs):
        gc.collect()
        cpu = time.process_time()
        start = time.perf_counter()
        nodes = fn()
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        result.counts.append(nodes)
        if elapsed < best:
            best, best_cpu = elapsed, cpu
    result.nodes = result.counts[-1]
    result.seconds = best
    result.cpu_seconds = best_cpu
    result.runs = runs
    return result


# ---------------------------------------------------------------------------- memory


@dataclass
class MemoryResult:
    what: str
    count: int
    unit: str  # "board" or "ply"
    total_bytes: int

    @property
    def per_unit(self) -> float:
        return self.total_bytes / self.count

    def as_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "count": self.count,
            "unit": self.unit,
            "bytes": self.total_bytes,
            f"bytes_per_{self.unit}": round(self.per_unit, 1),
        }


def copies_bytes(copy: Callable[[], object], count: int) -> int:
    """Bytes held by ``count`` results of ``copy()`` (the list holding them is allocated
    before the baseline, so only the copies are counted)."""
    keep: list[object] = [None] * count
    copy()  # warm up anything allocated once
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(count):
            keep[i] = copy()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
        del keep


Game = Any  # a chuhan.Board or a chess.Board: both have legal_moves, push and pop


def random_playout(board: Game, rng: random.Random, plies: int) -> bool:
    """Play ``plies`` random legal moves on ``board`` with the public API; False if the
    game ends first (no legal move: mate or stalemate). A janggi pass is not chosen when
    it would end the game (after a pass, or accepting bikjang) and there is another move."""
    last: object = None
    for _ in range(plies):
        moves = list(board.legal_moves)
        if _is_pass(last) or (isinstance(board, chuhan.Board) and board.is_bikjang()):
            moves = [m for m in moves if not _is_pass(m)] or moves
        if not moves:
            return False
        last = rng.choice(moves)
        board.push(last)
    return True


def _is_pass(move: object) -> bool:
    return isinstance(move, chuhan.Move) and move.is_pass()


def playout_seed(new_board: Callable[[], Game], plies: int) -> int:
    """The first seed whose random game lasts ``plies`` plies (a game that ends sooner is
    restarted with the next seed)."""
    for seed in range(10_000):
        if random_playout(new_board(), random.Random(seed), plies):
            return seed
    raise RuntimeError(f"no random game of {plies} plies in 10,000 seeds")


def stack_bytes(new_board: Callable[[], Game], plies: int) -> int:
    """Growth of memory while a ``plies``-ply random game is on the move stack."""
    seed = playout_seed(new_board, plies)  # also warms up any lazy caches
    board = new_board()
    rng = random.Random(seed)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        if not random_playout(board, rng, plies):
            raise RuntimeError("the seeded playout did not repeat itself")
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()


def with_history(board: Game, plies: int, seed: int = 1) -> Game:
    """``board`` after ``plies`` seeded random moves (which stay on its stack)."""
    for s in range(seed, seed + 10_000):
        trial = board.copy()
        if random_playout(trial, random.Random(s), plies):
            return trial
    raise RuntimeError(f"no random game of {plies} plies")


def measure_memory(quick: bool, out: Callable[[MemoryResult], None]) -> list[MemoryResult]:
    results: list[MemoryResult] = []

    def add(what: str, count: int, unit: str, total: int) -> None:
        results.append(MemoryResult(what, count, unit, total))
        out(results[-1])

    mid = chuhan.Board(XIANGQI_MIDDLEGAME)
    add(
        "chuhan Board.copy(), xiangqi middlegame FEN",
        COPIES,
        "board",
        copies_bytes(mid.copy, COPIES),
    )
    played = with_history(chuhan.Board(), HISTORY_PLIES)
    add(
        f"chuhan Board.copy(), after {HISTORY_PLIES} plies (history copied)",
        COPIES,
        "board",
        copies_bytes(played.copy, COPIES),
    )
    add(
        f"chuhan xiangqi move stack, {STACK_PLIES:,} random plies",
        STACK_PLIES,
        "ply",
        stack_bytes(chuhan.Board, STACK_PLIES),
    )
    add(
        f"chuhan janggi move stack, {STACK_PLIES:,} random plies",
        STACK_PLIES,
        "ply",
        stack_bytes(lambda: chuhan.Board(variant="janggi"), STACK_PLIES),
    )
    cmid = chess.Board(CHESS_MIDDLEGAME)
    add("python-chess Board.copy(), Kiwipete FEN", COPIES, "board", copies_bytes(cmid.copy, COPIES))
    add(
        f"python-chess move stack, {STACK_PLIES:,} random plies",
        STACK_PLIES,
        "ply",
        stack_bytes(chess.Board, STACK_PLIES),
    )
    ccmid = cchess.ChessBoard(XIANGQI_MIDDLEGAME)
    count = COPIES // 10 if quick else COPIES
    add(
        "cchess ChessBoard.copy() (deepcopy), xiangqi middlegame",
        count,
        "board",
        copies_bytes(ccmid.copy, count),
    )
    return results


# ---------------------------------------------------------------------------- output

PERFT_HEADER = (
    f"{'perft':<40} {'depth':>5} {'nodes':>11} {'runs':>4} {'best s':>9} "
    f"{'nodes/s':>11} {'us/node':>9} {'cpu':>5}"
)
MEMORY_HEADER = (
    f"{'memory (tracemalloc, baseline subtracted)':<58} {'count':>7} {'bytes':>12} {'each':>14}"
)


def perft_row(r: PerftResult) -> str:
    row = (
        f"{r.label():<40} {r.depth:>5} {r.nodes:>11,} {r.runs:>4} {r.seconds:>9.3f} "
        f"{r.nodes_per_second:>11,.0f} {r.us_per_node:>9.3f} {r.cpu_share:>5.0%}"
    )
    if not r.ok:
        row += f"  WRONG: expected {r.expected:,}, got {sorted(set(r.counts))}"
    return row


def memory_row(m: MemoryResult) -> str:
    each = f"{m.per_unit:,.0f} /{m.unit}"
    return f"{m.what:<58} {m.count:>7,} {m.total_bytes:>12,} {each:>14}"


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="one run of each, cchess at depth 2 (< 30 s)"
    )
    parser.add_argument("--repeat", type=int, help="runs per perft, best kept (default 3; 1 quick)")
    parser.add_argument("--cchess-depth", type=int, help="cchess perft depth (default 3; 2 quick)")
    parser.add_argument(
        "--cchess-repeat",
        type=int,
        default=1,
        help="runs per cchess perft (default 1: perft(3) takes about 20 s a run)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON on stdout (the table goes to stderr)"
    )
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 3)
    cchess_depth = args.cchess_depth or (2 if args.quick else 3)
    if repeat < 1 or args.cchess_repeat < 1 or not 1 <= cchess_depth <= 4:
        parser.error("--repeat and --cchess-repeat must be >= 1, --cchess-depth 1..4")

    table: TextIO = sys.stderr if args.json else sys.stdout

    def say(line: str = "") -> None:
        print(line, file=table, flush=True)

    info = machine_info()
    cpus = f"{info['logical_cpus']} logical CPUs ({info['usable_cpus']} usable)"
    say(f"machine: {info['cpu']}, {cpus}")
    say(f"python:  {info['python']} on {info['platform']}")
    say(f"build:   chuhan {info['build']}")
    say(
        f"libs:    chuhan {info['chuhan']}, cchess {info['cchess']}, "
        f"python-chess {info['python-chess']}"
    )
    say(
        f"mode:    {'quick' if args.quick else 'full'}, best of {repeat} "
        f"(cchess: perft({cchess_depth}), best of {args.cchess_repeat}); single-threaded"
    )
    say()
    say(PERFT_HEADER)

    perfts: dict[tuple[str, str, str], PerftResult] = {}

    def perft(
        library: str,
        game: str,
        mode: str,
        depth: int,
        expected: dict[int, int],
        fn: Callable[[], int],
        runs: int,
    ) -> PerftResult:
        r = run_perft(PerftResult(library, game, mode, depth, expected[depth]), fn, runs)
        perfts[library, game, mode] = r
        say(perft_row(r))
        return r

    for game, expected in (("xiangqi", XIANGQI_PERFT), ("janggi", JANGGI_PERFT)):
        board = chuhan.Board(variant=game)
        for mode in ("bulk", "full"):
            perft("chuhan", game, mode, 4, expected, chuhan_perft(board, 4, mode == "bulk"), repeat)
        if board.fen() != chuhan.Board(variant=game).fen() or board.ply:
            sys.exit(f"chuhan.perft did not restore the {game} board: {board.fen()}")

    cc_board = cchess.ChessBoard(cchess.FULL_INIT_FEN)
    for mode in ("bulk", "full"):
        perft(
            "cchess",
            "xiangqi",
            mode,
            cchess_depth,
            XIANGQI_PERFT,
            functools.partial(cchess_perft, cc_board, cchess_depth, mode == "bulk"),
            args.cchess_repeat,
        )
    if cc_board.to_fen() != cchess.FULL_INIT_FEN:
        sys.exit(f"cchess perft did not restore the board: {cc_board.to_fen()}")

    ch_board = chess.Board()
    for mode in ("bulk", "full"):
        perft(
            "python-chess",
            "chess",
            mode,
            4,
            CHESS_PERFT,
            functools.partial(chess_perft, ch_board, 4, mode == "bulk"),
            repeat,
        )

    if min(r.cpu_share for r in perfts.values()) < 0.9:
        say("(cpu: process time / wall time of the best run; below 100% the machine was busy)")
    ratios: dict[str, float] = {}
    say()
    parts = []
    for mode in ("bulk", "full"):
        x = perfts["chuhan", "xiangqi", mode]
        j = perfts["chuhan", "janggi", mode]
        ratios[f"janggi_over_xiangqi_time_per_node_{mode}"] = r = ratio(
            j.us_per_node, x.us_per_node
        )
        parts.append(f"{mode} {r:.2f}x ({'ok' if r <= JANGGI_TARGET else 'OVER'})")
    label = "chuhan janggi / xiangqi perft(4), time per node:"
    say(f"{label:<58} {', '.join(parts)}; target <= {JANGGI_TARGET}x")
    for other, game in (("cchess", "xiangqi"), ("python-chess", "chess")):
        parts = []
        for mode in ("bulk", "full"):
            o = perfts[other, game, mode]
            x = perfts["chuhan", "xiangqi", mode]
            key = other.replace("-", "_")
            ratios[f"chuhan_xiangqi_over_{key}_nodes_per_second_{mode}"] = r = ratio(
                x.nodes_per_second, o.nodes_per_second
            )
            parts.append(f"{mode} {r:,.1f}x")
        depth = perfts[other, game, "bulk"].depth
        label = f"chuhan xiangqi perft(4) / {other} {game} perft({depth}), nodes/s:"
        say(f"{label:<58} {', '.join(parts)}")

    say()
    say(MEMORY_HEADER)
    memory = measure_memory(args.quick, lambda m: say(memory_row(m)))

    ok = all(r.ok for r in perfts.values())
    if args.json:
        print(
            json.dumps(
                {
                    "machine": info,
                    "mode": "quick" if args.quick else "full",
                    "repeat": repeat,
                    "perft": [r.as_dict() for r in perfts.values()],
                    "ratios": {k: round(v, 3) for k, v in ratios.items()},
                    "memory": [m.as_dict() for m in memory],
                    "ok": ok,
                },
                indent=1,
            )
        )
    if not ok:
        print("perft node counts are WRONG (see the table)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

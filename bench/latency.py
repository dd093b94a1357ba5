"""How long ``chuhan engine`` takes to answer ``go movetime N``, measured from the GUI's
side of the pipe: from writing ``go`` to reading ``bestmove``.

Run from the repository root::

    .venv/bin/python bench/latency.py                          # 300 moves of each game at 50 ms
    .venv/bin/python bench/latency.py --movetime 100 --moves 500 --variant janggi

The engine runs as a subprocess, as a GUI or ``chuhan match`` runs it. The positions come
from one long walk: the engine's own move most of the time, a random legal move three
times in ten (so the walk does not repeat itself), starting over after 150 plies or at the
end of a game. Prints the percentiles and the number of answers that took longer than the
movetime: the time manager keeps a part of a short movetime back for the pipe, so there
should be none.
"""

from __future__ import annotations

import argparse
import platform
import random
import subprocess
import sys
import time

from chuhan.board import Board
from chuhan.squares import Move


class Engine:
    def __init__(self, variant: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chuhan", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.send("uci")
        self.until("uciok")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("setoption name UCI_Coordinates value ranks-0-9")
        self.send("isready")
        self.until("readyok")

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str) -> str:
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the engine exited")
            if line.startswith(prefix):
                return line

    def close(self) -> None:
        self.send("quit")
        self.process.wait(10)


def measure(variant: str, movetime: int, moves: int, seed: int) -> list[float]:
    engine = Engine(variant)
    rng = random.Random(seed)
    board = Board(variant=variant)
    times: list[float] = []
    try:
        while len(times) < moves:
            legal = list(board.legal_moves)
            if not legal or board.ply >= 150:
                board = Board(variant=variant)
                continue
            played = " ".join(m.iccs() for m in board.move_stack)
            engine.send("position startpos" + (f" moves {played}" if played else ""))
            start = time.monotonic()
            engine.send(f"go movetime {movetime}")
            answer = engine.until("bestmove").split()[1]
            times.append((time.monotonic() - start) * 1000)
            move = rng.choice(legal) if rng.random() < 0.3 else Move.from_iccs(answer)
            board.push(move)
    finally:
        engine.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=["xiangqi", "janggi", "both"], default="both")
    parser.add_argument("--movetime", type=int, default=50, help="ms (default 50)")
    parser.add_argument("--moves", type=int, default=300, help="answers per game (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    variants = ["xiangqi", "janggi"] if args.variant == "both" else [args.variant]
    for variant in variants:
        times = sorted(measure(variant, args.movetime, args.moves, args.seed))

        def at(share: float, times: list[float] = times) -> float:
            return times[min(len(times) - 1, int(len(times) * share))]

        over = sum(t > args.movetime for t in times)
        print(
            f"{variant:8} go movetime {args.movetime}: {len(times)} answers, "
            f"p50 {at(0.5):.1f} ms, p99 {at(0.99):.1f} ms, max {times[-1]:.1f} ms, "
            f"over {args.movetime} ms: {over}"
        )


if __name__ == "__main__":
    main()

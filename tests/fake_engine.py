"""A scripted UCI/UCCI engine for the tests of chuhan.engine and chuhan.match.

It plays the first legal move (a janggi pass only when nothing else is legal) and answers
``go`` at once with one ``info`` line per MultiPV line. Flags make it misbehave::

    python tests/fake_engine.py [--ucci] [--name NAME] [--ranks 0-9|1-10]
        [--variants xiangqi,janggi]   offer UCI_Variant (as Fairy-Stockfish does)
        [--die-after N]               exit at the (N+1)-th go
        [--illegal-after N]           answer the (N+1)-th go with an illegal move
        [--garbage-after N]           ... with "bestmove xyzzy"
        [--hang-after N]              ... with nothing, ignoring stop and isready
        [--silent-handshake]          never send uciok/ucciok
        [--seconds-only]              UCCI without the usemillisec option
        [--noise]                     print unrelated lines before each answer
        [--pass last|first|null]      passes last (default), first, or first written 0000
        [--log FILE]                  append every command received to FILE
"""

from __future__ import annotations

import argparse
import sys
import time

from chuhan.board import Board
from chuhan.squares import Move

UCI_OPTIONS = [
    "option name Hash type spin default 16 min 1 max 1024",
    "option name Skill Level type spin default 20 min 0 max 20",
    "option name Ponder type check default false",
    "option name Style type combo default Normal var Solid var Normal var Risky",
    "option name MultiPV type spin default 1 min 1 max 500",
    "option name Clear Hash type button",
    "option name EvalFile type string default <empty>",
]
UCCI_OPTIONS = [
    "option usemillisec type check default false",
    "option hashsize type spin min 0 max 1024 default 16",
]


class FakeEngine:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.ucci: bool = args.ucci
        self.fsf = args.ranks == "1-10"
        first = args.variants.split(",")[0] if args.variants else args.game
        self.variant = "janggi" if first.startswith("janggi") else "xiangqi"
        self.board = Board(variant=self.variant)
        self.multipv = 1
        self.searches = 0
        self.banned: set[Move] = set()
        self.log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115

    def send(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def encode(self, move: Move) -> str:
        if move.is_pass() and self.args.pass_style == "null":
            return "0000"
        return move.fsf() if self.fsf else move.iccs()

    def decode(self, text: str, board: Board) -> Move:
        if text == "0000":
            king = board.king(board.turn)
            return Move(king, king)
        return Move.from_fsf(text) if self.fsf else Move.from_iccs(text)

    def handshake(self) -> None:
        if self.args.silent_handshake:
            return
        self.send(f"id name {self.args.name}")
        self.send("id author the chuhan tests")
        if self.ucci:
            for line in UCCI_OPTIONS:
                if not (self.args.seconds_only and "usemillisec" in line):
                    self.send(line)
            self.send("ucciok")
            return
        for line in UCI_OPTIONS:
            self.send(line)
        if self.args.variants:
            choices = " ".join(f"var {v}" for v in self.args.variants.split(","))
            self.send(f"option name UCI_Variant type combo default {self.variant} {choices}")
        self.send("uciok")

    def setoption(self, tokens: list[str]) -> None:
        if self.ucci:
            name, value = tokens[1], " ".join(tokens[2:])
        else:
            rest = " ".join(tokens[2:])
            name, _, value = rest.partition(" value ")
        if name == "MultiPV":
            self.multipv = int(value)
        elif name == "UCI_Variant":  # "janggimodern" and the like are janggi
            self.variant = "janggi" if value.startswith("janggi") else "xiangqi"
            self.board = Board(variant=self.variant)

    def position(self, tokens: list[str]) -> None:
        if tokens[1] == "startpos":
            self.board = Board(variant=self.variant)
            rest = tokens[2:]
        else:
            at = tokens.index("moves") if "moves" in tokens else len(tokens)
            self.board = Board(" ".join(tokens[2:at]), variant=self.variant)
            rest = tokens[at:]
        for text in rest[1:]:
            self.board.push(self.decode(text, self.board))
        self.banned = set()

    def ordered_moves(self, allowed: set[Move] | None) -> list[Move]:
        moves = [
            m
            for m in self.board.legal_moves
            if m not in self.banned and (allowed is None or m in allowed)
        ]
        passes = [m for m in moves if m.is_pass()]
        others = [m for m in moves if not m.is_pass()]
        return passes + others if self.args.pass_style != "last" else others + passes

    def go(self, tokens: list[str]) -> bool:
        """Answer a go; False when the engine should stop answering altogether."""
        count = self.searches
        self.searches += 1
        args = self.args
        if args.noise:
            self.send("hello there, this is not a protocol line")
            self.send("info string thinking hard")
        if args.die_after is not None and count >= args.die_after:
            sys.stderr.write("fake engine: segmentation fault (pretend)\n")
            sys.stderr.flush()
            sys.exit(3)
        if args.hang_after is not None and count >= args.hang_after:
            return False
        if args.illegal_after is not None and count >= args.illegal_after:
            self.send("bestmove a0a9")  # a chariot jumping its own soldier: never legal
            return True
        if args.garbage_after is not None and count >= args.garbage_after:
            self.send("bestmove xyzzy")
            return True
        if args.delay:
            time.sleep(args.delay)
        depth = int(tokens[tokens.index("depth") + 1]) if "depth" in tokens else 1
        allowed = None
        if "searchmoves" in tokens:
            at = tokens.index("searchmoves") + 1
            allowed = {self.decode(t, self.board) for t in tokens[at:]}
        moves = self.ordered_moves(allowed)
        if not moves:
            self.send("nobestmove" if self.ucci else "bestmove (none)")
            return True
        for index, move in enumerate(moves[: self.multipv]):
            after = self.board.copy()
            after.push(move)
            replies = list(after.legal_moves)
            pv = [self.encode(move)] + ([self.encode(replies[0])] if replies else [])
            score = f"{100 - 10 * index}" if self.ucci else f"cp {100 - 10 * index}"
            self.send(
                f"info depth {depth} seldepth {depth + 2} multipv {index + 1} score {score} "
                f"nodes {1000 + index} nps 50000 time 20 pv {' '.join(pv)}"
            )
        best = moves[0]
        after = self.board.copy()
        after.push(best)
        replies = list(after.legal_moves)
        ponder = f" ponder {self.encode(replies[0])}" if replies else ""
        self.send(f"bestmove {self.encode(best)}{ponder}")
        return True

    def run(self) -> None:
        hung = False
        for raw in sys.stdin:
            line = raw.strip()
            if self.log is not None:
                self.log.write(line + "\n")
                self.log.flush()
            tokens = line.split()
            if not tokens or hung:
                continue
            command = tokens[0]
            if command in ("uci", "ucci"):
                self.handshake()
            elif command == "isready":
                self.send("readyok")
            elif command == "setoption":
                self.setoption(tokens)
            elif command == "position":
                self.position(tokens)
            elif command == "banmoves":
                self.banned = {self.decode(t, self.board) for t in tokens[1:]}
            elif command == "go":
                hung = not self.go(tokens)
            elif command == "quit":
                if self.ucci:
                    self.send("bye")
                return


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ucci", action="store_true")
    parser.add_argument("--name", default="Fake Engine")
    parser.add_argument("--ranks", choices=["0-9", "1-10"], default="0-9")
    parser.add_argument("--game", choices=["xiangqi", "janggi"], default="xiangqi")
    parser.add_argument("--variants", default="")
    parser.add_argument("--die-after", type=int)
    parser.add_argument("--illegal-after", type=int)
    parser.add_argument("--garbage-after", type=int)
    parser.add_argument("--hang-after", type=int)
    parser.add_argument("--silent-handshake", action="store_true")
    parser.add_argument("--seconds-only", action="store_true")
    parser.add_argument("--noise", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument(
        "--pass", dest="pass_style", choices=["last", "first", "null"], default="last"
    )
    parser.add_argument("--log")
    FakeEngine(parser.parse_args()).run()


if __name__ == "__main__":
    main()

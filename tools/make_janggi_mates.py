"""Generate ``tests/data/janggi-mates.jsonl``: janggi mate problems proved by exhaustive search.

Usage::

    .venv/bin/python tools/make_janggi_mates.py --seed 1 [--out tests/data/janggi-mates.jsonl]
        [--mate1 4 --mate2 12 --mate3 12 --mate4 6] [--minutes 30]

Every problem is "Cho (the first mover, uppercase) to move and mate" under the official rules.

1. **Positions.** A seeded ``random.Random`` places both kings in their palaces, one or two
   Han guards and up to two Cho guards, up to two Han elephants or horses as extra
   defenders, three to five Cho attackers (chariots, cannons, horses, elephants, soldiers;
   most of them in Han's half) and one to three Han pieces that attack in turn (so both
   sides have material and a slow move by Cho is often punished). Placements that
   ``Board.status()`` flags, and positions where Cho is in check or the kings face each
   other (bikjang), are thrown away.
2. **Proof.** :class:`MateProver` decides "Cho mates within k moves" exactly, over
   ``Board``'s legal moves: Cho tries every move (checks first, then the rest; in the last
   move only checks can mate), Han every reply, passes included wherever the rules allow
   them (a side in check may not pass, except to answer bikjang, and a pass that answers
   bikjang ends the game on points, which is an escape). Cho never passes: Han would pass
   back and two passes end the game. A result table keyed by the Zobrist hash shares work
   between branches. The mate length is the smallest k for which some first move wins
   (so there is no shorter mate), and ``all_winning_first_moves`` lists every first move
   that wins within that k. To save time a mate in 4 is only looked for where a quick search
   that lets Cho play nothing but checks finds one; its proof is then exhaustive as well.
3. **Taste.** A problem is kept only if Cho has at least three checking moves to choose
   from, at most three first moves win, and (beyond mate in 1) the winning first move is not
   a capture in more than a third of the set.
4. **Second opinion.** For the first winning move the whole proof tree is replayed through
   Fairy-Stockfish (``pyffish``, a test-only dependency): at every Han node its legal moves
   must equal ours (so no escape is missed), and every final position must be check with no
   legal move in its eyes too.

Given the seed, the counts and the node limit the output is deterministic, provided the run
finishes within ``--minutes`` (the time budget only stops a run early). The checked-in file
was made by ``--seed 1`` with the defaults.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chuhan
from chuhan.squares import FILES, SQUARE_NAMES, Move

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "data" / "janggi-mates.jsonl"


class NodeLimitExceeded(Exception):
    """The prover gave up on a position (the generator then skips it)."""


class MateProver:
    """Exact "the side to move mates within k moves" for one board (xiangqi or janggi).

    The board is used in place (moves are pushed and popped). A defender with no legal
    move loses if it is in check; in xiangqi also if not (stalemate is a loss there); a
    game that ended by passing is never a mate.
    """

    def __init__(
        self, board: chuhan.Board, *, node_limit: int | None = None, checks_only: bool = False
    ) -> None:
        self.board = board
        self.janggi = board.variant.is_janggi
        self.node_limit = node_limit
        #: Let the attacker play only checks (a fast filter; not a proof that no mate exists).
        self.checks_only = checks_only
        self.nodes = 0
        self._win: dict[int, int] = {}  # hash -> smallest k known to mate within
        self._fail: dict[int, int] = {}  # hash -> largest k known not to mate within
        self._killers: dict[int, int] = {}  # k -> the reply that last refuted at that k

    def _defender_lost(self) -> bool:
        """The side to move (the defender) has no legal move and that loses."""
        board = self.board
        if board.is_game_over_by_passing() or board.legal_move_codes():
            return False
        return board.is_check() or not self.janggi

    def mates_within(self, k: int) -> bool:
        """Whether the side to move can force mate within ``k`` of its moves."""
        board = self.board
        if board.is_game_over_by_passing() or k <= 0:
            return False
        key = board.zobrist_hash()
        if self._win.get(key, k + 1) <= k:
            return True
        if self._fail.get(key, 0) >= k:
            return False
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise NodeLimitExceeded
        result = any(self.move_wins(m, k) for m in self.attacker_moves(k))
        if result:
            self._win[key] = k
        else:
            self._fail[key] = k
        return result

    def attacker_moves(self, k: int) -> list[int]:
        """The attacker's candidate moves: never a pass; only checks for the last move
        (a mate must be check, or, in xiangqi, stalemate); checks first otherwise."""
        board = self.board
        checks: list[int] = []
        quiet: list[int] = []
        for m in board.legal_move_codes():
            if m >> 7 == m & 127:
                continue
            board.push_code(m)
            check = board.is_check()
            board.pop_code()
            (checks if check else quiet).append(m)
        if (k == 1 and self.janggi) or self.checks_only:
            return checks
        return checks + quiet

    def move_wins(self, m: int, k: int) -> bool:
        """Whether the attacker's move ``m`` forces mate within ``k`` moves (itself
        included)."""
        board = self.board
        board.push_code(m)
        try:
            return self._all_replies_lose(k)
        finally:
            board.pop_code()

    def _all_replies_lose(self, k: int) -> bool:
        board = self.board
        if board.is_game_over_by_passing():
            return False
        replies = board.legal_move_codes()
        if not replies:
            return board.is_check() or not self.janggi
        if k == 1:
            return False
        killer = self._killers.get(k)
        # A pass (a quiet attacker move allows one) and the last refutation come first.
        replies.sort(key=lambda r: 0 if r >> 7 == r & 127 else 1 if r == killer else 2)
        for reply in replies:
            board.push_code(reply)
            mates = self.mates_within(k - 1)
            board.pop_code()
            if not mates:
                self._killers[k] = reply
                return False
        return True

    def solve(self, max_moves: int) -> tuple[int, list[int]] | None:
        """The shortest mate within ``max_moves`` moves: its length in moves and every
        first move that mates in that many; ``None`` if there is none."""
        for k in range(1, max_moves + 1):
            winners = [m for m in self.attacker_moves(k) if self.move_wins(m, k)]
            if winners:
                return k, winners
        return None

    def proof_tree(self, first: int, k: int) -> Iterator[tuple[list[int], bool]]:
        """The defender nodes of a proof that ``first`` mates within ``k``: for each, the
        moves from the root and whether it is a final (mated) position. At each attacker
        node the first winning move is followed; at each defender node every reply."""
        board = self.board
        path = [first]
        board.push_code(first)
        try:
            yield from self._proof_defender(path, k)
        finally:
            board.pop_code()

    def _proof_defender(self, path: list[int], k: int) -> Iterator[tuple[list[int], bool]]:
        board = self.board
        replies = board.legal_move_codes()
        yield list(path), not replies
        for reply in replies:
            board.push_code(reply)
            path.append(reply)
            move = next(m for m in self.attacker_moves(k - 1) if self.move_wins(m, k - 1))
            board.push_code(move)
            path.append(move)
            yield from self._proof_defender(path, k - 1)
            path.pop()
            board.pop_code()
            path.pop()
            board.pop_code()


def iccs(m: int) -> str:
    return SQUARE_NAMES[m >> 7] + SQUARE_NAMES[m & 127]


def fsf(m: int) -> str:
    return Move(m >> 7, m & 127).fsf()


# ---------------------------------------------------------------- random positions

_PALACE_FILES = (3, 4, 5)
_CHO_PALACE_RANKS = (0, 1, 2)
_HAN_PALACE_RANKS = (7, 8, 9)
_LETTER = {"K": 1, "A": 2, "B": 3, "N": 4, "R": 5, "C": 6, "P": 7}


def _fen_from(pieces: dict[int, str]) -> str:
    rows = []
    for rank in range(9, -1, -1):
        row = ""
        empty = 0
        for file_index in range(FILES):
            letter = pieces.get(rank * FILES + file_index)
            if letter is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += letter
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows) + " w - - 0 1"


def random_position(rng: random.Random) -> str:
    """A random, plausible janggi position with Cho to move (not yet checked for
    validity)."""
    pieces: dict[int, str] = {}

    def free(ranks: range | tuple[int, ...], files: range | tuple[int, ...]) -> int:
        while True:
            sq = rng.choice(ranks) * FILES + rng.choice(files)
            if sq not in pieces:
                return sq

    all_files = range(FILES)
    pieces[free(_HAN_PALACE_RANKS, _PALACE_FILES)] = "k"
    pieces[free(_CHO_PALACE_RANKS, _PALACE_FILES)] = "K"
    for _ in range(rng.choice((1, 1, 2, 2, 2))):
        pieces[free(_HAN_PALACE_RANKS, _PALACE_FILES)] = "a"
    for _ in range(rng.choice((0, 1, 2))):
        pieces[free(_CHO_PALACE_RANKS, _PALACE_FILES)] = "A"
    for _ in range(rng.choice((0, 1, 1, 2))):
        pieces[free(range(5, 10), all_files)] = rng.choice("bn")
    # Cho's attackers, mostly in Han's half; soldiers only where a soldier can stand.
    pool = list("RRCCNNBBPPP")
    rng.shuffle(pool)
    for letter in pool[: rng.choice((3, 3, 4, 4, 5))]:
        if letter == "P":
            pieces[free(range(5, 10), all_files)] = "P"
        elif rng.random() < 0.75:
            pieces[free(range(4, 10), all_files)] = letter
        else:
            pieces[free(range(0, 10), all_files)] = letter
    # Han's own attackers, mostly in Cho's half.
    pool = list("rrccnnbp")
    rng.shuffle(pool)
    for letter in pool[: rng.choice((1, 2, 2, 3))]:
        if letter == "p":
            pieces[free(range(0, 5), all_files)] = "p"
        else:
            pieces[free(range(0, 7), all_files)] = letter
    return _fen_from(pieces)


def _counts_ok(fen: str) -> bool:
    placement = fen.split()[0]
    limits = {"k": 1, "a": 2, "b": 2, "n": 2, "r": 2, "c": 2, "p": 5}
    for letter, limit in limits.items():
        if placement.count(letter) > limit or placement.count(letter.upper()) > limit:
            return False
    return True


# ---------------------------------------------------------------- the generator


@dataclass
class Problem:
    fen: str
    moves: int
    winners: list[int]
    capture: bool
    checks: int
    nodes: int

    def record(self, ident: str, seed: int) -> dict[str, object]:
        return {
            "id": ident,
            "fen": self.fen,
            "rules": "official",
            "first_winning_move": iccs(self.winners[0]),
            "all_winning_first_moves": sorted(iccs(m) for m in self.winners),
            "mate_in_plies": 2 * self.moves - 1,
            "source": f"generated by tools/make_janggi_mates.py seed {seed}",
        }


def examine(fen: str, max_moves: int, node_limit: int) -> Problem | None:
    """Prove the shortest mate of a candidate position and apply the taste filters."""
    if not _counts_ok(fen):
        return None
    board = chuhan.Board(fen, variant="janggi", rules="official")
    if not board.is_valid() or board.is_check() or board.is_bikjang():
        return None
    prover = MateProver(board, node_limit=node_limit)
    try:
        solved = prover.solve(min(max_moves, 3))
        if solved is None and max_moves > 3:
            # A mate in 4 is proved exhaustively too, but only tried where a search that
            # lets Cho play nothing but checks finds one (most candidates have none, and
            # the exhaustive search of a position without a mate is the expensive case).
            probe = MateProver(board, node_limit=node_limit, checks_only=True)
            if probe.mates_within(max_moves):
                solved = prover.solve(max_moves)
    except NodeLimitExceeded:
        return None
    if solved is None:
        return None
    moves, winners = solved
    checks = len(prover.attacker_moves(1))
    if checks < 3 or len(winners) > 3:
        return None
    # Order the winners by ICCS so that "first_winning_move" does not depend on the
    # generator's move order.
    winners.sort(key=iccs)
    capture = bool(board.placement[winners[0] & 127])
    return Problem(board.fen(), moves, winners, capture, checks, prover.nodes)


def verify_with_fsf(problem: Problem) -> None:
    """Replay the proof tree of the first winning move through Fairy-Stockfish; raise
    ``AssertionError`` on any disagreement."""
    import pyffish

    board = chuhan.Board(problem.fen, variant="janggi", rules="official")
    prover = MateProver(board)
    first = problem.winners[0]
    assert prover.move_wins(first, problem.moves)
    for path, final in prover.proof_tree(first, problem.moves):
        moves = [fsf(m) for m in path]
        fsf_legal = set(pyffish.legal_moves("janggi", problem.fen, moves, False))
        replay = chuhan.Board(problem.fen, variant="janggi", rules="official")
        for m in path:
            replay.push_code(m)
        ours = {fsf(m) for m in replay.legal_move_codes()}
        assert fsf_legal == ours, (problem.fen, [iccs(m) for m in path], fsf_legal ^ ours)
        if final:
            assert not fsf_legal and pyffish.gives_check("janggi", problem.fen, moves, False), (
                problem.fen,
                [iccs(m) for m in path],
            )


def generate(seed: int, wanted: dict[int, int], deadline: float, node_limit: int) -> list[Problem]:
    rng = random.Random(seed)
    found: dict[int, list[Problem]] = {k: [] for k in wanted}
    seen: set[str] = set()
    max_moves = max(wanted)
    tried = 0
    while any(len(found[k]) < wanted[k] for k in wanted) and time.monotonic() < deadline:
        fen = random_position(rng)
        tried += 1
        if fen in seen:
            continue
        seen.add(fen)
        # Look only as deep as a length still wanted: a mate-in-4 proof costs far more.
        depth = max((k for k in wanted if len(found[k]) < wanted[k]), default=max_moves)
        problem = examine(fen, depth, node_limit)
        if problem is None or len(found[problem.moves]) >= wanted[problem.moves]:
            continue
        group = found[problem.moves]
        if problem.moves > 1 and problem.capture:
            captures = sum(p.capture for p in group)
            if 3 * (captures + 1) > wanted[problem.moves]:
                continue
        verify_with_fsf(problem)
        group.append(problem)
        print(
            f"[{tried}] mate in {problem.moves}: {problem.fen} "
            f"{[iccs(m) for m in problem.winners]} ({problem.nodes} nodes)",
            file=sys.stderr,
            flush=True,
        )
    return [p for k in sorted(found) for p in found[k]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--mate1", type=int, default=4, help="mate-in-1 problems wanted")
    parser.add_argument("--mate2", type=int, default=12, help="mate-in-2 (3 plies) wanted")
    parser.add_argument("--mate3", type=int, default=12, help="mate-in-3 (5 plies) wanted")
    parser.add_argument("--mate4", type=int, default=6, help="mate-in-4 (7 plies) wanted")
    parser.add_argument("--minutes", type=float, default=30.0, help="stop after this long")
    parser.add_argument("--node-limit", type=int, default=200_000, help="per position")
    args = parser.parse_args(argv)
    wanted = {1: args.mate1, 2: args.mate2, 3: args.mate3, 4: args.mate4}
    wanted = {k: n for k, n in wanted.items() if n > 0}
    if not wanted:
        parser.error("ask for at least one problem")
    deadline = time.monotonic() + 60 * args.minutes
    problems = generate(args.seed, wanted, deadline, args.node_limit)
    counters: dict[int, int] = {}
    with open(args.out, "w", encoding="utf-8") as out:
        for problem in problems:
            counters[problem.moves] = counters.get(problem.moves, 0) + 1
            ident = f"janggi-m{problem.moves}-{counters[problem.moves]:02d}"
            out.write(json.dumps(problem.record(ident, args.seed), ensure_ascii=False) + "\n")
    print(f"wrote {len(problems)} problems to {args.out}: {counters}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Casual strengths: levels 1-7 search less and choose among near-best moves at random.

Level 8 is the full engine. A weaker level is the full search with its depth and nodes
capped, asked for the :data:`LEVEL_CHOICES` best root moves, and followed by a random
choice among them (:meth:`Level.choose`); the search itself knows nothing of levels.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chuhan.search.limits import SearchInfo, SearchLimits, SearchResult
from chuhan.search.tree import MATE, MATE_BOUND
from chuhan.squares import Move

__all__ = ["LEVELS", "LEVEL_CHOICES", "Level"]

#: How many of the best root moves a casual level chooses among.
LEVEL_CHOICES = 6


@dataclass(frozen=True, slots=True)
class Level:
    """A casual strength: depth and node caps, and how far below the best move the
    choice may fall (``margin`` centipawns, with ``blunder`` the chance of a uniformly
    random legal move)."""

    depth: int | None
    nodes: int | None
    margin: int
    blunder: float

    def limits(self, limits: SearchLimits) -> SearchLimits:
        """``limits`` with this level's depth and node caps."""
        depth = limits.depth
        if self.depth is not None:
            depth = self.depth if depth is None else min(depth, self.depth)
        nodes = limits.nodes
        if self.nodes is not None:
            nodes = min(nodes or self.nodes, self.nodes)
        return dataclasses.replace(limits, depth=depth, nodes=nodes)

    def choose(
        self,
        result: SearchResult,
        moves: Sequence[Move],
        rng: random.Random,
        *,
        hashfull: int = 0,
        on_info: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """The move this level plays, given the search's ``result`` (its lines the best
        root moves, best first) and the legal ``moves`` it could blunder into. The result
        keeps the chosen move's line only; when that is not the best line, ``on_info``
        is told the move played (with its line, or without a score for a random move)."""
        lines = result.lines
        if not lines:
            return result
        best = self._pick(lines, moves, rng)
        chosen = next((line for line in lines if line.pv and line.pv[0] == best), None)
        ponder = chosen.pv[1] if chosen is not None and len(chosen.pv) > 1 else None
        if best != lines[0].pv[0] and on_info is not None:
            on_info(
                dataclasses.replace(chosen, multipv=1)
                if chosen is not None
                else SearchInfo(
                    depth=lines[0].depth,
                    seldepth=lines[0].seldepth,
                    nodes=result.nodes,
                    time_ms=lines[0].time_ms,
                    pv=[best],
                    hashfull=hashfull,
                )
            )
        kept = [chosen] if chosen is not None else lines[:1]
        return SearchResult(best=best, ponder=ponder, lines=kept, nodes=result.nodes)

    def _pick(self, lines: list[SearchInfo], moves: Sequence[Move], rng: random.Random) -> Move:
        best = lines[0].pv[0]
        if self.blunder and rng.random() < self.blunder:
            return rng.choice(moves)
        top = _line_score(lines[0])
        pool = [line for line in lines if line.pv and top - _line_score(line) <= self.margin]
        if top > MATE_BOUND - 100:
            return best
        temperature = max(1.0, self.margin / 3)
        weights = [math.exp((_line_score(line) - top) / temperature) for line in pool]
        pick = rng.choices(pool, weights=weights)[0]
        return pick.pv[0]


LEVELS: dict[int, Level] = {
    1: Level(depth=1, nodes=1_500, margin=400, blunder=0.30),
    2: Level(depth=1, nodes=3_000, margin=220, blunder=0.12),
    3: Level(depth=2, nodes=6_000, margin=140, blunder=0.05),
    4: Level(depth=3, nodes=12_000, margin=90, blunder=0.0),
    5: Level(depth=4, nodes=25_000, margin=50, blunder=0.0),
    6: Level(depth=5, nodes=50_000, margin=25, blunder=0.0),
    7: Level(depth=7, nodes=100_000, margin=10, blunder=0.0),
}


def best_line_only(
    on_info: Callable[[SearchInfo], None] | None,
) -> Callable[[SearchInfo], None] | None:
    """``on_info`` told only of the best line of each iteration: a level searches
    :data:`LEVEL_CHOICES` lines to choose from, but reports as a one-line search."""
    if on_info is None:
        return None
    report = on_info

    def best_only(info: SearchInfo) -> None:
        if info.multipv == 1:
            report(info)

    return best_only


def _line_score(line: SearchInfo) -> int:
    """The search's own score of a line (mates counted from :data:`MATE`)."""
    if line.mate is not None:
        return MATE - 2 * line.mate if line.mate > 0 else -MATE - 2 * line.mate
    return line.score_cp or 0

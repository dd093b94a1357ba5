"""Games of chuhan's engine against itself: the labelled positions ``tools/texel.py --game
janggi`` fits the janggi evaluation to (there are no janggi master records here).

Each game is one of its own, seeded by ``--seed`` and its number: both sides' arrangements
of horses and elephants drawn from the four, then ``--random-plies`` random legal moves (no
passes), then the engine (level 8, full strength) against itself at ``--nodes`` nodes a
move, one :class:`~chuhan.search.search.Searcher` a side, refereed move by move by
:class:`~chuhan.game.Game` under ``--rules`` (janggi's official rules by default, those
``chuhan match --variant janggi`` plays: the move limit ends a game on points, so it has a
winner). The search is node-limited, so a game is the same on any machine and at any load.
The engine plays with the weights it is given (``weights``; the search reads them where it
reads its own), so the games of a fit's starting weights can be played again after the
engine has changed.

A game is kept as one record (JSON lines): its number, the two arrangements, its moves in
ICCS from the start position they give, the result from Cho's view and how it ended.
Records are appended as games end, to a file named by every choice that made them, so an
interrupted run goes on where it stopped and a second run plays nothing::

    python tools/selfplay_games.py --games 20 --nodes 4000 --jobs 1

(``tools/texel.py --game janggi`` calls :func:`generate` itself.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chuhan.search.tree as tree_module
from chuhan.game import Game
from chuhan.search.evaluate import EvalWeights, evaluator_for
from chuhan.search.limits import SearchLimits
from chuhan.search.search import Searcher
from chuhan.variants import JANGGI_ARRANGEMENTS, get_variant, janggi_start_fen

#: The hash table of each side's searcher (MB): a game at a few thousand nodes a move
#: fills a small one, and a large one costs more to clear than the game to play.
HASH_MB = 4


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One game of the engine against itself: its number, Cho's and Han's arrangements
    (Hangul, each from its own player's left), the moves from the start they give (ICCS,
    space-separated; a pass is the king's point twice), the result from Cho's view
    (``1-0``, ``0-1``, ``1/2-1/2``) and the termination (``checkmate``, ``points`` …)."""

    number: int
    cho: str
    han: str
    moves: str
    result: str
    termination: str

    @property
    def identity(self) -> str:
        """A hash of the game (hex), which the validation split reads."""
        text = f"{self.number}\n{self.cho}\n{self.han}\n{self.moves}"
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    @property
    def start_fen(self) -> str:
        return janggi_start_fen(cho=self.cho, han=self.han)


@contextmanager
def playing_with(weights: EvalWeights | None) -> Iterator[None]:
    """The search evaluates janggi with ``weights`` inside the block (None: its own). The
    search takes its evaluator from ``evaluator_for(game)`` as a module global, which the
    compiled build also looks up by name; one search runs at a time in a process."""
    if weights is None:
        yield
        return
    original = getattr(tree_module, "evaluator_for")  # noqa: B009

    def evaluator(game: str, _weights: EvalWeights | None = None) -> Any:
        return evaluator_for(game, weights if game == "janggi" else None)

    setattr(tree_module, "evaluator_for", evaluator)  # noqa: B010
    try:
        yield
    finally:
        setattr(tree_module, "evaluator_for", original)  # noqa: B010


def play(
    number: int,
    *,
    seed: int,
    nodes: int,
    random_plies: int,
    rules: str = "official",
    weights: EvalWeights | None = None,
) -> SelfPlayGame:
    """Game ``number`` of the run seeded ``seed`` (see the module), played to its end."""
    variant = get_variant("janggi", rules)
    rng = random.Random(f"{seed}:{number}")
    while True:
        han = rng.choice(JANGGI_ARRANGEMENTS)
        cho = rng.choice(JANGGI_ARRANGEMENTS)
        game = Game.new(variant, setup={"han": han, "cho": cho})
        for _ in range(random_plies):
            if game.outcome() is not None:
                break
            game.push(rng.choice([m for m in game.board.legal_moves if not m.is_pass()]))
        if game.outcome() is None:
            break
    searchers = {
        side: Searcher(HASH_MB, seed=seed * 1_000_003 + 2 * number + side) for side in (0, 1)
    }
    limits = SearchLimits(nodes=nodes)
    with playing_with(weights):
        while (outcome := game.outcome()) is None:
            board = game.board
            move = searchers[board.turn].search(board, limits).best
            if move is None:
                raise RuntimeError(
                    f"game {number}: the search found no move in {board.fen()}, "
                    "but the referee says the game goes on"
                )
            game.push(move)
    moves = " ".join(m.iccs() for m in game.board.move_stack)
    return SelfPlayGame(number, cho, han, moves, outcome.result(), outcome.termination.value)


def cache_name(**choices: object) -> str:
    """The games' file name: every choice that made them."""
    text = "".join(f";{k}={v}" for k, v in sorted(choices.items()))
    return f"selfplay-{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}.jsonl"


def read_games(path: Path) -> dict[int, SelfPlayGame]:
    """The games kept in ``path`` by number (none if there is no file; a last line cut
    short by an interrupted run is left out)."""
    games: dict[int, SelfPlayGame] = {}
    if not path.exists():
        return games
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                game = SelfPlayGame(**json.loads(line))
            except (ValueError, TypeError):
                continue
            games[game.number] = game
    return games


def weights_digest(weights: EvalWeights) -> str:
    """A short hash of ``weights`` (the same compiled or not), which names the games."""
    return hashlib.sha256(repr(weights).encode()).hexdigest()[:16]


def _play_job(job: tuple[int, int, int, int, str, str]) -> SelfPlayGame:
    number, seed, nodes, random_plies, rules, start = job
    # The weights go to the worker by name: the compiled EvalWeights does not unpickle.
    from texel import STARTS

    return play(
        number,
        seed=seed,
        nodes=nodes,
        random_plies=random_plies,
        rules=rules,
        weights=STARTS["janggi"][start],
    )


def generate(
    count: int,
    *,
    seed: int,
    nodes: int,
    random_plies: int,
    rules: str = "official",
    start: str = "thumb",
    jobs: int = 1,
    cache: Path,
    on_game: Callable[[int, SelfPlayGame], None] | None = None,
) -> tuple[list[SelfPlayGame], float]:
    """Games 0 .. ``count - 1`` of the run (the engine with ``tools/texel.py``'s janggi
    weights ``start``), those already in the cache read, the others played on ``jobs``
    processes and appended; with the seconds spent playing."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    games = read_games(cache)
    missing = [n for n in range(count) if n not in games]
    jobs_list = [(n, seed, nodes, random_plies, rules, start) for n in missing]
    started = time.monotonic()
    if missing:
        with cache.open("a", encoding="utf-8") as handle:
            if jobs <= 1:
                results: Iterator[SelfPlayGame] = map(_play_job, jobs_list)
                _keep(results, games, handle, on_game)
            else:
                with multiprocessing.get_context("fork").Pool(jobs) as pool:
                    _keep(pool.imap_unordered(_play_job, jobs_list), games, handle, on_game)
    seconds = time.monotonic() - started
    return [games[n] for n in range(count)], seconds


def _keep(
    results: Iterator[SelfPlayGame],
    games: dict[int, SelfPlayGame],
    handle: Any,
    on_game: Callable[[int, SelfPlayGame], None] | None,
) -> None:
    for game in results:
        games[game.number] = game
        handle.write(json.dumps(asdict(game), ensure_ascii=False) + "\n")
        handle.flush()
        if on_game is not None:
            on_game(len(games), game)


def run_path(options: argparse.Namespace) -> Path:
    """Where the games of the run that ``options`` (this tool's or ``tools/texel.py``'s:
    ``--cache``, ``--nodes``, ``--random-plies``, ``--rules``, ``--seed``, ``--start``) asks
    for are kept: named by every choice that decides them."""
    from texel import STARTS

    folder: Path = options.cache
    return folder / cache_name(
        nodes=options.nodes,
        random_plies=options.random_plies,
        rules=options.rules,
        seed=options.seed,
        weights=weights_digest(STARTS["janggi"][options.start]),
    )


def play_run(options: argparse.Namespace) -> tuple[list[SelfPlayGame], float]:
    """The first ``--games`` games of the run ``options`` asks for (see :func:`run_path`),
    played on ``--jobs`` processes where not kept, counted on stderr as they end; with the
    seconds spent playing."""
    return generate(
        options.games,
        seed=options.seed,
        nodes=options.nodes,
        random_plies=options.random_plies,
        rules=options.rules,
        start=options.start,
        jobs=options.jobs,
        cache=run_path(options),
        on_game=lambda done, _: print(f"\r  {done:,} games", end="", file=sys.stderr),
    )


def main(argv: Sequence[str] | None = None) -> int:
    from texel import default_cache

    parser = argparse.ArgumentParser(description="Janggi games of chuhan's engine against itself.")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=4000, help="nodes a move")
    parser.add_argument("--random-plies", type=int, default=6)
    parser.add_argument("--rules", default="official", help="janggi's rule set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", choices=("thumb", "engine"), default="thumb")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=default_cache())
    options = parser.parse_args(argv)
    path = run_path(options)
    games, seconds = play_run(options)
    print(file=sys.stderr)
    results = {r: sum(1 for g in games if g.result == r) for r in ("1-0", "1/2-1/2", "0-1")}
    print(
        f"{len(games):,} games in {path} ({seconds:.0f} s playing): Cho won {results['1-0']}, "
        f"drawn {results['1/2-1/2']}, Han won {results['0-1']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a search is told (limits) and what it reports (info lines, the result).

These types are shared by the search (:mod:`chuhan.search.search`), the time manager
(:mod:`chuhan.search.timeman`) and the protocol front end (:mod:`chuhan.search.uci`).
Times are in milliseconds, as the UCI protocol counts them.

There are two limits types in chuhan, on purpose:

- :class:`SearchLimits` (here, milliseconds): what one UCI/UCCI ``go`` command carries,
  every field of it. chuhan's own search runs under it, ``chuhan engine`` parses each
  ``go`` into one, and the driver of external engines writes its ``go`` commands from one.
- :class:`chuhan.engine.Limit` (seconds, validated, immutable): what a Python caller gives
  the driver, in the manner of python-chess's ``chess.engine.Limit``. It converts to a
  :class:`SearchLimits` in one place, :meth:`chuhan.engine.Limit.search_limits`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from chuhan.squares import Move

#: The default bound of the search's transposition table (the ``Hash`` option), in MB. A
#: Python entry takes about 190 bytes, so 64 MB hold some 350,000 positions, about a
#: minute of search (a search stores about one position in ten it visits); 16 MB were
#: nearly full after a dozen one-second moves.
DEFAULT_HASH_MB = 64


@dataclass(slots=True)
class SearchLimits:
    """The limits of one search, as one ``go`` command gives them, times in milliseconds:
    any combination; none at all means search until stopped. (Seconds, for driving an
    external engine from Python: :class:`chuhan.engine.Limit`.)"""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    #: Mate search: find a mate in this many moves (not plies).
    mate: int | None = None
    #: Remaining clock time of the first mover (xiangqi red, janggi Cho) and the second.
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    #: Byo-yomi: the time of one period, and how many periods each side has left.
    byoyomi: int | None = None
    wperiods: int | None = None
    bperiods: int | None = None
    #: Time lost per move between the GUI's clock and the engine's (the ``Move Overhead``
    #: option); ``None``: the time manager's default, ``timeman.MOVE_OVERHEAD_MS``.
    move_overhead: int | None = None
    infinite: bool = False
    ponder: bool = False

    def has_clock(self) -> bool:
        return self.wtime is not None or self.btime is not None


@dataclass(slots=True)
class SearchInfo:
    """One ``info`` line. ``score_cp`` and ``mate`` are from the side to move's point of
    view; ``mate`` counts moves (positive: the side to move mates)."""

    depth: int
    seldepth: int
    nodes: int
    time_ms: int
    pv: list[Move]
    multipv: int = 1
    score_cp: int | None = None
    mate: int | None = None
    hashfull: int = 0

    @property
    def nps(self) -> int:
        return self.nodes * 1000 // self.time_ms if self.time_ms > 0 else 0


@dataclass(slots=True)
class SearchResult:
    """The move chosen (``None`` when the side to move has no legal move), the move it
    expects in reply, the last complete info line for each principal variation, and the
    nodes the whole search visited."""

    best: Move | None
    ponder: Move | None = None
    lines: list[SearchInfo] = field(default_factory=list)
    nodes: int = 0


class SearchControl:
    """Shared between the thread running a search and the one reading commands.

    ``stop()`` ends the search as soon as possible (it still returns its best move so far).
    ``ponderhit()`` turns a ``go ponder`` search into a normal one: its time budget starts
    counting from then.
    """

    def __init__(self, *, pondering: bool = False, started: float | None = None) -> None:
        self._stop = threading.Event()
        self.pondering = pondering
        #: When the time budget starts (``time.monotonic()``): by default now; the protocol
        #: front end passes the moment the ``go`` arrived.
        self.started = time.monotonic() if started is None else started

    def stop(self) -> None:
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def ponderhit(self) -> None:
        self.started = time.monotonic()
        self.pondering = False

    def wait_for_release(self, *, infinite: bool) -> None:
        """Block while a finished search may not answer yet: an ``infinite`` one until
        ``stop()``, a ponder search until ``stop()`` or ``ponderhit()``."""
        while (infinite or self.pondering) and not self.stopped:
            time.sleep(0.005)

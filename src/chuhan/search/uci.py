"""The protocol front end of chuhan's engine: UCI and UCCI on stdin/stdout.

``chuhan engine`` runs an :class:`EngineServer`. It speaks UCI (as Pikafish and
Fairy-Stockfish do, answering ``uci``) and UCCI (the Chinese xiangqi protocol, answering
``ucci``); the first of the two commands chooses the dialect, UCI being the default.

- Moves are read and written in one coordinate convention: ``ranks-0-9`` (ICCS, as Pikafish,
  UCCI GUIs and :meth:`Move.iccs`: ``h2e2``) or ``ranks-1-10`` (Fairy-Stockfish:
  ``h3e3``). The option ``UCI_Coordinates`` chooses; its default ``auto`` follows the game:
  ranks 1-10 for janggi under UCI (the convention of Fairy-Stockfish, the usual janggi engine),
  ranks 0-9 otherwise. A janggi pass is the king's square twice; ``0000`` is also read.
- ``position`` checks every move. A malformed FEN or an illegal move is reported
  (``info string error: illegal move h2h9 at ply 3 in <FEN>: ...``) and the whole command
  is dropped: the engine keeps the position it had before, never half of the new one.
- The search runs in a worker thread, so ``stop``, ``isready``, ``ponderhit`` and ``quit``
  are read while it thinks (``position`` too: it sets the position of the next ``go``).
  ``go``, ``ucinewgame`` and ``setoption name Hash`` during a search stop it first; it
  still answers its own ``go``. Each ``go`` gets exactly one ``bestmove`` (``bestmove (none)``,
  or ``nobestmove`` under UCCI, when there is no legal move); after ``go infinite`` and
  ``go ponder`` it waits for ``stop`` / ``ponderhit`` even when the search ends sooner.
- Bad input never stops the engine: each malformed or unknown command, option or ``go``
  parameter gets an ``info string error: ...`` line naming it. A ``go`` with a malformed
  value (``movetime abc``, ``depth -1``, ``movetime`` with nothing after it) is refused
  whole and nothing is searched (searching without the limit that was meant could think for
  ever, or past the clock), but it is answered at once with ``bestmove (none)``
  (``nobestmove`` under UCCI), so no GUI is left waiting. Unknown words in a ``go`` are
  reported and skipped, as the UCI specification asks, and so are illegal moves after
  ``searchmoves`` or ``banmoves``.
"""

from __future__ import annotations

import io
import re
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, TextIO

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.search.limits import (
    DEFAULT_HASH_MB,
    SearchControl,
    SearchInfo,
    SearchLimits,
    SearchResult,
)
from chuhan.search.timeman import MOVE_OVERHEAD_MS, allocate
from chuhan.squares import Move
from chuhan.variants import GAMES, VARIANTS, Variant, get_variant

if TYPE_CHECKING:
    # The dialect this server speaks is the driver's protocol name (a type only: the
    # driver's subprocess machinery is not loaded by chuhan engine).
    from chuhan.engine import EngineProtocol

Write = Callable[[str], None]

ENGINE_NAME = "chuhan"
ENGINE_AUTHOR = "The chuhan developers"
#: Convention names of the ``UCI_Coordinates`` option.
RANKS_0_9 = "ranks-0-9"
RANKS_1_10 = "ranks-1-10"
#: UCCI mate scores: the mating side gets ``MATE_SCORE`` minus the plies to mate.
UCCI_MATE_SCORE = 10000
#: Under UCCI ``go draw``, accept the opponent's draw offer when we stand at least this
#: badly (centipawns), or are being mated.
DRAW_ACCEPT_CP = -200

#: A square in an engine's reason text (always ICCS: ranks 0-9).
_ICCS_SQUARE = re.compile(r"\b([a-i])([0-9])\b")
_GO_INT_KEYS = {
    "depth",
    "nodes",
    "movetime",
    "mate",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "byoyomi",
    "wperiods",
    "bperiods",
}
#: UCCI time parameters: seconds unless ``usemillisec`` is on.
_UCCI_TIME_KEYS = {"time", "increment", "opptime", "oppincrement"}
_UCCI_INT_KEYS = {"depth", "nodes", "movestogo", "oppmovestogo"}


class SearcherLike(Protocol):
    """What the server needs of a searcher (:class:`chuhan.search.search.Searcher`)."""

    def resize(self, hash_mb: int) -> None: ...

    def new_game(self) -> None: ...

    def search(
        self,
        board: Board,
        limits: SearchLimits,
        *,
        control: SearchControl | None = None,
        multipv: int = 1,
        level: int = 8,
        banned: Collection[Move] = (),
        on_info: Callable[[SearchInfo], None] | None = None,
        book: bool = False,
    ) -> SearchResult: ...


def default_searcher(hash_mb: int) -> SearcherLike:
    """chuhan's own searcher (imported on first use, so ``uci`` is answered at once)."""
    from chuhan.search.search import Searcher

    return Searcher(hash_mb)


class CommandError(ChuhanError):
    """A protocol command that is malformed or cannot be carried out."""


# ---------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class EngineOption:
    """One engine option, with its UCI and its UCCI name."""

    name: str
    ucci_name: str | None
    kind: Literal["check", "spin", "combo", "button"]
    default: str = ""
    minimum: int = 0
    maximum: int = 0
    choices: tuple[str, ...] = ()

    def uci_line(self) -> str:
        """``option name Hash type spin default 16 min 1 max 4096`` (Stockfish's order)."""
        text = f"option name {self.name} type {self.kind}"
        if self.kind == "button":
            return text
        text += f" default {self.default}"
        if self.kind == "spin":
            text += f" min {self.minimum} max {self.maximum}"
        return text + "".join(f" var {choice}" for choice in self.choices)

    def ucci_line(self) -> str:
        """``option hashsize type spin min 1 max 4096 default 16`` (UCCI's order)."""
        assert self.ucci_name is not None
        text = f"option {self.ucci_name} type {self.kind}"
        if self.kind == "button":
            return text
        if self.kind == "spin":
            text += f" min {self.minimum} max {self.maximum}"
        text += "".join(f" var {choice}" for choice in self.choices)
        return text + f" default {self.default}"

    def parse(self, value: str) -> str:
        """The normalised value, or :class:`CommandError` naming what is wrong."""
        text = value.strip()
        if self.kind == "check":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise CommandError(
                    f"invalid value {value!r} for option {self.name}: expected true or false"
                )
            return lowered
        if self.kind == "spin":
            try:
                number = int(text)
            except ValueError:
                raise CommandError(
                    f"invalid value {value!r} for option {self.name}: expected a whole number "
                    f"from {self.minimum} to {self.maximum}"
                ) from None
            if not self.minimum <= number <= self.maximum:
                raise CommandError(
                    f"invalid value {value!r} for option {self.name}: out of range "
                    f"{self.minimum}-{self.maximum}"
                )
            return str(number)
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise CommandError(
                f"invalid value {value!r} for option {self.name}: expected one of "
                + ", ".join(self.choices)
            )
        return text


_RULE_NAMES = tuple(dict.fromkeys(v.rules for v in VARIANTS.values()))

OPTIONS: tuple[EngineOption, ...] = (
    EngineOption("UCI_Variant", "variant", "combo", GAMES[0], choices=GAMES),
    EngineOption("Rules", "rules", "combo", "auto", choices=("auto", *_RULE_NAMES)),
    EngineOption("Hash", "hashsize", "spin", str(DEFAULT_HASH_MB), 1, 4096),
    EngineOption("MultiPV", "multipv", "spin", "1", 1, 64),
    EngineOption("Skill Level", "level", "spin", "8", 1, 8),
    # The masters' opening book (chuhan.book), to each level's depth of it.
    EngineOption("OwnBook", "usebook", "check", "true"),
    EngineOption("UCI_Coordinates", None, "combo", "auto", choices=("auto", RANKS_0_9, RANKS_1_10)),
    EngineOption("Ponder", "ponder", "check", "false"),
    EngineOption("Move Overhead", None, "spin", str(MOVE_OVERHEAD_MS), 0, 5000),
    # UCCI only: times in ``go`` are in milliseconds rather than seconds.
    EngineOption("usemillisec", "usemillisec", "check", "false"),
    # UCCI only: ``setoption newgame`` is UCCI's ``ucinewgame``.
    EngineOption("newgame", "newgame", "button"),
)
_UCI_HIDDEN = {"usemillisec", "newgame"}
_OPTIONS_BY_NAME: dict[str, EngineOption] = {}
for _option in OPTIONS:
    _OPTIONS_BY_NAME[_option.name.lower()] = _option
    if _option.ucci_name:
        _OPTIONS_BY_NAME[_option.ucci_name.lower()] = _option


# ---------------------------------------------------------------------------- the server


@dataclass
class _Job:
    """One ``go``: its worker thread and the state shared with the command reader."""

    control: SearchControl
    hold: bool  # infinite: bestmove only after stop
    draw_offered: bool
    wake: threading.Event
    #: The dialect and move format when the ``go`` came: an option changed during the
    #: search does not change how its moves are written.
    dialect: EngineProtocol
    format_move: Callable[[Move], str]
    thread: threading.Thread | None = None
    #: Set just before ``bestmove`` is written: from then on the GUI may send the next
    #: ``go``, though the thread may take a moment more to end.
    answered: bool = False


class EngineServer:
    """Reads protocol commands with :meth:`handle` and writes answers through ``write``
    (one line per call, without the newline). :meth:`run` drives it from streams."""

    def __init__(
        self,
        write: Write,
        *,
        searcher_factory: Callable[[int], SearcherLike] = default_searcher,
        version: str | None = None,
    ) -> None:
        self._write_line = write
        self._write_lock = threading.Lock()
        self._factory = searcher_factory
        self._searcher: SearcherLike | None = None
        if version is None:
            from chuhan import __version__

            version = __version__
        self.version = version
        self.dialect: EngineProtocol = "uci"
        self.debug = False
        self.values: dict[str, str] = {o.name: o.default for o in OPTIONS}
        #: The position ``go`` searches; ``None``: the start of the current variant.
        self._board: Board | None = None
        #: The last ``position`` as parsed (start FEN, moves), replayed if the rules change.
        self._position: tuple[str, list[Move]] | None = None
        self._banned: list[Move] = []
        self._job: _Job | None = None
        self._handlers: dict[str, Callable[[list[str]], None]] = {
            "uci": self._cmd_uci,
            "ucci": self._cmd_ucci,
            "isready": self._cmd_isready,
            "debug": self._cmd_debug,
            "ucinewgame": self._cmd_ucinewgame,
            "setoption": self._cmd_setoption,
            "position": self._cmd_position,
            "banmoves": self._cmd_banmoves,
            "go": self._cmd_go,
            "stop": self._cmd_stop,
            "ponderhit": self._cmd_ponderhit,
            "probe": self._cmd_probe,
        }

    # ------------------------------------------------------------------ I/O

    def send(self, line: str) -> None:
        with self._write_lock:
            self._write_line(line)

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    def handle(self, line: str) -> bool:
        """Carry out one command line. Returns ``False`` after ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            self.shutdown()
            if self.dialect == "ucci":
                self.send("bye")
            return False
        handler = self._handlers.get(command)
        if handler is None:
            self.error(f"unknown command {line.strip()[:80]!r}")
            return True
        try:
            handler(args)
        except ChuhanError as error:
            self.error(str(error))
        except Exception as error:  # a bug here must not end the engine
            self.error(f"internal error in {command!r}: {type(error).__name__}: {error}")
        return True

    def run(self, stdin: TextIO) -> None:
        """Serve until ``quit`` or the end of ``stdin`` (which stops a running search)."""
        try:
            for line in iter(stdin.readline, ""):
                if not self.handle(line):
                    return
        except KeyboardInterrupt:
            pass
        self.shutdown()

    def shutdown(self) -> None:
        """Stop a running search and wait for its ``bestmove``."""
        job = self._job
        if job is not None:
            job.control.stop()
            job.wake.set()
        self.wait()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the running search (if any) to print its ``bestmove``. Returns whether
        it has."""
        job = self._job
        if job is None or job.thread is None:
            return True
        job.thread.join(timeout)
        return not job.thread.is_alive()

    @property
    def searching(self) -> bool:
        job = self._job
        return job is not None and job.thread is not None and not job.answered

    # ------------------------------------------------------------------ settings

    @property
    def variant(self) -> Variant:
        """The game and rule set the options select (the game's default rule set when
        ``Rules`` names one of the other game's)."""
        game = self.values["UCI_Variant"]
        rules = self.values["Rules"]
        found = VARIANTS.get(f"{game}:{rules}")
        return found if found is not None else get_variant(game)

    @property
    def coordinates(self) -> str:
        chosen = self.values["UCI_Coordinates"]
        if chosen != "auto":
            return chosen
        if self.dialect == "uci" and self.variant.is_janggi:
            return RANKS_1_10
        return RANKS_0_9

    def format_move(self, move: Move) -> str:
        return move.fsf() if self.coordinates == RANKS_1_10 else move.iccs()

    def parse_move(self, board: Board, text: str) -> Move:
        """A move string in the current convention (``0000``: a pass). Syntax only."""
        if text == "0000":
            king = board.king(board.turn)
            return Move(king, king)
        if self.coordinates == RANKS_1_10:
            return Move.from_fsf(text)
        return Move.from_iccs(text)

    def searcher(self) -> SearcherLike:
        if self._searcher is None:
            self._searcher = self._factory(int(self.values["Hash"]))
        return self._searcher

    def board(self) -> Board:
        """The position the next ``go`` searches."""
        if self._board is None:
            self._board = Board(variant=self.variant)
        return self._board

    def _variant_changed(self) -> None:
        """After ``UCI_Variant`` or ``Rules`` changed the variant: the position set before
        is read again under the new rules (same game), or, for the other game, replaced by
        its start, and the GUI is told either way."""
        if self._board is None:
            return
        variant = self.variant
        if self._position is not None and self._board.variant.game == variant.game:
            fen, moves = self._position
            board = Board(fen, variant=variant)
            for move in moves:
                if not board.is_legal(move):
                    self._board = self._position = None
                    self._banned = []
                    self.send(
                        f"info string warning: the position set before is not playable under "
                        f"{variant.name} ({self.format_move(move)} is illegal in {board.fen()}: "
                        f"{self._why_illegal(board, move)}); it is now the start position"
                    )
                    return
                board.push(move)
            self._board = board
            self.send(f"info string the position is now played under {variant.name}")
            return
        self._board = self._position = None
        self._banned = []
        self.send(f"info string the position is now the {variant.game} start position")

    def _rules_warning(self) -> str | None:
        rules = self.values["Rules"]
        game = self.values["UCI_Variant"]
        if rules == "auto" or f"{game}:{rules}" in VARIANTS:
            return None
        valid = ", ".join(v.rules for v in VARIANTS.values() if v.game == game)
        return (
            f"option Rules {rules!r} is not a {game} rule set ({valid}); using {self.variant.name}"
        )

    # ------------------------------------------------------------------ commands

    def _cmd_uci(self, args: list[str]) -> None:
        self._introduce("uci")

    def _cmd_ucci(self, args: list[str]) -> None:
        self._introduce("ucci")

    def _introduce(self, dialect: EngineProtocol) -> None:
        """Answer ``uci`` / ``ucci``: speak that dialect from now on; name the engine and
        its options in it."""
        self.dialect = dialect
        self.send(f"id name {ENGINE_NAME} {self.version}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in OPTIONS:
            if dialect == "ucci":
                if option.ucci_name is not None:
                    self.send(option.ucci_line())
            elif option.name not in _UCI_HIDDEN:
                self.send(option.uci_line())
        self.send(f"{dialect}ok")

    def _cmd_isready(self, args: list[str]) -> None:
        if not self.searching:
            try:
                self.searcher()  # heavy set-up belongs before readyok
            except Exception as error:  # readyok all the same: the GUI must not hang
                self.error(f"the searcher could not start: {type(error).__name__}: {error}")
        self.send("readyok")

    def _cmd_debug(self, args: list[str]) -> None:
        if args not in (["on"], ["off"]):
            raise CommandError(f"invalid 'debug {' '.join(args)}': expected 'debug on|off'")
        self.debug = args == ["on"]

    def _cmd_ucinewgame(self, args: list[str]) -> None:
        self._finish_search("ucinewgame")
        self.searcher().new_game()
        self._board = self._position = None
        self._banned = []

    def _cmd_setoption(self, args: list[str]) -> None:
        if args and args[0] == "name":
            # UCI: setoption name <name with spaces> [value <value with spaces>]
            if "value" in args:
                cut = args.index("value")
                name, value = " ".join(args[1:cut]), " ".join(args[cut + 1 :])
            else:
                name, value = " ".join(args[1:]), ""
        elif args:
            # UCCI: setoption <name> [<value>]
            name, value = args[0], " ".join(args[1:])
        else:
            raise CommandError("invalid 'setoption': expected 'setoption name <name> value <v>'")
        option = _OPTIONS_BY_NAME.get(name.lower())
        if option is None:
            known = ", ".join(o.name for o in OPTIONS)
            raise CommandError(f"unknown option {name!r}: expected one of {known}")
        if option.kind == "button":
            if option.name == "newgame":
                self._cmd_ucinewgame([])
            return
        if not value:
            raise CommandError(f"option {option.name} needs a value")
        parsed = option.parse(value)
        if option.name == "Hash" and parsed != self.values["Hash"]:
            self._finish_search("setoption name Hash")
            if self._searcher is not None:
                self._searcher.resize(int(parsed))
        before = self.variant
        self.values[option.name] = parsed
        if option.name in ("UCI_Variant", "Rules"):
            warning = self._rules_warning()
            if warning is not None and option.name == "Rules":
                # Say so now; it may be set right before UCI_Variant, so don't refuse it.
                self.send(f"info string warning: {warning}")
            if self.variant != before:
                self._variant_changed()

    def _finish_search(self, what: str) -> None:
        """Before a command that needs the searcher idle: stop a running search (it still
        answers its own ``go``) and wait for its ``bestmove``. Refusing instead would leave
        a GUI that sent ``stop`` and ``go`` back to back waiting for ever."""
        if self.searching:
            job = self._job
            if job is not None and not job.control.stopped:
                self.send(f"info string {what!r} stops the running search first")
            self.shutdown()
        else:
            self.wait()  # the last search has answered; let its thread end

    def _cmd_position(self, args: list[str]) -> None:
        board = self._parse_position(args, "position")
        self._board = board
        self._position = (board.root().fen(), list(board.move_stack))
        self._banned = []

    def _parse_position(self, args: list[str], command: str) -> Board:
        """``startpos|fen <FEN> [moves m1 m2 ...]`` as a board, or a :class:`CommandError`
        naming the first thing wrong."""
        if not args:
            raise CommandError(f"invalid {command!r}: expected 'startpos' or 'fen <FEN>'")
        if "moves" in args:
            cut = args.index("moves")
            spec, moves = args[:cut], args[cut + 1 :]
        else:
            spec, moves = args, []
        warning = self._rules_warning()
        if warning is not None:
            self.send(f"info string warning: {warning}")
        variant = self.variant
        if spec == ["startpos"]:
            board = Board(variant=variant)
        elif spec and spec[0] == "fen" and len(spec) > 1:
            fen = " ".join(spec[1:])
            try:
                board = Board(fen, variant=variant)
            except ChuhanError as error:
                raise CommandError(
                    f"invalid {command!r}: {error}; the position is unchanged"
                ) from None
        else:
            raise CommandError(
                f"invalid {command!r} {' '.join(spec)[:80]!r}: expected 'startpos' or "
                "'fen <FEN>', then optionally 'moves ...'; the position is unchanged"
            )
        for ply, text in enumerate(moves, 1):
            try:
                move = self.parse_move(board, text)
            except ChuhanError as error:
                raise CommandError(
                    f"invalid move {text!r} at ply {ply} ({self.coordinates} coordinates): "
                    f"{error}; the position is unchanged"
                ) from None
            if not board.is_legal(move):
                raise CommandError(
                    f"illegal move {text} at ply {ply} in {board.fen()} ({variant.name}): "
                    f"{self._why_illegal(board, move)}; the position is unchanged"
                )
            board.push(move)
        return board

    def _why_illegal(self, board: Board, move: Move) -> str:
        """Why ``move`` is illegal, with squares named as the GUI names them."""
        reason = board.why_illegal(move)
        if self.coordinates == RANKS_1_10:
            reason = _ICCS_SQUARE.sub(lambda m: f"{m[1]}{int(m[2]) + 1}", reason)
        return reason

    def _cmd_banmoves(self, args: list[str]) -> None:
        board = self.board()
        moves = (self._legal_move_or_report(board, text, "banmoves") for text in args)
        self._banned = [move for move in moves if move is not None]

    def _legal_move_or_report(self, board: Board, text: str, what: str) -> Move | None:
        """The legal move ``text`` in ``board``, or None after reporting why it is not one
        (for move lists that skip a bad entry: ``banmoves``, ``go searchmoves``)."""
        try:
            move = self.parse_move(board, text)
        except ChuhanError as error:
            self.error(f"{what}: {error}; move ignored")
            return None
        if not board.is_legal(move):
            self.error(
                f"{what}: illegal move {text} in {board.fen()}: "
                f"{self._why_illegal(board, move)}; move ignored"
            )
            return None
        return move

    def _cmd_stop(self, args: list[str]) -> None:
        job = self._job
        if job is not None:
            job.control.stop()
            job.wake.set()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        job = self._job
        if job is None or not self.searching or not job.control.pondering:
            return
        if args == ["draw"]:
            job.draw_offered = True
        job.control.ponderhit()
        job.wake.set()

    def _cmd_probe(self, args: list[str]) -> None:
        board = self._parse_position(args, "probe") if args else self.board()
        probe = getattr(self.searcher(), "probe", None)
        entry = probe(board) if callable(probe) else None
        self.send(_format_pophash(entry, self.format_move))

    # ------------------------------------------------------------------ go

    def _cmd_go(self, args: list[str]) -> None:
        received = time.monotonic()  # the GUI's clock runs from here, not from the search
        board = self.board().copy()
        searchmoves: list[Move] = []
        try:
            if self.dialect == "ucci":
                limits = self._parse_go_ucci(args, board.turn)
            else:
                limits, searchmoves = self._parse_go_uci(args, board)
        except CommandError as error:
            # Refused, but answered like any go (after a running search has answered its
            # own), so a GUI waiting for a bestmove is not left waiting.
            self._finish_search("go")
            self.error(str(error))
            self.send("nobestmove" if self.dialect == "ucci" else "bestmove (none)")
            return
        self._finish_search("go")
        draw = self.dialect == "ucci" and "draw" in args
        limits.move_overhead = int(self.values["Move Overhead"])
        banned: list[Move] = list(self._banned)
        if searchmoves:
            allowed = set(searchmoves)
            banned.extend(m for m in board.legal_moves if m not in allowed)
        multipv = int(self.values["MultiPV"])
        level = int(self.values["Skill Level"])
        # The book answers a game's move (one line, on a clock or a move time); a search
        # asked for a depth, nodes, a mate or several lines is an analysis.
        book = (
            self.values["OwnBook"] == "true"
            and multipv == 1
            and limits.depth is None
            and limits.nodes is None
            and limits.mate is None
        )
        control = SearchControl(pondering=limits.ponder, started=received)
        fsf = self.coordinates == RANKS_1_10
        job = _Job(
            control,
            hold=limits.infinite,
            draw_offered=draw,
            wake=threading.Event(),
            dialect=self.dialect,
            format_move=Move.fsf if fsf else Move.iccs,
        )
        if self.debug:
            budget = allocate(limits, board)
            self.send(
                f"info string debug: {board.variant.name} {board.fen()}; "
                f"budget soft {budget.soft_ms} ms, hard {budget.hard_ms} ms"
            )
        try:
            searcher: SearcherLike | None = self.searcher()
        except Exception as error:  # still answer the go, with any legal move
            self.error(f"the searcher could not start: {type(error).__name__}: {error}")
            searcher = None
        job.thread = threading.Thread(
            target=self._search_thread,
            args=(job, searcher, board, limits, multipv, level, banned, book),
            name="chuhan-search",
            daemon=True,
        )
        self._job = job
        job.thread.start()

    def _parse_go_uci(self, args: list[str], board: Board) -> tuple[SearchLimits, list[Move]]:
        limits = SearchLimits()
        searchmoves: list[Move] = []
        i = 0
        while i < len(args):
            key = args[i]
            i += 1
            if key == "infinite":
                limits.infinite = True
            elif key == "ponder":
                limits.ponder = True
            elif key == "searchmoves":
                while i < len(args) and args[i] not in _GO_INT_KEYS | {"infinite", "ponder"}:
                    move = self._legal_move_or_report(board, args[i], "go searchmoves")
                    i += 1
                    if move is not None:
                        searchmoves.append(move)
            elif key in _GO_INT_KEYS:
                value, i = _take_number(args, i, key)
                setattr(limits, key, value)
            else:
                self.error(f"go: unknown parameter {key!r}; ignored")
        return limits, searchmoves

    def _parse_go_ucci(self, args: list[str], turn: bool) -> SearchLimits:
        limits = SearchLimits()
        scale = 1 if self.values["usemillisec"] == "true" else 1000
        values: dict[str, int] = {}
        i = 0
        while i < len(args):
            key = args[i]
            i += 1
            if key == "ponder":
                limits.ponder = True
            elif key == "draw":
                continue
            elif key == "infinite":
                limits.infinite = True
            elif key == "depth" and i < len(args) and args[i] == "infinite":
                limits.infinite = True
                i += 1
            elif key in _UCCI_TIME_KEYS or key in _UCCI_INT_KEYS:
                number, i = _take_number(args, i, key, scale=scale if key in _UCCI_TIME_KEYS else 1)
                values[key] = number
            else:
                self.error(f"go: unknown parameter {key!r}; ignored")
        limits.depth = values.get("depth")
        limits.nodes = values.get("nodes")
        if "movestogo" in values:
            limits.movestogo = values["movestogo"]
        # UCCI gives the clocks as "mine" and "the opponent's".
        own, opp = values.get("time"), values.get("opptime")
        own_inc, opp_inc = values.get("increment"), values.get("oppincrement")
        if turn:
            limits.wtime, limits.btime, limits.winc, limits.binc = own, opp, own_inc, opp_inc
        else:
            limits.btime, limits.wtime, limits.binc, limits.winc = own, opp, own_inc, opp_inc
        return limits

    def _search_thread(
        self,
        job: _Job,
        searcher: SearcherLike | None,
        board: Board,
        limits: SearchLimits,
        multipv: int,
        level: int,
        banned: Sequence[Move],
        book: bool,
    ) -> None:
        def send_info(info: SearchInfo) -> None:
            self.send(format_info(info, job.dialect, job.format_move))

        result = SearchResult(_fallback_move(board, banned))
        if searcher is not None:
            try:
                result = searcher.search(
                    board,
                    limits,
                    control=job.control,
                    multipv=multipv,
                    level=level,
                    banned=banned,
                    on_info=send_info,
                    book=book,
                )
            except Exception as error:
                self.error(f"search failed: {type(error).__name__}: {error}")
        # After "go infinite" or "go ponder" the answer waits for stop or ponderhit.
        while (job.hold or job.control.pondering) and not job.control.stopped:
            job.wake.wait()
            job.wake.clear()
        line = _bestmove_line(result, job)
        with self._write_lock:
            job.answered = True
            self._write_line(line)


def _bestmove_line(result: SearchResult, job: _Job) -> str:
    if result.best is None:
        return "nobestmove" if job.dialect == "ucci" else "bestmove (none)"
    line = "bestmove " + job.format_move(result.best)
    if result.ponder is not None:
        line += " ponder " + job.format_move(result.ponder)
    if job.dialect == "ucci" and job.draw_offered and _accepts_draw(result):
        line += " draw"
    return line


# ---------------------------------------------------------------------------- formatting


def format_info(
    info: SearchInfo, dialect: EngineProtocol, format_move: Callable[[Move], str]
) -> str:
    """One ``info`` line in ``dialect``."""
    pv = " ".join(format_move(m) for m in info.pv)
    if dialect == "ucci":
        if info.mate is not None:
            plies = 2 * info.mate - 1 if info.mate > 0 else -2 * info.mate
            score = UCCI_MATE_SCORE - plies if info.mate > 0 else -(UCCI_MATE_SCORE - plies)
        else:
            score = info.score_cp or 0
        line = f"info depth {info.depth} score {score} time {info.time_ms} nodes {info.nodes}"
        return line + (f" pv {pv}" if pv else "")
    line = f"info depth {info.depth} seldepth {info.seldepth} multipv {info.multipv}"
    if info.mate is not None:
        line += f" score mate {info.mate}"
    elif info.score_cp is not None:
        line += f" score cp {info.score_cp}"
    line += f" nodes {info.nodes} nps {info.nps} time {info.time_ms} hashfull {info.hashfull}"
    return line + (f" pv {pv}" if pv else "")


def _format_pophash(entry: object, format_move: Callable[[Move], str]) -> str:
    """UCCI's answer to ``probe``: ``pophash [bestmove M] [lowerbound V depth D]
    [upperbound V depth D]``, from the searcher's optional ``probe(board)`` hook, which
    returns ``(best move or None, depth, lower bound or None, upper bound or None)`` or
    ``None`` when its hash table knows nothing of the position (the bare ``pophash``)."""
    if not isinstance(entry, tuple) or len(entry) != 4:
        return "pophash"
    best, depth, lower, upper = entry
    line = "pophash"
    if isinstance(best, Move):
        line += " bestmove " + format_move(best)
    if isinstance(lower, int):
        line += f" lowerbound {lower} depth {depth}"
    if isinstance(upper, int):
        line += f" upperbound {upper} depth {depth}"
    return line


#: ``go`` values that may be negative: a GUI sends the clock as it stands, overdrawn or not.
_SIGNED_KEYS = {"wtime", "btime", "time", "opptime"}
#: No ``go`` value is larger (about 31 years in milliseconds, far more than any node count).
_LARGEST_GO_VALUE = 10**12


def _take_number(args: list[str], i: int, key: str, *, scale: int = 1) -> tuple[int, int]:
    """The number after ``key`` at ``args[i]`` (times ``scale``: UCCI's seconds), and the
    next index; a :class:`CommandError` that refuses the ``go`` if it is missing or bad."""
    unit = "seconds" if scale == 1000 else "a whole number"
    if i >= len(args):
        raise CommandError(f"go refused: {key!r} needs {unit}; not searching")
    text = args[i]
    try:
        value = float(text) if scale != 1 else int(text)
    except ValueError:
        raise CommandError(
            f"go refused: invalid {key} {text!r}: expected {unit}; not searching"
        ) from None
    scaled = value * scale
    if not abs(scaled) <= _LARGEST_GO_VALUE:  # also NaN and infinities
        raise CommandError(f"go refused: invalid {key} {text!r}: out of range; not searching")
    number = int(scaled)
    if number < 0 and key not in _SIGNED_KEYS:
        raise CommandError(
            f"go refused: invalid {key} {text!r}: must not be negative; not searching"
        )
    return number, i + 1


def _fallback_move(board: Board, banned: Iterable[Move]) -> Move | None:
    excluded = set(banned)
    moves = list(board.legal_moves)
    for move in moves:
        if move not in excluded:
            return move
    return moves[0] if moves else None


def _accepts_draw(result: SearchResult) -> bool:
    if not result.lines:
        return False
    line = result.lines[0]
    if line.mate is not None:
        return line.mate < 0
    return line.score_cp is not None and line.score_cp <= DRAW_ACCEPT_CP


def serve(
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    *,
    searcher_factory: Callable[[int], SearcherLike] = default_searcher,
) -> int:
    """Run the engine on the given streams (default: stdin/stdout) until ``quit`` or EOF."""
    source = sys.stdin if stdin is None else stdin
    sink = sys.stdout if stdout is None else stdout
    # Bytes that are not text in the stream's encoding must not end the engine: read them
    # as U+FFFD (the command is then reported as unknown) and write what the console
    # cannot show as escapes.
    if isinstance(source, io.TextIOWrapper):
        source.reconfigure(errors="replace")
    if isinstance(sink, io.TextIOWrapper):
        sink.reconfigure(errors="backslashreplace")
    broken = False

    def write(line: str) -> None:
        nonlocal broken
        if broken:
            return
        try:
            sink.write(line + "\n")
            sink.flush()
        except (BrokenPipeError, ValueError, OSError):
            broken = True  # the GUI has gone; finish quietly

    EngineServer(write, searcher_factory=searcher_factory).run(source)
    return 0

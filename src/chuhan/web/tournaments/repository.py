"""Tournaments as stored: their transactions, each written once as a body
(:mod:`chuhan.web.db.statements`) that both databases run, and
:class:`TournamentRepository`, which hands them to the store.

What is kept (the tables are step 8 of :mod:`chuhan.web.db.migrations`):

- ``tournaments``: one row per tournament: its name, format, status (``created``,
  ``running``, ``finished``), who created it, when it starts, and ``settings``, the rest as
  JSON (the :class:`~chuhan.web.tournaments.rules.Spec` and the :class:`Settings`). Its
  ``revision`` rises with every change of the tournament, its entrants or its boards.
- ``tournament_entrants``: the players (:class:`~chuhan.web.tournaments.rules.Entrant`;
  ``account_id`` for a player with an account, none for a director's entry; ``byes``, the
  rounds of the half-point byes asked for, comma-separated).
- ``tournament_boards``: each round's boards (an arena's games are boards of round 0,
  numbered as they start), the game played on it once made (``game_id``, unique) and the
  result.
- ``tournament_forbidden``: the pairs the organiser keeps apart.

Every body that changes a tournament first reads its row ``FOR UPDATE`` (PostgreSQL; on
SQLite one thread writes) and reads the tournament, asks the rules
(:mod:`chuhan.web.tournaments.rules`) and writes what they return. An arena's write reads
its row, its entrants and its boards in play, not its finished games (thousands after a
few hours of a large arena, and what a game's end, a pairing, a pause or an entry needs of
them is nothing but the last board's number): ``load_tournament(..., finished=False)``.
A round is paired outside the transaction (a large Swiss takes seconds, in a thread) on
the tournament as read, and kept only while its revision is still the one read
(:func:`keep_round`): of two processes pairing the same round at once, one keeps it and the
other is refused, so no round is paired twice. A change may name the revision its author
saw (``revision``): when the tournament has changed since, it is refused, so two directors
editing one round never overwrite each other unseen. A refusal is a
:class:`~chuhan.web.tournaments.rules.TournamentError` raised in the body: nothing of the
transaction is kept.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, TypeVar

from chuhan.adjudication.outcome import Termination
from chuhan.web.accounts.repository import Account
from chuhan.web.db import Store
from chuhan.web.db.errors import Duplicate
from chuhan.web.db.statements import All, Body, Do, One
from chuhan.web.tournaments.pairings import Colour
from chuhan.web.tournaments.rules import (
    ArenaEnding,
    ArenaScoring,
    Board,
    Entrant,
    Format,
    Result,
    Spec,
    TieBreak,
    TournamentError,
    UnknownTournament,
    arena_pairings,
    arena_records,
    arena_waiting,
    can_join,
    cancel_bye,
    check_spec,
    is_over,
    next_round,
    record_result,
    request_bye,
    withdraw,
)

__all__ = [
    "ChatLine",
    "Settings",
    "Status",
    "Tournament",
    "TournamentRepository",
    "add_chat",
    "arena_games",
    "attach_game",
    "chat_history",
    "check_arena_open",
    "claim",
    "computer_level",
    "correct_result",
    "create_tournament",
    "driver_of",
    "edit_player",
    "ended_without_result",
    "enter",
    "enter_computer",
    "enter_player",
    "entrant_id_of",
    "forbid_pair",
    "game_of",
    "is_tournament_game",
    "keep_arena_games",
    "keep_round",
    "list_tournaments",
    "load_tournament",
    "release",
    "remove_player",
    "result_of_game",
    "set_bye",
    "set_moves",
    "set_paused",
    "set_result",
    "set_status",
    "unpair_round",
    "withdraw_entrant",
]

Status = Literal["created", "running", "finished"]
STATUSES: tuple[Status, ...] = ("created", "running", "finished")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ChatLine:
    """A line of a tournament's chat: when, the account's name then, and the text."""

    at: float
    name: str
    text: str


CHAT_ADD = (
    "INSERT INTO tournament_chat (tournament_id, account_id, at, name, text) VALUES (?, ?, ?, ?, ?)"
)
CHAT_LAST = (
    "SELECT at, name, text FROM tournament_chat WHERE tournament_id = ? ORDER BY id DESC LIMIT ?"
)


def entrant_id_of(account: Account) -> str:
    """An account's entrant id (a director's entry without an account would have its own)."""
    return f"a:{account.id}"


def add_chat(tournament_id: str, account_id: str, line: ChatLine) -> Body[None]:
    """Keep a chat line of a tournament."""
    yield Do(CHAT_ADD, (tournament_id, account_id, line.at, line.name, line.text))


def chat_history(tournament_id: str, limit: int) -> Body[list[ChatLine]]:
    """A tournament's last ``limit`` chat lines, oldest first."""
    rows = yield All(CHAT_LAST, (tournament_id, limit))
    return [ChatLine(float(row["at"]), str(row["name"]), str(row["text"])) for row in rows][::-1]


@dataclass(frozen=True, slots=True)
class Settings:
    """What the organiser chose beyond the pairing rules: the game and its rule set, the
    time control (:class:`~chuhan.clock.TimeControl`'s fields, or None), rated or
    casual, and who may enter (``anyone``, ``accounts``: players signed in, ``code``: who
    knows the code, kept as its SHA-256)."""

    game: str = "xiangqi"
    rules: str = "wxf"
    time_control: dict[str, float] | None = None
    rated: bool = False
    entry: Literal["anyone", "accounts", "code"] = "anyone"
    code_sha256: str | None = None
    #: Played over the board (on real boards, not on the site): the director enters the
    #: players, pairs each round and enters the results; no game is made on the site.
    over_the_board: bool = False


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as stored, whole."""

    id: str
    name: str
    spec: Spec
    settings: Settings
    status: Status
    created_by: str | None
    starts: float
    created: float
    revision: int = 0
    entrants: tuple[Entrant, ...] = ()
    boards: tuple[Board, ...] = ()
    forbidden: tuple[tuple[str, str], ...] = ()
    #: How many players have entered (a listed tournament has no entrants read).
    players: int = 0
    #: How the arena's finished games ended, by board number.
    endings: dict[int, ArenaEnding] = field(default_factory=dict)
    #: Each board's game once made, by (round, board): the page's links to watch them.
    games: dict[tuple[int, int], str] = field(default_factory=dict)
    #: The moves a director entered for a board played over the board (ICCS, by (round,
    #: board)).
    moves: dict[tuple[int, int], str] = field(default_factory=dict)
    #: False when this reading of an arena left its finished games out (a write's:
    #: ``load_tournament(..., finished=False)``): ``boards``, ``endings``, ``games`` and
    #: ``moves`` are then those of the boards in play only.
    complete: bool = True
    #: The highest board number of an arena (every reading has it, complete or not).
    last_board: int = 0

    @property
    def rounds_paired(self) -> int:
        return max((board.round for board in self.boards), default=0)

    def round_boards(self, round_number: int) -> tuple[Board, ...]:
        return tuple(board for board in self.boards if board.round == round_number)


# ---------------------------------------------------------------------- the settings' JSON


def settings_json(spec: Spec, settings: Settings) -> str:
    """The ``settings`` column: the spec and the settings as JSON."""
    values = {
        "spec": {
            "format": spec.format.value,
            "rounds": spec.rounds,
            "minutes": spec.minutes,
            "tiebreaks": [tiebreak.value for tiebreak in spec.tiebreaks],
            "scoring": asdict(spec.scoring),
            "bye_points": spec.bye_points,
            "late_join": spec.late_join,
            "max_players": spec.max_players,
            "half_byes": spec.half_byes,
            "half_bye_closed_rounds": spec.half_bye_closed_rounds,
        },
        "settings": asdict(settings),
    }
    return json.dumps(values, ensure_ascii=False, sort_keys=True)


def settings_of(text: str) -> tuple[Spec, Settings]:
    """The spec and settings a ``settings`` column holds."""
    values = json.loads(text)
    spec = values["spec"]
    return (
        Spec(
            format=Format(spec["format"]),
            rounds=int(spec["rounds"]),
            minutes=int(spec["minutes"]),
            tiebreaks=tuple(TieBreak(value) for value in spec["tiebreaks"]),
            scoring=ArenaScoring(**spec["scoring"]),
            bye_points=float(spec["bye_points"]),
            late_join=bool(spec["late_join"]),
            max_players=int(spec["max_players"]),
            # (a tournament kept before half-point byes: the default, one, not in the last)
            half_byes=int(spec.get("half_byes", 1)),
            half_bye_closed_rounds=int(spec.get("half_bye_closed_rounds", 1)),
        ),
        Settings(**values["settings"]),
    )


# ---------------------------------------------------------------------- statements

_TOURNAMENT = "id, name, format, status, created_by, starts, created, revision, settings"
TOURNAMENT_INSERT = f"INSERT INTO tournaments ({_TOURNAMENT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
TOURNAMENT_READ = f"SELECT {_TOURNAMENT} FROM tournaments WHERE id = ?"
TOURNAMENT_CHANGED = "UPDATE tournaments SET revision = revision + 1, status = ? WHERE id = ?"
TOURNAMENTS_LISTED = (
    f"SELECT {_TOURNAMENT}, (SELECT count(*) FROM tournament_entrants AS e "
    "WHERE e.tournament_id = tournaments.id) AS players "
    "FROM tournaments WHERE status = ? ORDER BY starts, id LIMIT ?"
)
_ENTRANT = "entrant_id, account_id, name, rating, entered, first_round, last_round, club"
ENTRANT_INSERT = (
    f"INSERT INTO tournament_entrants (tournament_id, {_ENTRANT}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
ENTRANT_EDITED = (
    "UPDATE tournament_entrants SET name = ?, club = ?, rating = ? "
    "WHERE tournament_id = ? AND entrant_id = ?"
)
ENTRANT_REMOVED = "DELETE FROM tournament_entrants WHERE tournament_id = ? AND entrant_id = ?"
FORBIDDEN_OF_REMOVED = (
    "DELETE FROM tournament_forbidden WHERE tournament_id = ? AND (first = ? OR second = ?)"
)
ROUND_UNPAIRED = "DELETE FROM tournament_boards WHERE tournament_id = ? AND round = ?"
BOARD_MOVES = (
    "UPDATE tournament_boards SET moves = ? WHERE tournament_id = ? AND round = ? AND board = ?"
)
ENTRANT_PAUSED = (
    "UPDATE tournament_entrants SET paused = ? WHERE tournament_id = ? AND entrant_id = ?"
)
ENTRANTS_READ = (
    f"SELECT {_ENTRANT}, paused, byes FROM tournament_entrants WHERE tournament_id = ? "
    "ORDER BY entered"
)
ENTRANT_WITHDRAWN = (
    "UPDATE tournament_entrants SET last_round = ?, byes = ? "
    "WHERE tournament_id = ? AND entrant_id = ?"
)
ENTRANT_BYES = "UPDATE tournament_entrants SET byes = ? WHERE tournament_id = ? AND entrant_id = ?"
_BOARD = "round, board, red, black, result, game_id, detail"
BOARD_INSERT = (
    f"INSERT INTO tournament_boards (tournament_id, {_BOARD}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
BOARDS_READ = (
    f"SELECT {_BOARD}, moves FROM tournament_boards WHERE tournament_id = ? ORDER BY round, board"
)
#: The boards in play (and byes), by the partial index of step 20.
BOARDS_LIVE_READ = (
    f"SELECT {_BOARD}, moves FROM tournament_boards "
    "WHERE tournament_id = ? AND result IS NULL ORDER BY round, board"
)
#: An arena's last board's number (one step down the primary key's index).
ARENA_LAST_BOARD = (
    "SELECT max(board) AS last FROM tournament_boards WHERE tournament_id = ? AND round = 0"
)
BOARD_RESULT = (
    "UPDATE tournament_boards SET result = ? WHERE tournament_id = ? AND round = ? AND board = ?"
)
BOARD_ENDED = (
    "UPDATE tournament_boards SET result = ?, detail = ? "
    "WHERE tournament_id = ? AND round = ? AND board = ?"
)
GAME_PLIES = "SELECT moves, clock FROM games WHERE id = ?"
BOARD_GAME = (
    "UPDATE tournament_boards SET game_id = ? "
    "WHERE tournament_id = ? AND round = ? AND board = ? AND game_id IS NULL"
)
BOARD_GAME_READ = (
    "SELECT game_id FROM tournament_boards WHERE tournament_id = ? AND round = ? AND board = ?"
)
BOARD_OF_GAME = "SELECT tournament_id, round, board FROM tournament_boards WHERE game_id = ?"
#: The tournaments not over, with the process driving each (the lease: see :func:`claim`).
UNFINISHED = "SELECT id, driver FROM tournaments WHERE status <> 'finished' ORDER BY id"
DRIVER_FREE_CLAIM = "UPDATE tournaments SET driver = ? WHERE id = ? AND driver IS NULL"
DRIVER_STALE_CLAIM = "UPDATE tournaments SET driver = ? WHERE id = ? AND driver = ?"
DRIVER_RELEASE = "UPDATE tournaments SET driver = NULL WHERE driver = ?"
DRIVER_READ = "SELECT driver FROM tournaments WHERE id = ?"
#: The games over whose boards have no result yet, of the tournaments a process drives.
ENDED_WITHOUT_RESULT = (
    "SELECT b.game_id, g.result, (SELECT e.data FROM events AS e WHERE e.game_id = g.id "
    "AND e.kind = 'abort' ORDER BY e.version DESC LIMIT 1) AS abort_data "
    "FROM tournament_boards AS b "
    "JOIN tournaments AS t ON t.id = b.tournament_id "
    "JOIN games AS g ON g.id = b.game_id "
    "WHERE t.driver = ? AND t.status <> 'finished' AND b.result IS NULL "
    "AND g.status = 'over' ORDER BY b.game_id LIMIT ?"
)
FORBIDDEN_INSERT = (
    "INSERT INTO tournament_forbidden (tournament_id, first, second) VALUES (?, ?, ?)"
)
FORBIDDEN_READ = (
    "SELECT first, second FROM tournament_forbidden WHERE tournament_id = ? ORDER BY first, second"
)


def _entrant_of(row: Mapping[str, Any]) -> Entrant:
    return _entrant(
        str(row["entrant_id"]),
        str(row["name"]),
        int(row["rating"]),
        int(row["entered"]),
        int(row["first_round"]),
        None if row["last_round"] is None else int(row["last_round"]),
        bool(row["paused"]),
        str(row["club"] or ""),
        str(row["byes"] or ""),
    )


@functools.lru_cache(maxsize=1 << 14)
def _entrant(
    entrant_id: str,
    name: str,
    rating: int,
    entered: int,
    first_round: int,
    last_round: int | None,
    paused: bool,
    club: str,
    byes: str,
) -> Entrant:
    """An entrant as stored (read again with every change of the tournament, as its
    boards are: :func:`_board`)."""
    rounds = tuple(int(number) for number in byes.split(",") if number)
    return Entrant(entrant_id, name, rating, entered, first_round, last_round, paused, club, rounds)


def _byes_text(entrant: Entrant) -> str:
    """The ``byes`` column of an entrant."""
    return ",".join(str(number) for number in entrant.byes)


@functools.lru_cache(maxsize=1 << 16)
def _ending_of(detail: str) -> ArenaEnding:
    """An arena board's ending from its stored text (a finished board's never changes:
    each reading of an arena would parse every one again)."""
    values = json.loads(detail)
    colours: tuple[Colour, ...] = ("red", "black")
    berserk = frozenset(colour for colour in colours if colour in values.get("berserk", ()))
    return ArenaEnding(Termination(values["termination"]), int(values["plies"]), berserk)


def _board_of(row: Mapping[str, Any]) -> Board:
    result = row["result"]
    return _board(
        int(row["round"]),
        int(row["board"]),
        str(row["red"]),
        None if row["black"] is None else str(row["black"]),
        None if result is None else str(result),
    )


@functools.lru_cache(maxsize=1 << 16)
def _board(
    round_number: int, number: int, red: str, black: str | None, result: str | None
) -> Board:
    """A board as stored (the same board is read again and again: an arena's every board
    is read with each change of it, and a frozen dataclass is slow to build)."""
    return Board(round_number, number, red, black, None if result is None else Result(result))


# ---------------------------------------------------------------------- bodies


def create_tournament(tournament: Tournament) -> Body[None]:
    """Keep a new tournament (its entrants, boards and forbidden pairs are added later)."""
    check_spec(tournament.spec)
    yield Do(
        TOURNAMENT_INSERT,
        (
            tournament.id,
            tournament.name,
            tournament.spec.format.value,
            tournament.status,
            tournament.created_by,
            tournament.starts,
            tournament.created,
            0,
            settings_json(tournament.spec, tournament.settings),
        ),
    )


def load_tournament(
    tournament_id: str, *, for_update: bool = False, finished: bool = True
) -> Body[Tournament | None]:
    """The tournament whole, or None; ``for_update`` locks its row until the transaction
    ends (every body that changes it reads it so first). ``finished`` False leaves an
    arena's finished boards out (the reading is not ``complete``; its ``last_board`` is
    read alone): what its writes and its driver need, at the cost of its games in play,
    not of every game it has had. A Swiss or a round robin is read whole either way (its
    rounds, their results and its status are the rules' whole input)."""
    row = yield One(TOURNAMENT_READ, (tournament_id,), for_update=for_update)
    if row is None:
        return None
    spec, settings = settings_of(str(row["settings"]))
    complete = finished or spec.format is not Format.ARENA
    entrants = yield All(ENTRANTS_READ, (tournament_id,))
    boards = yield All(BOARDS_READ if complete else BOARDS_LIVE_READ, (tournament_id,))
    forbidden = yield All(FORBIDDEN_READ, (tournament_id,))
    if complete:
        last_board = max((int(board["board"]) for board in boards), default=0)
    else:
        found = yield One(ARENA_LAST_BOARD, (tournament_id,))
        last_board = 0 if found is None or found["last"] is None else int(found["last"])
    return Tournament(
        id=str(row["id"]),
        name=str(row["name"]),
        spec=spec,
        settings=settings,
        status=row["status"],
        created_by=row["created_by"],
        starts=float(row["starts"]),
        created=float(row["created"]),
        revision=int(row["revision"]),
        entrants=tuple(_entrant_of(entrant) for entrant in entrants),
        boards=tuple(_board_of(board) for board in boards),
        forbidden=tuple((str(pair["first"]), str(pair["second"])) for pair in forbidden),
        players=len(entrants),
        endings={
            int(board["board"]): _ending_of(str(board["detail"]))
            for board in boards
            if board["detail"] is not None
        },
        games={
            (int(board["round"]), int(board["board"])): str(board["game_id"])
            for board in boards
            if board["game_id"] is not None
        },
        moves={
            (int(board["round"]), int(board["board"])): str(board["moves"])
            for board in boards
            if board["moves"]
        },
        complete=complete,
        last_board=last_board,
    )


def _changing(
    tournament_id: str, revision: int | None, *, finished: bool = False
) -> Body[Tournament]:
    """The tournament read for a change (its row locked), or the refusal: none such, or
    changed since ``revision``. An arena's finished boards are read only when
    ``finished`` (a director's result for a board, which must be told apart from one
    that has its result already)."""
    tournament = yield from load_tournament(tournament_id, for_update=True, finished=finished)
    if tournament is None:
        raise UnknownTournament(f"there is no tournament {tournament_id!r}")
    if revision is not None and revision != tournament.revision:
        raise TournamentError(
            f"the tournament has changed since you read it (revision {revision}, now "
            f"{tournament.revision}): read it again and make your change on what it is now"
        )
    return tournament


def _changed(tournament: Tournament, status: Status | None = None) -> Body[int]:
    """Raise the tournament's revision (and set its status); the new revision."""
    yield Do(TOURNAMENT_CHANGED, (status or tournament.status, tournament.id))
    return tournament.revision + 1


def _status_after(tournament: Tournament, boards: tuple[Board, ...]) -> Status:
    """The status of a Swiss or round robin with ``boards``: finished once its last round
    has every result (``rules.is_over``), running otherwise."""
    return "finished" if is_over(tournament.spec, tournament.entrants, boards) else "running"


def enter(
    tournament_id: str,
    entrant_id: str,
    *,
    name: str,
    rating: int,
    account_id: str | None = None,
    club: str = "",
    revision: int | None = None,
) -> Body[Entrant]:
    """Enter a player: refused when the tournament is over, full, already has the player,
    or is past its last round for entries (``rules.can_join``)."""
    tournament = yield from _changing(tournament_id, revision)
    if tournament.status == "finished":
        raise TournamentError("the tournament is over")
    first_round = can_join(
        tournament.spec, tournament.entrants, tournament.rounds_paired, entrant_id
    )
    entrant = Entrant(
        id=entrant_id,
        name=name,
        rating=rating,
        entered=max((e.entered for e in tournament.entrants), default=-1) + 1,
        first_round=first_round,
        club=club,
    )
    yield Do(
        ENTRANT_INSERT,
        (
            tournament_id,
            entrant.id,
            account_id,
            entrant.name,
            entrant.rating,
            entrant.entered,
            entrant.first_round,
            None,
            club,
        ),
    )
    yield from _changed(tournament)
    return entrant


#: A computer entrant's id: ``c:{level}:{its number among the computers}``.
COMPUTER_PREFIX = "c:"


def computer_level(entrant_id: str) -> int | None:
    """The level of a computer entrant (by its id), or None for a person."""
    if not entrant_id.startswith(COMPUTER_PREFIX):
        return None
    return int(entrant_id.split(":")[1])


def set_paused(tournament_id: str, entrant_id: str, paused: bool) -> Body[Entrant]:
    """Pause a player (not paired until they come back) or bring them back: refused in a
    round robin (its Berger table is fixed: withdraw instead), once the tournament is over,
    for a withdrawn player, and when they already are so."""
    tournament = yield from _changing(tournament_id, None)
    if tournament.status == "finished":
        raise TournamentError("the tournament is over")
    if tournament.spec.format is Format.ROUND_ROBIN:
        raise TournamentError(
            "a round robin's rounds are fixed by its table: a player cannot pause (withdraw "
            "instead)"
        )
    found = [entrant for entrant in tournament.entrants if entrant.id == entrant_id]
    if not found:
        raise TournamentError("you are not a player of the tournament")
    (entrant,) = found
    if entrant.last_round is not None:
        raise TournamentError("you have withdrawn from the tournament")
    if entrant.paused == paused:
        raise TournamentError("you are paused already" if paused else "you are not paused")
    yield Do(ENTRANT_PAUSED, (int(paused), tournament_id, entrant_id))
    yield from _changed(tournament)
    return replace(entrant, paused=paused)


def enter_computer(tournament_id: str, level: int, rating: int) -> Body[Entrant]:
    """Enter a computer player at ``level`` (named by its number and level). A game has
    one computer seat at most, so two computers never meet: a Swiss keeps its computers
    apart (forbidden pairs), and an arena or a round robin, which cannot, takes one."""
    tournament = yield from _changing(tournament_id, None)
    computers = [e.id for e in tournament.entrants if e.id.startswith(COMPUTER_PREFIX)]
    if computers and tournament.spec.format is not Format.SWISS:
        raise TournamentError(
            f"a{'n arena' if tournament.spec.format is Format.ARENA else ' round robin'} "
            "takes one computer player (two computers cannot play each other); a Swiss "
            "takes several, kept apart"
        )
    number = len(computers) + 1
    entrant_id = f"{COMPUTER_PREFIX}{level}:{number}"
    name = f"Computer {number} (level {level})"
    entrant = yield from enter(tournament_id, entrant_id, name=name, rating=rating)
    for other in computers:
        low, high = sorted((entrant_id, other))
        yield Do(FORBIDDEN_INSERT, (tournament_id, low, high))
    return entrant


def withdraw_entrant(
    tournament_id: str, entrant_id: str, *, revision: int | None = None
) -> Body[Entrant]:
    """Withdraw a player after the rounds paired so far (a game being played is played
    out; the player is not paired again)."""
    tournament = yield from _changing(tournament_id, revision)
    entrants = withdraw(tournament.entrants, entrant_id, tournament.rounds_paired)
    (entrant,) = [e for e in entrants if e.id == entrant_id]
    yield Do(
        ENTRANT_WITHDRAWN, (entrant.last_round, _byes_text(entrant), tournament_id, entrant_id)
    )
    yield from _changed(tournament)
    return entrant


def set_bye(
    tournament_id: str,
    entrant_id: str,
    round_number: int | None,
    *,
    cancel: bool = False,
    revision: int | None = None,
) -> Body[Entrant]:
    """Ask for a player's half-point bye in ``round_number`` of a Swiss (None: the next
    round to be paired), or call it off (``cancel``), as ``rules.request_bye`` and
    ``rules.cancel_bye`` allow; refused once the tournament is over."""
    tournament = yield from _changing(tournament_id, revision)
    if tournament.status == "finished":
        raise TournamentError("the tournament is over")
    paired = tournament.rounds_paired
    number = paired + 1 if round_number is None else round_number
    if cancel:
        entrants = cancel_bye(tournament.entrants, paired, entrant_id, number)
    else:
        entrants = request_bye(tournament.spec, tournament.entrants, paired, entrant_id, number)
    (entrant,) = [e for e in entrants if e.id == entrant_id]
    yield Do(ENTRANT_BYES, (_byes_text(entrant), tournament_id, entrant_id))
    yield from _changed(tournament)
    return entrant


def forbid_pair(
    tournament_id: str, first: str, second: str, *, revision: int | None = None
) -> Body[None]:
    """Keep two entrants apart in the pairings to come."""
    tournament = yield from _changing(tournament_id, revision)
    known = {entrant.id for entrant in tournament.entrants}
    for player in (first, second):
        if player not in known:
            raise TournamentError(f"{player!r} is not in the tournament")
    if first == second:
        raise TournamentError("a player cannot be kept apart from themselves")
    low, high = sorted((first, second))
    try:
        yield Do(FORBIDDEN_INSERT, (tournament_id, low, high))
    except Duplicate:
        raise TournamentError("these two players are already kept apart") from None
    yield from _changed(tournament)


def keep_round(tournament_id: str, revision: int, boards: tuple[Board, ...]) -> Body[None]:
    """Keep a round paired on the tournament as it was at ``revision``: refused, with
    nothing kept, when it has changed since (another writer paired the round, a player
    entered or withdrew meanwhile). The tournament is running from its first round."""
    tournament = yield from load_tournament(tournament_id, for_update=True)
    if tournament is None:
        raise UnknownTournament(f"there is no tournament {tournament_id!r}")
    if tournament.revision != revision:
        raise TournamentError(
            "the tournament changed while the round was being paired (a round paired, a "
            "player entered or withdrew); nothing was paired: read it again and pair anew"
        )
    for board in boards:
        yield Do(
            BOARD_INSERT,
            (tournament_id, board.round, board.number, board.red, board.black, None, None, None),
        )
    # (a last round of byes only, a withdrawn player's opponents', is over as it is paired)
    yield from _changed(tournament, _status_after(tournament, tournament.boards + boards))


def set_result(
    tournament_id: str,
    round_number: int,
    board_number: int,
    result: Result,
    *,
    revision: int | None = None,
) -> Body[Board]:
    """Give a board its result (a game's end, or a director's entry): a second result for
    one board is refused."""
    tournament = yield from _changing(tournament_id, revision, finished=True)
    boards = record_result(tournament.boards, round_number, board_number, result)
    yield Do(BOARD_RESULT, (result.value, tournament_id, round_number, board_number))
    yield from _changed(tournament, _status_after(tournament, boards))
    (board,) = [b for b in boards if b.round == round_number and b.number == board_number]
    return board


def attach_game(
    tournament_id: str, round_number: int, board_number: int, game_id: str
) -> Body[bool]:
    """Note the game made for a board; False when the board already has one (another
    process made it first) or does not exist."""
    changed = yield Do(BOARD_GAME, (game_id, tournament_id, round_number, board_number))
    return bool(changed)


def game_of(tournament_id: str, round_number: int, board_number: int) -> Body[str | None]:
    """The game made for a board, or None."""
    found = yield One(BOARD_GAME_READ, (tournament_id, round_number, board_number))
    return None if found is None or found["game_id"] is None else str(found["game_id"])


def is_tournament_game(game_id: str) -> Body[bool]:
    """Whether a game is a board's (one indexed read)."""
    found = yield One(BOARD_OF_GAME, (game_id,))
    return found is not None


def result_of_game(
    game_id: str, result: Result, termination: Termination | None = None
) -> Body[tuple[str, Board] | None]:
    """The result of a tournament's game, given to its board once: the tournament's id
    and the board, or None when the game is no tournament's or its board has a result
    already (whoever heard of its end first gave it)."""
    found = yield One(BOARD_OF_GAME, (game_id,))
    if found is None:
        return None
    tournament_id = str(found["tournament_id"])
    tournament = yield from _changing(tournament_id, None)
    round_number, board_number = int(found["round"]), int(found["board"])
    # (an arena's reading has its boards in play only: one with its result is not there)
    mine = [b for b in tournament.boards if b.round == round_number and b.number == board_number]
    if not mine or mine[0].result is not None:
        return None
    (board,) = mine
    detail = None
    if round_number == 0:  # an arena's game: how it ended and its length score it
        game = yield One(GAME_PLIES, (game_id,))
        plies = len(str(game["moves"] or "").split()) if game is not None else 0
        ended = termination or Termination.ABANDONMENT
        clock = json.loads(game["clock"] or "{}") if game is not None else {}
        berserk = [
            colour
            for seat, colour in (("first", "red"), ("second", "black"))
            if seat in clock.get("berserk", ())
        ]
        detail = json.dumps({"termination": ended.value, "plies": plies, "berserk": berserk})
    yield Do(BOARD_ENDED, (result.value, detail, tournament_id, round_number, board_number))
    boards = record_result(tournament.boards, round_number, board_number, result)
    yield from _changed(tournament, _status_after(tournament, boards))
    return tournament_id, replace(board, result=result)


def check_arena_open(tournament: Tournament, now: float) -> None:
    """Refuse to pair an arena that is not one, is over, or has not started."""
    spec = tournament.spec
    if spec.format is not Format.ARENA:
        raise TournamentError("only an arena pairs its players as they wait")
    if tournament.status == "finished" or now >= tournament.starts + spec.minutes * 60:
        raise TournamentError("the arena is over")
    if now < tournament.starts:
        raise TournamentError(f"the arena starts in {tournament.starts - now:.0f} seconds")


def arena_games(tournament: Tournament, now: float) -> tuple[tuple[str, str], ...]:
    """The games (red, black) to start among an arena's waiting players
    (``rules.arena_pairings``: a matching that takes about a second for 200 waiting
    players, so it is worked out outside any transaction, in a thread)."""
    check_arena_open(tournament, now)
    records = arena_records(tournament.boards, tournament.endings)
    waiting = arena_waiting(tournament.entrants, tournament.boards)
    return arena_pairings(tournament.entrants, records, waiting, tournament.spec.scoring)


def keep_arena_games(
    tournament_id: str, now: float, games: Sequence[tuple[str, str]]
) -> Body[tuple[Board, ...]]:
    """Keep an arena's ``games`` (from :func:`arena_games`) as boards (round 0, numbered on
    from the last), those whose two players are both still waiting (one may have withdrawn,
    paused or been paired by another look meanwhile: they wait for the next); refused
    before the start and after the end; the arena is running from its first pairing."""
    tournament = yield from _changing(tournament_id, None)
    check_arena_open(tournament, now)
    still = set(arena_waiting(tournament.entrants, tournament.boards))
    kept = [(red, black) for red, black in games if red in still and black in still]
    first = tournament.last_board + 1
    boards = tuple(
        Board(0, number, red, black) for number, (red, black) in enumerate(kept, start=first)
    )
    if not boards and tournament.status == "running":
        return boards  # (nobody to pair: nothing changed, no revision spent)
    for board in boards:
        yield Do(
            BOARD_INSERT, (tournament_id, 0, board.number, board.red, board.black) + (None,) * 3
        )
    yield from _changed(tournament, "running")
    return boards


def set_status(tournament_id: str, status: Status, *, revision: int | None = None) -> Body[int]:
    """Set the tournament's status (a finished tournament stays finished); the revision."""
    if status not in STATUSES:
        raise TournamentError(f"a tournament's status is one of {', '.join(STATUSES)}")
    tournament = yield from _changing(tournament_id, revision)
    if tournament.status == "finished" and status != "finished":
        raise TournamentError("the tournament is over")
    return (yield from _changed(tournament, status))


def claim(server_id: str, live: frozenset[str]) -> Body[list[str]]:
    """The tournaments not over that ``server_id`` drives, after taking each whose driver
    is none or not among the ``live`` processes (it stopped beating: killed, or its
    machine gone). A claim is a compare-and-set on the ``driver`` column, so of several
    processes claiming one tournament at once exactly one gets it; a claim is no change
    of the tournament (its revision stays)."""
    found = yield All(UNFINISHED, ())
    driven = []
    for row in found:
        tournament_id, driver = str(row["id"]), row["driver"]
        if driver == server_id:
            driven.append(tournament_id)
            continue
        if driver is not None and driver in live:
            continue
        if driver is None:
            taken = yield Do(DRIVER_FREE_CLAIM, (server_id, tournament_id))
        else:
            taken = yield Do(DRIVER_STALE_CLAIM, (server_id, tournament_id, driver))
        if taken:
            driven.append(tournament_id)
    return driven


def release(server_id: str) -> Body[None]:
    """Hand back the tournaments ``server_id`` drives (a clean close: another process
    takes them at its next look, without waiting for this one to be found dead)."""
    yield Do(DRIVER_RELEASE, (server_id,))


def driver_of(tournament_id: str) -> Body[str | None]:
    found = yield One(DRIVER_READ, (tournament_id,))
    return None if found is None or found["driver"] is None else str(found["driver"])


def ended_without_result(
    server_id: str, limit: int
) -> Body[list[tuple[str, dict[str, Any], str | None]]]:
    """``(game id, the game's result, the absent seat)`` of the games over whose boards
    have no result, in the tournaments ``server_id`` drives (the end written by a process
    that did not give the board its result: it died first, or could not write it). The
    absent seat is the side called off for not making a first move in time (its abort
    event's ``side``), else None."""
    found = yield All(ENDED_WITHOUT_RESULT, (server_id, limit))
    ended = []
    for row in found:
        abort = json.loads(row["abort_data"] or "{}")
        absent = str(abort["side"]) if abort.get("no_start") and abort.get("side") else None
        ended.append((str(row["game_id"]), dict(json.loads(row["result"] or "{}")), absent))
    return ended


def list_tournaments(status: Status, limit: int) -> Body[list[Tournament]]:
    """The tournaments with ``status``, soonest first (without entrants or boards: their
    number of players)."""
    rows = yield All(TOURNAMENTS_LISTED, (status, limit))
    listed = []
    for row in rows:
        spec, settings = settings_of(str(row["settings"]))
        listed.append(
            Tournament(
                id=str(row["id"]),
                name=str(row["name"]),
                spec=spec,
                settings=settings,
                status=row["status"],
                created_by=row["created_by"],
                starts=float(row["starts"]),
                created=float(row["created"]),
                revision=int(row["revision"]),
                players=int(row["players"]),
            )
        )
    return listed


# ---------------------------------------------------------------------- over the board

#: A player the director entered over the board: ``p:{n}``.
PLAYER_PREFIX = "p:"


def _over_the_board(tournament: Tournament) -> None:
    if not tournament.settings.over_the_board:
        raise TournamentError(
            "only an over-the-board tournament's director enters, edits and removes players, "
            "corrects results and enters moves"
        )


def _before_first_round(tournament: Tournament, doing: str) -> None:
    if tournament.rounds_paired:
        raise TournamentError(
            f"a player cannot be {doing} once round 1 is paired (withdraw the player instead, "
            "or undo the pairing of round 1 first)"
        )


def _player(tournament: Tournament, entrant_id: str) -> Entrant:
    found = [entrant for entrant in tournament.entrants if entrant.id == entrant_id]
    if not found:
        raise TournamentError(f"the tournament has no player {entrant_id!r}")
    return found[0]


def enter_player(
    tournament_id: str, *, name: str, club: str, rating: int, revision: int | None = None
) -> Body[Entrant]:
    """The director enters a player over the board (no account: a name, a club and a
    rating), numbered ``p:1``, ``p:2`` … in the order of entry."""
    tournament = yield from _changing(tournament_id, revision)
    _over_the_board(tournament)
    numbers = [
        int(entrant.id[len(PLAYER_PREFIX) :])
        for entrant in tournament.entrants
        if entrant.id.startswith(PLAYER_PREFIX)
    ]
    if any(entrant.name == name for entrant in tournament.entrants):
        raise TournamentError(f"the tournament has a player named {name!r} already")
    entrant_id = f"{PLAYER_PREFIX}{max(numbers, default=0) + 1}"
    return (
        yield from enter(
            tournament_id,
            entrant_id,
            name=name,
            rating=rating,
            club=club,
            revision=tournament.revision,
        )
    )


def edit_player(
    tournament_id: str,
    entrant_id: str,
    *,
    name: str,
    club: str,
    rating: int,
    revision: int | None = None,
) -> Body[Entrant]:
    """The director corrects a player's name, club or rating before round 1 is paired
    (the rating orders the pairing numbers, so not after)."""
    tournament = yield from _changing(tournament_id, revision)
    _over_the_board(tournament)
    entrant = _player(tournament, entrant_id)
    _before_first_round(tournament, "edited")
    if any(other.name == name and other.id != entrant_id for other in tournament.entrants):
        raise TournamentError(f"the tournament has a player named {name!r} already")
    yield Do(ENTRANT_EDITED, (name, club, rating, tournament_id, entrant_id))
    yield from _changed(tournament)
    return replace(entrant, name=name, club=club, rating=rating)


def remove_player(
    tournament_id: str, entrant_id: str, *, revision: int | None = None
) -> Body[Entrant]:
    """The director removes a player before round 1 is paired (and the pairs kept apart
    that named them)."""
    tournament = yield from _changing(tournament_id, revision)
    _over_the_board(tournament)
    entrant = _player(tournament, entrant_id)
    _before_first_round(tournament, "removed")
    yield Do(FORBIDDEN_OF_REMOVED, (tournament_id, entrant_id, entrant_id))
    yield Do(ENTRANT_REMOVED, (tournament_id, entrant_id))
    yield from _changed(tournament)
    return entrant


def unpair_round(tournament_id: str, *, revision: int | None = None) -> Body[int]:
    """Undo the pairing of the last round paired, so that it is paired anew: refused once
    one of its boards has a result or a game on the site (the round has started). The
    round undone."""
    tournament = yield from _changing(tournament_id, revision)
    if tournament.spec.format is Format.ARENA:
        raise TournamentError("an arena has no rounds to undo")
    last = tournament.rounds_paired
    if not last:
        raise TournamentError("no round is paired yet")
    started = [
        board.number
        for board in tournament.round_boards(last)
        if (board.result is not None or (last, board.number) in tournament.games)
    ]
    if started:
        raise TournamentError(
            f"round {last} has started (board {started[0]} has a result or a game): its "
            "pairing cannot be undone; correct the results instead"
        )
    yield Do(ROUND_UNPAIRED, (tournament_id, last))
    yield from _changed(tournament, "running" if last > 1 else "created")
    return last


def correct_result(
    tournament_id: str,
    round_number: int,
    board_number: int,
    result: Result,
    *,
    revision: int | None = None,
) -> Body[Board]:
    """The director corrects the result of a board played over the board (the standings
    follow; the rounds already paired stay as they are): refused for a board without a
    result (enter it), a bye, or a board that does not exist."""
    tournament = yield from _changing(tournament_id, revision, finished=True)
    _over_the_board(tournament)
    found = [b for b in tournament.boards if b.round == round_number and b.number == board_number]
    if not found:
        raise TournamentError(f"round {round_number} has no board {board_number}")
    (board,) = found
    if board.is_bye:
        raise TournamentError(f"board {board_number} of round {round_number} is a bye")
    if board.result is None:
        raise TournamentError(
            f"board {board_number} of round {round_number} has no result to correct: enter it"
        )
    if board.result is result:
        raise TournamentError(
            f"board {board_number} of round {round_number} has this result already ({result.value})"
        )
    boards = tuple(replace(b, result=result) if b == board else b for b in tournament.boards)
    yield Do(BOARD_RESULT, (result.value, tournament_id, round_number, board_number))
    yield from _changed(tournament, _status_after(tournament, boards))
    return replace(board, result=result)


def set_moves(
    tournament_id: str,
    round_number: int,
    board_number: int,
    moves: str,
    *,
    revision: int | None = None,
) -> Body[None]:
    """Keep the moves of a board played over the board (checked by the caller: ICCS,
    space-separated; empty clears them)."""
    tournament = yield from _changing(tournament_id, revision, finished=True)
    _over_the_board(tournament)
    found = [b for b in tournament.boards if b.round == round_number and b.number == board_number]
    if not found:
        raise TournamentError(f"round {round_number} has no board {board_number}")
    if found[0].is_bye:
        raise TournamentError(f"board {board_number} of round {round_number} is a bye")
    yield Do(BOARD_MOVES, (moves or None, tournament_id, round_number, board_number))
    yield from _changed(tournament)


class TournamentRepository:
    """Tournaments in the game database ``db`` (either store): each method one transaction
    (a body above), or one read."""

    def __init__(self, db: Store) -> None:
        self.db = db
        #: Called with a tournament's id after each committed write that changed it (the
        #: live pages' hub: :mod:`chuhan.web.tournaments.live`).
        self.changed: Callable[[str], None] = lambda tournament_id: None

    async def _write(self, tournament_id: str, body: Body[T], what: str) -> T:
        done = await self.db.write(body, what)
        self.changed(tournament_id)
        return done

    async def create(self, tournament: Tournament) -> None:
        await self.db.write(create_tournament(tournament), "creating a tournament")

    async def tournament(self, tournament_id: str, *, finished: bool = True) -> Tournament | None:
        """The tournament, or None (``finished`` False: an arena without its finished
        boards, :func:`load_tournament`)."""
        body = load_tournament(tournament_id, finished=finished)
        return await self.db.read(body, "reading a tournament")

    async def add_chat(self, tournament_id: str, account_id: str, line: ChatLine) -> None:
        await self.db.write(add_chat(tournament_id, account_id, line), "keeping a chat line")

    async def chat_history(self, tournament_id: str, limit: int) -> list[ChatLine]:
        body = chat_history(tournament_id, limit)
        return await self.db.read(body, "reading a tournament's chat")

    async def listed(self, status: Status, limit: int = 100) -> list[Tournament]:
        return await self.db.read(list_tournaments(status, limit), "listing tournaments")

    async def enter(
        self,
        tournament_id: str,
        entrant_id: str,
        *,
        name: str,
        rating: int,
        account_id: str | None = None,
        revision: int | None = None,
    ) -> Entrant:
        body = enter(
            tournament_id,
            entrant_id,
            name=name,
            rating=rating,
            account_id=account_id,
            revision=revision,
        )
        return await self._write(tournament_id, body, "entering a tournament")

    async def set_paused(self, tournament_id: str, entrant_id: str, paused: bool) -> Entrant:
        body = set_paused(tournament_id, entrant_id, paused)
        return await self._write(
            tournament_id, body, "pausing a player" if paused else "bringing a player back"
        )

    async def enter_computer(self, tournament_id: str, level: int, rating: int) -> Entrant:
        body = enter_computer(tournament_id, level, rating)
        return await self._write(tournament_id, body, "entering a computer player")

    async def withdraw(
        self, tournament_id: str, entrant_id: str, *, revision: int | None = None
    ) -> Entrant:
        body = withdraw_entrant(tournament_id, entrant_id, revision=revision)
        return await self._write(tournament_id, body, "withdrawing from a tournament")

    async def set_bye(
        self,
        tournament_id: str,
        entrant_id: str,
        round_number: int | None,
        *,
        cancel: bool = False,
        revision: int | None = None,
    ) -> Entrant:
        body = set_bye(tournament_id, entrant_id, round_number, cancel=cancel, revision=revision)
        what = "calling off a half-point bye" if cancel else "asking for a half-point bye"
        return await self._write(tournament_id, body, what)

    async def forbid(
        self, tournament_id: str, first: str, second: str, *, revision: int | None = None
    ) -> None:
        body = forbid_pair(tournament_id, first, second, revision=revision)
        await self._write(tournament_id, body, "keeping two players apart")

    async def pair_round(
        self, tournament_id: str, *, revision: int | None = None
    ) -> tuple[Board, ...]:
        """Pair the next round (``rules.next_round``, in a thread: a large Swiss takes
        seconds, which neither the event loop nor SQLite's writer thread should wait for)
        and keep it (:func:`keep_round`) if the tournament has not changed meanwhile:
        refused while a game of the last round has no result, after the last round, for
        an arena, for a finished tournament, or when it changed since ``revision``."""
        tournament = await self.tournament(tournament_id)
        if tournament is None:
            raise UnknownTournament(f"there is no tournament {tournament_id!r}")
        if revision is not None and revision != tournament.revision:
            raise TournamentError(
                f"the tournament has changed since you read it (revision {revision}, now "
                f"{tournament.revision}): read it again and make your change on what it is now"
            )
        if tournament.status == "finished":
            raise TournamentError("the tournament is over")
        boards = await asyncio.to_thread(
            next_round,
            tournament.spec,
            tournament.entrants,
            tournament.boards,
            forbidden=tournament.forbidden,
        )
        body = keep_round(tournament_id, tournament.revision, boards)
        await self._write(tournament_id, body, "keeping a round's pairings")
        return boards

    async def set_result(
        self,
        tournament_id: str,
        round_number: int,
        board_number: int,
        result: Result,
        *,
        revision: int | None = None,
    ) -> Board:
        body = set_result(tournament_id, round_number, board_number, result, revision=revision)
        return await self._write(tournament_id, body, "entering a result")

    async def attach_game(
        self, tournament_id: str, round_number: int, board_number: int, game_id: str
    ) -> bool:
        body = attach_game(tournament_id, round_number, board_number, game_id)
        return await self._write(tournament_id, body, "noting a tournament game")

    async def game_of(self, tournament_id: str, round_number: int, board_number: int) -> str | None:
        body = game_of(tournament_id, round_number, board_number)
        return await self.db.read(body, "reading a board's game")

    async def result_of_game(
        self, game_id: str, result: Result, termination: Termination | None = None
    ) -> tuple[str, Board] | None:
        """Give a game's board its result (see :func:`result_of_game`); a game of no
        tournament is found so by a read, without a write."""
        if not await self.db.read(is_tournament_game(game_id), "finding a tournament game"):
            return None
        body = result_of_game(game_id, result, termination)
        given = await self.db.write(body, "a tournament game's result")
        if given is not None:
            self.changed(given[0])
        return given

    async def claim(self, server_id: str, live: frozenset[str]) -> list[str]:
        """Take the tournaments without a live driver; those ``server_id`` drives
        (:func:`claim`)."""
        return await self.db.write(claim(server_id, live), "claiming tournaments to drive")

    async def release(self, server_id: str) -> None:
        await self.db.write(release(server_id), "handing back the tournaments driven")

    async def driver_of(self, tournament_id: str) -> str | None:
        return await self.db.read(driver_of(tournament_id), "reading a tournament's driver")

    async def ended_without_result(
        self, server_id: str, limit: int = 50
    ) -> list[tuple[str, dict[str, Any], str | None]]:
        body = ended_without_result(server_id, limit)
        return await self.db.read(body, "finding tournament games ended unrecorded")

    async def pair_arena(self, tournament_id: str, now: float) -> tuple[Board, ...]:
        """Pair an arena's waiting players: the matching worked out in a thread on a reading
        of the tournament (a write would hold every other write, or the event loop, for
        its second), then kept by :func:`keep_arena_games`."""
        tournament = await self.tournament(tournament_id)
        if tournament is None:
            raise UnknownTournament(f"there is no tournament {tournament_id!r}")
        games = await asyncio.to_thread(arena_games, tournament, now)
        body = keep_arena_games(tournament_id, now, games)
        boards = await self.db.write(body, "pairing an arena")
        if boards:
            self.changed(tournament_id)
        return boards

    async def set_status(
        self, tournament_id: str, status: Status, *, revision: int | None = None
    ) -> int:
        body = set_status(tournament_id, status, revision=revision)
        return await self._write(tournament_id, body, "changing a tournament's status")

    async def enter_player(
        self, tournament_id: str, *, name: str, club: str, rating: int, revision: int | None
    ) -> Entrant:
        body = enter_player(tournament_id, name=name, club=club, rating=rating, revision=revision)
        return await self._write(tournament_id, body, "entering a player")

    async def edit_player(
        self,
        tournament_id: str,
        entrant_id: str,
        *,
        name: str,
        club: str,
        rating: int,
        revision: int | None,
    ) -> Entrant:
        body = edit_player(
            tournament_id, entrant_id, name=name, club=club, rating=rating, revision=revision
        )
        return await self._write(tournament_id, body, "editing a player")

    async def remove_player(
        self, tournament_id: str, entrant_id: str, *, revision: int | None
    ) -> Entrant:
        body = remove_player(tournament_id, entrant_id, revision=revision)
        return await self._write(tournament_id, body, "removing a player")

    async def unpair_round(self, tournament_id: str, *, revision: int | None) -> int:
        body = unpair_round(tournament_id, revision=revision)
        return await self._write(tournament_id, body, "undoing a round's pairing")

    async def correct_result(
        self,
        tournament_id: str,
        round_number: int,
        board_number: int,
        result: Result,
        *,
        revision: int | None,
    ) -> Board:
        body = correct_result(tournament_id, round_number, board_number, result, revision=revision)
        return await self._write(tournament_id, body, "correcting a result")

    async def set_moves(
        self,
        tournament_id: str,
        round_number: int,
        board_number: int,
        moves: str,
        *,
        revision: int | None,
    ) -> None:
        body = set_moves(tournament_id, round_number, board_number, moves, revision=revision)
        await self._write(tournament_id, body, "keeping a board's moves")

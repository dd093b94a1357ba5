"""The tournaments of one server process: create one, enter and withdraw players, pair a
round and make its games (``GameManager.create``, as the lobby makes a game), and give a
board its result when its game ends.

**One driver per tournament.** Of the processes sharing a database, one at a time drives
each tournament (``tournaments.driver``, a lease): every ``beat_seconds`` each process
takes the tournaments whose driver is none or has stopped beating (``Store.live_servers``,
the test the games' takeover uses; a compare-and-set, so one process gets each), and for
those it drives: starts them on time (a Swiss's or round robin's first round, an arena's
first pairing), pairs the next round once the last has every result, pairs an arena's
waiting players, finishes an arena after its minutes once its games are over, and makes
the game of every board that has none. Only the driver makes a tournament's games, so a
board never gets two; a round is kept only on the revision it was paired on
(``repository.keep_round``), so two processes never pair it twice. A director's pairing
on another process keeps the round, and the driver makes its games at its next look.

**Results.** A board gets its result when its game ends: at once in the process that
wrote the end (the bus's ``GameFinished``), and otherwise at the driver's next look,
which gives the result of every game over whose board has none (a process that wrote the
end and died before giving it, or could not write it).

**Berserk.** An arena player berserks their game before their first move
(:meth:`TournamentService.berserk`): the round halves their clock and takes their increment
(its ``berserk`` event, kept in the game's log and clock); the board's ending notes who
berserked, read from the game's clock when it ends, and the scoring counts it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import unicodedata
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

from chuhan.adjudication.outcome import Termination
from chuhan.board import Board as Position
from chuhan.clock import TimeControl
from chuhan.errors import ChuhanError
from chuhan.notation import parse_move
from chuhan.records.game import GameRecord
from chuhan.records.pgn import write_pgn
from chuhan.variants import get_variant
from chuhan.web.accounts.repository import Account
from chuhan.web.accounts.service import AccountService
from chuhan.web.bus import Bus, GameFinished
from chuhan.web.db import Store, StoreError
from chuhan.web.round.manager import GameManager, RoomUnavailable
from chuhan.web.settings import Settings as WebSettings
from chuhan.web.sockets.protocol import ProtocolError
from chuhan.web.tournaments.live import TournamentLive
from chuhan.web.tournaments.repository import (
    Settings,
    Tournament,
    TournamentRepository,
    computer_level,
    entrant_id_of,
)
from chuhan.web.tournaments.rules import (
    Board,
    Entrant,
    Format,
    Result,
    Spec,
    TournamentError,
    UnknownTournament,
    arena_waiting,
    check_spec,
    swiss_present,
    total_rounds,
)

__all__ = [
    "NotDirector",
    "TournamentService",
    "UnknownTournament",
    "checked_moves",
    "checked_text",
    "code_sha256",
    "entrant_id_of",
    "over_the_board_pgn",
]

log = logging.getLogger("chuhan.web.tournaments")

#: A new account's rating, for an entrant with no rating in the tournament's game.
UNRATED = 1500
#: The computer's levels, and the rating a computer entrant is seeded at by level (a
#: pairing seed only, not a measured strength: level 1 the weakest).
COMPUTER_LEVELS = range(1, 9)
COMPUTER_SEED_RATINGS = {level: 900 + 150 * level for level in COMPUTER_LEVELS}
MAX_NAME_CHARS = 60
#: A rating a director may enter for a player over the board (0: unrated).
MAX_RATING = 3500
#: The most moves (plies) a board's moves may have.
MAX_BOARD_PLIES = 1000


def checked_text(value: str, what: str, *, empty: bool = False) -> str:
    """``value`` with its spaces tidied, or a :class:`TournamentError` naming ``what`` and
    what is wrong: empty (unless ``empty``), longer than :data:`MAX_NAME_CHARS`, or with a
    control character (a line break, a tab, an escape: a printed sheet cannot show it)."""
    controls = [char for char in value if unicodedata.category(char) in ("Cc", "Cf")]
    if controls:
        raise TournamentError(
            f"{what} {value[:MAX_NAME_CHARS]!r} has a control character "
            f"(U+{ord(controls[0]):04X}); use letters, digits, spaces and punctuation"
        )
    value = " ".join(value.split())
    if not value and not empty:
        raise TournamentError(f"{what} is empty")
    if len(value) > MAX_NAME_CHARS:
        raise TournamentError(f"{what} is {len(value)} characters long; at most {MAX_NAME_CHARS}")
    return value


def checked_moves(variant_game: str, variant_rules: str, text: str, where: str) -> str:
    """The moves of a board written in any notation chuhan reads (ICCS, WXF, Chinese,
    Korean; move numbers such as ``1.`` skipped), checked one by one from the start
    position, as ICCS separated by spaces; else a :class:`TournamentError` naming the
    move by its number and text, and why it is refused."""
    tokens = [
        token for token in text.split() if not (token.rstrip(".").isdigit() and token.endswith("."))
    ]
    if len(tokens) > MAX_BOARD_PLIES:
        raise TournamentError(f"{where} has {len(tokens)} moves; at most {MAX_BOARD_PLIES}")
    position = Position(variant=get_variant(variant_game, variant_rules))
    written = []
    for number, token in enumerate(tokens, start=1):
        try:
            move = parse_move(position, token)
        except ChuhanError as error:
            raise TournamentError(
                f"{where}: move {number} ({token[:20]!r}) is refused: {error}"
            ) from None
        written.append(move.iccs())
        position.push(move)
    return " ".join(written)


#: A game's result (its ``result`` field) as a board's, red being the first mover.
_RESULTS = {"1-0": Result.RED_WINS, "0-1": Result.BLACK_WINS, "1/2-1/2": Result.DRAW}


class NotDirector(TournamentError):
    """Only the tournament's director (who created it) may do this."""


def code_sha256(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class TournamentService:
    """Tournaments on ``store``, their games made by ``manager``, their players' accounts
    and ratings read through ``accounts``."""

    def __init__(
        self,
        store: Store,
        manager: GameManager,
        accounts: AccountService,
        bus: Bus,
        now: Callable[[], float],
        settings: WebSettings,
    ) -> None:
        self.repository = TournamentRepository(store)
        #: The live pages (and chat) of the tournaments watched on this process.
        self.live = TournamentLive(self.repository, bus, settings, now)
        self.store = store
        self.manager = manager
        self.accounts = accounts
        self.now = now
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = bus.subscribe(GameFinished, self._finished)
        #: The tournaments this process drove at its last look.
        self.driving: set[str] = set()
        self._driving_task: asyncio.Task[None] | None = None
        self._making: dict[str, asyncio.Lock] = {}
        self._looking = asyncio.Lock()
        # (claims one at a time: a claim that read the table before another's write must
        # not set ``driving`` after it, dropping a tournament just taken)
        self._claiming = asyncio.Lock()

    def start(self) -> None:
        """Drive this process's tournaments from now on (a look every ``beat_seconds``)."""
        self._driving_task = asyncio.get_running_loop().create_task(self._drive_forever())

    def close(self) -> None:
        self._unsubscribe()
        self.live.close()
        if self._driving_task is not None:
            self._driving_task.cancel()
            self._driving_task = None
        for task in list(self._tasks):
            task.cancel()

    async def release(self) -> None:
        """Hand back the tournaments driven (a clean stop: another process takes them at
        its next look)."""
        try:
            await self.repository.release(self.store.server_id)
        except Exception as error:  # (the others take them once this one stops beating)
            log.warning("cannot hand back the tournaments driven: %s", error)
        self.driving = set()

    async def idle(self) -> None:
        """Wait for the results being given (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ------------------------------------------------------------------ the organiser

    async def create(
        self, *, director: Account, name: str, spec: Spec, settings: Settings, starts: float
    ) -> Tournament:
        """A new tournament directed by ``director``: refused when it starts in the past,
        has no name, or ``spec`` is absurd (``rules.check_spec``)."""
        if not name.strip():
            raise TournamentError("a tournament needs a name")
        name = checked_text(name, "the tournament's name")
        now = self.now()
        if starts < now:
            raise TournamentError(
                f"the start time is {now - starts:.0f} seconds in the past; choose a time to come"
            )
        check_spec(spec)
        get_variant(settings.game, settings.rules)  # an unknown game is refused here
        tournament = Tournament(
            id=secrets.token_urlsafe(9),
            name=name,
            spec=spec,
            settings=settings,
            status="created",
            created_by=director.id,
            starts=starts,
            created=now,
        )
        await self.repository.create(tournament)
        return tournament

    async def tournament(self, tournament_id: str, *, finished: bool = True) -> Tournament:
        """The tournament, or the refusal; ``finished`` False leaves an arena's finished
        boards out (what the driver, a player's game and the director's checks need of
        it: its boards in play; ``repository.load_tournament``)."""
        found = await self.repository.tournament(tournament_id, finished=finished)
        if found is None:
            raise UnknownTournament(f"there is no tournament {tournament_id!r}")
        return found

    async def _directed(self, tournament_id: str, director: Account) -> Tournament:
        tournament = await self.tournament(tournament_id, finished=False)
        if tournament.created_by != director.id:
            raise NotDirector("only the tournament's director may do this")
        return tournament

    async def pair_round(
        self, tournament_id: str, director: Account, *, revision: int | None = None
    ) -> tuple[Board, ...]:
        """Pair the next round (the director only); the boards. Their games are made by
        the tournament's driver: this process when no other live one drives it."""
        tournament = await self._directed(tournament_id, director)
        if tournament.spec.format is Format.ARENA:
            boards = await self.repository.pair_arena(tournament_id, self.now())
        else:
            boards = await self.repository.pair_round(tournament_id, revision=revision)
        if tournament.settings.over_the_board:
            return boards  # (played on real boards: no game is made on the site)
        if await self._drives(tournament_id):
            await self._make_games(tournament_id)
        return boards

    async def _drives(self, tournament_id: str) -> bool:
        """Whether this process drives the tournament (taking it if no live process
        does)."""
        await self._claim()
        return tournament_id in self.driving

    async def _claim(self) -> list[str]:
        async with self._claiming:
            live = await self.store.live_servers(self.manager.takeover_seconds)
            me = self.store.server_id
            driven = await self.repository.claim(me, frozenset(live) | {me})
            self.driving = set(driven)
            return driven

    # ------------------------------------------------------------------ the driver

    async def _drive_forever(self) -> None:
        while True:
            try:
                await self.drive()
            except Exception:  # a look that fails must not stop the next one
                log.exception("driving the tournaments failed")
            await asyncio.sleep(self.manager.beat_seconds)

    async def drive(self) -> None:
        """One look: take the tournaments without a live driver, give the results of
        their games that ended unrecorded, and drive each (:meth:`_drive`); one look at a
        time in this process."""
        async with self._looking:
            driven = await self._claim()
            me = self.store.server_id
            for game_id, result, absent in await self.repository.ended_without_result(me):
                await self._give_result(game_id, result, absent)
            for tournament_id in driven:
                try:
                    await self._drive(tournament_id)
                except TournamentError as refusal:
                    log.info("tournament %s not driven on: %s", tournament_id, refusal)

    async def _drive(self, tournament_id: str) -> None:
        """Make the games the tournament's boards lack; from its start, pair its rounds
        (or an arena's waiting players) and finish an arena after its minutes."""
        await self._make_games(tournament_id)
        tournament = await self.tournament(tournament_id, finished=False)
        now = self.now()
        if tournament.status == "finished" or now < tournament.starts:
            return
        if tournament.settings.over_the_board:
            return  # (its director pairs each round, when the room is ready)
        await self._abort_unstarted(tournament)
        spec, boards = tournament.spec, tournament.boards
        if spec.format is Format.ARENA:
            if now >= tournament.starts + spec.minutes * 60:
                if all(board.is_finished for board in boards):
                    await self.repository.set_status(tournament_id, "finished")
                return
            waiting = arena_waiting(tournament.entrants, boards)
            if tournament.status == "created" or len(waiting) >= 2:
                await self.repository.pair_arena(tournament_id, now)
                await self._make_games(tournament_id)
            return
        paired = tournament.rounds_paired
        if paired >= total_rounds(spec, len(tournament.entrants)):
            return
        if paired and not all(board.is_finished for board in tournament.round_boards(paired)):
            return
        if spec.format is Format.SWISS:
            playing = swiss_present(tournament.entrants, paired + 1)
        else:
            playing = [e for e in tournament.entrants if e.plays_in(paired + 1)]
        if len(playing) < 2:
            return
        await self.repository.pair_round(tournament_id, revision=tournament.revision)
        await self._make_games(tournament_id)

    async def _make_games(self, tournament_id: str) -> None:
        """Make the game of each board that has none and no result (the round just
        paired, or one whose driver died before making them); one at a time in this
        process."""
        lock = self._making.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            tournament = await self.tournament(tournament_id, finished=False)
            if tournament.settings.over_the_board:
                return
            names = {entrant.id: entrant.name for entrant in tournament.entrants}
            for board in tournament.boards:
                if board.is_finished or (board.round, board.number) in tournament.games:
                    continue
                await self._start_game(tournament, board, names)

    async def _pair_arena_again(self, tournament_id: str) -> None:
        """After an arena game's end or an entry: pair whoever waits, if this process
        drives the arena (its driver does so at its next look otherwise)."""
        if tournament_id not in self.driving:
            return
        tournament = await self.tournament(tournament_id, finished=False)
        if tournament.spec.format is not Format.ARENA or tournament.status != "running":
            return
        try:
            await self.repository.pair_arena(tournament_id, self.now())
        except TournamentError as refusal:
            log.info("arena %s not paired: %s", tournament_id, refusal)
            return
        await self._make_games(tournament_id)

    async def _start_game(
        self, tournament: Tournament, board: Board, names: dict[str, str]
    ) -> Board:
        """Make a board's game: a game between two people (the lobby's kind, ``friend``:
        chat, offers and claims as in any), each seat its account's, rated when the
        tournament is; against a computer entrant, a ``computer`` game at its level,
        played by the server's computer player, not rated."""
        assert board.black is not None
        settings = tournament.settings
        variant = get_variant(settings.game, settings.rules)
        fields = settings.time_control
        control = (
            None
            if fields is None
            else TimeControl(
                base=fields["base"],
                increment=fields.get("increment", 0.0),
                periods=int(fields.get("periods", 0)),
                period_seconds=fields.get("period_seconds", 0.0),
            )
        )
        levels = {"first": computer_level(board.red), "second": computer_level(board.black)}
        computer = next((seat for seat, level in levels.items() if level is not None), None)
        row, _ = await self.manager.create(
            kind="friend" if computer is None else "computer",
            variant=variant,
            time_control=control,
            level=None if computer is None else levels[computer],
            human_seat="second" if computer == "first" else "first",
            name=None,
            names={"first": names[board.red], "second": names[board.black]},
        )
        if not await self.repository.attach_game(tournament.id, board.round, board.number, row.id):
            log.warning("board %s of round %s had a game already", board.number, board.round)
            return board
        holders = {
            seat: (entrant_id[2:], None)
            for seat, entrant_id in (("first", board.red), ("second", board.black))
            if entrant_id.startswith("a:")
        }
        await self.accounts.repository.seat_game(
            row.id,
            row.created,
            # (a game against the computer is not rated, as in the lobby)
            rated_in=variant.game if settings.rated and computer is None else None,
            holders=holders,
        )
        # (its players' pages are told now, not at the tournament's next reading)
        self.live.game_made(tournament.id, (board.red, board.black), row.id)
        if computer is not None:  # (the computer opens as Red without waiting for anyone)
            await self.manager.drive_game(row.id)
        return board

    async def enter_result(
        self,
        tournament_id: str,
        director: Account,
        round_number: int,
        board_number: int,
        result: Result,
        *,
        revision: int | None = None,
    ) -> Board:
        """The director enters a board's result (a forfeit, a game played elsewhere): a
        board that has one already is refused."""
        await self._directed(tournament_id, director)
        return await self.repository.set_result(
            tournament_id, round_number, board_number, result, revision=revision
        )

    async def add_computer(self, tournament_id: str, director: Account, level: int) -> Entrant:
        """The director enters a computer player at ``level`` (1-8); its games are played
        by the server's computer player (:meth:`_start_game`)."""
        if level not in COMPUTER_LEVELS:
            raise TournamentError(
                f"a computer's level is {COMPUTER_LEVELS[0]} to {COMPUTER_LEVELS[-1]}, not {level}"
            )
        tournament = await self._directed(tournament_id, director)
        if tournament.settings.over_the_board:
            raise TournamentError("a computer cannot play on a real board")
        entrant = await self.repository.enter_computer(
            tournament_id, level, COMPUTER_SEED_RATINGS[level]
        )
        if tournament.spec.format is Format.ARENA and tournament.status == "running":
            await self._pair_arena_again(tournament_id)
        return entrant

    async def keep_apart(
        self, tournament_id: str, director: Account, first: str, second: str
    ) -> None:
        """The director keeps two players (by name) apart in the rounds to come."""
        tournament = await self._directed(tournament_id, director)
        ids = {entrant.name: entrant.id for entrant in tournament.entrants}
        for name in (first, second):
            if name not in ids:
                raise TournamentError(f"{name!r} is not a player of the tournament")
        await self.repository.forbid(tournament_id, ids[first], ids[second])

    # ------------------------------------------------------------------ over the board

    async def enter_player(
        self,
        tournament_id: str,
        director: Account,
        *,
        name: str,
        club: str,
        rating: int,
        revision: int | None = None,
    ) -> Entrant:
        """The director of an over-the-board tournament enters a player: a name, a club
        (may be empty) and a rating (0 to :data:`MAX_RATING`; 0 unrated)."""
        await self._directed(tournament_id, director)
        name, club = (
            checked_text(name, "the player's name"),
            checked_text(club, "the club", empty=True),
        )
        return await self.repository.enter_player(
            tournament_id, name=name, club=club, rating=_rating(rating), revision=revision
        )

    async def edit_player(
        self,
        tournament_id: str,
        director: Account,
        entrant_id: str,
        *,
        name: str,
        club: str,
        rating: int,
        revision: int | None = None,
    ) -> Entrant:
        await self._directed(tournament_id, director)
        name, club = (
            checked_text(name, "the player's name"),
            checked_text(club, "the club", empty=True),
        )
        return await self.repository.edit_player(
            tournament_id,
            entrant_id,
            name=name,
            club=club,
            rating=_rating(rating),
            revision=revision,
        )

    async def remove_player(
        self, tournament_id: str, director: Account, entrant_id: str, *, revision: int | None
    ) -> Entrant:
        await self._directed(tournament_id, director)
        return await self.repository.remove_player(tournament_id, entrant_id, revision=revision)

    async def pause_player(
        self, tournament_id: str, director: Account, entrant_id: str, *, paused: bool
    ) -> Entrant:
        """The director of an over-the-board tournament marks a player absent from the
        rounds to come (``paused``: not paired, a Swiss round scores nothing: FIDE's
        zero-point bye) or present again."""
        tournament = await self._directed(tournament_id, director)
        if not tournament.settings.over_the_board:
            raise TournamentError("online, players pause and come back themselves")
        if entrant_id not in {entrant.id for entrant in tournament.entrants}:
            raise TournamentError(f"the tournament has no player {entrant_id!r}")
        return await self.repository.set_paused(tournament_id, entrant_id, paused)

    async def player_bye(
        self,
        tournament_id: str,
        director: Account,
        entrant_id: str,
        round_number: int | None,
        *,
        cancel: bool,
        revision: int | None,
    ) -> Entrant:
        """The director of an over-the-board Swiss asks for a player's half-point bye in
        ``round_number`` (None: the next round) or calls it off (``cancel``), as the
        player asked."""
        tournament = await self._directed(tournament_id, director)
        if not tournament.settings.over_the_board:
            raise TournamentError("online, players ask for their half-point byes themselves")
        if entrant_id not in {entrant.id for entrant in tournament.entrants}:
            raise TournamentError(f"the tournament has no player {entrant_id!r}")
        return await self.repository.set_bye(
            tournament_id, entrant_id, round_number, cancel=cancel, revision=revision
        )

    async def unpair_round(
        self, tournament_id: str, director: Account, *, revision: int | None
    ) -> int:
        """Undo the last round's pairing of an over-the-board tournament before any of its
        results (online, the driver makes a round's games as soon as it is paired)."""
        tournament = await self._directed(tournament_id, director)
        if not tournament.settings.over_the_board:
            raise TournamentError(
                "only an over-the-board round's pairing can be undone (online, its games are "
                "made at once)"
            )
        return await self.repository.unpair_round(tournament_id, revision=revision)

    async def correct_result(
        self,
        tournament_id: str,
        director: Account,
        round_number: int,
        board_number: int,
        result: Result,
        *,
        revision: int | None,
    ) -> Board:
        await self._directed(tournament_id, director)
        return await self.repository.correct_result(
            tournament_id, round_number, board_number, result, revision=revision
        )

    async def enter_moves(
        self,
        tournament_id: str,
        director: Account,
        round_number: int,
        board_number: int,
        text: str,
        *,
        revision: int | None,
    ) -> str:
        """The director enters a board's moves (any notation chuhan reads, checked by the
        rules library); the moves as kept, in ICCS."""
        tournament = await self._directed(tournament_id, director)
        where = f"board {board_number} of round {round_number}"
        moves = checked_moves(tournament.settings.game, tournament.settings.rules, text, where)
        await self.repository.set_moves(
            tournament_id, round_number, board_number, moves, revision=revision
        )
        return moves

    # ------------------------------------------------------------------ the players

    async def join(self, tournament_id: str, account: Account, code: str | None = None) -> Entrant:
        """Enter ``account`` at its rating in the tournament's game (a new account's if
        it has none): refused with a wrong code for a tournament entered by code, and as
        ``rules.can_join`` refuses."""
        tournament = await self.tournament(tournament_id, finished=False)
        if tournament.settings.over_the_board:
            raise TournamentError(
                "an over-the-board tournament's players are entered by its director"
            )
        if tournament.settings.entry == "code" and (
            code is None or code_sha256(code) != tournament.settings.code_sha256
        ):
            raise TournamentError("this tournament is entered with its code, and that is not it")
        ratings = await self.accounts.repository.ratings_of(account.id)
        found = ratings.get(tournament.settings.game)
        rating = UNRATED if found is None else round(found.rating)
        entrant = await self.repository.enter(
            tournament_id,
            entrant_id_of(account),
            name=account.name,
            rating=rating,
            account_id=account.id,
        )
        if tournament.spec.format is Format.ARENA and tournament.status == "running":
            await self._pair_arena_again(tournament_id)
        return entrant

    async def withdraw(self, tournament_id: str, account: Account) -> Entrant:
        await self.tournament(tournament_id, finished=False)
        return await self.repository.withdraw(tournament_id, entrant_id_of(account))

    async def pause(self, tournament_id: str, account: Account, *, paused: bool = True) -> Entrant:
        """The account pauses (``paused``) or comes back: a paused player is not paired
        again until they come back (a game being played is played out); an arena pairs a
        player who comes back with whoever waits."""
        await self.tournament(tournament_id, finished=False)
        entrant = await self.repository.set_paused(tournament_id, entrant_id_of(account), paused)
        if not paused:
            await self._pair_arena_again(tournament_id)
        return entrant

    async def request_bye(
        self,
        tournament_id: str,
        account: Account,
        round_number: int | None,
        *,
        cancel: bool = False,
    ) -> Entrant:
        """The account asks for a half-point bye in ``round_number`` of a Swiss (None: the
        next round to be paired), or calls it off (``cancel``) before that round is
        paired."""
        tournament = await self.tournament(tournament_id, finished=False)
        if tournament.settings.over_the_board:
            raise TournamentError("an over-the-board tournament's byes are given by its director")
        return await self.repository.set_bye(
            tournament_id, entrant_id_of(account), round_number, cancel=cancel
        )

    async def current_game(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """The account's game of the last round paired: ``{game_id, seat, token}``, or the
        refusal (not paired, a bye, the game not made yet)."""
        tournament = await self.tournament(tournament_id, finished=False)
        me = entrant_id_of(account)
        if tournament.spec.format is Format.ARENA:
            boards = tuple(board for board in tournament.boards if board.result is None)
        else:
            boards = tournament.round_boards(tournament.rounds_paired)
        mine = [board for board in boards if me in (board.red, board.black)]
        if not mine:
            paired = tournament.rounds_paired
            if any(e.id == me and paired in e.byes for e in tournament.entrants):
                raise TournamentError(f"you have a half-point bye in round {paired}")
            raise TournamentError("you have no board in the round being played")
        (board,) = mine
        if board.black is None:
            raise TournamentError(f"you have the bye in round {board.round}")
        game_id = await self.repository.game_of(tournament_id, board.round, board.number)
        if game_id is None:
            raise TournamentError("your game is being made; ask again in a moment")
        seat = "first" if board.red == me else "second"
        seats = await self.store.seats_of(game_id)
        return {"game_id": game_id, "seat": seat, "token": seats[seat], "round": board.round}

    async def berserk(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """The account berserks its arena game (half its clock, no increment; a win of at
        least ``berserk_moves`` moves then scores ``berserk_bonus`` more): refused outside
        an arena, without a game being played, and after the player's first move. The
        account's game (:meth:`current_game`)."""
        tournament = await self.tournament(tournament_id, finished=False)
        if tournament.spec.format is not Format.ARENA:
            raise TournamentError("only an arena's games may be berserked")
        game = await self.current_game(tournament_id, account)
        try:
            room = await self.manager.room(game["game_id"])
        except RoomUnavailable as error:
            raise TournamentError(f"your game cannot be read now: {error}") from None
        if room is None:
            raise TournamentError("your game is not found; ask for it again")
        with self.manager.hold(room):
            try:
                await room.berserk(game["seat"])
            except ProtocolError as refusal:
                raise TournamentError(f"no berserk: {refusal.message}") from None
        return game

    # ------------------------------------------------------------------ results

    def _finished(self, event: GameFinished) -> None:
        if event.kind not in ("friend", "computer"):
            return
        # (heard in the process whose room ended the game: its last event is the ending)
        room = self.manager.rooms.get(event.game_id)
        last = None if room is None else room.state.last_event
        absent = None
        if last is not None and last.get("kind") == "abort" and last.get("no_start"):
            absent = str(last.get("side"))
        self._spawn(self._give_result(event.game_id, event.result, absent))

    async def _give_result(
        self, game_id: str, ended: dict[str, Any], absent: str | None = None
    ) -> None:
        """The board of a tournament game that ended gets its result (``ended``: the
        game's ``result`` object). An aborted game, no one having played, is a double
        forfeit; one aborted because a side (``absent``: its seat) did not make its first
        move in time is that side's forfeit, and the absent player is paused (not paired
        again until they come back; a round robin's table is fixed)."""
        result = _RESULTS.get(str(ended.get("result")), Result.DOUBLE_FORFEIT)
        if absent is not None:
            result = Result.BLACK_FORFEIT_WIN if absent == "first" else Result.RED_FORFEIT_WIN
        try:
            termination = Termination(ended.get("termination"))
        except ValueError:
            termination = None
        try:
            given = await self.repository.result_of_game(game_id, result, termination)
            if given is None:
                return
            tournament_id, board = given
            if absent is not None:
                await self._pause_absent(
                    tournament_id, board.red if absent == "first" else board.black
                )
            if board.round == 0:
                await self._pair_arena_again(tournament_id)
        except Exception:
            log.exception("the result of game %s was not given to its board", game_id)

    async def _pause_absent(self, tournament_id: str, entrant_id: str | None) -> None:
        tournament = await self.tournament(tournament_id, finished=False)
        if entrant_id is None or tournament.spec.format is Format.ROUND_ROBIN:
            return
        try:
            await self.repository.set_paused(tournament_id, entrant_id, True)
        except TournamentError as refusal:
            log.info("tournament %s: %s not paused: %s", tournament_id, entrant_id, refusal)

    async def _abort_unstarted(self, tournament: Tournament) -> None:
        """Call off the games of the tournament's boards whose side to move let the time
        for a first move pass (:meth:`Room.abort_unstarted`): a player gone would hold
        the opponent, and an arena's end or a round, for ever. The result is then given as
        any game's end (:meth:`_give_result`)."""
        boards = {(board.round, board.number): board for board in tournament.boards}
        for place, game_id in tournament.games.items():
            board = boards.get(place)
            if board is None or board.is_finished:
                continue
            try:
                room = await self.manager.room(game_id)
                if room is not None:
                    await room.abort_unstarted()
            except (RoomUnavailable, StoreError) as error:
                log.warning(
                    "tournament %s: game %s not looked at: %s", tournament.id, game_id, error
                )

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def with_code(settings: Settings, code: str | None) -> Settings:
    """``settings`` with the entry code kept as its SHA-256 (for entry by code)."""
    if settings.entry != "code":
        return replace(settings, code_sha256=None)
    if not code:
        raise TournamentError("a tournament entered by code needs its 'code'")
    return replace(settings, code_sha256=code_sha256(code))


def _rating(rating: int) -> int:
    if not 0 <= rating <= MAX_RATING:
        raise TournamentError(f"a rating is 0 (unrated) to {MAX_RATING}, not {rating}")
    return rating


def over_the_board_pgn(tournament: Tournament) -> list[str]:
    """The PGN of each board of an over-the-board tournament whose moves were entered,
    round by round and board by board (``Event`` the tournament's name, ``Round``
    round.board, the players, the result the director entered)."""
    names = {entrant.id: entrant.name for entrant in tournament.entrants}
    variant = get_variant(tournament.settings.game, tournament.settings.rules)
    first, second = ("Cho", "Han") if variant.is_janggi else ("Red", "Black")
    texts = []
    for board in tournament.boards:
        text = tournament.moves.get((board.round, board.number))
        if not text or board.black is None:
            continue
        position = Position(variant=variant)
        moves = []
        for token in text.split():
            moves.append(position.parse_iccs(token))
            position.push(moves[-1])
        headers = {
            "Event": tournament.name,
            "Round": f"{board.round}.{board.number}",
            first: names[board.red],
            second: names[board.black],
        }
        record = GameRecord.from_moves(moves, variant=variant, headers=headers)
        points = None if board.result is None else board.result.points()
        record.headers["Result"] = (
            "*"
            if points is None or points == (0.0, 0.0)
            else {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[points[0]]
        )
        texts.append(write_pgn(record))
    return texts

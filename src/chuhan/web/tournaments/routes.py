"""The tournaments' JSON API:

- ``POST /api/tournaments``: create one (signed in; the creator directs it);
- ``GET /api/tournaments?status=created|running|finished``: the list;
- ``GET /api/tournaments/{id}``: one, with its players, rounds and standings (an arena's
  games in play and its 30 newest finished), and ``you``: whether the one asking directs
  it and their name among its entrants;
- ``GET /api/tournaments/{id}/games?before=n&limit=m``: an arena's games, newest first, a
  page at a time (``next``: the ``before`` of the next page);
- ``POST /api/tournaments/{id}/join`` (``{"code"}`` for one entered by code) and
  ``/withdraw``: the signed-in player;
- ``POST /api/tournaments/{id}/pause`` and ``/resume``: the signed-in player pauses (not
  paired until they come back; a Swiss round paused for scores nothing) or comes back (not
  in a round robin);
- ``POST /api/tournaments/{id}/bye`` (``{"round"}``, optional: the next round to be
  paired) and ``/bye/cancel``: the signed-in player of a Swiss asks for a half-point bye
  in a round not yet paired (not paired in it, ½ point; as many as the organiser's
  ``half_byes``, none in the last ``half_bye_closed_rounds``) or calls it off;
- ``POST /api/tournaments/{id}/pair`` (``{"revision"}``, optional): the director pairs the
  next round and its games are made;
- ``POST /api/tournaments/{id}/game``: the signed-in player's game of the round being
  played, with the seat's token;
- ``POST /api/tournaments/{id}/computer`` (``{"level"}``, 1-8): the director enters a
  computer player, whose games the server's computer plays;
- ``POST /api/tournaments/{id}/berserk``: the signed-in arena player halves their clock
  (no increment) before their first move, for a bonus point on a win of 7 moves or more;
- ``POST /api/tournaments/{id}/result`` (``{"round", "board", "result"}``: ``1-0``,
  ``0-1``, ``1/2-1/2``, ``+-``, ``-+``, ``--``) and ``/forbid`` (``{"first", "second"}``,
  players' names): the director;
- over the board (``{"over_the_board": true}`` at its creation: played on real boards, no
  game made on the site), the director: ``POST .../players`` (``{"name", "club",
  "rating"}``) enters a player, ``POST .../players/{n}`` edits and ``DELETE
  .../players/{n}`` removes player ``p:n`` before round 1; ``POST .../unpair`` undoes the
  last round's pairing before any result; ``POST .../players/{n}/pause`` and ``/resume``
  mark a player absent from the rounds to come (a zero-point bye) and back;
  ``POST .../players/{n}/bye`` and ``/bye/cancel`` (``{"round"}``, optional) ask for a
  player's half-point bye and call it off;
  ``POST .../correct`` (as ``/result``) corrects a
  result; ``POST .../moves`` (``{"round", "board", "moves"}``) keeps a board's moves, each
  checked by the rules; each takes the ``revision`` read, and is refused when the
  tournament changed since (two directors editing one round);
- ``GET /t/{id}/print/pairings|scoresheets|standings`` (``?round=n&lang=``): the printed
  pages (``print.html``);
- ``GET /api/tournaments/{id}/trf``: a Swiss or round robin in FIDE's TRF16;
- ``GET /api/tournaments/{id}/pgn``: the crosstable (as PGN's escaped ``%`` lines) and
  every game of the tournament in one PGN file, round by round and board by board
  (``Event`` the tournament's name, ``Round`` round.board; an arena's games by their
  number), as each game's own PGN writes it.

A refusal of the rules is 409 with its sentence; an unknown tournament 404; a request not
signed in 401; a player who is not the director 403; a bad field 400 naming it."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response

from chuhan.errors import ChuhanError
from chuhan.variants import get_variant
from chuhan.web.accounts.repository import Account
from chuhan.web.context import context_of
from chuhan.web.http.common import HTTPError, field, limit_rate, read_json
from chuhan.web.round.reads import ReadBusy, ReadUnavailable
from chuhan.web.round.routes import parse_time_control
from chuhan.web.tournaments.repository import STATUSES, Settings
from chuhan.web.tournaments.rules import (
    ARENA_SCORING,
    AXF_ORDER,
    JANGGI_ARENA_SCORING,
    WXF_ORDER,
    Entrant,
    Format,
    Result,
    Spec,
    TieBreak,
    TournamentError,
    UnknownTournament,
    crosstable,
    trf,
)
from chuhan.web.tournaments.service import (
    NotDirector,
    over_the_board_pgn,
    with_code,
)
from chuhan.web.tournaments.views import GAMES_PAGE, arena_games_json, tournament_json, you_json

__all__ = [
    "add_computer",
    "berserk",
    "correct_result",
    "create_tournament",
    "current_game",
    "edit_player",
    "enter_moves",
    "enter_player",
    "enter_result",
    "join_tournament",
    "keep_apart",
    "list_tournaments",
    "pair_round",
    "pause_player",
    "pause_tournament",
    "player_bye",
    "print_page",
    "remove_player",
    "request_bye",
    "resume_tournament",
    "tournament",
    "tournament_games",
    "tournament_pgn",
    "tournament_trf",
    "unpair_round",
    "withdraw_tournament",
    "you_json",
]

MAX_CODE_CHARS = 64


def refusals(
    handler: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint with the rules' refusals as HTTP errors."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except UnknownTournament as error:
            raise HTTPError(404, "no_such_tournament", str(error)) from None
        except NotDirector as error:
            raise HTTPError(403, "not_director", str(error)) from None
        except TournamentError as error:
            raise HTTPError(409, "refused", str(error)) from None
        except ModuleNotFoundError as error:
            raise HTTPError(
                503,
                "unavailable",
                f"tournaments need the extra 'tournaments' on this server ({error.name} is "
                "missing)",
            ) from None

    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


async def _account(request: Request) -> Account:
    context = context_of(request)
    account = await context.accounts.account_of(request, context.now())
    if account is None:
        raise HTTPError(401, "not_signed_in", "sign in first: tournaments are played with accounts")
    return account


def _tiebreaks(value: Any) -> tuple[TieBreak, ...]:
    if value is None or value == "axf":
        return AXF_ORDER
    if value == "wxf":
        return WXF_ORDER
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        known = {tiebreak.value: tiebreak for tiebreak in TieBreak}
        unknown = [name for name in value if name not in known]
        if not unknown:
            return tuple(known[name] for name in value)
        raise HTTPError(
            400,
            "bad_field",
            f"'tiebreaks' has {unknown[0]!r}; known: axf, wxf, or a list of " + ", ".join(known),
        )
    raise HTTPError(400, "bad_field", "'tiebreaks' must be axf, wxf or a list of tie-breaks")


def parse_tournament(
    data: dict[str, Any], settings: Any
) -> tuple[str, Spec, Settings, float, str | None]:
    """A new tournament's body checked: its name, spec, settings, start and entry code
    (a 400 naming the bad field)."""
    name = field(data, "name", str, "")
    try:
        format = Format(field(data, "format", str, "swiss"))
    except ValueError:
        raise HTTPError(400, "bad_field", "'format' must be arena, swiss or round_robin") from None
    try:
        variant = get_variant(
            field(data, "variant", str, "xiangqi"), field(data, "rules", str, "") or None
        )
    except ChuhanError as error:
        raise HTTPError(400, "bad_field", str(error)) from None
    control = parse_time_control(field(data, "time_control", str, "none"), settings)
    if control is not None and control.is_correspondence:
        raise HTTPError(
            400,
            "bad_field",
            f"'time_control' {control.describe()!r}: tournaments are played with a clock of "
            "minutes, not days per move",
        )
    starts = data.get("starts")
    if isinstance(starts, bool) or not isinstance(starts, int | float):
        raise HTTPError(400, "bad_field", "'starts' must be the start time, in seconds since 1970")
    half_byes = field(data, "half_byes", int, 1 if format is Format.SWISS else 0)
    closed = field(data, "half_bye_closed_rounds", int, 1)
    bye_points = data.get("bye_points", 1.0)
    if isinstance(bye_points, bool) or not isinstance(bye_points, int | float):
        raise HTTPError(400, "bad_field", f"'bye_points' must be a number, got {bye_points!r}")
    entries: dict[str, Literal["anyone", "accounts", "code"]] = {
        "anyone": "anyone",
        "accounts": "accounts",
        "code": "code",
    }
    entry = entries.get(field(data, "entry", str, "anyone"))
    if entry is None:
        raise HTTPError(400, "bad_field", "'entry' must be anyone, accounts or code")
    code = field(data, "code", str, "") or None
    if code is not None and len(code) > MAX_CODE_CHARS:
        raise HTTPError(400, "bad_field", f"'code' is longer than {MAX_CODE_CHARS} characters")
    default_rounds = 1 if format is Format.ROUND_ROBIN else 5 if format is Format.SWISS else 0
    spec = Spec(
        format=format,
        rounds=field(data, "rounds", int, default_rounds),
        minutes=field(data, "minutes", int, 60 if format is Format.ARENA else 0),
        tiebreaks=_tiebreaks(data.get("tiebreaks")),
        scoring=JANGGI_ARENA_SCORING if variant.is_janggi else ARENA_SCORING,
        bye_points=float(bye_points),
        late_join=field(data, "late_join", bool, True),
        max_players=field(data, "max_players", int, 500),
        half_byes=half_byes,
        half_bye_closed_rounds=closed,
    )
    chosen = Settings(
        game=variant.game,
        rules=variant.rules,
        time_control=None if control is None else control.to_dict(),
        rated=field(data, "rated", bool, False),
        entry=entry,
        over_the_board=field(data, "over_the_board", bool, False),
    )
    return name, spec, chosen, float(starts), code


@refusals
async def create_tournament(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    await limit_rate(request, "create", context.create_rate, "new games and tournaments")
    name, spec, chosen, starts, code = parse_tournament(await read_json(request), context.settings)
    created = await context.tournaments.create(
        director=director, name=name, spec=spec, settings=with_code(chosen, code), starts=starts
    )
    return JSONResponse({"tournament": tournament_json(created, whole=True)}, status_code=201)


@refusals
async def list_tournaments(request: Request) -> Response:
    context = context_of(request)
    status = request.query_params.get("status", "created")
    if status not in STATUSES:
        raise HTTPError(400, "bad_field", "'status' must be created, running or finished")
    listed = await context.tournaments.repository.listed(status)
    return JSONResponse({"tournaments": [tournament_json(t, whole=False) for t in listed]})


@refusals
async def tournament(request: Request) -> Response:
    context = context_of(request)
    found = await context.tournaments.tournament(request.path_params["tournament_id"])
    shown = tournament_json(found, whole=True)
    account = await context.accounts.account_of(request, context.now())
    shown["you"] = you_json(found, account)
    return JSONResponse({"tournament": shown})


def _whole_number(request: Request, name: str, default: int | None, highest: int) -> int | None:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= highest:
        raise HTTPError(
            400, "bad_field", f"'{name}' must be a whole number from 1 to {highest}, got {text!r}"
        )
    return int(text)


@refusals
async def tournament_games(request: Request) -> Response:
    """An arena's games, newest first, ``limit`` (at most 100) numbered below ``before``."""
    context = context_of(request)
    found = await context.tournaments.tournament(request.path_params["tournament_id"])
    if found.spec.format is not Format.ARENA:
        raise TournamentError(
            "only an arena's games are read by page: a Swiss's or a round robin's rounds are "
            "all in the tournament"
        )
    before = _whole_number(request, "before", None, 10**9)
    limit = _whole_number(request, "limit", GAMES_PAGE, GAMES_PAGE)
    assert limit is not None
    return JSONResponse(arena_games_json(found, before=before, limit=limit))


@refusals
async def join_tournament(request: Request) -> Response:
    context = context_of(request)
    account = await _account(request)
    data = await read_json(request)
    code = field(data, "code", str, "") or None
    entrant = await context.tournaments.join(request.path_params["tournament_id"], account, code)
    return JSONResponse(
        {
            "entered": {
                "name": entrant.name,
                "rating": entrant.rating,
                "first_round": entrant.first_round,
            }
        }
    )


@refusals
async def withdraw_tournament(request: Request) -> Response:
    context = context_of(request)
    account = await _account(request)
    entrant = await context.tournaments.withdraw(request.path_params["tournament_id"], account)
    return JSONResponse({"withdrawn": {"name": entrant.name, "after_round": entrant.last_round}})


@refusals
async def pause_tournament(request: Request) -> Response:
    context = context_of(request)
    account = await _account(request)
    tournament_id = request.path_params["tournament_id"]
    entrant = await context.tournaments.pause(tournament_id, account)
    return JSONResponse({"paused": {"name": entrant.name}})


@refusals
async def resume_tournament(request: Request) -> Response:
    context = context_of(request)
    account = await _account(request)
    tournament_id = request.path_params["tournament_id"]
    entrant = await context.tournaments.pause(tournament_id, account, paused=False)
    return JSONResponse({"back": {"name": entrant.name}})


def _bye_round(data: dict[str, Any]) -> int | None:
    number = data.get("round")
    if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
        raise HTTPError(400, "bad_field", f"'round' must be a round's number, got {number!r}")
    return number


def _bye_json(entrant: Entrant) -> dict[str, Any]:
    return {"name": entrant.name, "byes": list(entrant.byes)}


@refusals
async def request_bye(request: Request) -> Response:
    """The signed-in player asks for a half-point bye (``.../bye``) or calls it off
    (``.../bye/cancel``)."""
    context = context_of(request)
    account = await _account(request)
    data = await read_json(request)
    entrant = await context.tournaments.request_bye(
        request.path_params["tournament_id"],
        account,
        _bye_round(data),
        cancel=request.url.path.rstrip("/").endswith("/cancel"),
    )
    return JSONResponse({"player": _bye_json(entrant)})


@refusals
async def pair_round(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    tournament_id = request.path_params["tournament_id"]
    await context.tournaments.pair_round(tournament_id, director, revision=_revision(data))
    found = await context.tournaments.tournament(tournament_id)
    return JSONResponse({"tournament": tournament_json(found, whole=True)})


@refusals
async def current_game(request: Request) -> Response:
    context = context_of(request)
    account = await _account(request)
    game = await context.tournaments.current_game(request.path_params["tournament_id"], account)
    return JSONResponse({"game": game})


@refusals
async def berserk(request: Request) -> Response:
    context = context_of(request)
    account = await _account(request)
    game = await context.tournaments.berserk(request.path_params["tournament_id"], account)
    return JSONResponse({"game": game})


@refusals
async def tournament_trf(request: Request) -> Response:
    context = context_of(request)
    found = await context.tournaments.tournament(request.path_params["tournament_id"])
    if found.spec.format is Format.ARENA:
        raise HTTPError(409, "refused", "an arena has no rounds to write in TRF")
    day = time.strftime("%Y/%m/%d", time.gmtime(found.starts))
    text = trf(found.spec, found.entrants, found.boards, name=found.name, start_date=day)
    return PlainTextResponse(
        text,
        headers={"content-disposition": f'attachment; filename="{found.id}.trf"'},
    )


@refusals
async def tournament_pgn(request: Request) -> Response:
    """Every game of the tournament in one PGN file (the games' own PGN, with the
    tournament's name as the event and the round and board as the round)."""
    context = context_of(request)
    found = await context.tournaments.tournament(request.path_params["tournament_id"])
    arena = found.spec.format is Format.ARENA

    async def no_budget() -> None:
        """(the tournament's games are read for this file without a reader's budget)"""

    texts = over_the_board_pgn(found) if found.settings.over_the_board else []
    for (round_number, board_number), game_id in sorted(found.games.items()):
        try:
            rendered = await context.reads.rendered(game_id, no_budget)
            if rendered is None:
                continue  # (a game deleted since)
            headers = {
                "Event": found.name,
                "Round": str(board_number) if arena else f"{round_number}.{board_number}",
            }
            texts.append(await context.reads.pgn(rendered, "iccs", headers))
        except ReadUnavailable as error:
            raise HTTPError(500, "internal", str(error)) from None
        except ReadBusy as error:
            raise HTTPError(503, "busy", str(error)) from None
    # The crosstable first, as PGN's escaped lines (a '%' in the first column: readers skip
    # them), so that the standings travel with the games.
    table = [] if arena else crosstable(found.spec, found.entrants, found.boards)
    head = "".join(f"% {line}".rstrip() + "\n" for line in (found.name, *table))
    return PlainTextResponse(
        head + "\n" + "\n".join(text.rstrip("\n") + "\n" for text in texts),
        media_type="application/x-chess-pgn; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{found.id}.pgn"'},
    )


def _revision(data: dict[str, Any]) -> int | None:
    revision = data.get("revision")
    if revision is not None and (isinstance(revision, bool) or not isinstance(revision, int)):
        raise HTTPError(400, "bad_field", f"'revision' must be an int, got {revision!r}")
    return revision


async def _board_result(request: Request, *, correcting: bool) -> Response:
    """A director's result of a board (``round``, ``board``, ``result``, ``revision``):
    entered, or ``correcting`` one entered before."""
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    result = _result_of(data)
    tournaments = context.tournaments
    write = tournaments.correct_result if correcting else tournaments.enter_result
    board = await write(
        request.path_params["tournament_id"],
        director,
        field(data, "round", int, 0),
        field(data, "board", int, 0),
        result,
        revision=_revision(data),
    )
    return JSONResponse(
        {"board": {"round": board.round, "board": board.number, "result": result.value}}
    )


@refusals
async def enter_result(request: Request) -> Response:
    return await _board_result(request, correcting=False)


@refusals
async def add_computer(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    tournament_id = request.path_params["tournament_id"]
    await context.tournaments.add_computer(tournament_id, director, field(data, "level", int, 3))
    found = await context.tournaments.tournament(tournament_id)
    return JSONResponse({"tournament": tournament_json(found, whole=True)})


@refusals
async def keep_apart(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    await context.tournaments.keep_apart(
        request.path_params["tournament_id"],
        director,
        field(data, "first", str, ""),
        field(data, "second", str, ""),
    )
    return JSONResponse({"kept_apart": [data["first"], data["second"]]})


def _result_of(data: dict[str, Any]) -> Result:
    try:
        return Result(field(data, "result", str, ""))
    except ValueError:
        raise HTTPError(
            400,
            "bad_field",
            "'result' must be one of " + ", ".join(result.value for result in Result),
        ) from None


def _player_fields(data: dict[str, Any]) -> tuple[str, str, int]:
    return (
        field(data, "name", str, ""),
        field(data, "club", str, ""),
        field(data, "rating", int, 0),
    )


@refusals
async def enter_player(request: Request) -> Response:
    """The director enters a player over the board."""
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    name, club, rating = _player_fields(data)
    entrant = await context.tournaments.enter_player(
        request.path_params["tournament_id"],
        director,
        name=name,
        club=club,
        rating=rating,
        revision=_revision(data),
    )
    return JSONResponse(
        {
            "player": {
                "id": entrant.id,
                "name": entrant.name,
                "club": entrant.club,
                "rating": entrant.rating,
            }
        },
        status_code=201,
    )


@refusals
async def edit_player(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    name, club, rating = _player_fields(data)
    entrant = await context.tournaments.edit_player(
        request.path_params["tournament_id"],
        director,
        f"p:{request.path_params['number']}",
        name=name,
        club=club,
        rating=rating,
        revision=_revision(data),
    )
    return JSONResponse(
        {
            "player": {
                "id": entrant.id,
                "name": entrant.name,
                "club": entrant.club,
                "rating": entrant.rating,
            }
        }
    )


@refusals
async def remove_player(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    revision = request.query_params.get("revision")
    if revision is not None and not (revision.isascii() and revision.isdigit()):
        raise HTTPError(400, "bad_field", f"'revision' must be an int, got {revision[:20]!r}")
    entrant = await context.tournaments.remove_player(
        request.path_params["tournament_id"],
        director,
        f"p:{request.path_params['number']}",
        revision=None if revision is None else int(revision),
    )
    return JSONResponse({"removed": {"id": entrant.id, "name": entrant.name}})


@refusals
async def unpair_round(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    tournament_id = request.path_params["tournament_id"]
    undone = await context.tournaments.unpair_round(
        tournament_id, director, revision=_revision(data)
    )
    found = await context.tournaments.tournament(tournament_id)
    return JSONResponse({"undone": undone, "tournament": tournament_json(found, whole=True)})


@refusals
async def correct_result(request: Request) -> Response:
    return await _board_result(request, correcting=True)


@refusals
async def enter_moves(request: Request) -> Response:
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    round_number, board_number = field(data, "round", int, 0), field(data, "board", int, 0)
    moves = await context.tournaments.enter_moves(
        request.path_params["tournament_id"],
        director,
        round_number,
        board_number,
        field(data, "moves", str, ""),
        revision=_revision(data),
    )
    return JSONResponse({"board": {"round": round_number, "board": board_number, "moves": moves}})


PRINTED = ("pairings", "scoresheets", "standings")


async def print_page(request: Request) -> Response:
    """A tournament's printed page (``print.html``, which reads the tournament and lays
    the page out for A4 and Letter)."""
    if request.path_params["kind"] not in PRINTED:
        return PlainTextResponse(
            "Not Found: a tournament prints " + ", ".join(PRINTED), status_code=404
        )
    found = Path(request.app.state.static_dir) / "print.html"
    if not found.is_file():
        return PlainTextResponse(
            f"The web app's files are missing ({found}); reinstall chuhan.", status_code=500
        )
    return FileResponse(found, media_type="text/html; charset=utf-8")


@refusals
async def player_bye(request: Request) -> Response:
    """The director of an over-the-board Swiss asks for a player's half-point bye
    (``.../players/{n}/bye``) or calls it off (``.../bye/cancel``)."""
    context = context_of(request)
    director = await _account(request)
    data = await read_json(request)
    entrant = await context.tournaments.player_bye(
        request.path_params["tournament_id"],
        director,
        f"p:{request.path_params['number']}",
        _bye_round(data),
        cancel=request.url.path.rstrip("/").endswith("/cancel"),
        revision=_revision(data),
    )
    return JSONResponse({"player": _bye_json(entrant)})


@refusals
async def pause_player(request: Request) -> Response:
    """The director marks a player over the board absent (``.../pause``) or back
    (``.../resume``)."""
    context = context_of(request)
    director = await _account(request)
    paused = request.url.path.rstrip("/").endswith("/pause")
    entrant = await context.tournaments.pause_player(
        request.path_params["tournament_id"],
        director,
        f"p:{request.path_params['number']}",
        paused=paused,
    )
    return JSONResponse({"player": {"id": entrant.id, "paused": entrant.paused}})

"""The web app: :func:`create_app` assembles the server from its parts.

- :mod:`.settings`: every limit and option;
- :mod:`.store`: where games are kept (SQLite by default);
- :mod:`.compute`: the computer players and analyses, in worker processes;
- :mod:`.events`: the event bus (a state changed, a game finished);
- :mod:`.round`: one live game each, its single writer, and the manager of them all;
- :mod:`.accounts` and :mod:`.ratings`: accounts, sessions and Glicko-2 ratings;
- :mod:`.lobby`: open seeks, quick pairing and challenges; :mod:`.lobby_socket` its
  websocket;
- :mod:`.puzzles`: the puzzle set and the judging of a solver's moves;
- :mod:`.endpoints`: the pages and the REST API; :mod:`.socket`: the game websocket,
  whose messages :mod:`.protocol` checks.

No exception ever reaches a client as a traceback: it gets ``{"type": "error", ...}`` (or
an HTTP error with a JSON body) with a sentence saying what was wrong
(``docs/web-protocol.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from chuhan.explorer import default_index_path, is_index_url, site_index_path
from chuhan.web.accounts.ratings import RatingKeeper
from chuhan.web.accounts.routes import (
    account,
    change_password,
    delete_account,
    game_rating,
    leaderboard,
    player,
    sign_in,
    sign_out,
    sign_up,
)
from chuhan.web.accounts.service import AccountService
from chuhan.web.analysis.service import AnalysisService
from chuhan.web.analysis.socket import analysis_socket
from chuhan.web.bus import Bus
from chuhan.web.compute.service import Compute, ProcessCompute
from chuhan.web.context import ServerContext
from chuhan.web.correspondence.routes import end_vacation, take_vacation, vacation, your_games
from chuhan.web.correspondence.service import Correspondence
from chuhan.web.db import GameRow, Store, open_store
from chuhan.web.explorer.routes import explorer_game, explorer_lookup, explorer_search
from chuhan.web.explorer.service import ExplorerService, index_location
from chuhan.web.explorer.site import SiteGames
from chuhan.web.http.common import api
from chuhan.web.http.pages import STATIC_DIR, SecurityHeaders, not_routed, page
from chuhan.web.imports.routes import import_record
from chuhan.web.lobby.routes import watch
from chuhan.web.lobby.service import ChallengeNews, Lobby
from chuhan.web.lobby.socket import lobby_socket
from chuhan.web.notices.repository import ChallengeAnswer
from chuhan.web.notices.routes import (
    add_push,
    confirm_page,
    notice_settings,
    push_key,
    remove_push,
    save_notice_settings,
    service_worker,
    unsubscribe_page,
)
from chuhan.web.notices.service import Notices
from chuhan.web.puzzles.routes import (
    daily_puzzle,
    puzzle,
    puzzle_hint,
    puzzle_list,
    puzzle_move,
    puzzle_solution,
)
from chuhan.web.round.manager import GameManager
from chuhan.web.round.reads import GameReads
from chuhan.web.round.routes import (
    analysis,
    create_game,
    export_fen,
    export_pgn,
    game_state,
    my_games,
    options,
)
from chuhan.web.round.socket import game_socket
from chuhan.web.settings import Settings
from chuhan.web.sockets.sessions import SESSION_NOTICE
from chuhan.web.tournaments.live import NOTICE_KIND as TOURNAMENT_NOTICE
from chuhan.web.tournaments.routes import (
    add_computer,
    berserk,
    correct_result,
    create_tournament,
    current_game,
    edit_player,
    enter_moves,
    enter_player,
    enter_result,
    join_tournament,
    keep_apart,
    list_tournaments,
    pair_round,
    pause_player,
    pause_tournament,
    player_bye,
    print_page,
    remove_player,
    request_bye,
    resume_tournament,
    tournament,
    tournament_games,
    tournament_pgn,
    tournament_trf,
    unpair_round,
    withdraw_tournament,
)
from chuhan.web.tournaments.service import TournamentService
from chuhan.web.tournaments.socket import tournament_socket

__all__ = ["STATIC_DIR", "create_app"]


def create_app(
    db: str | Path | Store,
    *,
    now: Callable[[], float] = time.time,
    compute: Compute | None = None,
    static_dir: Path | None = None,
    settings: Settings | None = None,
    explorer_index: str | Path | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Starlette:
    """The web app on the game database ``db`` (a SQLite file path, or an open store).

    ``now`` is the wall clock in seconds (tests pass a fake one), ``compute`` the computer
    players (default: chuhan's engine in worker processes), ``settings`` the limits and
    options (:class:`~chuhan.web.settings.Settings`), ``explorer_index`` the opening
    explorer's index, a SQLite file or a PostgreSQL address (default: the game database
    when it is PostgreSQL, else :func:`chuhan.explorer.default_index_path`; the masters
    are built into it in the background when they are not there), ``sleep`` the pause between
    two tries of a mail or a push (tests pass one that waits on no wall clock).
    """
    static = static_dir or STATIC_DIR
    the_settings = settings or Settings()
    the_compute: Compute = compute or ProcessCompute(settings=the_settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = db if not isinstance(db, (str, Path)) else open_store(db)
        await store.open()
        bus = Bus(store)
        manager = GameManager(
            store,
            the_compute,
            bus,
            now,
            the_settings,
        )
        context = ServerContext(the_settings, store, the_compute, bus, manager, now)
        context.accounts = AccountService(the_settings, store, bus, context.sessions)
        accounts_store = context.accounts.repository

        async def rate_rematch(old: GameRow, new: GameRow) -> None:
            await accounts_store.carry_rated(old.id, new.id, new.created)

        manager.rematch_hooks.append(rate_rematch)
        context.lobby = Lobby(the_settings, store, manager, context.accounts, now)
        context.analysis = AnalysisService(the_settings, the_compute, manager)
        context.reads = GameReads(manager, the_settings)
        context.tournaments = TournamentService(
            store, manager, context.accounts, bus, now, the_settings
        )
        context.correspondence = Correspondence(
            store, manager, now, vacation_days_per_year=the_settings.vacation_days_per_year
        )
        context.notices = Notices(store, the_settings, context.sessions, now, sleep)
        notices = context.notices

        def tell_of_challenge(news: ChallengeNews) -> None:
            # (each starts a task and returns: no answer in the lobby waits on a push
            # service or the store's write of the digest's line)
            seek = news.seek
            if news.what == "sent":
                if seek.target is not None:
                    notices.notify(seek.target, "challenge", "/", name=seek.name)
                return
            if seek.account_id is None:
                return
            control = seek.time_control or {}
            answer = ChallengeAnswer(
                seek_id=seek.id,
                outcome=news.what,
                name=seek.target_name or "",
                variant=seek.game,
                days=int(control["days"]) if control.get("days") else None,
                url=news.url,
                at=now(),
            )
            notices.tell_answer(seek.account_id, answer)

        context.lobby.challenge_hooks.append(tell_of_challenge)
        context.reads.start()
        explorer_location = index_location(explorer_index, getattr(store, "url", None))
        context.explorer = ExplorerService(explorer_location)
        # (with the server's read worker: chuhan serve; the app alone builds when asked)
        context.explorer.start(build=the_settings.read_worker_at_start)
        site_games = SiteGames(
            store,
            manager,
            context.accounts.repository,
            old_file=site_index_path(
                default_index_path() if is_index_url(explorer_location) else explorer_location
            ),
        )
        context.site_games = site_games
        app.state.context = context
        app.state.manager = manager
        await app.state.context.accounts.start()
        ratings = RatingKeeper(store, bus, now, the_settings.rating_sweep_seconds)
        await manager.start()
        context.correspondence.start()
        context.notices.start()
        ratings.start()
        context.tournaments.start()
        site_games.start(bus)
        await app.state.context.lobby.start()
        await context.holdings.start()
        manager.listeners[SESSION_NOTICE] = context.sessions.hear  # (and resync)
        manager.listeners[TOURNAMENT_NOTICE] = context.tournaments.live.hear
        accounts = context.accounts.repository
        context.sessions.start(
            lambda keys: accounts.live_sessions(keys, now()), the_settings.session_sweep_seconds
        )
        try:
            yield
        finally:
            context.sessions.close()
            context.tournaments.close()
            await context.tournaments.release()
            context.correspondence.close()
            app.state.context.lobby.close()
            await context.notices.aclose()  # (after the lobby: it hands the notices work)
            app.state.context.analysis.close()
            ratings.close()
            manager.close()
            the_compute.close()
            app.state.context.import_workers.close()
            context.reads.close()
            await site_games.close()
            context.explorer.close()
            await context.holdings.close()
            await store.close()

    routes = [
        Route("/", page),
        Route("/g/{game_id}", page),
        Route("/w/{game_id}", page),
        Route("/api/options", api(options)),
        Route("/api/games", api(create_game), methods=["POST"]),
        Route("/api/games/mine", api(my_games), methods=["POST"]),
        Route("/api/games/{game_id}", api(game_state)),
        Route("/api/games/{game_id}/pgn", api(export_pgn)),
        Route("/api/games/{game_id}/fen", api(export_fen)),
        Route("/api/games/{game_id}/analysis", api(analysis), methods=["POST"]),
        Route("/api/games/{game_id}/rating", api(game_rating)),
        Route("/api/import", api(import_record), methods=["POST"]),
        Route("/api/account", api(account)),
        Route("/api/account/games", api(your_games)),
        Route("/api/account/vacation", api(vacation)),
        Route("/api/account/vacation", api(take_vacation), methods=["POST"]),
        Route("/api/account/vacation", api(end_vacation), methods=["DELETE"]),
        Route("/api/account/notices", api(notice_settings)),
        Route("/api/account/notices", api(save_notice_settings), methods=["POST"]),
        Route("/api/account/push", api(add_push), methods=["POST"]),
        Route("/api/account/push", api(remove_push), methods=["DELETE"]),
        Route("/api/push/key", api(push_key)),
        Route("/sw.js", service_worker),
        Route("/notices/unsubscribe", unsubscribe_page, methods=["GET", "POST"]),
        Route("/notices/confirm", confirm_page, methods=["GET", "POST"]),
        Route("/games", page),
        Route("/api/account/signup", api(sign_up), methods=["POST"]),
        Route("/api/account/signin", api(sign_in), methods=["POST"]),
        Route("/api/account/signout", api(sign_out), methods=["POST"]),
        Route("/api/account/password", api(change_password), methods=["POST"]),
        Route("/api/account/delete", api(delete_account), methods=["POST"]),
        Route("/api/players/{name}", api(player)),
        Route("/api/leaderboard/{game}", api(leaderboard)),
        Route("/api/lobby/watch", api(watch)),
        Route("/p/{name}", page),
        Route("/t/{tournament_id}", page),
        Route("/t/{tournament_id}/print/{kind}", print_page),
        Route("/puzzles", page),
        Route("/puzzles/{puzzle_id}", page),
        Route("/api/puzzles", api(puzzle_list)),
        Route("/api/puzzles/daily", api(daily_puzzle)),
        Route("/api/puzzles/{puzzle_id}", api(puzzle)),
        Route("/api/puzzles/{puzzle_id}/move", api(puzzle_move), methods=["POST"]),
        Route("/api/puzzles/{puzzle_id}/hint", api(puzzle_hint), methods=["POST"]),
        Route("/api/puzzles/{puzzle_id}/solution", api(puzzle_solution), methods=["POST"]),
        Route("/analysis", page),
        Route("/api/tournaments", api(create_tournament), methods=["POST"]),
        Route("/api/tournaments", api(list_tournaments)),
        Route("/api/tournaments/{tournament_id}", api(tournament)),
        Route("/api/tournaments/{tournament_id}/games", api(tournament_games)),
        Route("/api/tournaments/{tournament_id}/join", api(join_tournament), methods=["POST"]),
        Route(
            "/api/tournaments/{tournament_id}/withdraw",
            api(withdraw_tournament),
            methods=["POST"],
        ),
        Route("/api/tournaments/{tournament_id}/pair", api(pair_round), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/pause", api(pause_tournament), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/resume", api(resume_tournament), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/bye", api(request_bye), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/bye/cancel", api(request_bye), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/game", api(current_game), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/berserk", api(berserk), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/computer", api(add_computer), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/result", api(enter_result), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/forbid", api(keep_apart), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/players", api(enter_player), methods=["POST"]),
        Route(
            "/api/tournaments/{tournament_id}/players/{number:int}",
            api(edit_player),
            methods=["POST"],
        ),
        Route(
            "/api/tournaments/{tournament_id}/players/{number:int}",
            api(remove_player),
            methods=["DELETE"],
        ),
        Route(
            "/api/tournaments/{tournament_id}/players/{number:int}/pause",
            api(pause_player),
            methods=["POST"],
        ),
        Route(
            "/api/tournaments/{tournament_id}/players/{number:int}/resume",
            api(pause_player),
            methods=["POST"],
        ),
        Route(
            "/api/tournaments/{tournament_id}/players/{number:int}/bye",
            api(player_bye),
            methods=["POST"],
        ),
        Route(
            "/api/tournaments/{tournament_id}/players/{number:int}/bye/cancel",
            api(player_bye),
            methods=["POST"],
        ),
        Route("/api/tournaments/{tournament_id}/unpair", api(unpair_round), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/correct", api(correct_result), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/moves", api(enter_moves), methods=["POST"]),
        Route("/api/tournaments/{tournament_id}/trf", api(tournament_trf)),
        Route("/api/tournaments/{tournament_id}/pgn", api(tournament_pgn)),
        Route("/api/explorer", api(explorer_lookup)),
        Route("/api/explorer/games/{game_id}", api(explorer_game)),
        Route("/api/explorer/search", api(explorer_search)),
        WebSocketRoute("/ws/lobby", lobby_socket),  # (before the games': no game is "lobby")
        WebSocketRoute("/ws/analysis", analysis_socket),  # (nor "analysis")
        WebSocketRoute("/ws/t/{tournament_id}", tournament_socket),
        WebSocketRoute("/ws/{game_id}", game_socket),
        Mount("/static", StaticFiles(directory=static, check_dir=False), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={404: not_routed, 405: not_routed},
    )
    app.state.static_dir = static
    app.add_middleware(SecurityHeaders)
    return app

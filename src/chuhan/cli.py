"""The ``chuhan`` command: ``perft``, ``moves``, ``play``, ``serve``, ``backup`` and more."""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chuhan import BUILD, __version__
from chuhan.board import Board
from chuhan.errors import ChuhanError, ServiceError
from chuhan.perft import divide, perft
from chuhan.variants import GAMES

if TYPE_CHECKING:
    from chuhan.explorer import PositionStats


def _add_position_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--variant", default="xiangqi", choices=GAMES, help="game (default xiangqi)"
    )
    parser.add_argument(
        "--rules",
        default=None,
        help="rule set: xiangqi asian|chinese, janggi official|traditional|modern|classic",
    )
    parser.add_argument("--fen", default=None, help="start position (default: the start)")
    parser.add_argument(
        "--moves", nargs="*", default=[], metavar="M", help="ICCS moves played from the position"
    )


def _board_from(args: argparse.Namespace) -> Board:
    board = Board(args.fen, variant=args.variant, rules=args.rules)
    for text in args.moves:
        board.push_iccs(text)
    return board


def _cmd_perft(args: argparse.Namespace) -> int:
    board = _board_from(args)
    if args.divide and args.depth >= 1:
        total = 0
        for move, count in divide(board, args.depth):
            print(f"{move} {count}")
            total += count
        print()
        print(total)
    else:
        print(perft(board, args.depth))
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    board = _board_from(args)
    print(" ".join(str(move) for move in board.legal_moves))
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    if not args.terminal:
        from chuhan.web.server import play

        return play(args.port, args.db, open_browser=not args.no_browser)
    from chuhan.terminal import play_terminal

    return play_terminal(variant=args.variant, rules=args.rules, fen=args.fen, letters=args.letters)


def _positive_int(text: str) -> int:
    """An argument that must be a whole number of at least 1."""
    if not (text.isascii() and text.isdigit() and len(text) <= 9) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, got {text[:20]!r}")
    return int(text)


def _positive_seconds(text: str) -> float:
    """An argument that must be a number of seconds above 0 (at most a day)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= 86400:
        raise argparse.ArgumentTypeError(f"must be seconds from 0 to 86400, got {text[:20]!r}")
    return seconds


def _cmd_serve(args: argparse.Namespace) -> int:
    from chuhan.web.server import serve

    limits: dict[str, Any] = {"trust_proxy": args.trust_proxy}
    if args.max_watchers is not None:
        limits["max_watchers_per_game"] = args.max_watchers
    if args.max_sockets_per_address is not None:
        limits["max_sockets_per_address"] = args.max_sockets_per_address
    if args.setup_seconds is not None:
        limits["setup_seconds"] = args.setup_seconds
    if args.abandon_seconds is not None:
        limits["abandon_seconds"] = args.abandon_seconds
    if args.first_move_seconds is not None:
        limits["first_move_seconds"] = args.first_move_seconds
    if args.chat_every_seconds is not None:
        limits["chat_every_seconds"] = args.chat_every_seconds
    if args.analysis_engine is not None:
        limits["analysis_engine"] = _engine_command(args.analysis_engine)
        limits["analysis_engine_protocol"] = args.analysis_engine_protocol
    if args.analysis_engine_start_seconds is not None:
        limits["analysis_engine_start_seconds"] = args.analysis_engine_start_seconds
    if args.analysis_seconds is not None:
        limits["analysis_seconds"] = args.analysis_seconds
    limits.update(mail_settings(args, os.environ))
    return serve(args.host, args.port, args.db, limits=limits, explorer_db=args.explorer_db)


def mail_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, Any]:
    """The e-mail digests' settings from ``chuhan serve``'s flags; the SMTP password from
    the environment's ``CHUHAN_SMTP_PASSWORD`` (a flag would show it in the process list)."""
    found: dict[str, Any] = {}
    if args.smtp_host is not None and importlib.util.find_spec("aiosmtplib") is None:
        from chuhan.web.server import ServeError

        raise ServeError(
            f"--smtp-host {args.smtp_host}: sending mail needs aiosmtplib "
            "(pip install 'chuhan[notices]')"
        )
    for name in ("smtp_host", "smtp_port", "smtp_from", "smtp_user", "public_url"):
        if getattr(args, name) is not None:
            found[name] = getattr(args, name)
    if args.smtp_starttls:
        found["smtp_starttls"] = True
    if args.notice_away_minutes is not None:
        found["notice_away_minutes"] = args.notice_away_minutes
    if args.notice_digest_minutes is not None:
        found["notice_digest_minutes"] = args.notice_digest_minutes
    password = environ.get("CHUHAN_SMTP_PASSWORD")
    if password:
        found["smtp_password"] = password
    return found


def _engine_command(text: str) -> str:
    """The ``--analysis-engine`` command, checked: it splits like a shell line and names a
    program that can be found (else the error says which)."""
    import shlex
    import shutil

    from chuhan.web.server import ServeError

    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ServeError(f"--analysis-engine {text!r} cannot be read: {error}") from None
    if not words:
        raise ServeError("--analysis-engine is empty: give the engine's command line")
    if shutil.which(words[0]) is None:
        raise ServeError(f"--analysis-engine: no program {words[0]!r} found (give its path)")
    return text


def _cmd_backup(args: argparse.Namespace) -> int:
    from chuhan.web.db import StoreError, is_database_url, shown_location
    from chuhan.web.db.backup import backup_database
    from chuhan.web.server import database_location

    source = database_location(args.db)
    if is_database_url(source):
        raise StoreError(
            f"chuhan backup copies a SQLite game database; {shown_location(source)} is a "
            "PostgreSQL database: back it up with pg_dump (or a replica)"
        )
    print(f"chuhan: {backup_database(source, args.dest, force=args.force).describe()}")
    return 0


def _cmd_db_copy(args: argparse.Namespace) -> int:
    import asyncio

    from chuhan.web.db import StoreError, is_database_url
    from chuhan.web.db.copy import copy_database

    if is_database_url(args.source):
        raise StoreError(f"SOURCE must be a SQLite game database file, got {args.source!r}")
    if not is_database_url(args.dest):
        raise StoreError(
            f"DEST must be a PostgreSQL address (postgresql://USER@HOST/DB), got {args.dest!r}"
        )
    if not Path(args.source).is_file():
        raise StoreError(f"no game database at {args.source}")
    print(f"chuhan: {asyncio.run(copy_database(args.source, args.dest)).describe()}")
    return 0


def _cmd_engine(args: argparse.Namespace) -> int:
    from chuhan.search.uci import serve

    return serve()


def _cmd_convert(args: argparse.Namespace) -> int:
    from chuhan.records import convert

    done = convert(
        args.input,
        args.output,
        format=args.format,
        encoding=args.encoding,
        out_encoding=args.out_encoding,
        rules=args.rules,
        skip_errors=args.skip_errors,
    )
    print(f"converted {done.written} game{'s' if done.written != 1 else ''}")
    if done.skipped:
        count = len(done.skipped)
        print(f"skipped {count} game{'s' if count != 1 else ''} with errors:", file=sys.stderr)
        for error in done.skipped:
            print(f"  {error}", file=sys.stderr)
    if done.cut:
        count = len(done.cut)
        said = "variation that does not read" if count == 1 else "variations that do not read"
        print(f"left out {count} {said}:", file=sys.stderr)
        for error in done.cut:
            print(f"  {error}", file=sys.stderr)
    for warning in done.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def adjudicate_line(line: str) -> dict[str, object]:
    """Judge one JSON request (see ``chuhan adjudicate --help``); errors become
    ``{"error": ...}`` naming what was wrong."""
    import json

    from chuhan.game import Game

    try:
        request = json.loads(line)
    except json.JSONDecodeError as error:
        return {"error": f"invalid JSON {line.strip()[:80]!r}: {error.msg} at column {error.colno}"}
    if not isinstance(request, dict):
        return {"error": f"expected a JSON object, got {type(request).__name__}"}
    try:
        variant = request.get("variant", "xiangqi")
        rules = request.get("rules")
        fen = request.get("fen")
        moves = request.get("moves", [])
        setup = request.get("setup")
        repetitions = request.get("repetitions", 3)
        if not isinstance(variant, str) or not (rules is None or isinstance(rules, str)):
            return {"error": "'variant' and 'rules' must be strings"}
        if not (fen is None or isinstance(fen, str)):
            return {"error": "'fen' must be a string"}
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            return {"error": "'moves' must be a list of move strings"}
        if not isinstance(repetitions, int) or isinstance(repetitions, bool):
            return {"error": "'repetitions' must be a whole number"}
        if setup is not None and (
            not isinstance(setup, dict) or not all(isinstance(v, str) for v in setup.values())
        ):
            return {"error": '\'setup\' must be an object like {"cho": "마상마상", "han": ...}'}
        if setup is not None and not set(setup) <= {"cho", "han"}:
            unknown = ", ".join(sorted(set(setup) - {"cho", "han"}))
            return {"error": f"'setup' has unknown keys ({unknown}): expected 'cho' and 'han'"}
        start = fen
        game_variant = variant.split(":")[0].strip().lower()
        if game_variant == "janggi" and fen is None and setup is None:
            from chuhan.variants import JANGGI_START_FEN

            start = JANGGI_START_FEN
        game = Game.new(variant, rules, fen=start, setup=setup, repetitions=repetitions)
        from chuhan.notation import parse_move

        # The moves are a record to judge as it stands: they are checked for legality
        # only, and the referee rules on the final position (a casebook line ends on the
        # repetition it is about, even if an earlier position also came back three times).
        for index, text in enumerate(moves, 1):
            try:
                game.board.push(parse_move(game.board, text))
            except ChuhanError as error:
                return {"error": f"move {index} ({text!r}): {error}"}
    except ChuhanError as error:
        return {"error": str(error)}
    outcome = game.outcome()
    if outcome is None:
        return {"over": False, "winner": None, "termination": None, "reason": None}
    winner = None if outcome.winner is None else game.variant.side_name(outcome.winner)
    return {
        "over": True,
        "winner": winner,
        "termination": outcome.termination.value,
        "reason": outcome.reason,
        "points": outcome.points,
    }


def _cmd_adjudicate(args: argparse.Namespace) -> int:
    import json

    for line in sys.stdin:
        if not line.strip():
            continue
        print(json.dumps(adjudicate_line(line), ensure_ascii=False), flush=True)
    return 0


def _cmd_match(args: argparse.Namespace) -> int:
    from chuhan.match import match_from_arguments

    return match_from_arguments(args)


def _import_progress(stream: Any) -> Any:
    """A progress line for an import, rewritten in place at most five times a second."""
    from chuhan.explorer import ImportSummary

    shown = [0.0]

    def show(summary: ImportSummary) -> None:
        import time

        now = time.monotonic()
        if now - shown[0] >= 0.2:
            shown[0] = now
            print(
                f"\r{summary.files:,} files: {summary.games:,} games, {summary.others:,} "
                f"other records, {summary.duplicates:,} duplicates, "
                f"{len(summary.refused):,} refused",
                end="",
                file=stream,
                flush=True,
            )

    return show


def _padded(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns of a terminal, where a Chinese or
    full-width character takes two."""
    import unicodedata

    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - columns)


def _site_lookup(location: str | None, board: Board) -> PositionStats:
    """The site source's answer for ``board`` from the server's game database at
    ``location`` (as ``chuhan serve`` finds it: ``--db``, else ``$CHUHAN_DB``, else the
    user data folder's file), read beside a server that may be using it."""
    import asyncio

    from chuhan.explorer import SITE, position_key, position_stats
    from chuhan.web.db import is_database_url
    from chuhan.web.db.sqlite import read_file
    from chuhan.web.explorer.repository import site_position
    from chuhan.web.server import database_location

    where = database_location(location)
    body = site_position(board.variant.game, position_key(board), None, None)
    if not is_database_url(where):
        rows, games = read_file(where, body)
        return position_stats(board, SITE, rows, games)

    async def read() -> PositionStats:
        from chuhan.web.db.postgres import PostgresStore
        from chuhan.web.explorer.site import site_lookup

        store = PostgresStore(str(where))
        await store.open()
        try:
            return await site_lookup(store, board)
        finally:
            await store.close()

    return asyncio.run(read())


def _cmd_explorer(args: argparse.Namespace) -> int:
    import json

    from chuhan.explorer import (
        MASTERS,
        SITE,
        Explorer,
        ExplorerError,
        open_masters,
    )
    from chuhan.explorer.masters import CREDIT

    board = Board(args.fen, variant=args.variant)
    for text in args.moves:
        try:
            board.push_iccs(text)
        except ChuhanError as error:
            raise ExplorerError(f"--moves {text!r}: {error}") from None

    def announce(text: str) -> None:
        print(f"chuhan: {text}", file=sys.stderr, flush=True)

    if args.source == MASTERS:
        if board.variant.game != "xiangqi":
            raise ExplorerError(
                f"the masters are xiangqi games; a {board.variant.game} position "
                f"({board.fen()}) has none (ask another --source)"
            )
        progress = _import_progress(sys.stderr) if sys.stderr.isatty() else None
        explorer = open_masters(args.db, progress=progress, announce=announce)
        if progress is not None and explorer.built_now:
            print(file=sys.stderr)
    elif args.source == SITE:
        explorer = None
        stats = _site_lookup(args.game_db, board)
    else:
        explorer = Explorer(args.db)
    if explorer is not None:
        with explorer:
            stats = explorer.lookup(board, source=args.source)
    if args.json:
        answer = stats.to_json()
        if args.source == MASTERS:
            answer["credit"] = CREDIT
        print(json.dumps(answer, ensure_ascii=False))
        return 0
    if stats.opening is not None:
        print(f"Opening: {stats.opening.label()} ({stats.opening.name_en})")
    if stats.games == 0:
        print(f"No game of the {args.source} reached this position ({stats.fen}).")
        return 0
    print(
        f"{stats.games:,} games of the {args.source} reached this position ({stats.fen}): "
        f"Red won {stats.red_wins:,}, {stats.draws:,} draws, Black won {stats.black_wins:,}"
        + (f"; average year {stats.average_year:.0f}" if stats.average_year else "")
        + (f"; {stats.ended:,} ended here" if stats.ended else "")
    )
    if stats.moves:
        print(
            f"{'move':<6} {'WXF':<6} {'Chinese':<8} {'games':>7} {'red':>6} {'draws':>6} "
            f"{'black':>6} {'year':>6}  most recent game"
        )
    for move in stats.moves:
        year = f"{move.average_year:.0f}" if move.average_year else "-"
        recent = move.top_games[0] if move.top_games else None
        said = (
            f"{recent.red} - {recent.black}, {recent.date or '?'} (#{recent.id})"
            if recent is not None
            else ""
        )
        print(
            f"{move.iccs:<6} {move.wxf:<6} {_padded(move.chinese, 8)} {move.games:>7,} "
            f"{move.red_wins:>6,} {move.draws:>6,} {move.black_wins:>6,} {year:>6}  {said}"
        )
    if args.source == MASTERS:
        print(CREDIT)
    return 0


def _cmd_explorer_search(args: argparse.Namespace) -> int:
    import json

    from chuhan.explorer import MASTERS, Explorer, ExplorerError, open_masters
    from chuhan.explorer.masters import CREDIT

    board = None
    if args.fen is not None or args.moves:
        board = Board(args.fen)
        for text in args.moves:
            try:
                board.push_iccs(text)
            except ChuhanError as error:
                raise ExplorerError(f"--moves {text!r}: {error}") from None
    years = None
    if args.year is not None:
        first, _, last = args.year.partition("-")
        if not (first.isdigit() and (not last or last.isdigit())):
            raise ExplorerError(f"--year {args.year!r} is not a year or years (1990-1999)")
        years = (int(first), int(last or first))
    source = getattr(args, "source", MASTERS)
    if source == MASTERS and args.db is None:  # (an index named is searched as it is)
        explorer = open_masters(
            args.db, announce=lambda text: print(f"chuhan: {text}", file=sys.stderr)
        )
    else:
        explorer = Explorer(args.db)
    with explorer:
        found = explorer.search(
            source=source,
            player=args.player or "",
            red=args.red or "",
            black=args.black or "",
            event=args.event or "",
            years=years,
            result=args.result or "",
            ecco=args.ecco or "",
            board=board,
            limit=args.limit,
        )
    if args.json:
        answer = found.to_json()
        if source == MASTERS:
            answer["credit"] = CREDIT
        print(json.dumps(answer, ensure_ascii=False))
        return 0
    shown = len(found.games)
    print(f"{found.total:,} games match" + (f"; the {shown} most recent:" if shown else "."))
    for game in found.games:
        opening = game.ecco_opening
        named = f"{opening.code} {opening.name_en}" if opening is not None else "-"
        at = f", at ply {game.ply}" if game.ply is not None else ""
        print(
            f"#{game.id:<6} {game.date or '?':<10} {_padded(game.red, 12)} - "
            f"{_padded(game.black, 12)} {game.result:<7} {named}  {game.event}{at}"
        )
    if source == MASTERS and shown:
        print(CREDIT)
    return 0


def _cmd_explorer_import(args: argparse.Namespace) -> int:
    from chuhan.explorer import Explorer

    progress = _import_progress(sys.stderr)
    with Explorer(args.db) as explorer:
        summary = explorer.import_collection(
            args.files, source=args.source, variant=args.variant, progress=progress
        )
    print(file=sys.stderr)
    print(f"chuhan: imported {summary.describe()}")
    for refusal in summary.refused:
        print(f"  refused {refusal}", file=sys.stderr)
    return 0


#: What ``--db`` means to the explorer's commands.
EXPLORER_DB_HELP = (
    "the explorer's index: a SQLite file or a postgresql:// address (default: "
    "$CHUHAN_EXPLORER_DB, else explorer.sqlite3 in the user data dir)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chuhan", description="Xiangqi and janggi: rules, perft and play."
    )
    parser.add_argument(
        "--version", action="version", version=f"chuhan {__version__}, {BUILD.describe()}"
    )
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser(
        "perft",
        help="count the leaves of the legal-move tree",
        description=(
            "Counts the positions reached by every sequence of DEPTH legal moves from the "
            "position (the start, or --fen with --moves played): the move generator's test "
            "against other programs' counts. --divide prints the count under each first move."
        ),
    )
    p.add_argument("depth", type=int, help="plies to look ahead (1 or more)")
    _add_position_arguments(p)
    p.add_argument("--divide", action="store_true", help="print the count under each first move")
    p.set_defaults(func=_cmd_perft)

    p = commands.add_parser(
        "moves",
        help="print the legal moves in ICCS",
        description=(
            "Prints the legal moves of the position (the start, or --fen with --moves "
            "played) in ICCS coordinates (h2e2; ranks 0-9), one a line."
        ),
    )
    _add_position_arguments(p)
    p.set_defaults(func=_cmd_moves)

    p = commands.add_parser(
        "convert",
        help="convert a game record (.pgn .gib .xqf .cbf .txt, DhtmlXQ) to another format",
        description=(
            "Reads the games of INPUT and writes them to OUTPUT in the format its extension "
            "names (.pgn, .gib, .xqf or .txt), moves checked against the rules on the way."
        ),
    )
    p.add_argument(
        "input",
        help="the record to read: .pgn, .gib, .xqf, .cbf (CCBridge), .txt, DhtmlXQ in a .ubb "
        "file or a web page; its format is told from its contents where they show it",
    )
    p.add_argument("output", help="the file to write (.pgn, .gib, .xqf or .txt)")
    p.add_argument(
        "--format",
        default=None,
        choices=["iccs", "wxf", "chinese", "chinese-simplified", "korean", "san"],
        help="move notation in PGN output (default iccs): chinese is in traditional "
        "characters (傌二進三), chinese-simplified in simplified ones (马二进三); korean "
        "(GIB coordinates, 02마83) is for janggi games only",
    )
    p.add_argument(
        "--encoding",
        default=None,
        help="the input's text encoding, e.g. utf-8, gb18030, big5, euc-kr (default: detected)",
    )
    p.add_argument(
        "--out-encoding",
        default="utf-8",
        choices=["utf-8", "euc-kr"],
        help="GIB output encoding (default utf-8)",
    )
    p.add_argument("--rules", default=None, help="rule set to read the games under")
    p.add_argument(
        "--skip-errors",
        action="store_true",
        help="write the games that read cleanly and list the others (by number) on stderr; "
        "a game whose only errors are variations that do not read is written without them",
    )
    p.set_defaults(func=_cmd_convert)

    p = commands.add_parser(
        "adjudicate",
        help="judge games given as JSON lines on stdin",
        description=(
            'Reads one JSON object per line: {"variant": "xiangqi", "rules": "asian", '
            '"fen": "...", "moves": ["h2e2", ...], "setup": {"cho": "...", "han": "..."}, '
            '"repetitions": 3} (all but moves optional), and writes one JSON line each: '
            '{"over": true, "winner": "red"|"black"|"cho"|"han"|null, "termination": "...", '
            '"reason": "...", "points": {...}} or {"error": "..."}.'
        ),
    )
    p.set_defaults(func=_cmd_adjudicate)

    p = commands.add_parser(
        "engine",
        help="run chuhan's engine over UCI or UCCI on stdin/stdout (for GUIs)",
        description=(
            "Speaks UCI (answering 'uci') or UCCI (answering 'ucci') on stdin/stdout. "
            "Options: UCI_Variant xiangqi|janggi, Rules, Hash, MultiPV, Skill Level 1-8, "
            "UCI_Coordinates auto|ranks-0-9|ranks-1-10, Ponder."
        ),
    )
    p.set_defaults(func=_cmd_engine)

    p = commands.add_parser(
        "match",
        help="play a match between two UCI/UCCI engines",
        description=(
            "Plays colour-swapped pairs of games between ENGINE1 and ENGINE2 (command lines, "
            "split like a shell), refereed by chuhan, and prints the score and Elo difference "
            "of ENGINE1."
        ),
    )
    p.add_argument("engine1", help='first engine command line, e.g. "pikafish"')
    p.add_argument("engine2", help="second engine command line")
    p.add_argument("--variant", default="xiangqi", choices=GAMES, help="game (default xiangqi)")
    p.add_argument("--rules", default=None, help="rule set (default: the game's default)")
    p.add_argument(
        "--games",
        type=int,
        default=None,
        help="number of games (default 2; with --sprt the most played, default 20000)",
    )
    p.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        default=None,
        metavar=("ELO0", "ELO1"),
        help="stop when a sequential test over the colour-swapped pairs accepts H0 "
        "(ENGINE1 is ELO0 stronger) or H1 (ELO1 stronger), e.g. --sprt 0 5",
    )
    p.add_argument(
        "--alpha", type=float, default=0.05, help="--sprt: false-positive rate (default 0.05)"
    )
    p.add_argument(
        "--beta", type=float, default=0.05, help="--sprt: false-negative rate (default 0.05)"
    )
    p.add_argument(
        "--tc",
        default="movetime:0.1",
        help="movetime:S | depth:N | nodes:N | [M/]BASE[+INC][|PxS], BASE in seconds "
        "(or 5m), byo-yomi P periods of S seconds (default movetime:0.1)",
    )
    p.add_argument(
        "--tc2",
        default=None,
        help="engine 2's own movetime:S | depth:N | nodes:N (a handicap; default: --tc)",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--openings", help="openings file: .pgn, or FEN / ICCS moves a line")
    source.add_argument(
        "--random-plies",
        type=int,
        default=None,
        metavar="K",
        help="open with K random plies (default 4 without --openings, since engines that "
        "search the same way would play the same pair of games every time; 0: the start)",
    )
    p.add_argument(
        "--janggi-setup",
        default="default",
        choices=["default", "random"],
        help="janggi arrangements: 마상상마 both (default) or random per pair",
    )
    p.add_argument("--pgn", help="write the games to this PGN file")
    p.add_argument("--concurrency", type=int, default=1, help="games played at once")
    p.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    for n in (1, 2):
        p.add_argument(
            f"--option{n}",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f"UCI option for engine {n} (repeatable), e.g. 'Skill Level=3'",
        )
        p.add_argument(
            f"--protocol{n}",
            default="uci",
            choices=["uci", "ucci"],
            help=f"protocol engine {n} speaks: uci (Pikafish, Fairy-Stockfish; the default) "
            "or ucci (ElephantEye)",
        )
        p.add_argument(
            f"--coordinates{n}",
            default=None,
            choices=["ranks-0-9", "ranks-1-10"],
            help="rank numbering (default: detected)",
        )
    p.add_argument(
        "--max-plies",
        type=int,
        default=400,
        help="draw after this many plies if the rule set has no move limit (default 400)",
    )
    p.add_argument(
        "--time-margin",
        type=float,
        default=1.0,
        help="movetime only: seconds over the movetime before a move loses on time (default 1)",
    )
    p.set_defaults(func=_cmd_match)

    p = commands.add_parser(
        "serve",
        help="run the web app (play in the browser, invite friends, watch)",
        description=(
            "Serves the web app and prints its URL. Games are kept in a SQLite file (one "
            "server) or in a PostgreSQL database (--db postgresql://USER@HOST/DB: any number "
            "of servers, on one machine or many, behind one address)."
        ),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: all)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument(
        "--db",
        default=None,
        help="game database: a SQLite file or a postgresql:// address (default: $CHUHAN_DB, "
        "else a file in the user data dir)",
    )
    p.add_argument(
        "--explorer-db",
        default=None,
        metavar="PATH|URL",
        help="the opening explorer's index: a SQLite file or a postgresql:// address "
        "(default: the game database when it is PostgreSQL, one index for every server; "
        "else $CHUHAN_EXPLORER_DB, else explorer.sqlite3 in the user data dir)",
    )
    p.add_argument(
        "--trust-proxy",
        action="store_true",
        help="behind a reverse proxy: take each client's address from the X-Forwarded-For "
        "header it adds (for the per-address limits); never without such a proxy",
    )
    p.add_argument(
        "--max-watchers",
        type=_positive_int,
        default=None,
        help="watchers one game admits at once (default 500)",
    )
    p.add_argument(
        "--max-sockets-per-address",
        type=_positive_int,
        default=None,
        help="websockets one client address may hold open (default 64)",
    )
    p.add_argument(
        "--setup-seconds",
        type=_positive_seconds,
        default=None,
        help="seconds a janggi player has to choose an arrangement before the default is "
        "chosen for them (default 60)",
    )
    p.add_argument(
        "--abandon-seconds",
        type=_positive_seconds,
        default=None,
        help="seconds a player must be gone from a timed game before the opponent may "
        "claim the win or a draw (default 30)",
    )
    p.add_argument(
        "--chat-every-seconds",
        type=_positive_seconds,
        default=None,
        help="after a burst of 5 chat lines, one more every so many seconds per player or "
        "spectator in a game (default 2)",
    )
    p.add_argument(
        "--smtp-host",
        default=None,
        help="the SMTP server the e-mail digests go through (none: no mail is sent)",
    )
    p.add_argument("--smtp-port", type=_positive_int, default=None, help="its port (25)")
    p.add_argument("--smtp-from", default=None, help="the digests' sender address")
    p.add_argument("--smtp-starttls", action="store_true", help="use STARTTLS")
    p.add_argument(
        "--smtp-user",
        default=None,
        help="sign in to the SMTP server as this user (the password from the environment's "
        "CHUHAN_SMTP_PASSWORD)",
    )
    p.add_argument(
        "--public-url",
        default=None,
        help="the address the links in a mail start with (https://xiangqi.example)",
    )
    p.add_argument(
        "--notice-away-minutes",
        type=_positive_int,
        default=None,
        help="minutes a player must be away, their move waiting, before a digest (15)",
    )
    p.add_argument(
        "--notice-digest-minutes",
        type=_positive_int,
        default=None,
        help="one digest at most per account every so many minutes (360)",
    )
    p.add_argument(
        "--first-move-seconds",
        type=_positive_seconds,
        default=None,
        help="seconds a player has to make a first move once the opponent has made theirs, "
        "after which the opponent may abort the game (default 30)",
    )
    p.add_argument(
        "--analysis-engine",
        metavar="CMD",
        default=None,
        help="an external UCI/UCCI engine for the analysis board and game reviews (a command "
        "line, e.g. 'pikafish' or 'fairy-stockfish'); default: chuhan's own engine",
    )
    p.add_argument(
        "--analysis-engine-protocol",
        choices=["uci", "ucci"],
        default="uci",
        help="the protocol the --analysis-engine speaks (default uci)",
    )
    p.add_argument(
        "--analysis-engine-start-seconds",
        type=_positive_seconds,
        default=None,
        metavar="S",
        help="how long the --analysis-engine may take to start and to answer each "
        "handshake (default 30)",
    )
    p.add_argument(
        "--analysis-seconds",
        type=_positive_seconds,
        default=None,
        help="engine time the analysis board gives a position before it waits to be asked "
        "for more (default 30)",
    )
    p.set_defaults(func=_cmd_serve)

    p = commands.add_parser(
        "backup",
        help="copy the game database to a file, safely, even while a server uses it",
        description=(
            "Copies the game database (with what its write-ahead log holds) to DEST as one "
            "complete file, using SQLite's backup API: safe while a server is serving the "
            "same games, which goes on meanwhile. Copying the .sqlite3 file by hand while a "
            "server runs can miss the last games. To restore a copy, stop the server, put "
            "the copy in place of the database and delete the database's -wal and -shm "
            "files if they are there."
        ),
    )
    p.add_argument("dest", metavar="DEST", help="the file to write")
    p.add_argument("--db", default=None, help="game database (default: the user data dir)")
    p.add_argument("--force", action="store_true", help="replace DEST if it exists")
    p.set_defaults(func=_cmd_backup)

    p = commands.add_parser(
        "db",
        help="game database tools (copy a SQLite database into PostgreSQL)",
        description="Tools for the web app's game database.",
    )
    db_commands = p.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    q = db_commands.add_parser(
        "copy",
        help="copy a SQLite game database into an empty PostgreSQL database",
        description=(
            "Copies every game, seat link, event and chat line of the SQLite game database "
            "SOURCE into the PostgreSQL database DEST, which must hold no games yet, in one "
            "transaction: a copy that fails leaves DEST as it was. Stop the server that "
            "uses SOURCE first (the copy is refused while one does)."
        ),
    )
    q.add_argument("source", metavar="SOURCE", help="the SQLite game database file")
    q.add_argument("dest", metavar="DEST", help="postgresql://USER@HOST/DB")
    q.set_defaults(func=_cmd_db_copy)

    p = commands.add_parser(
        "explorer",
        help="the moves masters played from a position (the opening explorer)",
        description=(
            "Prints the moves played from a position (the start, or --fen with --moves "
            "played) in the games of a source, each with its games, Red's wins, draws, "
            "Black's wins, average year and most recent game. The masters are the Chinese "
            "Chess Practical Dataset (Yu-Han Tseng, CC BY 4.0), shipped with chuhan and "
            "indexed on first use, once (a few minutes), into the user data folder (or the "
            "PostgreSQL database --db names). 'chuhan explorer import FILE...' adds other "
            "collections."
        ),
    )
    p.add_argument("--fen", default=None, help="the position (default: the start)")
    p.add_argument(
        "--moves", nargs="*", default=[], metavar="M", help="ICCS moves played from the position"
    )
    p.add_argument("--variant", default="xiangqi", choices=GAMES, help="game (default xiangqi)")
    p.add_argument(
        "--source",
        default="masters",
        help="the collection asked (default masters; site: the games that ended on the "
        "server whose game database --game-db names)",
    )
    p.add_argument(
        "--game-db",
        default=None,
        help="--source site: the server's game database, a SQLite file or a postgresql:// "
        "address (default: $CHUHAN_DB, else the file in the user data dir, as chuhan serve)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: the position's counts and each move's iccs, wxf, "
        "chinese, games, red_wins, draws, black_wins, average_year and top_games",
    )
    p.add_argument(
        "--db",
        default=None,
        help=EXPLORER_DB_HELP,
    )
    p.set_defaults(func=_cmd_explorer)
    explorer_commands = p.add_subparsers(dest="explorer_command", metavar="COMMAND")
    q = explorer_commands.add_parser(
        "import",
        help="add a collection of records to the explorer's index",
        description=(
            "Adds the games of record files, folders of them or archives (.zip, .tar, "
            ".tar.gz, .tar.xz, .tar.bz2) to the explorer's index, in one transaction: "
            "everything that reads goes in, or nothing does. Each file's format is told "
            "from its bytes (PGN, GIB, XQF, DhtmlXQ, CBF, the FEN + ICCS text form). A "
            "game already there is counted as a duplicate; a record that does not read, "
            "is of another game than the source's or has no move is refused, and the "
            "summary lists each with its reason. Only games from the start position count "
            "in the explorer; other records are kept as positions."
        ),
    )
    q.add_argument("files", nargs="+", metavar="FILE", help="record files, folders or archives")
    # SUPPRESS: an option given before the word import (chuhan explorer --db X import F)
    # is not undone by the subcommand's default.
    q.add_argument(
        "--source",
        default=argparse.SUPPRESS,
        help="the collection to add to (default masters)",
    )
    q.add_argument(
        "--variant",
        default=argparse.SUPPRESS,
        choices=GAMES,
        help="the game of a new source's records (default xiangqi)",
    )
    q.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help=EXPLORER_DB_HELP,
    )
    q.set_defaults(func=_cmd_explorer_import)
    q = explorer_commands.add_parser(
        "search",
        help="find games of the explorer's index by player, event, year, result, ECCO or position",
        description=(
            "Lists the games that match every criterion given, most recent first. Names "
            "match in any script or width: 杨官璘 finds 楊官璘. --ecco takes a code or its "
            "start (C7: C70-C79; the game's tag, else the code chuhan's classifier found); "
            "--fen and --moves give a position every game listed reached."
        ),
    )
    q.add_argument("--player", help="a player of either side (part of the name)")
    q.add_argument("--red", help="the red player (part of the name)")
    q.add_argument("--black", help="the black player (part of the name)")
    q.add_argument("--event", help="the event (part of its name)")
    q.add_argument("--year", help="a year or years: 1985 or 1980-1989")
    q.add_argument("--result", help="1-0, 0-1 or 1/2-1/2")
    q.add_argument("--ecco", help="an ECCO code or its start: C, C7, C70")
    q.add_argument("--fen", default=None, help="a position the games reached")
    q.add_argument(
        "--moves", nargs="*", default=[], metavar="M", help="ICCS moves played to that position"
    )
    q.add_argument("--limit", type=int, default=20, help="games listed (default 20, at most 500)")
    q.add_argument("--json", action="store_true", help="print one JSON object: total, games")
    q.add_argument(
        "--source", default=argparse.SUPPRESS, help="the collection searched (default masters)"
    )
    q.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help=EXPLORER_DB_HELP,
    )
    q.set_defaults(func=_cmd_explorer_search)

    p = commands.add_parser(
        "play",
        help="play a game: the web app in your browser (or --terminal)",
        description=(
            "Starts the web app on 127.0.0.1 (port 8000, or a free one if it is taken) and "
            "opens it in the browser; --terminal plays in this terminal instead."
        ),
    )
    p.add_argument(
        "--terminal", action="store_true", help="two players at one keyboard in this terminal"
    )
    p.add_argument("--variant", default="xiangqi", choices=GAMES, help="game (default xiangqi)")
    p.add_argument(
        "--rules",
        default=None,
        help="rule set: xiangqi asian|chinese, janggi official|traditional|modern|classic",
    )
    p.add_argument("--fen", default=None, help="start position (default: the start)")
    p.add_argument("--letters", action="store_true", help="draw pieces as letters, not characters")
    p.add_argument("--port", type=int, default=8000, help="web app port (default 8000)")
    p.add_argument("--db", default=None, help="game database (default: the user data dir)")
    p.add_argument("--no-browser", action="store_true", help="print the URL, open no browser")
    p.set_defaults(func=_cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "depth", 0) < 0:
        parser.error(f"depth must be >= 0, got {args.depth}")
    try:
        result: int = args.func(args)
    except (ChuhanError, ServiceError) as error:
        # Bad input, or a service that failed (an engine, the store): a sentence, no traceback.
        print(f"chuhan: error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:
        missing = (error.name or "").partition(".")[0]
        if missing in ("", "chuhan"):
            raise  # our own module is broken: a traceback helps
        # The library and the engine need only the standard library; the web app (and its
        # store) is the web extra.
        print(
            f"chuhan: error: 'chuhan {args.command}' needs the web extra ({missing} is not "
            "installed): pip install 'chuhan[web]'",
            file=sys.stderr,
        )
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())

"""``POST /api/import``: a PGN or XQF file stored as finished games to replay."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.records import GameRecord, RecordError, read_pgn, read_xqf
from chuhan.web.context import context_of
from chuhan.web.endpoints.common import HTTPError, limit_rate, read_body
from chuhan.web.protocol import clean_text

__all__ = ["import_record"]


async def import_record(request: Request) -> Response:
    context = context_of(request)
    settings = context.settings
    limit_rate(request, context.import_limiter, "imports")
    body = await read_body(request, settings.max_import_bytes)
    if not body:
        raise HTTPError(400, "empty", "the uploaded file is empty")
    fmt = request.query_params.get("format") or ("xqf" if body[:2] == b"XQ" else "pgn")
    if fmt not in ("pgn", "xqf"):
        raise HTTPError(400, "bad_field", f"'format' must be pgn or xqf, got {fmt[:20]!r}")
    try:
        records = [read_xqf(body)] if fmt == "xqf" else read_pgn(body)
    except RecordError as error:
        raise HTTPError(400, "bad_record", str(error)) from None
    if not records:
        raise HTTPError(400, "bad_record", "no game found in the file (is it a PGN file?)")
    imported: list[dict[str, Any]] = []
    errors: list[str] = []
    for index, record in enumerate(records):
        label = record.describe(index)
        errors.extend(f"{label}: {error}" for error in record.errors)
        if index >= settings.max_import_games:
            errors.append(
                f"{label}: not imported (at most {settings.max_import_games} games a file)"
            )
            continue
        moves = [m.iccs() for m in record.main_line_moves()]
        if not moves and record.errors:
            continue
        row = await context.manager.store_imported(
            record.variant,
            record.fen,
            moves,
            _imported_result(record),
            {k: clean_text(v)[:200] for k, v in list(record.headers.items())[:40]},
        )
        imported.append(
            {
                "game_id": row.id,
                "watch_url": f"/w/{row.id}",
                "variant": record.variant.game,
                "event": record.headers.get("Event", ""),
                "red": record.headers.get("Red", record.headers.get("White", "")),
                "black": record.headers.get("Black", ""),
                "result": record.result,
                "plies": len(moves),
            }
        )
    if not imported:
        raise HTTPError(400, "bad_record", "no game could be read: " + "; ".join(errors[:5]))
    return JSONResponse({"games": imported, "errors": errors}, status_code=201)


def _imported_result(record: GameRecord) -> dict[str, Any]:
    result = record.result
    variant = record.variant
    winner = {"1-0": "first", "0-1": "second"}.get(result)
    if winner is not None:
        name = variant.side_name(winner == "first")
        reason = f"{name.capitalize()} won (the record's result {result})."
    elif result == "1/2-1/2":
        reason = "Draw (the record's result)."
    else:
        reason = "The record gives no result."
    return {
        "winner": winner,
        "winner_name": None if winner is None else variant.side_name(winner == "first"),
        "termination": "imported",
        "reason": reason,
        "points": None,
        "result": result,
    }

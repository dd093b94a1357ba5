"""``POST /api/import``: a PGN, XQF, GIB or DhtmlXQ file stored as finished games to
replay. ``?format=`` names the format; without it the worker tells it from the bytes. The
file is read in a worker process with a deadline (:mod:`chuhan.web.imports.uploads`), never on the
event loop."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from chuhan.variants import get_variant
from chuhan.web.compute.workers import WorkerError, WorkersBusy, WorkerTimeout
from chuhan.web.context import context_of
from chuhan.web.http.common import HTTPError, limit_rate, read_body
from chuhan.web.imports.uploads import UPLOAD_FORMATS, Upload, UploadRefused, read_upload
from chuhan.web.sockets.protocol import clean_text

__all__ = ["import_record"]


async def import_record(request: Request) -> Response:
    context = context_of(request)
    settings = context.settings
    await limit_rate(request, "import", context.import_rate, "imports")
    body = await read_body(request, settings.max_import_bytes)
    if not body:
        raise HTTPError(400, "empty", "the uploaded file is empty")
    fmt = request.query_params.get("format") or "auto"
    if fmt not in UPLOAD_FORMATS:
        raise HTTPError(
            400,
            "bad_field",
            f"'format' must be one of {', '.join(UPLOAD_FORMATS)}, got {fmt[:20]!r}",
        )
    upload = Upload(body, fmt, settings.import_limits)
    try:
        games, errors = await context.import_workers.run(
            read_upload, upload, timeout=settings.import_seconds
        )
    except UploadRefused as error:
        raise HTTPError(400, "bad_record", str(error)) from None
    except WorkerTimeout:
        raise HTTPError(
            422,
            "too_slow",
            f"the file could not be read within {settings.import_seconds:g} s; "
            "split it into smaller files",
        ) from None
    except WorkersBusy:
        raise HTTPError(
            503, "busy", "the server is reading other files; try again shortly"
        ) from None
    except WorkerError as error:
        raise HTTPError(500, "internal", f"the file could not be read: {error}") from None
    if not games and not errors:
        raise HTTPError(
            400, "bad_record", "no game found in the file (is it a PGN, XQF, GIB or DhtmlXQ file?)"
        )
    imported: list[dict[str, Any]] = []
    for game in games:
        variant = get_variant(*game.variant.split(":"))
        row = await context.manager.store_imported(
            variant,
            game.fen,
            game.moves,
            game.result,
            {k: clean_text(v)[:200] for k, v in list(game.headers.items())[:40]},
        )
        imported.append(
            {
                "game_id": row.id,
                "watch_url": f"/w/{row.id}",
                "variant": variant.game,
                "event": _first(game.headers, "Event", "Title", "대회명"),
                "red": _first(game.headers, "Red", "White", "초대국자"),
                "black": _first(game.headers, "Black", "한대국자"),
                "result": game.result["result"],
                "plies": len(game.moves),
            }
        )
    if not imported:
        raise HTTPError(400, "bad_record", "no game could be read: " + "; ".join(errors[:5]))
    return JSONResponse({"games": imported, "errors": errors}, status_code=201)


def _first(headers: dict[str, str], *names: str) -> str:
    """The first of ``names`` the headers give (GIB and DhtmlXQ name things their way)."""
    return next((headers[name] for name in names if headers.get(name)), "")

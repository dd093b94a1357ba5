"""The README's screenshots, taken again: ``python tools/screenshots.py [--out docs/img]``.

It starts ``chuhan serve`` on a throwaway SQLite file (the browser tests' harness), imports a
real xiangqi record and a real janggi record, and photographs with Debian's chromium: the home
page, the analysis board, a game review, a puzzle and every board and piece set of both games.
Run it after a change to what these pages look like, and commit the pictures with the change.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser.harness import CHROMIUM, CHROMIUM_ARGS, Server  # noqa: E402

RECORDS = ROOT / "tests" / "data" / "records"
#: (game, board, pieces): each board and each piece set of each game, three pictures a game.
THEMES = [
    (game, board, pieces)
    for game in ("xiangqi", "janggi")
    for board, pieces in (("wood", "chinese"), ("paper", "letters"), ("dark", "pictures"))
]


def import_record(server: Server, path: Path) -> dict[str, Any]:
    """The first game of the record file at ``path``, imported through the web API."""
    request = urllib.request.Request(
        server.url + "/api/import", data=path.read_bytes(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        games: list[dict[str, Any]] = json.load(response)["games"]
    return games[0]


class Camera:
    """One browser page at a fixed size, its settings given, taking pictures into ``out``."""

    def __init__(self, browser: Any, server: Server, out: Path) -> None:
        self.browser = browser
        self.server = server
        self.out = out

    def page(self, settings: dict[str, Any] | None = None, width: int = 1200) -> Any:
        context = self.browser.new_context(
            viewport={"width": width, "height": 860}, locale="en-US", device_scale_factor=1
        )
        if settings is not None:
            context.add_init_script(
                f"localStorage.setItem('chuhan.settings', {json.dumps(json.dumps(settings))})"
            )
        page = context.new_page()
        page.set_default_timeout(60000)
        return page

    def shoot(self, page: Any, name: str, selector: str | None = None) -> None:
        path = self.out / f"{name}.png"
        target = page.locator(selector) if selector else page
        target.screenshot(path=str(path))
        print(path)
        page.context.close()


def at_ply(page: Any, ply: int) -> None:
    """Step the watch view of a replayed game to ``ply`` with the Next button."""
    page.click("#nav-first")
    for _ in range(ply):
        page.click("#nav-next")


def shoot_themes(camera: Camera, games: dict[str, dict[str, Any]]) -> None:
    for game, board, pieces in THEMES:
        page = camera.page({"themes": {game: {"board": board, "pieces": pieces}}}, width=900)
        page.goto(camera.server.url + games[game]["watch_url"])
        page.wait_for_selector("svg.board .piece")
        at_ply(page, 24)  # past the end: the records are shorter, the last move shows
        page.wait_for_timeout(400)  # the last slide
        camera.shoot(page, f"theme-{game}-{board}-{pieces}", "svg.board")


def shoot_home(camera: Camera, games: dict[str, dict[str, Any]]) -> None:
    page = camera.page()
    page.goto(camera.server.url + "/")
    page.wait_for_selector("#home svg.board .piece")
    camera.shoot(page, "home")


def shoot_puzzle(camera: Camera, games: dict[str, dict[str, Any]]) -> None:
    """A janggi mate in 3 with its hint asked for twice (the piece, then the arrow), on a
    streak of four."""
    page = camera.page()
    page.add_init_script(
        "localStorage.setItem('chuhan.puzzles', JSON.stringify({streak: 4, best: 9, solved: []}))"
    )
    page.goto(camera.server.url + "/puzzles/janggi-m3-07")
    page.wait_for_selector("#puzzle svg.board .piece")
    page.click("#puzzle-hint")
    page.click("#puzzle-hint")
    page.wait_for_selector("#puzzle svg.board .shape.auto")
    camera.shoot(page, "puzzle")


def shoot_analysis(camera: Camera, games: dict[str, dict[str, Any]]) -> None:
    """The analysis board after 1. C2=5 H8+7, three lines, once the engine is at depth 8."""
    page = camera.page()
    page.goto(camera.server.url + "/analysis?moves=h2e2,h9g7&multipv=3")
    page.wait_for_function(
        "() => Number((document.querySelector('#engine-depth')?.textContent || '')"
        ".replace(/\\D/g, '')) >= 8",
        timeout=120000,
    )
    camera.shoot(page, "analysis")


def shoot_review(camera: Camera, games: dict[str, dict[str, Any]]) -> None:
    """The imported xiangqi record reviewed: the graph, the marks and the summary, at the
    first move marked worst."""
    page = camera.page()
    page.goto(camera.server.url + games["xiangqi"]["watch_url"])
    page.click("#btn-analysis-board")
    page.wait_for_selector("#review-card:not([hidden])")
    page.click("#review-start")
    page.wait_for_selector("#review-summary:not([hidden])", timeout=600000)
    for mark in ("blunder", "mistake", "inaccuracy"):
        marked = page.query_selector(f"#move-tree .tree-move.mark-{mark}")
        if marked is not None:
            marked.click()
            break
    page.wait_for_timeout(500)
    camera.shoot(page, "review")


SHOTS: dict[str, Callable[[Camera, dict[str, dict[str, Any]]], None]] = {
    "home": shoot_home,
    "puzzle": shoot_puzzle,
    "analysis": shoot_analysis,
    "review": shoot_review,
    "themes": shoot_themes,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("only", nargs="*", help=f"some of the pictures: {', '.join(SHOTS)}")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.only) - set(SHOTS))
    if unknown:
        parser.error(f"no such pictures: {', '.join(unknown)} (there are {', '.join(SHOTS)})")
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "games.db", Path(folder) / "server.log")
        server.start()
        try:
            games = {
                "xiangqi": import_record(server, RECORDS / "xiangqi_iccs.pgn"),
                "janggi": import_record(server, RECORDS / "janggi_utf8.gib"),
            }
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
                )
                camera = Camera(browser, server, args.out)
                for name, shot in SHOTS.items():
                    if not args.only or name in args.only:
                        shot(camera, games)
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

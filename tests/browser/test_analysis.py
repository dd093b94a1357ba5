"""The analysis board in a real browser: opened from a finished game's ply, from a FEN and
from an imported record; free moves grow a move tree (a side line, promoted, deleted), keys
step through it; the engine's lines stream and deepen, three of them when asked, with the
evaluation bar and the best move's arrow; a finished game's review draws its graph and
marks the blunder with the better move; a player of a game in play cannot analyse it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move

from .harness import Player, Server, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

#: A bound on a hang of a whole-game review: the review's work is fixed (node-limited
#: searches, plus a compute worker to start), so its time grows with the machine's load; at
#: a load of about 20 on two CPUs (a CPU-bound loop and other test runs beside the suite)
#: 90 s was not enough.
REVIEW_BOUND_MS = 300_000

MATE_FEN = "3k5/R8/3R5/9/9/9/9/9/9/4K4 w"
#: A blunder on the first move: the chariot's step lets the cannon take the horse on b0.
BLUNDER_LINE = ["a0a2", "b7b0", "h2e2"]


def tree_moves(player: Player) -> list[str]:
    """The moves of the tree as shown, in order (main line and side lines)."""
    texts: list[str] = player.page.eval_on_selector_all(
        "#move-tree .tree-move", "nodes => nodes.map(n => n.dataset.iccs)"
    )
    return texts


def current_move(player: Player) -> str | None:
    node = player.page.query_selector("#move-tree .tree-move.current")
    return None if node is None else node.get_attribute("data-iccs")


def play(player: Player, move: str) -> None:
    """Play an ICCS move on the analysis board by clicking its two squares."""
    page = player.page
    page.wait_for_selector(f'svg.board .piece.movable[data-square="{move[:2]}"]')
    page.mouse.click(*player.point(move[:2]))
    page.wait_for_selector(f'svg.board .dest[data-square="{move[2:]}"]', state="attached")
    page.mouse.click(*player.point(move[2:]))
    page.wait_for_selector(f'#move-tree .tree-move.current[data-iccs="{move}"]')


def depths_seen(player: Player, want: int, seconds: float = 20) -> list[int]:
    """The depths the engine panel shows, until ``want`` different ones (or ``seconds``)."""
    seen: list[int] = []
    for _ in range(int(seconds / 0.25)):
        text = player.page.text_content("#engine-depth") or ""
        match = re.search(r"\d+", text)
        if match and (not seen or seen[-1] != int(match.group())):
            seen.append(int(match.group()))
        if len(seen) >= want:
            break
        player.page.wait_for_timeout(250)
    return seen


def import_record(
    player: Player, tmp_path: Path, moves: list[str], result: str, fen: str | None = None
) -> None:
    record = GameRecord.from_moves(
        [Move.from_iccs(m) for m in moves], fen=fen, headers={"Red": "Alice", "Black": "Bob"}
    )
    record.result = result
    path = tmp_path / "record.pgn"
    path.write_text(write_pgn(record), encoding="utf-8")
    player.goto("/")
    player.page.set_input_files("#import-file", str(path))
    player.page.wait_for_url("**/w/**")
    player.page.wait_for_selector("#banner:not([hidden])")


def test_the_board_opens_at_the_ply_viewed_in_a_finished_game(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    player.goto("/")
    created = player.page.evaluate(
        """async (fen) => (await fetch("/api/games", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({kind: "local", fen})})).json()""",
        MATE_FEN,
    )
    player.goto(created["seat_url"])
    player.page.wait_for_selector("svg.board .piece")
    player.click_move("a8d8")
    page = player.page
    page.wait_for_selector("#btn-analysis-board:not([hidden])")
    page.click("#nav-first")  # view the start position, then open the board there
    page.wait_for_selector("#viewing:not([hidden])")
    page.click("#btn-analysis-board")
    page.wait_for_url("**/analysis?game=*&ply=0")
    page.wait_for_selector("#move-tree .tree-move")
    assert tree_moves(player) == ["a8d8"]
    assert current_move(player) is None  # at the start, before the mate
    page.wait_for_selector("#engine-lines .engine-line")
    assert "#" in (page.text_content("#engine-eval") or "")  # the engine sees the mate
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="a8d8"]')
    page.wait_for_function(
        "() => document.querySelector('#engine-status').textContent.startsWith('Nothing to')"
    )
    assert player.errors == []


def test_a_fen_opens_on_the_board_and_the_engine_streams_three_deepening_lines(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b"
    player.goto(f"/analysis?fen={fen.replace(' ', '%20')}")
    page = player.page
    page.wait_for_selector('svg.board .piece[data-square="e2"]')
    assert page.get_attribute('svg.board .piece[data-square="e2"]', "data-piece") == "C"
    page.select_option("#engine-multipv", "3")
    page.wait_for_function("() => document.querySelectorAll('#engine-lines li').length === 3")
    depths = depths_seen(player, 3)
    assert len(depths) >= 3 and depths == sorted(depths), depths
    scores = page.eval_on_selector_all(".line-score", "nodes => nodes.map(n => n.textContent)")
    assert all(re.fullmatch(r"[+−]\d+\.\d\d|#-?\d+", score) for score in scores), scores
    height = page.eval_on_selector("#eval-fill", "node => node.style.height")
    assert height.endswith("%") and 0 < float(height[:-1]) < 100
    assert page.query_selector("svg.board .hint") is not None  # the best move's arrow
    assert len(page.query_selector_all("svg.board .brush-engine-other")) == 2  # the others
    player.screenshot("analysis-board")
    assert player.errors == []


def test_free_moves_make_a_tree_with_a_side_line_to_promote_and_delete(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    player.goto("/analysis?engine=off")
    page = player.page
    play(player, "h2e2")
    play(player, "h9g7")
    assert tree_moves(player) == ["h2e2", "h9g7"]
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="h2e2"]')
    play(player, "b9c7")  # another reply: a side line
    assert page.query_selector("#move-tree .variation .tree-move[data-iccs='b9c7']")
    assert tree_moves(player) == ["h2e2", "h9g7", "b9c7"]
    assert (page.text_content("#move-tree .tree-move.current") or "").endswith("H2+3")
    page.click("#an-promote")
    assert tree_moves(player) == ["h2e2", "b9c7", "h9g7"]  # now the main line
    assert page.query_selector("#move-tree .variation .tree-move[data-iccs='h9g7']")
    page.keyboard.press("Home")
    page.wait_for_selector("#move-tree .tree-move.current", state="detached")
    page.keyboard.press("End")
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="b9c7"]')
    page.click("#move-tree .tree-move[data-iccs='h9g7']")
    page.click("#an-delete")
    assert tree_moves(player) == ["h2e2", "b9c7"]
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="h2e2"]')
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="b9c7"]')
    assert "moves=h2e2%2Cb9c7" in page.url
    page.reload()  # the address keeps the line shown
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="b9c7"]')
    assert tree_moves(player) == ["h2e2", "b9c7"]
    assert player.errors == []


def test_an_imported_record_is_reviewed_with_a_graph_and_its_blunder_marked(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path
) -> None:
    player = new_player(players, browser, server)
    import_record(player, tmp_path, BLUNDER_LINE, "0-1")
    page = player.page
    page.click("#btn-analysis-board")
    page.wait_for_url("**/analysis?game=*")
    page.wait_for_selector("#review-card:not([hidden])")
    assert page.text_content("#an-bar-bottom .player-name") == "Red · Alice"
    page.click("#review-start")
    page.wait_for_selector("#review-summary:not([hidden])", timeout=REVIEW_BOUND_MS)
    assert page.query_selector("#review-graph svg polyline.graph-line") is not None
    blunder = page.query_selector("#move-tree .tree-move.mark-blunder")
    assert blunder is not None and blunder.get_attribute("data-iccs") == "a0a2"
    assert (blunder.text_content() or "").endswith("??")
    assert page.query_selector(".graph-mark.mark-blunder") is not None
    assert page.text_content(".summary-blunder[data-side=first]") == "1"
    blunder.click()
    comment = page.text_content("#review-comment") or ""
    assert comment.startswith("Blunder (??) — best was ")
    player.screenshot("analysis-review")
    assert player.errors == []


def test_a_move_into_a_forced_mate_is_marked_and_the_mate_said(
    browser: Browser, server: Server, players: list[Player], tmp_path: Path
) -> None:
    # Black, at about -2, plays the elephant a7c5; red mates in 4 starting e7g6 (quiet).
    fen = "5a3/5k3/b3N4/8p/9/7C1/9/9/9/4K4 b - - 0 1"
    line = ["a7c5", "e7g6", "f8f7", "h4f4", "c5e7", "g6e7", "i6i5", "e7f5"]
    player = new_player(players, browser, server)
    import_record(player, tmp_path, line, "1-0", fen)
    page = player.page
    page.click("#btn-analysis-board")
    page.wait_for_url("**/analysis?game=*")
    page.wait_for_selector("#review-card:not([hidden])")
    page.click("#review-start")
    page.wait_for_selector("#review-summary:not([hidden])", timeout=REVIEW_BOUND_MS)
    blunder = page.query_selector("#move-tree .tree-move.mark-blunder")
    assert blunder is not None and blunder.get_attribute("data-iccs") == "a7c5"
    blunder.click()
    comment = page.text_content("#review-comment") or ""
    assert comment.startswith("Blunder (??) — walks into a mate in 4 — best was ")
    assert player.errors == []


def test_a_player_of_a_game_in_play_is_not_offered_analysis(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    player.goto("/")
    created = player.page.evaluate(
        """async () => (await fetch("/api/games", {method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({kind: "friend"})})).json()"""
    )
    player.goto(created["seat_url"])
    page = player.page
    page.wait_for_selector("svg.board .piece")
    assert page.is_hidden("#btn-analysis-board")
    player.goto(f"/analysis?game={created['game_id']}")
    page.wait_for_selector("#an-error:not([hidden])")
    assert page.text_content("#an-error") == (
        "This game is still being played: it can be analysed once it is over."
    )
    assert page.query_selector("#move-tree .tree-move") is None
    assert page.query_selector("#engine-lines .engine-line") is None


def test_the_top_bar_opens_the_analysis_board_in_the_pages_language(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server, locale="ko-KR")
    player.goto("/")
    page = player.page
    assert page.text_content("#nav-analysis") == "분석판"
    page.click("#nav-analysis")
    page.wait_for_url("**/analysis")
    page.wait_for_selector("#engine-lines .engine-line")
    assert page.text_content("#an-promote") == "변화 올리기"
    assert player.errors == []


@pytest.fixture
def brief_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose analysis board gives each position 2 s of engine time."""
    folder = tmp_path_factory.mktemp("brief")
    server = Server(folder / "games.db", folder / "server.log", ("--analysis-seconds", "2"))
    server.start()
    yield server
    server.stop()


def test_the_engine_thinks_longer_when_asked_after_its_time(
    browser: Browser, brief_server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, brief_server)
    player.goto("/analysis?moves=h2e2")
    page = player.page
    page.wait_for_selector("#engine-more:not([hidden])", timeout=60000)
    assert (page.text_content("#engine-status") or "").endswith("done")
    shown = int(re.sub(r"\D", "", page.text_content("#engine-depth") or ""))
    # One click is enough: the engine goes on past its 4 s until it is deeper than shown.
    page.click("#engine-more")
    page.wait_for_selector("#engine-more", state="hidden")
    page.wait_for_selector("#engine-more:not([hidden])", timeout=120000)
    deeper = int(re.sub(r"\D", "", page.text_content("#engine-depth") or ""))
    assert deeper > shown, (shown, deeper)
    assert (page.text_content("#engine-status") or "").endswith("done")
    assert player.errors == []


@pytest.mark.parametrize(
    ("locale", "said", "hover"),
    [
        ("en-US", "the FEN 'rnbakabnr/9 w' is not a position", ""),
        ("zh-CN", "无法读取该 FEN。", "the FEN 'rnbakabnr/9 w' is not a position"),
    ],
)
def test_a_fen_that_cannot_be_read_is_named_and_the_board_starts_from_the_start(
    browser: Browser, server: Server, players: list[Player], locale: str, said: str, hover: str
) -> None:
    player = new_player(players, browser, server, locale=locale)
    player.goto("/analysis?fen=rnbakabnr/9%20w&engine=off")
    page = player.page
    page.wait_for_selector("#an-error:not([hidden])")
    assert said in (page.text_content("#an-error") or "")
    assert hover in (page.get_attribute("#an-error", "title") or "")
    page.wait_for_selector('svg.board .piece[data-square="h2"]')  # the start position
    assert player.errors == []

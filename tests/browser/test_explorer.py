"""The opening explorer on the analysis board in a real browser: the masters' moves from
the start with their counts, a move played by a click, the next position's moves, and a
master game opened from the list with its players, and the server's own games asked
instead (on a small masters' index of the shipped archive's first games:
tests/explorer_sample.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from chuhan import Board
from chuhan.explorer import Explorer

from .harness import Player, Server, new_player

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from explorer_sample import build_sample_index

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_index(tmp_path_factory.mktemp("explorer") / "explorer.sqlite3")


@pytest.fixture
def explorer_server(
    tmp_path_factory: pytest.TempPathFactory, sample_index: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Server]:
    """A server whose masters' index is the sample (the environment names it)."""
    monkeypatch.setenv("CHUHAN_EXPLORER_DB", str(sample_index))
    folder = tmp_path_factory.mktemp("server")
    server = Server(folder / "games.db", folder / "server.log")
    server.start()
    yield server
    server.stop()


def _count_shown(player: Player, iccs: str) -> str:
    selector = f'#explorer-moves tr[data-iccs="{iccs}"] .explorer-count'
    player.page.wait_for_selector(selector)
    return str(player.page.text_content(selector))


def test_the_explorer_plays_into_a_master_game(
    browser: Browser, explorer_server: Server, players: list[Player], sample_index: Path
) -> None:
    with Explorer(sample_index) as explorer:
        start = explorer.lookup(Board())
        after = Board()
        after.push_iccs("h2e2")
        reply = explorer.lookup(after)
    central = next(move for move in start.moves if move.iccs == "h2e2")
    player = new_player(players, browser, explorer_server)
    page = player.page
    player.goto("/analysis?engine=off")

    # The start: 炮二平五 among the moves, with its count and its bar.
    assert _count_shown(player, "h2e2") == f"{central.games:,}"
    button = page.locator('#explorer-moves tr[data-iccs="h2e2"] .explorer-play')
    assert button.text_content() == "炮二平五" or button.text_content() == "C2.5"
    assert page.locator('#explorer-moves tr[data-iccs="h2e2"] .explorer-bar span').count() == 3

    # A click plays it: the tree has it, and the panel shows the next position's moves.
    button.click()
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="h2e2"]')
    best = reply.moves[0]
    assert _count_shown(player, best.iccs) == f"{best.games:,}"
    assert page.locator("#explorer-total").text_content() == f"{reply.games:,} games"

    # A master game from the list opens at the ply where it reached the position, with its
    # players on the bars.
    game = reply.top_games[0]
    page.click(f'#explorer-games .explorer-game[data-id="{game.id}"]')
    page.wait_for_url(f"**/analysis?master={game.id}**")
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="h2e2"]')
    bars = page.locator("#an-bar-bottom .player-name, #an-bar-top .player-name")
    page.wait_for_function(
        "names => [...document.querySelectorAll('.player-name')]"
        ".map(n => n.textContent).join(' ').includes(names[0])",
        arg=[game.red],
    )
    text = " ".join(bars.all_text_contents())
    assert game.red in text and game.black in text

    # The other source: this server's own games, none of which reached this position.
    page.select_option("#explorer-source", "site")
    page.wait_for_function(
        "() => document.getElementById('explorer-status').textContent"
        " === 'No game of this server reached this position.'"
    )
    assert page.locator("#explorer-moves tr").count() == 0
    assert player.errors == []


def test_a_player_searched_in_simplified_characters_opens_his_game(
    browser: Browser, explorer_server: Server, players: list[Player], sample_index: Path
) -> None:
    with Explorer(sample_index) as explorer:
        found = explorer.search(player="楊官璘", limit=20)  # (as many as the page asks)
    assert found.total > 0
    first = found.games[0]
    player = new_player(players, browser, explorer_server)
    page = player.page
    player.goto("/analysis?engine=off")
    page.wait_for_selector('#explorer-moves tr[data-iccs="h2e2"]')

    # The search form, asked in simplified characters for a name stored in traditional.
    page.click("#explorer-search-title")
    page.fill("#explorer-search-player", "杨官璘")
    page.click("#explorer-search-go")
    page.wait_for_function(
        "text => document.getElementById('explorer-search-status').textContent === text",
        arg=f"{found.total:,} games found",
    )
    hits = page.locator("#explorer-search-games .explorer-game")
    assert hits.count() == len(found.games)
    assert "楊官璘" in str(hits.first.text_content())

    # The hit opens the game in the analysis board, its opening named on the game's line.
    hits.first.click()
    page.wait_for_url(f"**/analysis?master={first.id}**")
    opening = first.ecco_opening
    assert opening is not None
    page.wait_for_function(
        "code => document.getElementById('an-master').textContent.includes(code)",
        arg=f"{opening.code} {opening.name_en}",
    )
    page.wait_for_function(
        "name => [...document.querySelectorAll('.player-name')]"
        ".map(n => n.textContent).join(' ').includes(name)",
        arg=first.red,
    )
    assert player.errors == []


@pytest.mark.parametrize(
    ("locale", "shown"),
    [("zh-TW", "D24 順炮直車對橫車 紅過河車"), ("zh-CN", "D24 顺炮直车对横车 红过河车")],
)
def test_the_explorer_names_the_opening_in_the_pages_script(
    browser: Browser, explorer_server: Server, players: list[Player], locale: str, shown: str
) -> None:
    # 炮二平五 炮8平5 马二进三 马8进7 车一平二 车9进1 车二进六: D24, named by its own name
    # in the page's script (a zh-Hant page the traditional one, as ECCO publishes it).
    player = new_player(players, browser, explorer_server, locale=locale)
    player.goto("/analysis?engine=off&moves=h2e2,h7e7,h0g2,h9g7,i0h0,i9i8,h0h6")
    player.page.wait_for_function(
        "text => document.getElementById('explorer-opening').textContent === text", arg=shown
    )
    assert player.errors == []

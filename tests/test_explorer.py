"""The opening explorer (chuhan.explorer): an index built from records written here, its
counts held against counts made another way, duplicates, refusals, and the command line."""

from __future__ import annotations

import json
import random
import tarfile
import zipfile
from collections import defaultdict
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from chuhan import Board
from chuhan.cli import main
from chuhan.explorer import (
    MASTERS,
    SITE,
    Explorer,
    ExplorerError,
    ImportSummary,
    iter_collection,
    kind_of,
    normalize_date,
    normalize_result,
    search_key,
    site_source,
)
from chuhan.records import GameRecord, write_pgn, write_xqf
from chuhan.squares import Move

START = Board().fen()


def _pgn(moves: list[str], *, fen: str | None = None, **tags: str) -> str:
    """A PGN game of ICCS ``moves`` (checked as they are played) with ``tags``."""
    board = Board(fen)
    played = []
    for text in moves:
        played.append(board.push_iccs(text))
    record = GameRecord.from_moves(played, fen=fen, headers=dict(tags))
    return write_pgn(record, format="chinese")


def _write(folder: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


# A Red win and a draw whose first three moves transpose (h2e2 h9g7 b0c2 and
# b0c2 h9g7 h2e2 reach one position), and a Black win after c3c4.
ONE = ["h2e2", "h9g7", "b0c2", "i9h9", "a0b0", "b9c7"]
TWO = ["b0c2", "h9g7", "h2e2", "i9h9", "a0a1"]
THREE = ["c3c4", "g6g5", "b2c2"]


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    """A folder of records: three games, a copy of the first with other tags (traditional
    characters and full-width letters for the simplified ones), a broken record, a midgame
    position filed as the dataset files them, and a game from another position."""
    folder = tmp_path / "club"
    _write(
        folder,
        "one.pgn",
        _pgn(
            ONE,
            Red="杨官璘",
            Black="Hu Ronghua",
            Date="1990.05.01",
            Result="1-0",
            ECCO="",
            Event="全国赛",
        ),
    )
    _write(
        folder,
        "two.pgn",
        _pgn(
            TWO, Red="胡荣华", Black="杨官璘", Date="2000年3月2日", Result="1/2-1/2", Event="全国赛"
        ),
    )
    _write(folder, "three.pgn", _pgn(THREE, Red="吕钦", Black="许银川", Date="2010", Result="0-1"))
    # The first game again, in GB18030 with traditional characters and full-width letters,
    # an ECCO code the first copy lacks, and the dataset's folder of an opening.
    _write(
        folder,
        "Dataset/對局/大師對局/以開局分類/中炮局/copy.pgn",
        _pgn(
            ONE,
            Red="楊官璘",
            Black="Ｈｕ Ｒｏｎｇｈｕａ",
            Date="1990",
            Result="1-0",
            ECCO="C93",
            Event="全國賽",
        ),
        "gb18030",
    )
    # A FEN without a red king, as two files of the dataset have.
    _write(
        folder,
        "broken.pgn",
        '[Game "Chinese Chess"]\n[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/'
        'RNBA1ABNR w - - 0 1"]\n\n1. h2e2 h9g7 *\n',
    )
    midgame = "4k4/9/9/9/9/9/9/9/4R4/4K4 w"
    _write(folder, "Dataset/中局/mid.pgn", _pgn(["e1e8"], fen=midgame, Result="1-0"))
    _write(folder, "other-start.pgn", _pgn(["e1e2"], fen=midgame, Result="1-0"))
    return folder


def _board(*moves: str) -> Board:
    board = Board()
    for text in moves:
        board.push_iccs(text)
    return board


def test_import_counts_games_and_keeps_other_records_apart(
    collection: Path, explorer_index: str
) -> None:
    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([collection])
        assert (summary.files, summary.games, summary.others, summary.duplicates) == (7, 3, 2, 1)
        assert explorer.counts() == {"game": 3, "midgame": 1, "position": 1}
        start = explorer.lookup(Board())
    assert (start.games, start.red_wins, start.draws, start.black_wins) == (3, 1, 1, 1)
    assert [(m.iccs, m.games) for m in start.moves] == [("b0c2", 1), ("c3c4", 1), ("h2e2", 1)]
    assert start.average_year == 2000.0


def test_transpositions_meet_in_one_position(collection: Path, explorer_index: str) -> None:
    with Explorer(explorer_index) as explorer:
        explorer.import_collection([collection])
        stats = explorer.lookup(_board("b0c2", "h9g7", "h2e2"))
    assert stats.games == 2
    assert {(m.iccs, m.red_wins, m.draws) for m in stats.moves} == {("i9h9", 1, 1)}
    assert stats.moves[0].average_year == 1995.0


def test_a_move_is_given_in_every_notation(collection: Path, explorer_index: str) -> None:
    with Explorer(explorer_index) as explorer:
        explorer.import_collection([collection])
        move = explorer.lookup(Board()).moves[2]
    assert (move.iccs, move.wxf, move.chinese) == ("h2e2", "C2.5", "炮二平五")
    assert move.to_json()["iccs"] == "h2e2"


def test_a_duplicate_is_counted_once_and_fills_in_what_the_first_copy_lacks(
    collection: Path, explorer_index: str
) -> None:
    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([collection / "one.pgn", collection / "Dataset"])
        assert (summary.games, summary.duplicates) == (1, 1)
        stats = explorer.lookup(_board(*ONE))
        game = explorer.game(stats.top_games[0].id)
    assert stats.games == 1 and stats.ended == 1
    # The first copy's tags are kept; the ECCO code and the dataset's opening folder come
    # from the second.
    assert (game["red"], game["black"], game["ecco"], game["opening"], game["copies"]) == (
        "杨官璘",
        "Hu Ronghua",
        "C93",
        "中炮局",
        2,
    )
    assert game["moves"] == ONE


def test_importing_a_collection_again_adds_only_duplicates(
    collection: Path, explorer_index: str
) -> None:
    with Explorer(explorer_index) as explorer:
        explorer.import_collection([collection])
        again = explorer.import_collection([collection])
        assert (again.games, again.others, again.duplicates) == (0, 0, 6)
        assert explorer.lookup(Board()).games == 3


def test_a_broken_record_is_refused_and_the_rest_imported(
    collection: Path, explorer_index: str
) -> None:
    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([collection], label="club")
        assert explorer.lookup(Board()).games == 3
        assert explorer.refusals("club") == summary.refused
    assert len(summary.refused) == 1
    refusal = summary.refused[0]
    assert refusal.origin == "broken.pgn"
    assert "king is missing" in refusal.reason


def test_an_import_that_fails_leaves_the_index_as_it_was(
    collection: Path, explorer_index: str
) -> None:
    def fail_on_the_fourth_file(summary: ImportSummary) -> None:
        if summary.files == 4:
            raise KeyboardInterrupt

    with Explorer(explorer_index) as explorer:
        with pytest.raises(KeyboardInterrupt):
            explorer.import_collection([collection], progress=fail_on_the_fourth_file)
        assert explorer.counts() == {}
        assert explorer.lookup(Board()).games == 0
        assert explorer.import_collection([collection]).games == 3


def test_an_import_while_another_writes_is_refused_and_reads_go_on(
    collection: Path, explorer_index: str
) -> None:
    with Explorer(explorer_index) as first, Explorer(explorer_index) as second:
        first.import_collection([collection / "three.pgn"])
        if second._db.dialect == "sqlite":
            second._db.execute("PRAGMA busy_timeout = 0")
        first._db.begin_write()  # an import under way
        try:
            first._db.execute("DELETE FROM positions")  # (not seen until it commits)
            assert second.lookup(Board()).games == 1
            with pytest.raises(ExplorerError, match="another import is writing it"):
                second.import_collection([collection / "one.pgn"])
        finally:
            first._db.rollback()
        assert second.lookup(Board()).games == 1


@pytest.mark.parametrize("suffix", [".zip", ".tar.xz"])
def test_an_archive_imports_as_its_folder_does(
    collection: Path, tmp_path: Path, suffix: str, explorer_index: str
) -> None:
    archive = tmp_path / f"club{suffix}"
    files = sorted(p for p in collection.rglob("*") if p.is_file())
    if suffix == ".zip":
        with zipfile.ZipFile(archive, "w") as out:
            for file in files:
                out.write(file, file.relative_to(collection))
    else:
        with tarfile.open(archive, "w:xz") as out:
            for file in files:
                out.add(file, str(file.relative_to(collection)))
    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([archive])
        assert (summary.files, summary.games, summary.duplicates) == (7, 3, 1)
        assert explorer.counts()["midgame"] == 1


def test_an_xqf_record_imports_as_its_pgn_does(tmp_path: Path, explorer_index: str) -> None:
    record = GameRecord.from_moves([Move.from_iccs(m) for m in ONE], headers={"Result": "1-0"})
    (tmp_path / "one.xqf").write_bytes(write_xqf(record))
    with Explorer(explorer_index) as explorer:
        assert explorer.import_collection([tmp_path / "one.xqf"]).games == 1
        stats = explorer.lookup(_board(*ONE[:2]))
    assert [(m.iccs, m.games, m.red_wins) for m in stats.moves] == [("b0c2", 1, 1)]


def test_a_janggi_position_is_not_asked_of_xiangqi_games(
    collection: Path, explorer_index: str
) -> None:
    with Explorer(explorer_index) as explorer:
        explorer.import_collection([collection])
        with pytest.raises(ExplorerError, match="masters source holds xiangqi games"):
            explorer.lookup(Board(variant="janggi"))


def test_a_position_no_game_reached_has_no_moves(collection: Path, explorer_index: str) -> None:
    with Explorer(explorer_index) as explorer:
        explorer.import_collection([collection])
        stats = explorer.lookup(_board("a3a4"))
    assert (stats.games, stats.moves, stats.top_games) == (0, (), ())


def test_a_janggi_game_is_refused_by_a_xiangqi_source(tmp_path: Path, explorer_index: str) -> None:
    record = GameRecord.from_moves([Move.from_iccs("a3a4")], variant="janggi")
    path = _write(tmp_path, "janggi.pgn", write_pgn(record))
    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([path])
    assert summary.games == 0
    assert "a janggi game; this source holds xiangqi" in summary.refused[0].reason


def test_a_file_that_is_no_record_is_refused_with_its_reason(
    tmp_path: Path, explorer_index: str
) -> None:
    path = _write(tmp_path, "notes.pgn", "")
    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([path])
    assert summary.refused[0].reason == "no game in it"


def test_a_missing_collection_is_an_error(tmp_path: Path, explorer_index: str) -> None:
    with Explorer(explorer_index) as explorer, pytest.raises(ValueError, match="no record file"):
        explorer.import_collection([tmp_path / "missing"])


def test_names_meet_whatever_their_script_and_width() -> None:
    assert search_key("楊官璘") == search_key("杨官璘")
    assert search_key("Ｈｕ  Ｒｏｎｇｈｕａ") == search_key("hu ronghua")
    assert normalize_date("２００７年１月") == "2007-01"
    assert normalize_result("紅勝") == "1-0"


def test_the_dataset_folders_say_the_kind_of_record() -> None:
    assert kind_of("Dataset/對局/電腦對局/人機賽/1.pgn") == ("computer", "")
    assert kind_of("Dataset/殺局_殺法_練習題/1.pgn") == ("exercise", "")
    assert kind_of("Dataset/對局/大師對局/以賽事分類/五羊杯/1.pgn") == ("game", "")


# -- counts held against counts made another way -------------------------------------------


def _random_games(count: int, seed: int) -> list[tuple[list[str], str, int]]:
    """Seeded games (ICCS moves, result, year): one of three openings, two of which
    transpose into each other, then random legal moves."""
    rng = random.Random(seed)
    openings = [["h2e2", "h9g7", "b0c2"], ["b0c2", "h9g7", "h2e2"], ["c3c4", "g6g5"]]
    games = []
    for _ in range(count):
        board = Board()
        moves = list(rng.choice(openings))
        for text in moves:
            board.push_iccs(text)
        for _ in range(rng.randint(0, 40)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(sorted(legal, key=lambda m: m.iccs())[:6])
            board.push(move)
            moves.append(move.iccs())
        games.append((moves, rng.choice(["1-0", "0-1", "1/2-1/2", "*"]), rng.randint(1950, 2013)))
    return games


@pytest.mark.parametrize("merge_rows", [200_000, 40])
def test_counts_agree_with_a_count_made_by_replaying_the_games(
    tmp_path: Path, explorer_index: str, merge_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (40 rows: the counts are merged into the index's rows many times during the import)
    monkeypatch.setattr("chuhan.explorer.index._MERGE_ROWS", merge_rows)
    games = _random_games(60, seed=25)
    texts = []
    for number, (moves, result, year) in enumerate(games):
        texts.append(
            _pgn(moves, Red=f"Red {number}", Black=f"Black {number}", Date=str(year), Result=result)
        )
    # Every fifth game twice more: in the same file and in another, with other tags.
    copies = [
        _pgn(moves, Red=f"Red {number}", Black=f"Black {number}", Date="", Result=result)
        for number, (moves, result, _) in enumerate(games)
        if number % 5 == 0
    ]
    _write(tmp_path, "games.pgn", "\n".join(texts + copies[:3]))
    _write(tmp_path, "more/copies.pgn", "\n".join(copies))

    # The other way: positions keyed by their FEN, games by their number, counted once.
    expected: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for number, (moves, _, _) in enumerate(games):
        board = Board()
        for text in moves:
            expected[" ".join(board.fen().split()[:2])][text].add(number)
            board.push_iccs(text)

    with Explorer(explorer_index) as explorer:
        summary = explorer.import_collection([tmp_path / "games.pgn", tmp_path / "more"])
        assert (summary.games, summary.duplicates) == (len(games), 3 + len(copies))
        for fen, played in expected.items():
            stats = explorer.lookup(Board(fen))
            found = {move.iccs: move for move in stats.moves}
            assert set(found) == set(played), fen
            for text, numbers in played.items():
                results = [games[n][1] for n in numbers]
                years = [games[n][2] for n in numbers]
                move = found[text]
                assert (move.games, move.red_wins, move.draws, move.black_wins) == (
                    len(numbers),
                    results.count("1-0"),
                    results.count("1/2-1/2"),
                    results.count("0-1"),
                ), (fen, text)
                assert move.average_year == round(sum(years) / len(years), 1)
                assert {game.id for game in move.top_games} <= set(range(1, len(games) + 1))
                assert len(move.top_games) == min(len(numbers), 5)


# -- the command line -------------------------------------------------------------------------


def test_the_command_imports_and_answers_in_json(
    collection: Path, explorer_index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    index = explorer_index
    assert main(["explorer", "import", str(collection), "--db", index, "--source", "club"]) == 0
    out, err = capsys.readouterr()
    assert "3 games added" in out and "1 duplicates" in out and "1 refused" in out
    assert "refused broken.pgn: " in err
    args = ["explorer", "--db", index, "--source", "club", "--moves", "h2e2", "--json"]
    assert main(args) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["games"] == 1
    assert answer["moves"][0] | {"top_games": []} == {
        "iccs": "h9g7",
        "wxf": "H8+7",
        "chinese": "馬８進７",
        "games": 1,
        "red_wins": 1,
        "draws": 0,
        "black_wins": 0,
        "average_year": 1990.0,
        "top_games": [],
    }


def test_the_command_says_when_no_game_reached_a_position(
    collection: Path, explorer_index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    index = explorer_index
    main(["explorer", "import", str(collection), "--db", index, "--source", "club"])
    capsys.readouterr()
    assert main(["explorer", "--db", index, "--source", "club", "--moves", "a3a4"]) == 0
    assert "No game of the club reached this position" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--fen", "rnbakabnr/9/9 w"], "invalid FEN"),
        (["--moves", "a0a5"], "--moves 'a0a5'"),
        (["--variant", "janggi"], "the masters are xiangqi games; a janggi position"),
        (["--source", "nowhere"], None),
    ],
)
def test_the_command_answers_bad_questions_with_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str | None
) -> None:
    code = main(["explorer", "--db", str(tmp_path / "index.sqlite3"), *args])
    out, err = capsys.readouterr()
    if said is None:  # a source with no games yet: an empty answer
        assert code == 0 and "No game of the nowhere" in out
    else:
        assert code == 2 and said in err and "Traceback" not in err


# -- reading in worker processes ----------------------------------------------------------


def test_records_read_by_worker_processes_make_the_index_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of 20 files (the first is read here, the rest by two processes), with copies
    # of earlier texts in later batches and a broken file among them.
    monkeypatch.setattr("chuhan.explorer.index._READ_BATCH", 20)
    games = _random_games(30, seed=7)
    folder = tmp_path / "many"
    for number in range(90):
        moves, result, year = games[number % 30]
        text = _pgn(moves[:30], Red=f"Red {number}", Date=str(year), Result=result)
        _write(folder, f"{number:04d}.pgn", text)
        if number % 19 == 0:
            _write(folder, f"{number:04d}-copy.pgn", text)
    _write(folder, "0050-broken.pgn", '[FEN "9/9 w"]\n\n1. h2e2 *\n')

    def index(workers: int) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], int]:
        with Explorer(tmp_path / f"index-{workers}.sqlite3") as explorer:
            summary = explorer.import_collection([folder], workers=workers)
            games_rows = explorer._db.rows(
                "SELECT id, kind, fen, moves, red, date, result, origin, copies FROM games "
                "ORDER BY id"
            )
            positions = explorer._db.rows("SELECT * FROM positions ORDER BY 1, 2, 3")
            return games_rows, positions, len(summary.refused)

    here = index(1)
    assert here == index(2)
    assert len(here[0]) == 90 and here[2] == 1
    assert sum(int(str(row[-1])) for row in here[0]) == 90 + 5  # the five copies counted


def test_an_encoding_given_reads_the_files_in_it(tmp_path: Path, explorer_index: str) -> None:
    _write(tmp_path, "big5.pgn", _pgn(ONE[:2], Red="楊官璘", Black="胡榮華", Result="1-0"), "cp950")
    with Explorer(explorer_index) as explorer:
        explorer.import_files(iter_collection(tmp_path), encoding="cp950")
        game = explorer.game(1)
    assert (game["red"], game["black"]) == ("楊官璘", "胡榮華")


# -- a server's own games -----------------------------------------------------------------


def test_a_servers_games_are_added_as_they_end_and_asked_by_speed_and_band(
    explorer_index: str,
) -> None:
    blitz = site_source("xiangqi", "blitz", "1500-1799")
    rapid = site_source("xiangqi", "rapid", "casual")
    with Explorer(explorer_index) as explorer:
        assert explorer.add_game(blitz, ONE, headers={"Result": "1-0"}, origin="g1")
        assert explorer.add_game(blitz, ONE, headers={"Result": "0-1"}, origin="g2")
        assert explorer.add_game(rapid, TWO, headers={"Result": "1/2-1/2"}, origin="g3")
        assert not explorer.add_game(blitz, ONE, headers={"Result": "1-0"}, origin="g1")
        start = explorer.lookup(Board(), source=SITE)
        assert start.games == 3
        moves = {move.iccs: move for move in start.moves}
        assert (moves["h2e2"].games, moves["h2e2"].red_wins, moves["h2e2"].black_wins) == (2, 1, 1)
        assert moves["b0c2"].draws == 1
        # The two openings transpose: the position after three moves meets all three games.
        assert explorer.lookup(_board(*ONE[:3]), source=SITE).games == 3
        only_rapid = explorer.lookup(_board(*ONE[:3]), source=SITE, speeds=["rapid"])
        assert only_rapid.games == 1 and only_rapid.moves[0].iccs == "i9h9"
        assert explorer.lookup(Board(), source=SITE, bands=["2100+"]).games == 0
        assert explorer.lookup(Board(), source=MASTERS).games == 0


def test_a_servers_janggi_games_are_a_source_of_their_own(explorer_index: str) -> None:
    source = site_source("janggi", "blitz", "casual")
    board = Board(variant="janggi")
    move = sorted(board.legal_moves, key=lambda m: m.iccs())[0]
    with Explorer(explorer_index) as explorer:
        explorer.add_game(
            source, [move.iccs()], variant="janggi", headers={"Result": "1-0"}, origin="j1"
        )
        stats = explorer.lookup(Board(variant="janggi"), source=SITE)
        assert (stats.games, stats.moves[0].iccs) == (1, move.iccs())
        assert explorer.lookup(Board(), source=SITE).games == 0
        with pytest.raises(ExplorerError, match="does not replay"):
            explorer.add_game(source, ["a0a9"], variant="janggi", origin="j2")


class _BrokenPool:
    """A pool whose workers never start (as a script without a main guard makes them)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def submit(self, *args: object) -> Future[object]:
        future: Future[object] = Future()
        future.set_exception(BrokenProcessPool("a worker could not start"))
        return future

    def shutdown(self, **kwargs: object) -> None:
        pass


def test_an_import_whose_workers_cannot_start_reads_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chuhan.explorer.index._READ_BATCH", 10)
    games = _random_games(12, seed=3)
    for number in range(45):
        moves, result, _ = games[number % 12]
        _write(
            tmp_path / "many",
            f"{number:03d}.pgn",
            _pgn(moves[:20], Red=f"R{number}", Result=result),
        )
    with Explorer(":memory:") as explorer:
        here = explorer.import_collection([tmp_path / "many"], workers=1)
    monkeypatch.setattr("chuhan.explorer.index.ProcessPoolExecutor", _BrokenPool)
    with Explorer(":memory:") as explorer:
        broken = explorer.import_collection([tmp_path / "many"], workers=2)
        assert explorer.lookup(Board()).games == 45
    assert (broken.files, broken.games, broken.refused) == (here.files, here.games, here.refused)


def test_an_index_of_another_version_of_the_masters_is_refused_with_the_way_out(
    collection: Path, explorer_index: str
) -> None:
    from chuhan.explorer import open_masters
    from chuhan.explorer.masters import MASTERS_LABEL

    with Explorer(explorer_index) as explorer:
        explorer.import_collection([collection / "one.pgn"], label=MASTERS_LABEL, digest="old")
    way_out = "delete the file" if explorer_index.endswith(".sqlite3") else "drop its schema"
    with pytest.raises(ExplorerError, match=f"another version of the master games: {way_out}"):
        open_masters(explorer_index)
